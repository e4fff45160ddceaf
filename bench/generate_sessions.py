"""A realistic OpenClaw session store for the flush benchmark (issue 18, point 5).

Writes OpenClaw's default layout under OUT:

    OUT/state/workspace/                 the main agent's workspace (MEMORY.md, memory/)
    OUT/state/agents/main/sessions/      sessions.json (~4 MB, 60 sessions) + JSONL transcripts

shaped like the stores of SESSIONS-FORMAT.md: 2-space JSON whose entries carry the big
blobs real ones do (skillsSnapshot, systemPromptReport: ~65 KB each), absolute
`sessionFile` paths, `totalTokensFresh` booleans; session keys of every kind (main,
Telegram and WhatsApp groups, subagents, cron, heartbeat); transcripts from empty to
1.9 MB, one without its header, `.reset.` and `.deleted.` archives beside them, one
session whose transcript is missing and one whose `sessionFile` is an absolute path from
another machine (a restored backup) while the file of that name is in the folder.

Nothing is due: every session is below its flush threshold, or was flushed in its
current compaction cycle, or is a cron or heartbeat session. A flush must decide that
from the store's numbers and the transcripts' sizes alone.

    python bench/generate_sessions.py OUT [--sessions 60] [--store-mb 4]

`--portable` leaves out the one restored-backup path (the code before issue 18 stopped
on it with exit 3, so it could not be timed on the full store).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

NOW = datetime(2026, 10, 31, 1, 0, tzinfo=UTC)  # 09:00 in Shanghai, the benchmark's --now
NOW_MS = int(NOW.timestamp() * 1000)
WINDOW = 200_000
THRESHOLD = WINDOW - 20_000 - 4_000

WORDS = (
    "deploy atlas queue redis export worker staging config port build lint review schedule "
    "metrics grafana alert oncall migration schema index cache backup restore token budget "
    "部署 队列 配置 端口 构建 评审 监控 告警 值班 迁移 索引 缓存 备份 恢复 预算"
).split()


def sentence(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words))


def iso(moment: datetime) -> str:
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def blob(rng: random.Random, chars: int) -> str:
    out: list[str] = []
    size = 0
    while size < chars:
        line = sentence(rng, 12) + "\n"
        out.append(line)
        size += len(line)
    return "".join(out)


def transcript(rng: random.Random, session_id: str, target: int, header: bool = True) -> bytes:
    """JSONL lines as OpenClaw writes them, about `target` bytes."""
    if target == 0:
        return b""
    at = NOW - timedelta(days=2)
    lines: list[str] = []
    if header:
        head = {"type": "session", "version": 3, "id": session_id, "timestamp": iso(at), "cwd": "/home/lin"}
        lines.append(json.dumps(head))
    parent: str | None = None
    size = sum(len(line) + 1 for line in lines)
    n = 0
    while size < target:
        n += 1
        at += timedelta(seconds=rng.randint(5, 90))
        entry_id = f"{rng.getrandbits(32):08x}"
        role = ("user", "assistant", "toolResult")[n % 3]
        text = sentence(rng, rng.randint(5, 60))
        if role == "toolResult":
            text = blob(rng, rng.randint(200, 4000))
        message: dict[str, Any] = {
            "role": role,
            "content": [{"type": "text", "text": text}],
            "timestamp": int(at.timestamp() * 1000),
        }
        if role == "assistant":
            message.update(
                api="anthropic-messages",
                provider="anthropic",
                model="claude-sonnet-4-5",
                usage={
                    "input": 1200,
                    "output": 80,
                    "cacheRead": 150_000,
                    "cacheWrite": 500,
                    "totalTokens": 151_780,
                },
                stopReason="stop",
            )
        line = json.dumps(
            {"type": "message", "id": entry_id, "parentId": parent, "timestamp": iso(at), "message": message},
            ensure_ascii=False,
        )
        parent = entry_id
        lines.append(line)
        size += len(line.encode("utf-8")) + 1
    return ("\n".join(lines) + "\n").encode("utf-8")


def key_of(rng: random.Random, n: int) -> str:
    kinds = (
        "agent:main:main",
        f"agent:main:telegram:direct:{5550000 + n}",
        f"agent:main:telegram:group:@team{n}",
        f"agent:main:whatsapp:group:1203630{n:05d}@g.us",
        f"agent:main:subagent:{uuid.UUID(int=rng.getrandbits(128))}",
        f"agent:main:cron:{uuid.UUID(int=rng.getrandbits(128))}",
        "agent:main:heartbeat",
    )
    return kinds[0] if n == 0 else kinds[6] if n == 1 else kinds[1 + n % 5]


def entry_for(
    rng: random.Random, n: int, session_id: str, session_file: str, per_entry: int
) -> dict[str, Any]:
    """A session entry, never due: below its threshold, or flushed in its current cycle."""
    cycle = rng.randint(0, 4)
    flushed_this_cycle = n % 3 == 0
    tokens = rng.randint(THRESHOLD + 1, WINDOW) if flushed_this_cycle else rng.randint(2_000, THRESHOLD - 1)
    entry: dict[str, Any] = {
        "sessionId": session_id,
        "updatedAt": NOW_MS - rng.randint(60_000, 86_400_000),
        "sessionFile": session_file,
        "systemSent": True,
        "abortedLastRun": False,
        "chatType": "group" if "group" in key_of(random.Random(n), n) else "direct",
        "channel": "telegram",
        "model": "claude-sonnet-4-5",
        "modelProvider": "anthropic",
        "inputTokens": rng.randint(100, 3000),
        "outputTokens": rng.randint(10, 900),
        "cacheRead": rng.randint(0, 180_000),
        "cacheWrite": rng.randint(0, 2_000),
        "totalTokens": tokens,
        "totalTokensFresh": n % 7 != 5,  # every seventh is stale: its size must rule it out
        "contextTokens": WINDOW,
        "compactionCount": cycle,
        "skillsSnapshot": {
            "prompt": blob(rng, per_entry * 6 // 10),
            "skills": [{"name": f"skill-{i}", "path": f"/home/lin/.openclaw/skills/s{i}"} for i in range(12)],
            "version": 3,
        },
        "systemPromptReport": {
            "source": "run",
            "generatedAt": NOW_MS - 3_600_000,
            "sessionId": session_id,
            "provider": "anthropic",
            "model": "claude-sonnet-4-5",
            "workspaceDir": "/home/lin/.openclaw/workspace",
            "bootstrapMaxChars": 20_000,
            "systemPrompt": {"chars": 41_234, "text": blob(rng, per_entry * 3 // 10)},
            "injectedWorkspaceFiles": [
                {
                    "name": name,
                    "path": f"/home/lin/.openclaw/workspace/{name}",
                    "missing": False,
                    "rawChars": 4000,
                }
                for name in ("AGENTS.md", "SOUL.md", "USER.md", "MEMORY.md")
            ],
        },
    }
    if flushed_this_cycle:
        entry["memoryFlushAt"] = NOW_MS - rng.randint(3_600_000, 40_000_000)
        entry["memoryFlushCompactionCount"] = cycle
    return entry


def generate(out: Path, sessions: int = 60, store_mb: float = 4.0, portable: bool = False) -> dict[str, Any]:
    rng = random.Random(18)
    state = out / "state"
    if out.exists():
        shutil.rmtree(out)
    folder = state / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    workspace = state / "workspace"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## Preferences\n\n- I prefer pnpm over npm\n- 部署前先跑 lint\n", encoding="utf-8"
    )
    (workspace / "memory" / "2026-10-30.md").write_text("# 2026-10-30\n\n- deployed atlas 3.1\n", "utf-8")
    per_entry = int(store_mb * 860_000 / sessions) - 3_000  # characters: CJK ones take 3 bytes
    store: dict[str, Any] = {}
    transcript_bytes = 0
    for n in range(sessions):
        session_id = str(uuid.UUID(int=rng.getrandbits(128)))
        name = f"{session_id}.jsonl"
        session_file = str(folder / name)
        if n == 7 and not portable:  # a restored backup: another machine's home, same file name
            session_file = f"/Users/someone-else/.openclaw/agents/main/sessions/{name}"
        key = key_of(rng, n)
        while key in store:
            key = f"{key}:{n}"
        store[key] = entry_for(rng, n, session_id, session_file, per_entry)
        size = (0, 0, 1_900_000, 1_200_000)[n] if n < 4 else rng.choice((8_000, 40_000, 120_000, 400_000))
        if n == 9:
            continue  # its transcript is missing
        data = transcript(rng, session_id, size, header=n != 11)
        (folder / name).write_bytes(data)
        transcript_bytes += len(data)
        if n % 10 == 4:  # earlier windows, archived by /new and deletion
            stamp = "2026-10-20T08-00-00.000Z"
            (folder / f"{name}.reset.{stamp}").write_bytes(transcript(rng, session_id, 30_000))
            (folder / f"{name}.deleted.{stamp}").write_bytes(transcript(rng, session_id, 10_000))
    text = json.dumps(store, indent=2, ensure_ascii=False) + "\n"
    (folder / "sessions.json").write_text(text, encoding="utf-8")
    (folder / "sessions.json").chmod(0o600)
    return {
        "state": str(state),
        "workspace": str(workspace),
        "store": str(folder / "sessions.json"),
        "sessions": sessions,
        "store_bytes": len(text.encode("utf-8")),
        "transcript_bytes": transcript_bytes,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--store-mb", type=float, default=4.0)
    parser.add_argument("--portable", action="store_true", help="no restored-backup path (for old code)")
    args = parser.parse_args()
    print(json.dumps(generate(args.out, args.sessions, args.store_mb, args.portable), indent=2))


if __name__ == "__main__":
    main()
