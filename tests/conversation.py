"""A generated 20-turn conversation in OpenClaw's JSONL shape: greetings, a goal, tool
calls with long results, an error followed by two retries and a fix, preferences and
decisions in both languages, questions and acknowledgements. Used by the summary tests
and by bench/summarize_bench.py."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

PREFERENCES = (
    "我喜欢回答先给结论再给细节，不要长篇大论",
    "I prefer pnpm over npm for every project, please never run npm install",
    "以后提交信息用英文写，正文可以用中文",
)
DECISIONS = (
    "We decided to keep the nightly export on the existing Redis instance with noeviction",
    "决定：报表导出改成异步任务，超时 30 秒",
    "定了：staging 的数据库迁移放在周六早上做",
)
LONG_RESULT = "\n".join(f"line {n}: export_jobs row {n} status=done duration={n * 7} ms" for n in range(60))


def _entry(kind: str, n: int, parent: str | None, when: datetime, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": f"{n:08x}", "parentId": parent, "timestamp": when.isoformat() + "Z", **fields}


def _message(
    role: str, text: str = "", calls: tuple[tuple[str, str], ...] = (), error: bool = False
) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += [
        {"type": "toolCall", "id": f"call-{name}-{path}", "name": name, "arguments": {"path": path}}
        for name, path in calls
    ]
    message: dict[str, Any] = {"role": role, "content": content}
    if error:
        message["isError"] = True
    return message


def twenty_turns() -> list[dict[str, Any]]:
    """The transcript's lines (header first), 20 user turns."""
    start = datetime(2026, 10, 30, 9, 0)
    turns: list[list[dict[str, Any]]] = []
    users = [
        "早上好",
        "帮我把导出服务从轮询改成队列，先看看现在的代码",
        PREFERENCES[0],
        "export worker 现在多久跑一次？",
        DECISIONS[0],
        "好",
        PREFERENCES[1],
        "跑一下测试看看",
        "列个表对比一下两种方案",
        DECISIONS[1],
        "收到",
        "staging 上的 Redis 是哪个版本？",
        PREFERENCES[2],
        "把迁移脚本也写一下",
        DECISIONS[2],
        "ok",
        "还有什么没做完的？",
        "明天提醒我检查一下 staging 的告警",
        "谢谢",
        "今天就到这里",
    ]
    for n, text in enumerate(users):
        turn = [_message("user", text)]
        if n == 1:
            turn += [
                _message("assistant", "我先读一下导出 worker。", (("read", "src/export/worker.ts"),)),
                _message("toolResult", LONG_RESULT),
                _message(
                    "assistant", "现在的 worker 每 2 秒轮询一次 export_jobs 表，多个 pod 会抢同一个任务。"
                ),
            ]
        elif n == 7:
            turn += [
                _message("assistant", "", (("bash", "pnpm test"),)),
                _message(
                    "toolResult", "Error: connect ECONNREFUSED 127.0.0.1:6379\n" + LONG_RESULT, error=True
                ),
                _message(
                    "assistant",
                    "Redis 没有启动，我先启动它再试一次。",
                    (("bash", "docker compose up -d redis"),),
                ),
                _message("toolResult", "Error: bullmq has no default export", error=True),
                _message("assistant", "导入方式不对，改成具名导入再跑。", (("edit", "src/export/queue.ts"),)),
                _message("toolResult", "edited src/export/queue.ts"),
                _message("assistant", "", (("bash", "pnpm test"),)),
                _message("toolResult", "Tests: 48 passed, 48 total\n" + LONG_RESULT),
                _message(
                    "assistant", "Fixed: tests pass after starting Redis and importing { Queue } from bullmq."
                ),
            ]
        elif n == 13:
            turn += [
                _message("assistant", "", (("write", "scripts/migrate-export-jobs.sql"),)),
                _message("toolResult", "wrote scripts/migrate-export-jobs.sql"),
                _message("assistant", "迁移脚本写好了：scripts/migrate-export-jobs.sql，先在 staging 跑。"),
            ]
        else:
            turn.append(
                _message(
                    "assistant",
                    f"好的，明白了。第 {n + 1} 轮的回复：这一步我已经记下，"
                    "接下来继续按计划推进导出服务的改造。",
                )
            )
        turns.append(turn)
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "conv-20", "timestamp": start.isoformat() + "Z"}
    ]
    parent: str | None = None
    n = 0
    for turn in turns:
        for message in turn:
            n += 1
            when = start + timedelta(minutes=n)
            entry = _entry("message", n, parent, when, message=message)
            lines.append(entry)
            parent = entry["id"]
    return lines


def jsonl(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
