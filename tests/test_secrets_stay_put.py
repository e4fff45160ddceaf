"""A secret never leaves its note (SPEC §14).

Nothing memcli writes — MEMORY.md promotions, summaries, flush items, compaction
summaries, superseded and demoted entries — may carry a text that `memcli check` flags
as a secret. A workspace and a transcript hold each kind the detector knows, in both
languages, worded so that memcli would want to keep them ("remember: …", "记住：…").
After summarize, flush, compact and gc, `memcli check` finds no secret in any file memcli
wrote, and each command names the places it left out without quoting them.

Every fake secret is assembled from pieces at run time, from a seeded generator, so that
this file itself holds nothing a secret scanner would flag.
"""

from __future__ import annotations

import json
import random
import string
import sys
from pathlib import Path
from typing import Any

from conftest import NOW, Invoke

ALNUM = string.ascii_letters + string.digits


def rand(n: int, alphabet: str = ALNUM, seed: int = 0) -> str:
    rng = random.Random(f"stay-put:{seed}:{n}")
    return "".join(rng.choice(alphabet) for _ in range(n))


def pem() -> str:
    body = "\n".join(rand(64, ALNUM + "+/", seed=40 + i) for i in range(3))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----"


SECRETS = {
    "openai": "sk-" + "proj-" + rand(48, ALNUM + "_-", seed=1),
    "anthropic": "sk-" + "ant-" + "api03-" + rand(93, ALNUM + "_-", seed=2) + "AA",
    "aws-access-key": "AK" + "IA" + rand(16, string.ascii_uppercase + string.digits, seed=3),
    "aws-secret-key": "aws_secret_access_key = " + rand(40, ALNUM + "/+", seed=4),
    "github": "gh" + "p_" + rand(36, seed=5),
    "slack": "xo"
    + "xb-"
    + rand(12, string.digits, seed=6)
    + "-"
    + rand(13, string.digits, seed=7)
    + "-"
    + rand(24),
    "telegram-bot": "7" + rand(8, "123456789", seed=8) + ":" + "AA" + rand(33, ALNUM + "_-", seed=9),
    "google-api-key": "AI" + "za" + rand(35, ALNUM + "_-", seed=10),
    "password": "password: " + "Tr0ub4dor" + "-x9",
    "high-entropy": 'api_key = "' + rand(32, seed=16) + '"',
}
KINDS = sorted(SECRETS)


def said(kind: str, n: int, chat: bool = False) -> str:
    """A durable sentence holding the secret: a preference or a "remember this", in English
    or Chinese by turns (worded otherwise in the chat than in the notes, so that flush does
    not take it for something memory already holds)."""
    value = SECRETS[kind]
    if chat:
        if n % 2:
            return f"我喜欢让预发环境的机器人继续用 {kind}：{value}，以后都这样"
        return f"I prefer that the preview bot keeps using this {kind} from now on: {value}"
    if n % 2:
        return f"记住：以后 staging 的部署机器人一直用这个 {kind}：{value}"
    return f"remember: from now on the staging deploy bot always uses this {kind}: {value}"


def note(day: str, kinds: list[str], start: int) -> str:
    lines = [f"# {day}", "", "## Notes", ""]
    lines += [f"- {said(kind, start + n)}" for n, kind in enumerate(kinds)]
    lines += [
        "- 决定：staging 的数据库迁移放在周六早上做",
        "- We decided to keep the export on Redis with noeviction",
        "",
    ]
    return "\n".join(lines)


def workspace(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "sessions").mkdir()
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n', encoding="utf-8")
    (root / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## Preferences\n\n- I prefer dark mode in every editor\n", encoding="utf-8"
    )
    half = len(KINDS) // 2
    days = [
        ("2026-10-06", KINDS[:half]),
        ("2026-10-07", KINDS[half:]),
        ("2026-10-13", KINDS),
        ("2026-10-14", []),
    ]
    for n, (day, kinds) in enumerate(days):
        text = note(day, kinds, n)
        if day == "2026-10-14":
            text += "- remember: the staging deploy key is this one\n  " + pem().replace("\n", "\n  ") + "\n"
        (root / "memory" / f"{day}.md").write_text(text, encoding="utf-8")
    sid = "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee"
    store = {
        "agent:main:main": {
            "sessionId": sid,
            "updatedAt": 1793323706772,
            "sessionFile": f"sessions/{sid}.jsonl",
            "totalTokens": 190000,
            "contextTokens": 200000,
            "compactionCount": 1,
        }
    }
    (root / "sessions.json").write_text(json.dumps(store, indent=2), encoding="utf-8")
    (root / "sessions" / f"{sid}.jsonl").write_text(transcript(), encoding="utf-8")
    return root


def transcript() -> str:
    entries: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": "s", "timestamp": "2026-10-30T01:00:00Z"}
    ]
    parent = None

    def add(kind: str, **fields: Any) -> None:
        nonlocal parent
        ident = f"{len(entries):08x}"
        entries.append(
            {
                "type": kind,
                "id": ident,
                "parentId": parent,
                "timestamp": f"2026-10-30T02:{len(entries):02d}:00Z",
                **fields,
            }
        )
        parent = ident

    def message(role: str, text: str) -> None:
        add("message", message={"role": role, "content": [{"type": "text", "text": text}]})

    message("user", "早上好，帮我把 staging 的部署机器人配好")
    add(
        "compaction",
        summary="## Goal\n- set up the staging deploy bot\n\n## Critical Context\n"
        f"- remember the bot token {SECRETS['telegram-bot']}\n",
        firstKeptEntryId=None,
        tokensBefore=1000,
    )
    for n, kind in enumerate(KINDS):
        message("user", said(kind, n, chat=True))
        message("assistant", "好的，记下了。")
    message("user", "remember: the deploy key is\n" + pem())
    message("user", "I prefer short answers in English for code reviews, from now on.")
    message("assistant", "Understood: short English answers in code reviews from now on.")
    for n in range(6):
        message("user", f"决定：第 {n + 1} 个迁移脚本在周六早上跑，跑完在群里说一声。" * 3)
        message("assistant", "明白，周六早上跑迁移，跑完通知群里。" * 3)
    return "".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries)


def run(cli: Invoke, root: Path, *args: str) -> Any:
    result = cli("--json", "-w", str(root), "--now", NOW, *args)
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr)
    return json.loads(result.stdout), result.stderr


def secrets_in(cli: Invoke, root: Path, files: list[Path]) -> list[dict[str, Any]]:
    result = cli("--json", "-w", str(root), "--now", NOW, "check", *map(str, files))
    assert result.exit_code in (0, 1), (result.exit_code, result.stderr)
    report = json.loads(result.stdout)
    return [f for f in report["findings"] if f["check"] == "secret"]


def assert_quotes_none(text: str) -> None:
    for value in [*SECRETS.values(), pem().splitlines()[1]]:
        assert value.split()[-1].strip('"') not in text


def test_no_file_memcli_writes_carries_a_secret(cli: Invoke, tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    assert {f["line"] for f in secrets_in(cli, root, [root / "memory" / "2026-10-13.md"])} == set(
        range(5, 15)
    )

    weekly, weekly_err = run(cli, root, "summarize", "--period", "2026-W42")
    session, _ = run(cli, root, "summarize", "--session", "agent:main:main")
    flushed, flush_err = run(cli, root, "flush")
    compacted, _ = run(cli, root, "compact", "--force", "--keep-recent-tokens", "200")
    plan, _ = run(cli, root, "gc")
    (compaction,) = compacted["sessions"]
    summary = tmp_path / "compaction-summary.md"  # the entry compact appended to the transcript
    summary.write_text(compaction["compaction"]["summary"], encoding="utf-8")
    written = [
        *sorted((root / "memory" / "summaries").glob("*.md")),
        root / "MEMORY.md",
        root / "memory" / "2026-10-31.md",  # flush's note of the day
        *(p for p in (root / "memory" / "archive").glob("*.md")),  # superseded.md, core-cold.md
        summary,
    ]
    assert len(written) >= 6
    found = secrets_in(cli, root, written)
    assert found == [], found
    assert "I prefer short answers" in (root / "memory" / "2026-10-31.md").read_text(encoding="utf-8")

    # each command names the places it left out, and quotes none of them
    assert len(weekly["withheld"]) >= len(KINDS) and "memory/2026-10-13.md:5" in weekly["withheld"]
    assert "left out" in weekly_err and "holding a secret" in weekly_err
    assert session["withheld"]
    (flush_report,) = flushed["sessions"]
    assert flush_report["recorded"] and len(flush_report["withheld"]) >= len(KINDS)
    assert all(w.startswith("message ") for w in flush_report["withheld"])
    assert "previous summary" in compaction["withheld"]
    assert any("holding a secret" in n and "memory/2026-10-06.md:5" in n for n in plan["notes"])
    for output in (weekly_err, flush_err, json.dumps([weekly, session, flushed, compacted, plan["notes"]])):
        assert_quotes_none(output)
    # nor does memcli's history: the ledger names the places, never the secret
    assert_quotes_none((root / ".memcli" / "ledger.jsonl").read_text(encoding="utf-8"))


def test_a_core_entry_holding_a_secret_is_neither_superseded_nor_demoted(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    token = SECRETS["github"]
    (root / "MEMORY.md").write_text(
        f"# MEMORY.md\n\n## Environment\n\n- I use Windows for the deploy box, token {token}\n"
        "- 我用 Windows 跑部署脚本\n",
        encoding="utf-8",
    )
    (root / "memory" / "2026-10-20.md").write_text(
        "# 2026-10-20\n\n- I use a Mac now for the deploy box, no longer Windows\n", encoding="utf-8"
    )
    plan, _ = run(cli, root, "gc")
    superseded = root / "memory" / "archive" / "superseded.md"
    assert not superseded.exists() or token not in superseded.read_text(encoding="utf-8")
    assert token in (root / "MEMORY.md").read_text(encoding="utf-8")  # it stays where it is
    assert any("MEMORY.md:5" in n and "holding a secret" in n for n in plan["notes"])
    assert_quotes_none(json.dumps(plan["notes"]))


def test_a_summarizer_command_that_prints_a_secret_is_not_used(cli: Invoke, tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    token = SECRETS["google-api-key"]
    printed = f"print('## Notes'); print('- the maps key is ' + {token[:6]!r} + {token[6:]!r})"
    command = f'{sys.executable} -c "{printed}"'
    result = cli(
        "--json",
        "-w",
        str(root),
        "--now",
        NOW,
        "summarize",
        "--period",
        "2026-W42",
        "--summarizer-cmd",
        command,
    )
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["summarizer"] == "extractive" and "printed a secret" in result.stderr
    assert secrets_in(cli, root, [root / "memory" / "summaries" / "2026-W42.md"]) == []


def test_a_template_that_would_print_a_secret_writes_no_compaction(cli: Invoke, tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    (root / "templates").mkdir()
    (root / "templates" / "compaction-summary.md.j2").write_text("{{ previous }}\n", encoding="utf-8")
    path = root / "sessions" / "aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee.jsonl"
    run(cli, root, "flush")  # the flush that is due is not what this is about
    before = path.read_bytes()
    result = cli("-w", str(root), "--now", NOW, "compact", "--force", "--keep-recent-tokens", "200")
    assert result.exit_code == 3 and "would carry a secret" in result.stderr
    assert path.read_bytes() == before
    assert_quotes_none(result.stderr)


def test_memclis_ledger_names_the_place_of_a_secret_never_the_secret(cli: Invoke, tmp_path: Path) -> None:
    """gc records the clock of every core entry in .memcli/ledger.jsonl with its text; one
    holding a secret is recorded by place and id only."""
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    token = SECRETS["telegram-bot"]
    (root / "MEMORY.md").write_text(
        f"# MEMORY\n\n## Tools\n\n- 通知机器人的 token：{token}\n- I prefer tables for comparisons\n",
        encoding="utf-8",
    )
    run(cli, root, "gc")
    ledger = (root / ".memcli" / "ledger.jsonl").read_text(encoding="utf-8")
    assert "I prefer tables" in ledger  # the entries were recorded, with their texts
    assert token not in ledger and token[-12:] not in ledger
    assert "MEMORY.md:5" in ledger
