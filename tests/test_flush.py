"""memcli flush on OpenClaw's store (SPEC §9): what it appends, what it records, its lock."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
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


def test_the_stores_of_the_agents_whose_workspace_it_is_are_flushed_and_a_legacy_store_never_written(
    cli: Invoke, sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "openclaw"
    for agent, legacy in (("work", False), ("old", True), ("other", False)):
        folder = state / "agents" / agent / "sessions"
        folder.mkdir(parents=True)
        (folder / "s9.jsonl").write_text(
            (sample / "sessions" / "557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl").read_text()
        )
        store = {
            f"agent:{agent}:main": {"sessionId": "s9", "sessionFile": "s9.jsonl", "totalTokens": 190_000}
        }
        (folder / "sessions.json").write_text(json.dumps(store, indent=2))
        if legacy:  # OpenClaw 2026.8+ moved its sessions into its database (empty here)
            (state / "agents" / agent / "agent").mkdir()
            empty_database(state / "agents" / agent / "agent" / "openclaw-agent.sqlite")
    # work and old run in this workspace; other in its own (the default, workspace-other)
    agents = [
        {"id": "work", "workspace": str(sample)},
        {"id": "old", "workspace": str(sample)},
        {"id": "other"},
    ]
    (state / "openclaw.json").write_text(json.dumps({"agents": {"list": agents}}))
    before = {a: (state / f"agents/{a}/sessions/sessions.json").read_bytes() for a in ("old", "other")}
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    rows = by_key(flush(cli, sample))
    assert rows["agent:work:main"]["recorded"] and "never flushed" in str(rows["agent:work:main"]["why"])
    assert rows["agent:work:main"]["agent"] == "work"
    assert not rows["agent:old:main"]["due"] and "legacy store" in str(rows["agent:old:main"]["why"])
    assert "agent:other:main" not in rows  # another agent's sessions: never in this workspace's notes
    assert {a: (state / f"agents/{a}/sessions/sessions.json").read_bytes() for a in before} == before
    assert (
        json.loads((state / "agents/work/sessions/sessions.json").read_text())["agent:work:main"][
            "memoryFlushAt"
        ]
        == NOW_MS
    )


def empty_database(path: Path) -> None:
    """An OpenClaw 2026.9 database holding no session (the tables a reader needs)."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.executescript(
            "CREATE TABLE session_nodes (session_key TEXT PRIMARY KEY, current_session_id TEXT NOT NULL, "
            "entry_json TEXT NOT NULL, entry_valid INTEGER NOT NULL DEFAULT 0, updated_at INTEGER NOT NULL);"
            "CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, "
            "event_json TEXT, created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, "
            "PRIMARY KEY (session_id, seq)); PRAGMA user_version = 23;"
        )


# --- one bad session never blocks the rest (issue 18, point 2) --------------------------------

TELEGRAM = "agent:main:telegram:direct:5550123"
MAIN_FILE = "557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl"


def edit_store(root: Path, **sessions: dict[str, object]) -> None:
    """Fields of sessions changed (keyword: the session's key with ':' as '__')."""
    store = json.loads((root / "sessions.json").read_text(encoding="utf-8"))
    for name, fields in sessions.items():
        key = name.replace("__", ":")
        store.setdefault(key, {}).update(fields)
    (root / "sessions.json").write_text(json.dumps(store, indent=2, ensure_ascii=False), encoding="utf-8")


def report_of(cli: Invoke, root: Path, *args: str) -> dict[str, object]:
    return as_json(cli("--json", "-w", str(root), "--now", NOW, "flush", *args))  # type: ignore[no-any-return]


def test_a_stale_absolute_session_file_is_found_by_its_name_in_the_sessions_folder(
    cli: Invoke, sample: Path
) -> None:
    stale = f"/Users/lin/.openclaw/agents/main/sessions/{MAIN_FILE}"  # a backup from another machine
    edit_store(sample, agent__main__main={"sessionFile": stale})
    main = by_key(report_of(cli, sample))[MAIN]
    assert main["recorded"] and main["items"]
    assert stale in str(main["transcript_note"]) and "restored backup" in str(main["transcript_note"])
    text = cli("-w", str(sample), "--now", NOW, "flush", "--dry-run", "--force", "--session", MAIN).stdout
    assert f"transcript: its sessionFile {stale} is not in" in text  # said in the output too


def test_a_missing_or_unreadable_transcript_skips_that_session_with_a_warning_and_the_others_go_on(
    cli: Invoke, sample: Path
) -> None:
    (sample / "sessions" / "huge.jsonl").touch()
    os.truncate(sample / "sessions" / "huge.jsonl", 300 << 20)  # over what memcli reads
    edit_store(
        sample,
        agent__main__gone={"sessionId": "gone", "sessionFile": "sessions/gone.jsonl", "totalTokens": 190_000},
        agent__main__huge={"sessionId": "huge", "sessionFile": "sessions/huge.jsonl", "totalTokens": 190_000},
    )
    report = report_of(cli, sample)
    rows = by_key(report)
    assert rows[MAIN]["recorded"] and rows[MAIN]["items"]  # flushed all the same
    assert not rows["agent:main:gone"]["recorded"] and "does not exist" in str(
        rows["agent:main:gone"]["problem"]
    )
    assert not rows["agent:main:huge"]["recorded"] and "cannot be read" in str(
        rows["agent:main:huge"]["problem"]
    )
    warnings = report["warnings"]
    assert isinstance(warnings, list) and len(warnings) == 2
    assert all("skipped, the others go on" in w for w in warnings)
    result = cli("-w", str(sample), "--now", NOW, "flush", "--force")  # the cron session has none either
    assert result.exit_code == 0 and result.stderr.count("warning: session") == 3
    assert "'agent:main:gone'" in result.stderr and "'agent:main:huge'" in result.stderr


def test_reset_and_deleted_transcripts_are_history_never_flushed_or_compacted(
    cli: Invoke, sample: Path
) -> None:
    for kind in ("reset", "deleted"):
        archive = f"sessions/{MAIN_FILE}.{kind}.2026-10-29T08-00-00.000Z"
        shutil.copy(sample / "sessions" / MAIN_FILE, sample / archive)
        edit_store(sample, agent__main__main={"sessionFile": archive})
        before = (sample / archive).read_bytes()
        main = by_key(report_of(cli, sample, "--force"))[MAIN]
        assert not main["recorded"] and f"an archive ({kind})" in str(main["problem"])
        compacted = as_json(
            cli("--json", "-w", str(sample), "--now", NOW, "compact", "--force", "--session", MAIN)
        )["sessions"][0]
        assert not compacted["due"] and f"an archive ({kind})" in compacted["why"]
        assert (sample / archive).read_bytes() == before
    assert not (sample / TODAY).exists() or "Flushed from agent:main:main" not in (sample / TODAY).read_text()


def test_a_session_pointing_out_of_its_folder_is_refused_after_the_others_are_flushed(
    cli: Invoke, sample: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.jsonl"
    shutil.copy(sample / "sessions" / "bbdd76e8-0991-4455-a96d-99f4dd919733.jsonl", outside)
    edit_store(sample, agent__main__telegram__direct__5550123={"sessionFile": str(outside)})
    before = outside.read_bytes()
    result = cli("-w", str(sample), "--now", NOW, "flush", "--force")
    assert result.exit_code == 3
    (line,) = result.stderr.strip().splitlines()  # one line: what was refused, and that the rest was done
    assert "lies outside" in line and "the other sessions were handled" in line
    store = json.loads((sample / "sessions.json").read_text(encoding="utf-8"))
    assert store[MAIN]["memoryFlushAt"] == NOW_MS and "memoryFlushAt" not in store[TELEGRAM]
    assert outside.read_bytes() == before


# --- fast when nothing is due (issue 18, point 5) ----------------------------------------------


def test_deciding_what_is_due_never_reads_a_transcript(cli: Invoke, sample: Path) -> None:
    huge = sample / "sessions" / "huge.jsonl"
    huge.touch()
    os.truncate(huge, 300 << 20)  # reading it would be refused: over 256 MiB
    edit_store(
        sample,
        agent__main__main={"memoryFlushAt": NOW_MS - 3_600_000, "memoryFlushCompactionCount": 2},
        agent__main__huge={
            "sessionId": "huge",
            "sessionFile": "sessions/huge.jsonl",
            "totalTokens": 1_000,
            "totalTokensFresh": False,  # stale: but flushed in its cycle, so no estimate is needed
            "compactionCount": 1,
            "memoryFlushAt": NOW_MS - 3_600_000,
            "memoryFlushCompactionCount": 1,
        },
    )
    before = {p: p.read_bytes() for p in sample.rglob("*") if p.is_file() and p != huge}
    report = report_of(cli, sample)
    assert not any(s["due"] for s in report["sessions"]) and report["warnings"] == []  # type: ignore[union-attr]
    assert "already flushed in compaction cycle 1" in str(by_key(report)["agent:main:huge"]["why"])
    assert {p: p.read_bytes() for p in sample.rglob("*") if p.is_file() and p != huge} == before


def test_a_flush_reads_only_the_lines_added_since_its_last_flush(cli: Invoke, sample: Path) -> None:
    flush(cli, sample)
    transcript = sample / "sessions" / MAIN_FILE
    data = transcript.read_bytes()
    # a line of the part already flushed, rewritten in place (same length), with a time after the
    # flush: memcli does not read that part again, so it does not see it
    old = "早上好，继续昨天的 job queue 设计文档，先看看现在写到哪了"
    planted = "决定：以后 job queue 一律用 Kafka 不用 Redis！！"
    assert len(planted.encode()) <= len(old.encode())
    planted = planted + " " * (len(old.encode()) - len(planted.encode()))
    line = data.split(old.encode())[0].rsplit(b"\n", 1)[-1]
    stamped = data.replace(old.encode(), planted.encode()).replace(
        line, line.replace(b"2026-10-30T01:02:45.561Z", b"2026-10-31T00:59:00.000Z")
    )
    transcript.write_bytes(stamped)
    appended = message_line("f1000001", "0ea2748d", "We decided to keep the export queue on Redis 7.2.")
    with transcript.open("ab") as f:
        f.write(appended)
    forced = by_key(flush(cli, sample, "--force", "--session", MAIN))[MAIN]
    assert forced["items"] == ["We decided to keep the export queue on Redis 7.2."]
    # the file replaced (a restore, a rewrite): read whole again. The old file is kept
    # aside until then, so the new one cannot reuse its inode (a replaced file is another
    # file; a file deleted and written again at once may get the same inode number back)
    aside = transcript.with_name(transcript.name + ".before-restore")
    transcript.rename(aside)
    transcript.write_bytes(stamped + appended)
    again = by_key(flush(cli, sample, "--force", "--session", MAIN, "--dry-run"))[MAIN]
    assert any("Kafka" in str(i) for i in again["items"])  # type: ignore[attr-defined]
    aside.unlink()


def message_line(ident: str, parent: str, text: str) -> bytes:
    entry = {
        "type": "message",
        "id": ident,
        "parentId": parent,
        "timestamp": "2026-10-31T00:59:30.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": 1},
    }
    return (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8")
