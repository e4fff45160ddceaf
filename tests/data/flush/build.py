# ruff: noqa: E501
"""Writes the labelled transcripts flush is measured on (`tests/test_flush_quality.py`,
`bench/flush_quality.py`): OpenClaw JSONL transcripts and, beside them, `labels.json`.

Each message of each transcript is labelled with its kind and the durable items it should
yield: the words an item flush writes must hold (a part of the message, as the speaker
wrote it). What a person would keep: the user's preferences and rules, decisions in force,
facts about their environment, people and projects, lessons, and what they ask to be
remembered. What flush must never write: envelopes and metadata, system, subagent,
heartbeat and cron prompts, tool calls and their output, the assistant's narration of its
own work, connection events, secrets; and nothing that only holds for today.

Two sets, written by hand: `dev/` (the rules were developed on it) and `heldout/` (written
after, in other words and on other channels, to see whether the rules generalise).

    python tests/data/flush/build.py        # rewrites dev/ and heldout/

The texts are invented; the secrets are fake, assembled here from pieces so that this file
holds none.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# Kinds that yield items, and kinds that never do.
DURABLE = ("preference", "rule", "decision", "environment", "person", "project", "lesson", "remember")
NEVER = (
    "envelope",  # chat envelope or metadata only
    "system",  # a system prompt OpenClaw injects (memory flush, media instructions)
    "subagent",  # a subagent's context or its completion announcement
    "heartbeat",  # the heartbeat prompt and its reply
    "cron",  # a cron job's prompt
    "tool-call",  # an assistant turn that only calls tools
    "tool-output",  # a tool result
    "narration",  # the assistant narrating its own work
    "report",  # the assistant reporting what it did or found
    "connection",  # gateway connect / disconnect events
    "secret",  # holds a credential
    "question",
    "request",  # a one-off request
    "ack",  # an acknowledgement, thanks
    "chatter",  # greetings, sign-offs
    "transient",  # true for today only: a plan, a reminder, a status
    "repeat",  # says again what this session already said
    "content",  # a draft, a table, a code block the assistant wrote
)


def _id(name: str, n: int) -> str:
    return hashlib.sha1(f"{name}:{n}".encode()).hexdigest()[:8]


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass
class Chat:
    """One transcript being written, with its labels."""

    name: str
    session: str
    language: str
    start: datetime
    cwd: str = "/home/user"
    lines: list[dict[str, Any]] = field(default_factory=list)
    labels: list[dict[str, Any]] = field(default_factory=list)
    clock: datetime | None = None
    parent: str | None = None
    n: int = 0

    def __post_init__(self) -> None:
        self.clock = self.start
        head = {
            "type": "session",
            "version": 3,
            "id": str(_uuid(self.name)),
            "timestamp": _iso(self.start),
            "cwd": self.cwd,
        }
        self.lines.append(head)
        self._entry("model_change", provider="anthropic", modelId="claude-sonnet-4-5")
        self._entry("thinking_level_change", thinkingLevel="low")

    def _entry(self, kind: str, **fields: Any) -> dict[str, Any]:
        assert self.clock is not None
        self.n += 1
        self.clock += timedelta(seconds=17 + (self.n * 37) % 140)
        entry = {
            "type": kind,
            "id": _id(self.name, self.n),
            "parentId": self.parent,
            "timestamp": _iso(self.clock),
            **fields,
        }
        self.lines.append(entry)
        self.parent = entry["id"]
        return entry

    def _message(
        self, role: str, content: list[dict[str, Any]], kind: str, items: tuple[str, ...], **more: Any
    ) -> str:
        assert kind in DURABLE or kind in NEVER, kind
        assert bool(items) == (kind in DURABLE), (kind, items)
        assert self.clock is not None
        stamp = int((self.clock + timedelta(seconds=1)).timestamp() * 1000)
        entry = self._entry("message", message={"role": role, "content": content, "timestamp": stamp, **more})
        text = "\n".join(p["text"] for p in content if p.get("type") == "text")
        for item in items:
            assert item in text, (self.name, item)
        self.labels.append({"id": entry["id"], "role": role, "kind": kind, "items": list(items)})
        return str(entry["id"])

    def user(self, text: str, kind: str, *items: str) -> str:
        return self._message("user", [{"type": "text", "text": text}], kind, items)

    def say(
        self,
        text: str,
        kind: str = "narration",
        *items: str,
        calls: tuple[tuple[str, dict[str, Any]], ...] = (),
    ) -> str:
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        for n, (name, args) in enumerate(calls):
            content.append(
                {
                    "type": "toolCall",
                    "id": f"toolu_{_id(self.name, self.n * 10 + n)}",
                    "name": name,
                    "arguments": args,
                }
            )
        usage = {"input": 1200 + 7 * self.n, "output": 40 + len(text) // 4, "cacheRead": 0, "cacheWrite": 0}
        return self._message(
            "assistant",
            content,
            kind,
            items,
            api="anthropic-messages",
            provider="anthropic",
            model="claude-sonnet-4-5",
            usage=usage,
            stopReason="toolUse" if calls else "stop",
        )

    def tool(
        self,
        name: str,
        args: dict[str, Any],
        result: str,
        error: bool = False,
        text: str = "",
        kind: str = "",
    ) -> None:
        """An assistant turn calling one tool (with `text` before the call), and its result."""
        self.say(text, kind or ("tool-call" if not text else "narration"), calls=((name, args),))
        call = self.lines[-1]["message"]["content"][-1]["id"]
        self._message(
            "toolResult",
            [{"type": "text", "text": result}],
            "tool-output",
            (),
            toolCallId=call,
            toolName=name,
            isError=error,
        )

    def write(self, folder: Path) -> dict[str, Any]:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.name}.jsonl"
        path.write_text(
            "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines), encoding="utf-8"
        )
        return {
            "file": path.name,
            "session": self.session,
            "language": self.language,
            "messages": self.labels,
        }


def _uuid(name: str) -> str:
    h = hashlib.sha1(name.encode()).hexdigest()
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-8{h[17:20]}-{h[20:32]}"


# --- envelopes, as OpenClaw wraps an inbound message -----------------------------------------


def webchat(text: str, when: str, conversation: bool = False, ident: str = "") -> str:
    """The control UI's envelope: sender metadata (and conversation info), then the time."""
    blocks = []
    if conversation:
        blocks.append(
            "Conversation info (untrusted metadata):\n```json\n"
            + json.dumps(
                {
                    "message_id": ident or "msg_" + hashlib.sha1(text.encode()).hexdigest()[:6],
                    "sender_id": "openclaw-control-ui",
                    "was_mentioned": False,
                },
                indent=2,
            )
            + "\n```"
        )
    blocks.append(
        'Sender (untrusted metadata):\n```json\n{\n  "label": "openclaw-control-ui",\n  "id": "openclaw-control-ui"\n}\n```'
    )
    return "\n\n".join(blocks) + f"\n\n[{when}] {text}"


def feishu(text: str, when: str, sender: str, open_id: str, msg: str, system: str = "") -> str:
    """A Feishu DM: OpenClaw's system line naming the channel, then the message id."""
    head = f"System: [{when}] Feishu[default] DM | {sender} ({open_id}) [msg:{msg}]"
    if system:
        head = system + "\n" + head
    return f"{head}\n\n{text}\n[message_id: {msg}]"


def telegram(text: str, when: str, system: str = "") -> str:
    body = f"[Telegram Dana Kim (@danak) id:88120455 +2m {when}] {text}"
    return f"{system}\n\n{body}" if system else body


def discord(text: str, who: str, when: str, mentioned: bool = False) -> str:
    meta = json.dumps(
        {
            "message_id": hashlib.sha1(text.encode()).hexdigest()[:18],
            "group_subject": "#infra",
            "was_mentioned": mentioned,
        },
        indent=2,
        ensure_ascii=False,
    )
    return (
        f"Conversation info (untrusted metadata):\n```json\n{meta}\n```\n\n"
        f"[Discord Guild #infra channel id:1029384756 +1m {when}] {who}: {text}"
    )


HEARTBEAT = (
    "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old "
    "tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK."
)
FLUSH_PROMPT = (
    "Pre-compaction memory flush. Store durable memories now (use memory/{day}.md; create memory/ if "
    "needed). IMPORTANT: If the file already exists, APPEND new content only and do not overwrite existing "
    "entries. If nothing to store, reply with NO_REPLY."
)
MEDIA_NOTE = (
    "To send an image back, prefer the message tool (media/path/filePath). If you must inline, use "
    "MEDIA:https://example.com/image.jpg (spaces ok, quote if needed) or a safe relative path like "
    "MEDIA:./image.jpg. Avoid absolute paths (MEDIA:~/...) and `..` — they are blocked for security. Keep "
    "caption in the text body."
)
SUBAGENT_CONTEXT = (
    "[Subagent Context] You are running as a subagent (depth 1/1). Results auto-announce to your requester; "
    "do not busy-poll for status."
)
ANNOUNCE_TAIL = (
    "A completed subagent task is ready for user delivery. Convert the result above into your normal "
    "assistant voice and send that user-facing update now. Keep this internal context private (don't "
    "mention system/log/stats/session details or announce type)."
)


def _fake(*parts: str) -> str:
    """A fake credential, assembled from pieces (this file holds none whole)."""
    return "".join(parts)


# --- the dev set ----------------------------------------------------------------------------


def en_webchat_shipyard() -> Chat:
    c = Chat(
        "en-webchat-shipyard", "agent:main:main", "en", datetime(2026, 10, 28, 8, 10), "/Users/maya/shipyard"
    )
    w = "Wed 2026-10-28 09:{:02d} GMT+1"
    c.user(webchat("morning! picking up the deploy pipeline for shipyard today", w.format(10)), "chatter")
    c.tool(
        "read",
        {"path": "/Users/maya/shipyard/.github/workflows/deploy.yml"},
        "name: deploy\non:\n  push:\n    branches: [main]\n# never deploy on a red build\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: heroku container:push web -a shipyard\n",
        text="Morning! Let me look at the current GitHub Actions workflow first.",
    )
    c.say(
        "The workflow builds the Docker image and pushes it to Heroku on every push to main. There's no staging step and no migration step yet.",
        "report",
    )
    c.user(
        webchat(
            "Right. We're moving off Heroku: decided last week to go with Fly.io, the Heroku bill doubled.",
            w.format(14),
        ),
        "decision",
        "decided last week to go with Fly.io",
    )
    c.user(
        webchat(
            "Some context about my setup: I'm on an M2 MacBook Air with macOS 15, and I use OrbStack instead of Docker Desktop.",
            w.format(15),
        ),
        "environment",
        "I'm on an M2 MacBook Air with macOS 15",
        "I use OrbStack instead of Docker Desktop",
    )
    c.say(
        "Got it, M2 on macOS 15 with OrbStack. I'll make sure the image builds for linux/amd64 as well as arm64.",
        "ack",
    )
    c.tool(
        "exec",
        {"command": "fly launch --no-deploy --name shipyard-staging --region ams"},
        "Scanning source code\nDetected a Django app\nCreated app 'shipyard-staging' in organization 'personal'\nWrote config file fly.toml",
    )
    c.say("The staging app is created; nothing is deployed yet.", "report")
    c.user(
        webchat(
            "Never deploy to production on Fridays. That's a hard rule for the whole team.", w.format(19)
        ),
        "rule",
        "Never deploy to production on Fridays",
    )
    c.user(
        webchat(
            "Also please always run the migrations as a separate release command, not inside the web process.",
            w.format(20),
        ),
        "preference",
        "always run the migrations as a separate release command",
    )
    c.tool(
        "edit",
        {
            "path": "/Users/maya/shipyard/fly.toml",
            "oldText": "[http_service]",
            "newText": '[deploy]\n  release_command = "python manage.py migrate --noinput"\n\n[http_service]',
        },
        "Successfully replaced text in /Users/maya/shipyard/fly.toml.",
        text="Makes sense. I'll add a `release_command` to fly.toml.",
    )
    c.user(webchat("can you show me the diff?", w.format(22)), "question")
    c.say('```diff\n+[deploy]\n+  release_command = "python manage.py migrate --noinput"\n```', "content")
    c.user(webchat("looks good", w.format(23)), "ack")
    c.user(
        webchat(
            "Who to ask: Priya owns the billing service, so anything touching the Stripe webhooks goes through her first.",
            w.format(25),
            conversation=True,
        ),
        "person",
        "Priya owns the billing service",
    )
    c.user(
        webchat("and Tom handles DNS at Cloudflare. He's in Lisbon, an hour behind me.", w.format(26)),
        "person",
        "Tom handles DNS at Cloudflare",
    )
    c.tool(
        "exec",
        {"command": "fly secrets list -a shipyard-staging"},
        "NAME          \tDIGEST          \tCREATED AT\nDATABASE_URL  \t8c1f0a2e6b7d93c4\t2m ago\nSECRET_KEY    \t41d9e0b7a3c2f815\t2m ago",
        text="Let me check whether the Stripe key is already set on Fly.",
    )
    c.say("It isn't set yet. Do you want me to copy it from Heroku?", "question")
    c.user(
        webchat(
            "yes, use this one for staging: "
            + _fake("sk_", "test_", "51Hq8vT2eKcW9", "xYz4Lm0Np7Rs3Tu6Vw1", "Ab5Cd8Ef2Gh")
            + " and keep it out of git",
            w.format(29),
        ),
        "secret",
    )
    c.tool(
        "exec",
        {"command": "fly secrets set STRIPE_API_KEY=*** -a shipyard-staging"},
        "Secrets are staged for the first deployment",
    )
    c.say("Done, the key is staged on Fly.", "report")
    c.tool(
        "exec",
        {"command": "pytest tests/test_webhooks.py -q"},
        "..F.........\nFAILED tests/test_webhooks.py::test_duplicate_event - django.db.utils.IntegrityError: duplicate key value violates unique constraint\n1 failed, 11 passed in 3.21s",
        error=True,
        text="Now test with edge cases: an empty payload, a duplicate event id and an expired signature.",
    )
    c.tool(
        "edit",
        {
            "path": "/Users/maya/shipyard/billing/webhooks.py",
            "oldText": "event = Event.objects.create(",
            "newText": "event, created = Event.objects.get_or_create(",
        },
        "Successfully replaced text in /Users/maya/shipyard/billing/webhooks.py.",
        text="The duplicate event test fails: we insert the event before checking whether it exists. Let me fix that.",
    )
    c.tool("exec", {"command": "pytest tests/test_webhooks.py -q"}, "............\n12 passed in 3.02s")
    c.say("All 12 webhook tests pass now.", "report")
    c.say(
        "Lesson for next time: Stripe retries a webhook for up to three days, so every handler has to be idempotent on the event id.",
        "lesson",
        "Stripe retries a webhook for up to three days",
    )
    c.user(
        webchat(
            "good catch. remember that webhook handlers must be idempotent on the event id, for every provider, not just Stripe.",
            w.format(41),
        ),
        "remember",
        "webhook handlers must be idempotent on the event id",
    )
    c.user(webchat("what's the health check path fly uses?", w.format(43)), "question")
    c.tool(
        "read",
        {"path": "/Users/maya/shipyard/fly.toml"},
        '[[http_service.checks]]\n  grace_period = "10s"\n  interval = "30s"\n  method = "GET"\n  path = "/healthz"\n  timeout = "5s"',
    )
    c.say(
        "Found the problem: the check in fly.toml points at a path the app doesn't serve. Fixing it now.",
        "narration",
    )
    c.user(
        webchat(
            "For the record, staging lives at https://shipyard-staging.fly.dev and prod will be https://app.shipyard.io once DNS moves.",
            w.format(47),
        ),
        "environment",
        "staging lives at https://shipyard-staging.fly.dev",
    )
    c.user(webchat("Let's not bother with a CDN for now.", w.format(48)), "transient")
    c.user(
        webchat(
            "I prefer small PRs with one concern each, so please split the Fly migration into three: config, CI, DNS.",
            w.format(50),
        ),
        "preference",
        "I prefer small PRs with one concern each",
    )
    c.say("Sure. I'll open the config PR first.", "narration")
    c.tool(
        "exec",
        {"command": "gh pr create --title 'Fly.io config' --body 'Part 1 of 3'"},
        "https://github.com/mayak/shipyard/pull/214",
    )
    c.say("PR #214 is up: https://github.com/mayak/shipyard/pull/214", "report")
    c.user(webchat("thanks!", w.format(53)), "ack")
    c.user(
        webchat(
            "One more thing: our Postgres is on Neon, project `shipyard-prod` in eu-central-1. Staging uses a Neon branch of it.",
            w.format(55),
        ),
        "environment",
        "our Postgres is on Neon",
    )
    c.say("Noted. I'll wire DATABASE_URL from the Neon branch for staging.", "ack")
    c.user(webchat("hmm, CI is red again", w.format(57)), "transient")
    c.tool(
        "exec",
        {"command": "gh run view --log-failed"},
        "build-arm64\tdocker buildx\tERROR: failed to solve: write /var/lib/docker/tmp: no space left on device",
        text="Let me check the logs.",
    )
    c.say(
        "The runner ran out of disk while building the arm64 image. I'll switch the build to depot.dev's remote builder.",
        "narration",
    )
    c.user(
        webchat(
            "No, don't add another vendor. Build amd64 only in CI; arm64 is only for my laptop.",
            "Wed 2026-10-28 10:01 GMT+1",
        ),
        "decision",
        "don't add another vendor",
        "Build amd64 only in CI",
    )
    c.say("OK, amd64 only in CI.", "ack")
    c.user(FLUSH_PROMPT.format(day="2026-10-28"), "system")
    c.say("NO_REPLY", "system")
    c.user(
        webchat("Btw I use pnpm for the frontend bits, never npm or yarn.", "Wed 2026-10-28 10:09 GMT+1"),
        "preference",
        "I use pnpm for the frontend bits, never npm or yarn",
    )
    c.user(
        webchat(
            "Also: always run the migrations as a separate release command.", "Wed 2026-10-28 10:10 GMT+1"
        ),
        "repeat",
    )
    c.user(webchat("ok that's it for today, thanks", "Wed 2026-10-28 10:12 GMT+1"), "chatter")
    return c


def zh_feishu_payments() -> Chat:
    c = Chat(
        "zh-feishu-payments",
        "agent:main:feishu:dm:ou_3f9a2c7d81e04b6f",
        "zh",
        datetime(2026, 10, 29, 6, 0),
        "/home/wanglei/ops",
    )
    n = [0]

    def u(text: str, kind: str, *items: str, system: str = "") -> None:
        n[0] += 1
        when = f"2026-10-29 14:{n[0] * 2:02d}:11 GMT+8"
        c.user(
            feishu(text, when, "王磊", "ou_3f9a2c7d81e04b6f", f"om_x100b5e2a9c{n[0]:02d}", system),
            kind,
            *items,
        )

    u("下午好，今天主要排查一下支付回调偶发超时的问题", "chatter")
    c.tool(
        "exec",
        {"command": "kubectl logs deploy/pay-gateway -n payment --since=2h | grep -c 'callback timeout'"},
        "37",
        text="好的，我先看一下最近的网关日志。",
    )
    c.say("过去两小时有 37 次回调超时，全部集中在 14:00–14:20，和 SLB 健康检查失败的时间吻合。", "report")
    u(
        "先说一下环境：我们生产是阿里云 ACK，K8s 1.29，节点都在杭州 cn-hangzhou-h 可用区。",
        "environment",
        "我们生产是阿里云 ACK，K8s 1.29",
    )
    u("支付网关是张伟负责的，改他的服务之前一定要先在群里跟他确认。", "person", "支付网关是张伟负责的")
    c.say("明白，改 pay-gateway 之前先找张伟确认。", "ack")
    c.tool(
        "exec",
        {
            "command": "aliyun slb DescribeHealthCheckAttribute --LoadBalancerId lb-bp1o94dp5i6ea --ListenerPort 443"
        },
        '{"HealthCheckTimeout": 2, "HealthCheckInterval": 2, "UnhealthyThreshold": 3, "HealthyThreshold": 3, "HealthCheckURI": "/actuator/health"}',
        text="我来看看 SLB 的健康检查配置。",
    )
    c.say("健康检查超时是 2 秒，间隔 2 秒，连续 3 次失败就摘除节点。GC 停顿一长节点就会被摘掉。", "report")
    u(
        "对，这个坑我们以前踩过：SLB 健康检查默认超时只有 2 秒，Java 服务 Full GC 一下就被摘了。",
        "lesson",
        "SLB 健康检查默认超时只有 2 秒",
    )
    u("决定：健康检查超时改成 5 秒，不健康阈值改成 5 次。", "decision", "健康检查超时改成 5 秒")
    c.say("好的，我现在去改。", "narration")
    c.tool(
        "exec",
        {
            "command": "aliyun slb SetHealthCheckAttribute --LoadBalancerId lb-bp1o94dp5i6ea --HealthCheckTimeout 5 --UnhealthyThreshold 5"
        },
        '{"RequestId": "5E3A1C2B-8D4F-4A6E-9B0C-7F1D2E3A4B5C"}',
    )
    c.say("已经改好了，新的配置已生效。", "report")
    u("以后回复我先给结论，再给细节，别一上来就贴一大段日志。", "preference", "以后回复我先给结论，再给细节")
    c.say("收到，以后先说结论。", "ack")
    u(
        "顺便说一下，日志我们已经统一迁到 Loki 了，不要再去 ELK 里查。",
        "decision",
        "日志我们已经统一迁到 Loki 了",
        system="System: [2026-10-29 14:31:05 GMT+8] Feishu gateway reconnected (ws).",
    )
    c.tool(
        "exec",
        {"command": 'logcli query \'{app="pay-gateway"} |= "Full GC"\' --since=2h --limit=200'},
        "2026-10-29T14:03:11 [Full GC (Allocation Failure) 3.8s]\n2026-10-29T14:11:42 [Full GC (Allocation Failure) 6.1s]",
        text="好的，我到 Loki 里查一下 GC 日志。",
    )
    c.say("Full GC 平均 3.8 秒，最长 6.1 秒，超过了原来 2 秒的健康检查超时。", "report")
    u("JVM 参数你看下，现在是 -Xmx4g，换 G1 有没有用？", "question")
    c.say("可以试试。G1 的停顿一般能压到 200ms 以内。要我改 deployment 吗？", "question")
    u("先别改生产。周五下午不许发版，这是铁律。", "rule", "周五下午不许发版")
    u(
        "记住：所有生产变更都要走变更单，变更单系统是 https://change.corp.example.cn 。",
        "remember",
        "所有生产变更都要走变更单",
    )
    c.say("记住了。我先在 staging 上改成 G1 试一下。", "narration")
    c.tool(
        "edit",
        {
            "path": "/home/wanglei/ops/k8s/staging/pay-gateway.yaml",
            "oldText": "-XX:+UseParallelGC",
            "newText": "-XX:+UseG1GC -XX:MaxGCPauseMillis=200",
        },
        "Successfully replaced text in /home/wanglei/ops/k8s/staging/pay-gateway.yaml.",
    )
    c.tool(
        "exec",
        {"command": "kubectl apply -f k8s/staging/pay-gateway.yaml"},
        "deployment.apps/pay-gateway configured",
    )
    c.say("staging 已经切到 G1，观察半小时看看。", "transient")
    u("staging 数据库的密码是 " + _fake("Hz8#", "kq2L", "m9vT") + "，别外传", "secret")
    c.say("收到。", "ack")
    u(
        "另外我们的 Redis 是阿里云的 Tair 企业版，内网地址 r-bp1f3c2a7d9e4b.redis.rds.aliyuncs.com:6379。",
        "environment",
        "我们的 Redis 是阿里云的 Tair 企业版",
    )
    c.say("好的，记下了 Tair 的内网地址。", "ack")
    u("你觉得回调超时要不要加重试？", "question")
    c.say("建议加：回调失败后按 1s、5s、30s 退避重试三次，并且用订单号做幂等。", "report")
    u("可以，就这么定：回调重试三次，退避 1s/5s/30s，订单号做幂等键。", "decision", "回调重试三次")
    c.tool(
        "edit",
        {
            "path": "/home/wanglei/ops/docs/pay-callback.md",
            "oldText": "## 重试",
            "newText": "## 重试\n- 三次，退避 1s/5s/30s\n- 幂等键：订单号",
        },
        "Successfully replaced text in /home/wanglei/ops/docs/pay-callback.md.",
        text="好的，我写到设计文档里。",
    )
    c.user(HEARTBEAT, "heartbeat")
    c.say("HEARTBEAT_OK", "heartbeat")
    u("staging 观察下来 GC 停顿都在 150ms 以内，效果不错。", "transient")
    u(
        "经验记一下：Java 服务上 K8s，健康检查超时至少要比最长 GC 停顿长一倍。",
        "lesson",
        "健康检查超时至少要比最长 GC 停顿长一倍",
    )
    c.say("好的，已记下这条经验。", "ack")
    u("明天上午十点跟张伟过一下 G1 的方案。", "transient")
    c.say("好的，明天十点提醒你。", "ack")
    u("今天先这样，辛苦", "chatter")
    return c


def en_telegram_home() -> Chat:
    c = Chat(
        "en-telegram-home",
        "agent:main:telegram:direct:88120455",
        "en",
        datetime(2026, 10, 27, 23, 0),
        "/Users/dana",
    )
    c.user(
        telegram(
            "hey, can you help me plan meals for next week?",
            "Tue 2026-10-27 19:04 EDT",
            "System: [2026-10-27 19:00:02 EDT] Telegram gateway connected.",
        ),
        "request",
    )
    c.say("Of course! Any dietary constraints I should know about?", "question")
    c.user(
        telegram(
            "I'm vegetarian (no fish either), and Sam, my partner, is allergic to peanuts, so no peanut anything.",
            "Tue 2026-10-27 19:06 EDT",
        ),
        "person",
        "I'm vegetarian",
        "Sam, my partner, is allergic to peanuts",
    )
    c.say("Got it: vegetarian, no fish, and strictly peanut-free for Sam.", "ack")
    c.user(
        telegram(
            "We cook dinner at home Monday to Thursday; Fridays we eat out.", "Tue 2026-10-27 19:07 EDT"
        ),
        "person",
        "We cook dinner at home Monday to Thursday",
    )
    c.say(
        "Here's a draft plan:\n\n| Day | Dinner |\n|---|---|\n| Mon | Chickpea curry |\n| Tue | Mushroom risotto |\n| Wed | Black bean tacos |\n| Thu | Tofu stir-fry (no peanut sauce) |",
        "content",
    )
    c.user(telegram("perfect. put the shopping list in my Notes", "Tue 2026-10-27 19:10 EDT"), "request")
    c.tool(
        "apple_notes", {"action": "create", "title": "Groceries week 44"}, '{"ok": true, "id": "note-5512"}'
    )
    c.say('Added "Groceries week 44" to Notes.', "report")
    c.user(
        "[cron:5b1e0c3a-77d2-4c1e-9a0b-2f6d1c8e4a90 morning-brief] Prepare Dana's morning brief: weather for Brooklyn, today's calendar, and the three most important unread emails. Keep it under 150 words and never include email bodies.",
        "cron",
    )
    c.tool("weather", {"location": "Brooklyn, NY"}, '{"temp_c": 12, "summary": "clear", "high_c": 16}')
    c.tool(
        "calendar",
        {"range": "today"},
        '[{"title": "Team sync", "start": "10:00"}, {"title": "Dentist", "start": "15:30"}]',
    )
    c.say(
        "Good morning Dana! ☀️ 12°C and clear in Brooklyn. Today: team sync at 10, dentist at 3:30pm. Top emails: the landlord about the boiler, your flight receipt, and the school newsletter.",
        "report",
    )
    c.user(
        telegram(
            "thanks. btw I run every morning at 6, so don't schedule anything before 7:30am.",
            "Wed 2026-10-28 07:41 EDT",
        ),
        "preference",
        "don't schedule anything before 7:30am",
    )
    c.user(
        telegram(
            "Also I prefer aisle seats on flights, and I always fly JetBlue out of JFK when I can.",
            "Wed 2026-10-28 07:42 EDT",
        ),
        "preference",
        "I prefer aisle seats on flights",
        "I always fly JetBlue out of JFK",
    )
    c.say("Noted: aisle seats, JetBlue from JFK when possible, and nothing before 7:30am.", "ack")
    c.user(
        telegram("remind me tomorrow at 9 to call the dentist about the crown", "Wed 2026-10-28 07:45 EDT"),
        "transient",
    )
    c.tool(
        "cron",
        {"action": "add", "at": "2026-10-29T09:00:00-04:00", "text": "Call the dentist about the crown"},
        '{"id": "job-8812", "status": "scheduled"}',
    )
    c.say("Reminder set for tomorrow at 9:00.", "report")
    c.user(HEARTBEAT, "heartbeat")
    c.say("HEARTBEAT_OK", "heartbeat")
    c.user(
        "[media attached: /Users/dana/.openclaw/media/inbound/3f2c9a.jpg (image/jpeg) | /Users/dana/.openclaw/media/inbound/3f2c9a.jpg]\n"
        + MEDIA_NOTE
        + "\n"
        + telegram(
            "this is our new wifi router, the admin page is at 192.168.50.1", "Wed 2026-10-28 18:20 EDT"
        ),
        "environment",
        "the admin page is at 192.168.50.1",
    )
    c.say("Nice, that looks like an ASUS RT-AX88U. Want me to note the admin address?", "question")
    c.user(
        telegram(
            "yes. and the wifi password is " + _fake("Maple", "-Harbor", "-2291"), "Wed 2026-10-28 18:22 EDT"
        ),
        "secret",
    )
    c.say("I won't keep the password in your notes, but I noted the router's admin address.", "ack")
    c.user(
        telegram(
            "fair. We decided on Lisbon for the March trip; flights around the 14th, and Sam wants a place in Alfama.",
            "Wed 2026-10-28 18:30 EDT",
        ),
        "decision",
        "We decided on Lisbon for the March trip",
    )
    c.say("Lovely choice! Shall I start looking at apartments in Alfama?", "question")
    c.user(telegram("not yet, I'll tell you when", "Wed 2026-10-28 18:31 EDT"), "chatter")
    c.user(
        "[Queued messages while agent was busy]\n\n---\nQueued #1\n"
        + telegram("my mom's birthday is June 3rd, she loves orchids", "Wed 2026-10-28 21:40 EDT")
        + "\n\n---\nQueued #2\n"
        + telegram("please remember that one", "Wed 2026-10-28 21:40 EDT"),
        "person",
        "my mom's birthday is June 3rd",
    )
    c.say("Saved: your mom's birthday is June 3rd and she loves orchids. 🌸", "ack")
    c.user(
        telegram(
            "Sam's work schedule: he's a nurse at NYU Langone, nights Wed to Sat.", "Wed 2026-10-28 21:45 EDT"
        ),
        "person",
        "he's a nurse at NYU Langone",
    )
    c.say("Thanks, I'll keep that in mind when planning.", "ack")
    c.user(
        telegram(
            "good night!",
            "Wed 2026-10-28 22:16 EDT",
            "System: [2026-10-28 22:15:40 EDT] Telegram gateway disconnected (code 1006); reconnecting in 5s.\nSystem: [2026-10-28 22:15:46 EDT] Telegram gateway connected.",
        ),
        "connection",
    )
    c.say("Good night, Dana! 🌙", "chatter")
    return c


def zh_webchat_writing() -> Chat:
    c = Chat(
        "zh-webchat-writing", "agent:main:main", "zh", datetime(2026, 10, 29, 12, 0), "/Users/linxiao/notes"
    )
    k = [0]

    def u(text: str, kind: str, *items: str) -> None:
        k[0] += 1
        c.user(
            webchat(
                text, f"Thu 2026-10-29 20:{k[0] * 2:02d} GMT+8", conversation=True, ident=f"msg_7c{k[0]:02d}"
            ),
            kind,
            *items,
        )

    u("帮我看看这周公众号写什么选题", "request")
    c.tool(
        "read",
        {"path": "/Users/linxiao/notes/drafts/stats-2026-10.csv"},
        "期号,标题,阅读,在看\n41,RAG 评测入门,12034,311\n42,五款笔记工具横评,4120,52\n43,提示词不是魔法,6870,140",
        text="好的，我先看看你最近几期的阅读数据。",
    )
    c.say("最近三期里，讲 RAG 评测的那期阅读最高（1.2 万），工具测评类明显偏低。", "report")
    u("公众号叫「慢读笔记」，每周三晚上八点更新，这个固定不变。", "project", "每周三晚上八点更新")
    u("写作风格上：不要用感叹号，也不要用“赋能”“抓手”这类词。", "preference", "不要用感叹号")
    c.say("明白，不用感叹号，避开这些套话。", "ack")
    u("引用论文的时候一定要给出处链接，最好是 arXiv 的 abs 页面。", "rule", "引用论文的时候一定要给出处链接")
    c.tool(
        "web_search",
        {"query": "RAG evaluation metrics survey 2026"},
        '[{"title": "Evaluating Retrieval-Augmented Generation: A Survey", "url": "https://arxiv.org/abs/2405.07437"}, {"title": "RAGAS", "url": "https://arxiv.org/abs/2309.15217"}]',
        text="好的。我来搜一下最近关于 RAG 评测的论文。",
    )
    c.tool(
        "sessions_spawn",
        {"task": "整理 RAG 评测论文的要点", "label": "rag-eval-papers"},
        '{"status": "accepted", "childSessionKey": "agent:main:subagent:9b2f41d0-6c1e-4a5b-8e2f-0d3c7a1b9e64"}',
        text="我派了一个子任务去整理这几篇论文的要点，稍等。",
    )
    u("好", "ack")
    c.user(
        '[System Message] [sessionId: 9b2f41d0-6c1e-4a5b-8e2f-0d3c7a1b9e64] A subagent task "rag-eval-papers" just completed successfully.\n\n'
        "Result:\n1. RAGAS 仍是最常用的评测框架，核心指标是忠实度和答案相关性。\n2. 检索侧一般看召回率和 MRR。\n3. 人工评测必须有统一的打分标准。\n\n"
        "Stats: runtime 2m41s • tokens 38.5k (in 33.1k / out 5.4k)\n\n" + ANNOUNCE_TAIL,
        "subagent",
    )
    c.say(
        "论文整理好了，主要结论有三点：RAGAS 最常用；检索侧看召回率和 MRR；人工评测要有统一标准。", "report"
    )
    u(
        "选题定了：这期写「RAG 评测该看哪些指标」，工具测评先不写了。",
        "decision",
        "选题定了：这期写「RAG 评测该看哪些指标」",
    )
    u(
        "配图我一般用 Midjourney 生成，尺寸 16:9，统一加一个浅灰色边框。",
        "preference",
        "配图我一般用 Midjourney 生成",
    )
    c.say("好的，记住了配图规范。", "ack")
    u(
        "学到一个：公众号正文里的图片宽度超过 1080 像素会被压缩得很糊，上传前先缩到 1080。",
        "lesson",
        "图片宽度超过 1080 像素会被压缩",
    )
    c.say("这个很实用。我来写一下这期的大纲。", "narration")
    c.say(
        "大纲如下：\n1. 为什么 RAG 需要单独评测\n2. 检索侧指标：召回率、MRR\n3. 生成侧指标：忠实度、相关性\n4. 端到端：人工评测怎么做\n5. 小结",
        "content",
    )
    u(
        "第三部分加一个例子。另外我的读者大多是产品经理，技术细节点到为止。",
        "person",
        "我的读者大多是产品经理",
    )
    c.say("好的，第三部分我加一个客服问答的例子。", "narration")
    c.tool(
        "write",
        {
            "path": "/Users/linxiao/notes/drafts/2026-11-04-rag-eval.md",
            "content": "# RAG 评测该看哪些指标\n\n……",
        },
        "Successfully wrote 4812 bytes to /Users/linxiao/notes/drafts/2026-11-04-rag-eval.md",
    )
    c.say("初稿写好了，放在 drafts/2026-11-04-rag-eval.md。", "report")
    u("我看了，开头太长了，砍掉一半", "request")
    c.tool(
        "edit",
        {"path": "/Users/linxiao/notes/drafts/2026-11-04-rag-eval.md", "oldText": "……", "newText": "……"},
        "Successfully replaced text in /Users/linxiao/notes/drafts/2026-11-04-rag-eval.md.",
    )
    c.say("已经把开头压缩到三段。", "report")
    u("以后初稿都放 drafts 目录，文件名用「日期-英文短标题」的格式。", "rule", "以后初稿都放 drafts 目录")
    c.say("好的，以后按这个格式命名。", "ack")
    u("我先去吃饭，晚点继续", "chatter")
    c.say("好的，回来继续。", "chatter")
    u("对了，排版我现在用的是秀米，不用 135 编辑器了。", "environment", "排版我现在用的是秀米")
    u("记一下", "ack")
    c.say("记下了：排版用秀米。", "ack")
    return c


def en_subagent_pricing() -> Chat:
    c = Chat(
        "en-subagent-pricing",
        "agent:main:subagent:4be1c0de-2f3a-4b5c-9d8e-7f6a5b4c3d2e",
        "en",
        datetime(2026, 10, 28, 9, 30),
        "/Users/maya/shipyard",
    )
    c.user(
        SUBAGENT_CONTEXT
        + "\n\n[Subagent Task]: Compare the monthly price of Fly.io, Render and Railway for a Django app with one web machine (1 vCPU, 1 GB), one worker and a 10 GB Postgres. Always cite the pricing page URL. Return a table.",
        "subagent",
    )
    c.tool(
        "web_fetch",
        {"url": "https://fly.io/docs/about/pricing/"},
        "shared-cpu-1x 1GB: $5.70/mo ... Managed Postgres Basic: $38/mo ...",
    )
    c.tool(
        "web_fetch",
        {"url": "https://render.com/pricing"},
        "Starter instance 512 MB: $7/mo; Standard 2 GB: $25/mo; Postgres Basic-1gb: $19/mo ...",
    )
    c.say("Let me also check Railway's usage-based pricing.", "narration")
    c.tool(
        "web_fetch",
        {"url": "https://railway.com/pricing"},
        "Hobby: $5/mo including $5 usage. vCPU $20/mo, memory $10/GB/mo, volume $0.15/GB/mo",
    )
    c.say("I have all three. Now I'll compute the totals for the requested shape.", "narration")
    c.say(
        "| Provider | Web | Worker | Postgres 10 GB | Total / month |\n|---|---|---|---|---|\n| Fly.io | $5.70 | $5.70 | $38.00 | $49.40 |\n| Render | $25.00 | $25.00 | $19.00 | $69.00 |\n| Railway | ~$30 | ~$30 | ~$1.50 | ~$61.50 |\n\nSources: https://fly.io/docs/about/pricing/, https://render.com/pricing, https://railway.com/pricing",
        "content",
    )
    c.say("Fly.io is the cheapest for this shape at about $49 a month.", "report")
    return c


def mixed_discord_infra() -> Chat:
    c = Chat(
        "mixed-discord-infra",
        "agent:main:discord:group:1029384756",
        "mixed",
        datetime(2026, 10, 29, 10, 0),
        "/srv/clawd",
    )
    t = "Thu 2026-10-29 10:{:02d} UTC"
    c.user(
        discord(
            "@clawd can you summarize what broke in last night's deploy?",
            "Ben Ortiz (ben.o)",
            t.format(2),
            True,
        ),
        "request",
    )
    c.tool(
        "exec",
        {"command": "argocd app history orders-api --output wide | tail -3"},
        "ID  DATE                  REVISION  STATUS\n41  2026-10-29 02:14 UTC  8f2c1d0   Failed: ImagePullBackOff (orders-api:1.42.0 not found)",
        text="Let me pull the deploy history from ArgoCD.",
    )
    c.say(
        "Last night's sync of `orders-api` failed at 02:14 UTC: the new image tag didn't exist in the registry yet because the build job was still running. ArgoCD retried and gave up after 5 attempts.",
        "report",
    )
    c.user(
        discord(
            "this keeps happening. Decision: image tags are only bumped by CI after the push succeeds, never by hand.",
            "Alice Chen (alice.chen)",
            t.format(6),
        ),
        "decision",
        "image tags are only bumped by CI after the push succeeds",
    )
    c.user(
        discord(
            "同意。另外提醒一下，我们的 Harbor 仓库地址是 harbor.internal.example.com，项目名 platform，别推到 Docker Hub。",
            "小周 (zhou.y)",
            t.format(7),
        ),
        "environment",
        "我们的 Harbor 仓库地址是 harbor.internal.example.com",
    )
    c.say("Got it: Harbor at harbor.internal.example.com, project `platform`.", "ack")
    c.user(discord("who's on call this week?", "Ben Ortiz (ben.o)", t.format(9)), "question")
    c.tool(
        "read",
        {"path": "/srv/clawd/oncall/schedule.yaml"},
        "- week: 2026-W44\n  primary: zhou.y\n- week: 2026-W45\n  primary: alice.chen",
    )
    c.say("This week it's 小周, next week Alice.", "report")
    c.user(
        discord(
            "fyi 小周 owns the Kafka clusters, I own ArgoCD and the Helm charts. Ping the owner before changing anything.",
            "Alice Chen (alice.chen)",
            t.format(12),
        ),
        "person",
        "小周 owns the Kafka clusters",
        "I own ArgoCD and the Helm charts",
    )
    c.user(
        "System: [2026-10-29 10:20:14 UTC] Discord gateway disconnected (1006). Reconnecting…\nSystem: [2026-10-29 10:20:19 UTC] Discord gateway connected as clawd#4821.",
        "connection",
    )
    c.user(
        discord(
            "踩过的坑记一下：ArgoCD 的 auto-sync 遇到不存在的镜像 tag 会无限重试，得配 retry.limit。",
            "Ben Ortiz (ben.o)",
            t.format(22),
        ),
        "lesson",
        "ArgoCD 的 auto-sync 遇到不存在的镜像 tag 会无限重试",
    )
    c.tool(
        "edit",
        {
            "path": "/srv/clawd/gitops/apps/orders-api.yaml",
            "oldText": "syncPolicy:",
            "newText": "syncPolicy:\n    retry:\n      limit: 3",
        },
        "Successfully replaced text in /srv/clawd/gitops/apps/orders-api.yaml.",
        text="Good point. I'll add `retry.limit: 3` to the Application spec.",
    )
    c.tool(
        "exec",
        {"command": "helm template gitops/apps | grep -A3 retry"},
        "    retry:\n      limit: 3\n      backoff:\n        duration: 5s",
        text="Now let me verify the change renders correctly.",
    )
    c.say("Rendered fine: `retry.limit` is 3 with exponential backoff.", "report")
    c.user(discord("👍", "Alice Chen (alice.chen)", t.format(27)), "ack")
    c.user(
        discord(
            "staging cluster is k3s on 3 Hetzner CX32 boxes, prod is EKS 1.30 in us-east-1. Putting that here since people keep asking.",
            "Ben Ortiz (ben.o)",
            t.format(30),
        ),
        "environment",
        "staging cluster is k3s on 3 Hetzner CX32 boxes",
    )
    c.user(
        discord("@clawd 以后在这个频道回复都用英文，方便 Ben 看。", "小周 (zhou.y)", t.format(31), True),
        "preference",
        "以后在这个频道回复都用英文",
    )
    c.say("Understood. I'll reply in English in #infra from now on.", "ack")
    c.user(
        discord("can you open a ticket for the retry.limit change?", "Alice Chen (alice.chen)", t.format(33)),
        "request",
    )
    c.tool(
        "exec",
        {"command": "linear issue create --team INFRA --title 'ArgoCD retry.limit for orders-api'"},
        "Created INFRA-482",
    )
    c.say("Created INFRA-482.", "report")
    c.user(
        discord(
            "the GitHub token for the bot is "
            + _fake("gh", "p_", "R7kX2mQ9vL4tW8nZ", "c3Yb6Hj1Fd5Gs0Pa", "Qe4U")
            + " keep it handy",
            "Ben Ortiz (ben.o)",
            t.format(36),
        ),
        "secret",
    )
    c.say(
        "Please don't paste tokens in the channel; I'd rotate that one. I haven't saved it anywhere.", "ack"
    )
    c.user(discord("oops, rotating now", "Ben Ortiz (ben.o)", t.format(38)), "chatter")
    return c


# --- the held-out set (written after the rules were developed on the dev set) ----------------


def slack(text: str, when: str) -> str:
    meta = json.dumps(
        {"message_id": "1698" + hashlib.sha1(text.encode()).hexdigest()[:6], "channel_type": "im"}, indent=2
    )
    return (
        f"Conversation info (untrusted metadata):\n```json\n{meta}\n```\n\n"
        f"[Slack Priya Raman (U04QX7H2LM) +1m {when}] {text}"
    )


def en_slack_dataeng() -> Chat:
    c = Chat(
        "en-slack-dataeng",
        "agent:main:slack:dm:u04qx7h2lm",
        "en",
        datetime(2026, 11, 2, 17, 0),
        "/home/priya/analytics",
    )
    w = "Mon 2026-11-02 {} PST"
    c.user(
        slack("hey, the nightly dbt run took forever last night, can you dig in?", w.format("09:02")),
        "request",
    )
    c.tool(
        "http_get",
        {"url": "https://cloud.getdbt.com/api/v2/accounts/4411/runs/?job_definition_id=9032&limit=5"},
        '{"data": [{"id": 771203, "duration_humanized": "2 hours, 41 minutes", "status_humanized": "Success"}, {"id": 770981, "duration_humanized": "38 minutes"}]}',
        text="Sure, checking the run history in dbt Cloud.",
    )
    c.say(
        "Last night's run took 2h 41m against the usual 38m. Almost all of it was `fct_orders`, which did a full refresh.",
        "report",
    )
    c.user(
        slack(
            "ugh. context: our warehouse is Snowflake, account `acme-eu` in AWS eu-west-1, and dbt Cloud runs the jobs, not Airflow.",
            w.format("09:07"),
        ),
        "environment",
        "our warehouse is Snowflake",
    )
    c.user(
        slack(
            "fct_orders should never full-refresh on a schedule. Only when someone runs it by hand with a ticket.",
            w.format("09:08"),
        ),
        "rule",
        "fct_orders should never full-refresh on a schedule",
    )
    c.say(
        "That explains it: the nightly job has `--full-refresh` in its command. I'll remove the flag.",
        "narration",
    )
    c.tool(
        "http_patch",
        {
            "url": "https://cloud.getdbt.com/api/v2/accounts/4411/jobs/9032/",
            "body": {"execute_steps": ["dbt build"]},
        },
        '{"status": {"code": 200}}',
    )
    c.say("Removed. Tonight's run should be back to normal.", "report")
    c.user(slack("thanks 🙏", w.format("09:12")), "ack")
    c.user(
        slack(
            "Going forward, any change to a production job goes through a PR in the `analytics-jobs` repo, no clicking around in the UI.",
            w.format("09:13"),
        ),
        "rule",
        "any change to a production job goes through a PR in the `analytics-jobs` repo",
    )
    c.say("Understood. Want me to open a PR that mirrors the change I just made?", "question")
    c.user(slack("yes please", w.format("09:15")), "request")
    c.tool(
        "exec",
        {"command": "gh pr create -R acme/analytics-jobs --title 'nightly: drop --full-refresh'"},
        "https://github.com/acme/analytics-jobs/pull/88",
    )
    c.say("Opened https://github.com/acme/analytics-jobs/pull/88.", "report")
    c.user(
        slack(
            "Heads up: Marcus is the Snowflake admin, so warehouse sizing and credits are his call.",
            w.format("09:20"),
        ),
        "person",
        "Marcus is the Snowflake admin",
    )
    c.user(
        slack(
            "and I'm based in Denver, so my mornings are Mountain time. Don't book anything with me before 9 MT.",
            w.format("09:21"),
        ),
        "person",
        "I'm based in Denver",
        "Don't book anything with me before 9 MT",
    )
    c.say("Got it, Denver, and no meetings before 9 MT.", "ack")
    c.user(
        slack(
            "[Replying to Clawd id:1698765432.001]\nOpened https://github.com/acme/analytics-jobs/pull/88.\n[/Replying]\n"
            "merged. TIL the dbt Cloud API silently ignores unknown fields in a job PATCH, so a typo in a field name just does nothing.",
            w.format("09:40"),
        ),
        "lesson",
        "the dbt Cloud API silently ignores unknown fields in a job PATCH",
    )
    c.say("Good to know. I'll double-check field names against the API schema from now on.", "ack")
    c.user(
        slack("Also the BI tool is Looker; dashboards refresh at 7am UTC.", w.format("09:42")),
        "environment",
        "the BI tool is Looker",
    )
    c.user(
        slack(
            "Let's use the XS warehouse for ad-hoc queries from the agent. Bigger ones need Marcus's ok.",
            w.format("09:44"),
        ),
        "decision",
        "use the XS warehouse for ad-hoc queries from the agent",
    )
    c.tool(
        "snowflake_query",
        {
            "sql": "select sum(credits_used) from snowflake.account_usage.warehouse_metering_history where start_time >= current_date - 1"
        },
        "SUM(CREDITS_USED)\n312.4",
        text="Will do. Running a quick check of yesterday's credit usage.",
    )
    c.say("Yesterday used 312 credits, about 260 of them from the full refresh.", "report")
    c.user(
        slack(
            "ok. one more: the agent's service account is `svc_clawd` and its password is "
            + _fake("Qv7!", "rT2x", "Lp9w"),
            w.format("09:50"),
        ),
        "secret",
    )
    c.say("I won't repeat that password anywhere. Consider moving it to the secrets manager.", "ack")
    c.user(
        "<relevant-memories>\n- Priya prefers short Slack replies\n- Warehouse: Snowflake account acme-eu\n</relevant-memories>\n\n"
        + slack("what did we decide about the staging schema?", w.format("10:05")),
        "question",
    )
    c.say("We agreed staging uses a separate schema per developer, prefixed with their username.", "report")
    c.user(
        slack("right. keep replies in this DM short, bullet points are fine.", w.format("10:06")),
        "preference",
        "keep replies in this DM short",
    )
    c.say("👍", "ack")
    c.user(slack("I'll be out Thursday and Friday.", w.format("10:10")), "transient")
    c.say("Noted, I'll hold non-urgent things until Monday.", "ack")
    c.user(slack("bye!", w.format("10:11")), "chatter")
    return c


def dingtalk(text: str, who: str, when: str) -> str:
    return f"[DingTalk 产品周会群 (cid4KqZ7w) +2m {when}] {who}: {text}"


def zh_dingtalk_product() -> Chat:
    c = Chat(
        "zh-dingtalk-product",
        "agent:main:dingtalk:group:cid4kqz7w",
        "zh",
        datetime(2026, 11, 3, 7, 0),
        "/home/bot/pm",
    )
    k = [0]

    def u(text: str, who: str, kind: str, *items: str) -> None:
        k[0] += 1
        c.user(dingtalk(text, who, f"Tue 2026-11-03 15:{k[0] * 2:02d} GMT+8"), kind, *items)

    u("@小助手 帮我把上周的用户反馈整理一下", "刘畅", "request")
    c.tool(
        "dingtalk_sheet",
        {"action": "read", "sheet": "用户反馈-2026W44"},
        "日期,类型,原话\n10-26,导出慢,导出一个月的流水要等十分钟\n10-27,登录掉线,iOS 上过一会就要重新登录\n…(共 86 行)",
        text="稍等，我先拉一下反馈表。",
    )
    c.say("上周一共 86 条反馈，最多的是导出慢（21 条）和登录掉线（14 条）。", "report")
    u(
        "我们的产品是面向中小商户的收银 SaaS，叫「小铺通」，目前付费商户 3200 家左右。",
        "刘畅",
        "project",
        "我们的产品是面向中小商户的收银 SaaS",
    )
    u(
        "补充：导出慢是老问题，根因是报表服务还跑在单机 MySQL 上，大商户一导出就锁表。",
        "陈静",
        "lesson",
        "根因是报表服务还跑在单机 MySQL 上",
    )
    c.say("明白了。", "ack")
    u("定一下：Q4 的头号优先级是导出性能，登录问题排第二。", "刘畅", "decision", "Q4 的头号优先级是导出性能")
    u("同意", "陈静", "ack")
    u(
        "以后整理反馈都按这个格式：问题、数量、代表性原话、建议负责人，做成表格。",
        "刘畅",
        "rule",
        "以后整理反馈都按这个格式",
    )
    c.say("好的，我按这个格式重新整理。", "narration")
    c.say(
        "| 问题 | 数量 | 代表性原话 | 建议负责人 |\n|---|---|---|---|\n| 导出慢 | 21 | 导出一个月的流水要等十分钟 | 陈静 |\n| 登录掉线 | 14 | iOS 上过一会就要重新登录 | 待定 |",
        "content",
    )
    u("登录掉线那个我来跟，是 token 续期的 bug，iOS 端 3.8.2 引入的。", "王浩", "transient")
    u("王浩是移动端负责人，iOS 和安卓都归他。", "刘畅", "person", "王浩是移动端负责人")
    c.say("收到，已把登录问题的负责人标为王浩。", "ack")
    u("提醒一下大家，对外发版说明里不要出现内部工单号。", "陈静", "rule", "对外发版说明里不要出现内部工单号")
    c.user(
        "System: [2026-11-03 15:20:44 GMT+8] DingTalk stream disconnected, reconnecting...\nSystem: [2026-11-03 15:20:47 GMT+8] DingTalk stream connected.",
        "connection",
    )
    u("下周三之前把反馈报告发给老板。", "刘畅", "transient")
    c.say("好的，我周二晚上把报告草稿发到群里。", "ack")
    u(
        "我们的报表服务是 Java 写的，数据库是 MySQL 5.7，部署在腾讯云广州。",
        "陈静",
        "environment",
        "我们的报表服务是 Java 写的",
    )
    u(
        "踩坑提醒：腾讯云 MySQL 5.7 的只读实例有复制延迟，报表别直接读主库，也别指望只读实例是实时的。",
        "刘畅",
        "lesson",
        "腾讯云 MySQL 5.7 的只读实例有复制延迟",
    )
    c.say("这个我记下了。", "ack")
    u("@小助手 你能查一下 3.8.2 的崩溃率吗", "王浩", "question")
    c.tool(
        "http_get",
        {"url": "https://bugly.example.cn/api/crash-rate?app=xpt-ios&version=3.8.2"},
        '{"version": "3.8.2", "crash_rate": 0.0041, "previous": 0.0021}',
    )
    c.say("3.8.2 的崩溃率是 0.41%，比 3.8.1 高 0.2 个百分点。", "report")
    u("嗯，先不回滚，观察两天再说。", "王浩", "transient")
    u("对了，客服那边的对接人是小林，反馈表是她每周一更新的。", "刘畅", "person", "客服那边的对接人是小林")
    u("统一一下口径：对外说「导出优化」，不要说「修复导出 bug」。", "陈静", "rule", "对外说「导出优化」")
    c.say("好的，之后的文案都用「导出优化」。", "ack")
    c.user(
        "Read HEARTBEAT.md in your workspace (if it exists).\nFollow any instructions or tasks listed there.\nIf nothing needs attention, reply with just: HEARTBEAT_OK",
        "heartbeat",
    )
    c.say("HEARTBEAT_OK", "heartbeat")
    u("好，今天就到这，大家辛苦。", "刘畅", "chatter")
    return c


def whatsapp(text: str, when: str) -> str:
    return f"[WhatsApp +14155550123 +5m {when}] {text}"


def en_whatsapp_renovation() -> Chat:
    c = Chat(
        "en-whatsapp-renovation",
        "agent:main:whatsapp:direct:+14155550123",
        "en",
        datetime(2026, 10, 31, 18, 0),
        "/Users/jon",
    )
    w = "Sat 2026-10-31 {} PDT"
    c.user(whatsapp("Morning! The contractor came by yesterday.", w.format("11:02")), "chatter")
    c.say("Morning! How did it go?", "question")
    c.user(
        whatsapp(
            "Good. His name is Luis Ortega, Ortega Builders, and he's doing the kitchen and the downstairs bathroom.",
            w.format("11:04"),
        ),
        "person",
        "His name is Luis Ortega, Ortega Builders",
    )
    c.user(
        whatsapp(
            "Budget is capped at $45k total, and I don't want to go over that no matter what.",
            w.format("11:05"),
        ),
        "rule",
        "Budget is capped at $45k total",
    )
    c.say("Got it. Want me to set up a spreadsheet to track quotes against the $45k?", "question")
    c.user(whatsapp("yes", w.format("11:06")), "request")
    c.tool(
        "sheets",
        {"action": "create", "title": "Renovation budget"},
        '{"id": "1xYz", "url": "https://docs.google.com/spreadsheets/d/1xYz"}',
    )
    c.say("Created 'Renovation budget' in your Google Drive.", "report")
    c.user(
        whatsapp(
            "We picked the quartz countertops over granite, the white one with grey veins.", w.format("11:10")
        ),
        "decision",
        "We picked the quartz countertops over granite",
    )
    c.user(
        whatsapp(
            "Note that the house was built in 1962, so assume there's asbestos in the old floor tiles until tested.",
            w.format("11:12"),
        ),
        "environment",
        "the house was built in 1962",
    )
    c.say("Good call. I'd get an asbestos test before demolition; want me to find local labs?", "question")
    c.user(whatsapp("sure, but only ones that do same-week results", w.format("11:13")), "request")
    c.tool(
        "web_search",
        {"query": "asbestos testing lab same week results Oakland"},
        '[{"title": "Bay Area Asbestos Lab"}, {"title": "EMSL Analytical, San Leandro"}, {"title": "Forensic Analytical"}]',
    )
    c.say(
        "Found three labs with same-week results: Bay Area Asbestos Lab, EMSL in San Leandro and Forensic Analytical.",
        "report",
    )
    c.user(
        whatsapp(
            "my wife Elena handles all the payments, so send invoices to her, not me.", w.format("11:20")
        ),
        "person",
        "my wife Elena handles all the payments",
    )
    c.say("Understood: invoices go to Elena.", "ack")
    c.user(
        "[media attached: /Users/jon/.openclaw/media/inbound/plan-71c2.jpg (image/jpeg) | /Users/jon/.openclaw/media/inbound/plan-71c2.jpg]\n"
        + MEDIA_NOTE
        + "\n"
        + whatsapp("here's the floor plan", w.format("11:24")),
        "chatter",
    )
    c.say("Thanks. The kitchen is about 14 by 11 feet based on this.", "report")
    c.user(
        whatsapp("we're never doing open shelving, Elena hates dusting them", w.format("11:26")),
        "preference",
        "we're never doing open shelving",
    )
    c.say("Ha, noted. Closed cabinets all the way.", "ack")
    c.user(whatsapp("remind me monday to call the lab", w.format("11:30")), "transient")
    c.tool(
        "cron",
        {"action": "add", "at": "2026-11-02T09:00:00-08:00", "text": "Call the asbestos lab"},
        '{"id": "job-3391", "status": "scheduled"}',
    )
    c.say("I'll remind you Monday at 9.", "report")
    return c


# --- the late set (written after all the rules were fixed; never tuned on) -------------------


def imessage(text: str, when: str) -> str:
    return f"[iMessage +447700900123 {when}] {text}"


def en_imessage_invoices() -> Chat:
    c = Chat(
        "en-imessage-invoices",
        "agent:main:imessage:direct:+447700900123",
        "en",
        datetime(2026, 11, 5, 14, 0),
        "/Users/omar",
    )
    w = "Thu 2026-11-05 {} GMT"
    c.user(
        imessage("hi! need a hand getting my invoices sorted before the quarter closes", w.format("14:03")),
        "request",
    )
    c.say("Happy to help. Where do you keep them now?", "question")
    c.user(
        imessage(
            "All invoices live in a Google Drive folder called 'Clients 2026', one subfolder per client.",
            w.format("14:05"),
        ),
        "environment",
        "All invoices live in a Google Drive folder called 'Clients 2026'",
    )
    c.user(
        imessage(
            "I bill in GBP, VAT registered, 20% on everything except the two US clients.", w.format("14:06")
        ),
        "person",
        "I bill in GBP, VAT registered",
    )
    c.tool(
        "drive",
        {"action": "list", "folder": "Clients 2026"},
        '[{"name": "INV-2026-031.pdf"}, {"name": "INV-2026-032.pdf"}, "…14 files"]',
    )
    c.say("I can see 14 invoices for Q3. Three are still unpaid.", "report")
    c.user(
        imessage(
            "chase the unpaid ones politely. first reminder after 14 days, second after 30, then I call them myself.",
            w.format("14:10"),
        ),
        "rule",
        "first reminder after 14 days, second after 30",
    )
    c.say("Drafting the reminders now.", "narration")
    c.tool("gmail", {"action": "draft", "count": 3}, '{"drafts": ["r-1", "r-2", "r-3"]}')
    c.say("Three drafts are ready in Gmail for you to review.", "report")
    c.user(
        imessage(
            "My accountant is Helen Park at Park & Co; she needs everything by the 20th of the month after quarter end.",
            w.format("14:15"),
        ),
        "person",
        "My accountant is Helen Park at Park & Co",
    )
    c.user(
        imessage("going forward, CC Helen on every invoice email.", w.format("14:16")),
        "rule",
        "CC Helen on every invoice email",
    )
    c.say("Will do, I'll CC her from now on.", "ack")
    c.user(imessage("what's my total for Q3?", w.format("14:18")), "question")
    c.tool("sheets", {"range": "Q3!F2:F40"}, '{"invoiced": 38420, "paid": 31900}')
    c.say("£38,420 invoiced in Q3, £31,900 paid so far.", "report")
    c.user(
        imessage(
            "nice. oh, and don't ever send anything to clients on weekends, even if it's scheduled.",
            w.format("14:21"),
        ),
        "rule",
        "don't ever send anything to clients on weekends",
    )
    c.user(
        imessage(
            "Lesson from last year: Xero's bank feed for Monzo lags about two days, so reconcile on Wednesdays, not Mondays.",
            w.format("14:23"),
        ),
        "lesson",
        "Xero's bank feed for Monzo lags about two days",
    )
    c.say("Good to know, I'll keep reconciliations to Wednesdays.", "ack")
    c.user(
        imessage(
            "Also, the Acme account: their AP contact changed, it's now billing@acme.example.",
            w.format("14:26"),
        ),
        "person",
        "their AP contact changed, it's now billing@acme.example",
    )
    c.say("Updated the contact for Acme in your client sheet.", "report")
    c.user(
        imessage(
            "here's the Xero login so you can pull reports. password: " + _fake("Tq8#", "vRz4", "!mW2"),
            w.format("14:30"),
        ),
        "secret",
    )
    c.say(
        "I'd rather not hold your Xero password; could you invite me as an advisor user instead?", "question"
    )
    c.user(imessage("fair, I'll do that tonight", w.format("14:31")), "transient")
    c.user(
        imessage("we settled on Wave for the US clients' invoices since they pay by ACH", w.format("14:33")),
        "decision",
        "we settled on Wave for the US clients' invoices",
    )
    c.say("Makes sense.", "ack")
    c.user(
        "[cron:77aa01c2-5e1f-4b7a-9c3d-2e8f6a1b0c4d weekly-ar] Every Monday: list invoices older than 14 days and draft reminders. Never send them without approval.",
        "cron",
    )
    c.say("Two invoices are older than 14 days; reminders are drafted and waiting for approval.", "report")
    c.user(imessage("thanks, that's all", w.format("14:40")), "chatter")
    return c


def wecom(text: str, when: str) -> str:
    meta = json.dumps(
        {"message_id": "wm" + hashlib.sha1(text.encode()).hexdigest()[:8], "channel": "wecom"}, indent=2
    )
    return f"Conversation info (untrusted metadata):\n```json\n{meta}\n```\n\n[企业微信 张敏 (zhangmin) +1m {when}] {text}"


def zh_wecom_onboarding() -> Chat:
    c = Chat(
        "zh-wecom-onboarding",
        "agent:main:wecom:direct:zhangmin",
        "zh",
        datetime(2026, 11, 6, 2, 0),
        "/home/hr",
    )
    k = [0]

    def u(text: str, kind: str, *items: str, system: str = "") -> None:
        k[0] += 1
        body = wecom(text, f"2026-11-06 10:{k[0] * 2:02d} GMT+8")
        c.user(f"{system}\n\n{body}" if system else body, kind, *items)

    u("帮我准备一下下周新员工入职的材料", "request")
    c.tool(
        "read",
        {"path": "/home/hr/templates/入职清单.md"},
        "# 入职清单\n1. 电脑申领（提前三天）\n2. 门禁卡（提前三天）\n…共 12 项",
        text="好的，我先看看入职清单模板。",
    )
    c.say("模板里有 12 项，其中电脑申领和门禁卡需要提前三天提。", "report")
    u(
        "我们公司在深圳南山，员工 180 人左右，用的是钉钉打卡，不是企业微信打卡。",
        "project",
        "我们公司在深圳南山",
    )
    u("入职第一天统一上午九点半到前台报到，这个写进模板。", "rule", "入职第一天统一上午九点半到前台报到")
    c.tool(
        "edit",
        {
            "path": "/home/hr/templates/入职清单.md",
            "oldText": "# 入职清单",
            "newText": "# 入职清单\n报到：上午 9:30，前台",
        },
        "Successfully replaced text.",
    )
    c.say("已写进模板。", "report")
    u("IT 那边的对接人是老赵，电脑申领找他。", "person", "IT 那边的对接人是老赵")
    u("下周一入职的是两个人：前端的刘洋和测试的周琪。", "transient")
    c.tool(
        "write",
        {"path": "/home/hr/onboarding/2026-11-09.md", "content": "刘洋、周琪 入职清单"},
        "Successfully wrote 512 bytes.",
        text="好的，我给两位各建一份入职清单。",
    )
    u("注意：劳动合同必须在入职当天签，不能拖到试用期结束。", "rule", "劳动合同必须在入职当天签")
    c.say("明白。", "ack")
    u("我不喜欢用表情包，发给新人的通知写得正式一点。", "preference", "我不喜欢用表情包")
    u(
        "上次踩的坑：社保增员要在每月 15 号前办，过了就只能下个月，新人会断一个月社保。",
        "lesson",
        "社保增员要在每月 15 号前办",
    )
    c.say("这个很重要，我加到清单的提醒里。", "narration")
    u("还在吗", "connection", system="System: [2026-11-06 10:40:02 GMT+8] WeCom gateway reconnected.")
    c.say("在的。", "chatter")
    u("定了：以后试用期统一三个月，不再按岗位区分。", "decision", "以后试用期统一三个月")
    c.tool(
        "edit",
        {"path": "/home/hr/制度/试用期.md", "oldText": "按岗位 1–6 个月", "newText": "统一 3 个月"},
        "Successfully replaced text.",
        text="收到，我更新一下制度文档里的描述。",
    )
    u("薪资的事情一律不要在群里讨论，只能私聊。", "rule", "薪资的事情一律不要在群里讨论")
    u("HR 系统用的是北森，账号是我个人的，你先别登录。", "environment", "HR 系统用的是北森")
    c.say("好的，我不会登录北森。", "ack")
    u("今天就到这吧", "chatter")
    return c


DEV = (
    en_webchat_shipyard,
    zh_feishu_payments,
    en_telegram_home,
    zh_webchat_writing,
    en_subagent_pricing,
    mixed_discord_infra,
)
HELDOUT = (en_slack_dataeng, zh_dingtalk_product, en_whatsapp_renovation)
LATE = (en_imessage_invoices, zh_wecom_onboarding)


def write(folder: Path, chats: tuple[Any, ...], about: str) -> dict[str, int]:
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.jsonl"):
        old.unlink()
    transcripts = [make().write(folder) for make in chats]
    labels = {"about": about, "durable": list(DURABLE), "never": list(NEVER), "transcripts": transcripts}
    (folder / "labels.json").write_text(
        json.dumps(labels, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    messages = [m for t in transcripts for m in t["messages"]]
    return {
        "transcripts": len(transcripts),
        "messages": len(messages),
        "said": sum(1 for m in messages if m["role"] != "toolResult"),
        "durable messages": sum(1 for m in messages if m["items"]),
        "items": sum(len(m["items"]) for m in messages),
    }


def main() -> int:
    print("dev:", write(HERE / "dev", DEV, "the set flush's rules were developed on"))
    print("heldout:", write(HERE / "heldout", HELDOUT, "written after the rules, to check they generalise"))
    print("late:", write(HERE / "late", LATE, "written last, after every rule was fixed; never tuned on"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
