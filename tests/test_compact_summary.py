"""A compaction summary carries the session (issue 18, point 4): its goal and the goal's
latest form, constraints, progress (done, in progress, blocked), decisions, next steps,
critical context and files, filled from the turns it replaces; and the kept tail fits
`keep_recent_tokens`, so the recorded token count falls as OpenClaw's compaction makes it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import NOW, Invoke, as_json
from memcli.core.compaction import previous_parts, summarise
from memcli.core.conversation import Message, parse_transcript
from memcli.core.summarize import transcript_tokens

KEY = "agent:main:main"
SID = "c0ffee00-1111-4222-8333-444455556666"

GOAL = "Can you help me move the billing page from Stripe Checkout to the Payment Element?"
LATEST = (
    "Actually, can you keep Checkout for subscriptions and use the Payment Element only for one-off payments?"
)
PREFERENCE = "Never run migrations against prod without a fresh backup."
DECISIONS = ("We decided to store card fingerprints, never card numbers.", "决定：退款统一走异步队列。")
DONE = "Fixed the webhook signature check; all 40 billing tests pass now."
BLOCKED = "Blocked: waiting for Priya to grant me access to the Stripe dashboard."
NEXT = ("Still need to update the refund emails for the new flow.", "明天要把退款邮件模板改掉。")
IN_PROGRESS = "I'll now mount the Payment Element on the checkout page."
LESSON = "Lesson: Stripe signs the raw request body, so the webhook must read it before any JSON parsing."


class Chat:
    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = [
            {
                "type": "session",
                "version": 3,
                "id": SID,
                "timestamp": "2026-10-30T01:00:00.000Z",
                "cwd": "/srv/shop",
            }
        ]
        self.parent: str | None = None

    def add(
        self, role: str, text: str = "", calls: tuple[tuple[str, dict[str, Any]], ...] = (), **more: Any
    ) -> None:
        n = len(self.lines)
        content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
        content += [
            {"type": "toolCall", "id": f"t{n}-{i}", "name": c, "arguments": a}
            for i, (c, a) in enumerate(calls)
        ]
        entry = {
            "type": "message",
            "id": f"{n:08x}",
            "parentId": self.parent,
            "timestamp": f"2026-10-30T{1 + n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
            "message": {"role": role, "content": content, **more},
        }
        self.lines.append(entry)
        self.parent = entry["id"]

    def tool(self, name: str, args: dict[str, Any], result: str, error: bool = False, text: str = "") -> None:
        self.add("assistant", text, ((name, args),))
        self.add("toolResult", result, toolName=name, isError=error)

    def text(self) -> str:
        return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in self.lines)


def billing_session(padding: int = 0) -> Chat:
    """A session with a known goal (changed once), constraints, decisions, work done, in
    progress, blocked and still to do; `padding` long tool results make it big."""
    c = Chat()
    c.add("user", "[Wed 2026-10-30 09:00 GMT+8] " + GOAL)
    c.tool(
        "read",
        {"path": "/srv/shop/billing/checkout.py"},
        "def create_session(order): ...\n" * 40,
        text="Let me read the checkout code first.",
    )
    c.add(
        "assistant", "The page creates a Checkout Session per order and redirects; refunds are synchronous."
    )
    c.add("user", PREFERENCE)
    c.add("user", DECISIONS[0])
    for n in range(padding):
        c.tool("exec", {"command": f"pytest tests/billing -k case{n}"}, f"case {n}: " + "x" * 3000)
    c.tool(
        "edit",
        {
            "path": "/srv/shop/billing/webhooks.py",
            "oldText": "json.loads(request.body)",
            "newText": "request.body",
        },
        "Successfully replaced text.",
    )
    c.tool("exec", {"command": "pytest tests/billing"}, "40 passed in 8.1s")
    c.add("assistant", DONE)
    c.add("assistant", LESSON)
    c.add("user", LATEST)
    c.add("user", DECISIONS[1])
    c.add("user", NEXT[0])
    c.add("user", NEXT[1])
    c.tool(
        "exec",
        {"command": "stripe login"},
        "Error: your account does not have access to this dashboard",
        error=True,
    )
    c.add("assistant", BLOCKED)
    c.add("assistant", IN_PROGRESS)
    for n in range(8):  # the recent turns a compaction keeps
        c.add("user", f"and the {n}th detail of the page layout, please")
        c.add("assistant", f"Noted the {n}th layout detail; it goes in the next commit.")
    return c


def workspace(root: Path, chat: Chat, total: int) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "sessions").mkdir()
    (root / "MEMORY.md").write_text("# MEMORY.md\n", encoding="utf-8")
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n', encoding="utf-8")
    (root / "sessions" / f"{SID}.jsonl").write_text(chat.text(), encoding="utf-8")
    store = {
        KEY: {
            "sessionId": SID,
            "updatedAt": 1793323706772,
            "sessionFile": f"sessions/{SID}.jsonl",
            "totalTokens": total,
            "totalTokensFresh": True,
            "contextTokens": 200_000,
            "compactionCount": 0,
        }
    }
    (root / "sessions.json").write_text(json.dumps(store, indent=2), encoding="utf-8")
    return root


def part(summary: str, heading: str) -> str:
    return summary.split(heading + "\n", 1)[1].split("\n#", 1)[0]


def test_the_summary_carries_the_goal_decisions_and_open_items(cli: Invoke, tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws", billing_session(), 185_000)
    report = as_json(cli("--json", "-w", str(root), "--now", NOW, "compact", "--keep-recent-tokens", "150"))
    (done,) = report["sessions"]
    assert done["due"] and done["compaction"]
    summary = done["compaction"]["summary"]
    assert GOAL in part(summary, "## Goal") and LATEST in part(
        summary, "## Goal"
    )  # the request and its latest form
    assert PREFERENCE in part(summary, "## Constraints & Preferences")
    assert DONE in part(summary, "### Done")
    assert IN_PROGRESS in part(summary, "### In Progress")
    assert BLOCKED in part(summary, "### Blocked")
    assert all(d in part(summary, "## Key Decisions") for d in DECISIONS)
    assert all(n in part(summary, "## Next Steps") for n in NEXT)
    assert LESSON in part(summary, "## Critical Context")
    assert "(none)" not in summary  # every part has something in this session
    assert "/srv/shop/billing/webhooks.py" in summary.split("<modified-files>", 1)[1]
    assert "/srv/shop/billing/checkout.py" in summary.split("<read-files>", 1)[1].split("</read-files>")[0]
    assert done["compaction"]["details"] == {
        "readFiles": ["/srv/shop/billing/checkout.py"],
        "modifiedFiles": ["/srv/shop/billing/webhooks.py"],
    }
    assert "layout detail" not in summary  # the kept turns are the context's, not the summary's


def test_a_second_compaction_keeps_what_the_first_said_and_moves_what_is_done() -> None:
    first = (
        "## Goal\n- Ship the billing page\n## Constraints & Preferences\n- Use pnpm\n## Progress\n### Done\n"
        "- Read the checkout code\n### In Progress\n- Mounting the Payment Element\n### Blocked\n- (none)\n"
        "## Key Decisions\n- Store fingerprints only\n## Next Steps\n- Update the refund emails\n"
        "## Critical Context\n- (none)\n"
    )
    assert previous_parts(first)["in_progress"] == ["Mounting the Payment Element"]
    turns = [
        Message("a1", "user", "Please also add Apple Pay to the page.", None),
        Message("a2", "assistant", "Done: I updated the refund emails for the new flow.", None),
    ]
    parts = summarise(turns, first).parts
    assert parts["goal"] == ("Ship the billing page",)  # the earlier goal; a new request is no new goal
    assert "Use pnpm" in parts["constraints"] and "Store fingerprints only" in parts["decisions"]
    assert "Update the refund emails" not in parts["next_steps"]  # done since
    assert "Read the checkout code" in parts["done"]


def test_the_recorded_token_count_falls_as_openclaws_compaction_makes_it(cli: Invoke, tmp_path: Path) -> None:
    chat = billing_session(padding=160)
    root = workspace(tmp_path / "ws", chat, 186_000)
    messages = parse_transcript(chat.text().splitlines()).messages
    before = transcript_tokens(messages)
    assert before > 120_000
    report = as_json(cli("--json", "-w", str(root), "--now", NOW, "compact"))  # keep_recent_tokens: 20,000
    (done,) = report["sessions"]
    assert done["due"] and done["tokens_before"] == before
    store = json.loads((root / "sessions.json").read_text(encoding="utf-8"))[KEY]
    assert store["compactionCount"] == 1
    assert store["totalTokens"] == done["tokens_after"] < 30_000  # from 186,000 recorded
    assert store["totalTokens"] < store["contextTokens"] - 20_000 - 4_000  # no flush due again at once
    rebuilt = parse_transcript((root / "sessions" / f"{SID}.jsonl").read_text(encoding="utf-8").splitlines())
    kept = rebuilt.context()
    assert transcript_tokens(kept) <= 20_000  # the kept tail within keep_recent_tokens
    assert kept[0].role != "toolResult" and kept[-1] == messages[-1]
    print(f"recorded tokens: 186,000 -> {store['totalTokens']:,} (transcript estimate {before:,})")
