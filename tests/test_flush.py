"""memcli flush on OpenClaw's store (SPEC §9): what it appends, what it records, its lock."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from conftest import NOW, Invoke, as_json

MAIN = "agent:main:main"
TODAY = "memory/2026-10-31.md"
NOW_MS = int(datetime.fromisoformat(NOW).timestamp() * 1000)


def flush(cli: Invoke, root: Path, *args: str) -> dict[str, object]:
    return as_json(cli("--json", "-w", str(root), "--now", NOW, "flush", *args))  # type: ignore[no-any-return]


def by_key(report: dict[str, object]) -> dict[str, dict[str, object]]:
    return {s["session"]: s for s in report["sessions"]}  # type: ignore[attr-defined, index]


def test_flush_appends_durable_items_to_todays_note_and_records_it(cli: Invoke, sample: Path) -> None:
    store_before = json.loads((sample / "sessions.json").read_text(encoding="utf-8"))
    note = sample / TODAY
    note_before = note.read_bytes() if note.exists() else b""
    main = by_key(flush(cli, sample))[MAIN]
    assert main["due"] and "new compaction cycle 2" in str(main["why"])  # flushed in cycle 1
    assert main["note"] == TODAY and main["recorded"]
    after = note.read_bytes()
    assert after.startswith(note_before)  # appended, never rewritten
    added = after[len(note_before) :].decode("utf-8")
    assert f"## Flushed from {MAIN} (09:00)" in added
    assert "定了：we will use Redis for the job queue" in added  # a decision of the session
    store = json.loads((sample / "sessions.json").read_text(encoding="utf-8"))
    entry = store[MAIN]
    assert (
        entry["memoryFlushAt"] == NOW_MS
        and entry["memoryFlushCompactionCount"] == entry["compactionCount"] == 2
    )
    assert list(store) == list(store_before)
    assert list(entry) == list(store_before[MAIN])  # every field, in its place
    assert {k: v for k, v in entry.items() if not k.startswith("memoryFlush")} == {
        k: v for k, v in store_before[MAIN].items() if not k.startswith("memoryFlush")
    }


def test_a_second_flush_is_not_due_and_a_forced_one_adds_nothing_old(cli: Invoke, sample: Path) -> None:
    flush(cli, sample)
    note = (sample / TODAY).read_bytes()
    again = by_key(flush(cli, sample))[MAIN]
    assert not again["due"] and "already flushed in compaction cycle 2" in str(again["why"])
    forced = by_key(flush(cli, sample, "--force", "--session", MAIN))[MAIN]
    assert forced["due"] and forced["items"] == []  # nothing said since the last flush
    # a store that lost its flush time (restored from a backup): the whole transcript is
    # read again, and what today's note already holds is not written twice
    store = json.loads((sample / "sessions.json").read_text(encoding="utf-8"))
    del store[MAIN]["memoryFlushAt"]
    (sample / "sessions.json").write_text(json.dumps(store, indent=2), encoding="utf-8")
    again = by_key(flush(cli, sample, "--force", "--session", MAIN))[MAIN]
    assert again["items"] == [] and again["already_in_memory"] >= 3  # type: ignore[operator]
    assert (sample / TODAY).read_bytes() == note


def test_dry_run_writes_nothing(cli: Invoke, sample: Path) -> None:
    before = {p: p.read_bytes() for p in sample.rglob("*") if p.is_file()}
    main = by_key(flush(cli, sample, "--dry-run"))[MAIN]
    assert main["due"] and main["items"] and not main["recorded"]
    assert {p: p.read_bytes() for p in sample.rglob("*") if p.is_file()} == before


def test_the_prompt_has_the_date(cli: Invoke, sample: Path) -> None:
    report = as_json(cli("--json", "-w", str(sample), "--now", NOW, "flush", "--prompt"))
    assert "memory/2026-10-31.md" in report["prompt"] and "NO_REPLY" in report["prompt"]
    assert "2026-10-31" in report["system_prompt"]


HOLDER = """
import json, os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_EXCL)
os.write(fd, json.dumps({"pid": os.getpid(), "createdAt": int(time.time() * 1000)}).encode())
os.close(fd)
print("held", flush=True)
time.sleep(30)
"""


def test_flush_waits_for_openclaws_lock_then_exits_4_with_nothing_written(cli: Invoke, sample: Path) -> None:
    (sample / "memcli.toml").write_text('timezone = "Asia/Shanghai"\nlock_timeout_seconds = 0.5\n')
    before = {p: p.read_bytes() for p in sample.rglob("*") if p.is_file()}
    lock = sample / "sessions.json.lock"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        result = cli("-w", str(sample), "--now", NOW, "flush", "--session", MAIN)
        assert result.exit_code == 4, result.stdout
        assert "sessions.json.lock" in result.stderr and "nothing was written" in result.stderr
        after = {p: p.read_bytes() for p in sample.rglob("*") if p.is_file() and p != lock}
        assert after == {p: b for p, b in before.items() if p != lock}
    finally:
        holder.kill()
        holder.wait()


def test_a_broken_store_is_refused(cli: Invoke, sample: Path) -> None:
    (sample / "sessions.json").write_text('{"agent:main:main": ', encoding="utf-8")
    result = cli("-w", str(sample), "--now", NOW, "flush")
    assert result.exit_code == 3 and "not valid JSON" in result.stderr
    assert not (sample / TODAY).exists() or "Flushed" not in (sample / TODAY).read_text(encoding="utf-8")


def test_status_shows_each_session_and_whether_a_flush_is_due(cli: Invoke, sample: Path) -> None:
    report = as_json(cli("--json", "-w", str(sample), "--now", NOW, "status"))
    rows = {r["session"]: r for r in report["sessions"]}
    main = rows[MAIN]
    assert (main["tokens"], main["window"], main["flush_threshold"], main["compactions"]) == (
        181_200,
        200_000,
        176_000,
        2,
    )
    assert (
        main["due"] and "new compaction cycle 2" in main["why"] and main["last_flush"] == "2026-10-30 09:12"
    )
    assert (
        not rows["agent:main:telegram:direct:5550123"]["due"]
        and rows["agent:main:telegram:direct:5550123"]["last_flush"] is None
    )
    cron = next(r for k, r in rows.items() if ":cron:" in k)
    assert "cron" in cron["why"] and not cron["due"]
    (sample / "sessions.json").write_text("{ broken", encoding="utf-8")
    broken = as_json(cli("--json", "-w", str(sample), "--now", NOW, "status"))
    assert broken["sessions"] == [] and "not valid JSON" in broken["session_problems"][0]


def test_openclaws_state_folder_is_searched_and_a_legacy_store_never_written(
    cli: Invoke, sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "openclaw"
    for agent, legacy in (("work", False), ("old", True)):
        folder = state / "agents" / agent / "sessions"
        folder.mkdir(parents=True)
        (folder / "s9.jsonl").write_text(
            (sample / "sessions" / "557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl").read_text()
        )
        store = {
            f"agent:{agent}:main": {"sessionId": "s9", "sessionFile": "s9.jsonl", "totalTokens": 190_000}
        }
        (folder / "sessions.json").write_text(json.dumps(store, indent=2))
        if legacy:
            (state / "agents" / agent / "agent").mkdir()
            (state / "agents" / agent / "agent" / "openclaw-agent.sqlite").write_bytes(b"SQLite format 3\x00")
    legacy_before = (state / "agents/old/sessions/sessions.json").read_bytes()
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    rows = by_key(flush(cli, sample))
    assert rows["agent:work:main"]["recorded"] and "never flushed" in str(rows["agent:work:main"]["why"])
    assert not rows["agent:old:main"]["due"] and "legacy store" in str(rows["agent:old:main"]["why"])
    assert (state / "agents/old/sessions/sessions.json").read_bytes() == legacy_before
    assert (
        json.loads((state / "agents/work/sessions/sessions.json").read_text())["agent:work:main"][
            "memoryFlushAt"
        ]
        == NOW_MS
    )
