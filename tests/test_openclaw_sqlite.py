"""OpenClaw 2026.8+ keeps sessions in a per-agent SQLite database (SPEC §1, §9;
OPENCLAW-SQLITE.md): memcli reads it, read only and briefly, and never writes it.

The databases are real: OpenClaw 2026.8.1 (schema 19) and 2026.9.6 (schema 23) made them,
offline, from a legacy layout (tests/fixtures/build_openclaw_stores.py; how, in
tests/data/openclaw/README.md). Each test unpacks its own copy. Where a test changes a
database it plays OpenClaw (a connection of its own), never memcli.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import zstandard

from conftest import NOW, REPO, Invoke, as_json, tree_bytes
from memcli.core.watching import Change, classify
from memcli.errors import DataError
from memcli.workspace.openclaw_db import read_events, read_sessions

DATA = REPO / "tests" / "data" / "openclaw"
VERSIONS = ["2026.8.1", "2026.9.6"]
MAIN = "agent:main:main"
TELEGRAM = "agent:main:telegram:direct:5550123"
MAIN_ID = "557162e6-8f6b-408f-b841-b47d8b9a3652"
TODAY = "memory/2026-10-31.md"
DECISION = "决定了：export worker 改用 blue-green 部署"  # said in a long message OpenClaw 2026.9 compressed
PREFERENCE = "I prefer squash merges for the atlas repo from now on."


def install(version: str, state: Path) -> Path:
    """OpenClaw's state folder with the databases `version` made, and the default
    workspaces of its two agents (main and ops); main's workspace is returned."""
    for agent in ("main", "ops"):
        packed = DATA / version / "agents" / agent / "agent" / "openclaw-agent.sqlite.zst"
        target = state / "agents" / agent / "agent" / "openclaw-agent.sqlite"
        target.parent.mkdir(parents=True)
        target.write_bytes(zstandard.ZstdDecompressor().decompress(packed.read_bytes()))
    for name in ("workspace", "workspace-ops"):
        (state / name / "memory").mkdir(parents=True)
        (state / name / "MEMORY.md").write_text("# MEMORY.md\n\n## Preferences\n\n- I prefer dark mode\n")
        (state / name / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n')
    return state / "workspace"


def database(state: Path, agent: str = "main") -> Path:
    return state / "agents" / agent / "agent" / "openclaw-agent.sqlite"


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def memcli(cli: Invoke, state: Path, workspace: Path | None, *args: str, now: str = NOW) -> Any:
    where = ["-w", str(workspace)] if workspace is not None else []
    return cli("--json", *where, "--state-dir", str(state), "--now", now, *args)


def by_key(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["session"]: s for s in report["sessions"]}


def records(workspace: Path) -> dict[str, Any]:
    return json.loads((workspace / ".memcli" / "flushed.json").read_text())["sessions"]  # type: ignore[no-any-return]


@contextlib.contextmanager
def as_openclaw(db: Path) -> Iterator[sqlite3.Connection]:
    """A write connection standing for OpenClaw (whose SQLite has the functions its CHECKs
    call; Python's may not: those checks are left to it)."""
    with contextlib.closing(sqlite3.connect(db, timeout=5)) as conn:
        conn.execute("PRAGMA ignore_check_constraints = ON")
        with conn:
            yield conn


def said(conn: sqlite3.Connection, session_id: str, *texts: tuple[str, str]) -> None:
    """Messages appended as OpenClaw appends them: the next seqs, each on the one before."""
    seq, parent_json = conn.execute(
        "SELECT seq, event_json FROM transcript_events WHERE session_id = ? ORDER BY seq DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    parent = json.loads(parent_json)["id"] if parent_json else None
    for n, (role, text) in enumerate(texts, 1):
        event = {
            "type": "message",
            "id": f"e{seq + n:07x}",
            "parentId": parent,
            "timestamp": f"2026-10-31T00:{10 + n:02d}:00.000Z",
            "message": {"role": role, "content": [{"type": "text", "text": text}], "timestamp": 1},
        }
        parent = event["id"]
        data = json.dumps(event, ensure_ascii=False)
        columns = [c[1] for c in conn.execute("PRAGMA table_info(transcript_events)")]
        if "event_utf8_bytes" in columns:
            conn.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes) "
                "VALUES (?, ?, ?, 1, ?)",
                (session_id, seq + n, data, len(data.encode())),
            )
        else:
            conn.execute(
                "INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 1)",
                (session_id, seq + n, data),
            )


def patch_entry(conn: sqlite3.Connection, key: str, **fields: Any) -> None:
    """OpenClaw rewriting a session record: entry_json replaced (its trigger marks the row
    invalid), then validated (entry_valid = 1)."""
    (entry_json,) = conn.execute(
        "SELECT entry_json FROM session_nodes WHERE session_key = ?", (key,)
    ).fetchone()
    entry = {**json.loads(entry_json), **fields}
    conn.execute("UPDATE session_nodes SET entry_json = ? WHERE session_key = ?", (json.dumps(entry), key))
    conn.execute("UPDATE session_nodes SET entry_valid = 1 WHERE session_key = ?", (key,))


# --- reading ------------------------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_sessions_are_read_from_valid_rows_with_their_sizes_and_last_seq(
    tmp_path: Path, version: str
) -> None:
    install(version, tmp_path)
    read = read_sessions(database(tmp_path))
    assert read.version == {"2026.8.1": 19, "2026.9.6": 23}[version]
    sessions = {s.key: s for s in read.sessions}
    assert set(sessions) == {MAIN, TELEGRAM, "agent:main:cron:d89739ca-9755-4f36-8454-ce39cb12cfda"}
    main = sessions[MAIN]
    assert main.session_id == MAIN_ID and main.last_seq == 64 and main.events_bytes > 30_000
    assert main.entry["memoryFlush"] == {"kind": "succeeded", "compactionCount": 1}  # not memoryFlushAt
    assert "sessionFile" not in main.entry and "memoryFlushAt" not in main.entry


def test_a_compressed_event_is_decoded_with_zstandard(tmp_path: Path) -> None:
    install("2026.9.6", tmp_path)
    with contextlib.closing(sqlite3.connect(database(tmp_path))) as db:
        compressed = db.execute(
            "SELECT seq FROM transcript_events WHERE event_zstd IS NOT NULL AND session_id = ?", (MAIN_ID,)
        ).fetchall()
    assert compressed == [(61,)]  # selecting event_json alone would miss it
    events = read_events(database(tmp_path), MAIN_ID, 60)
    assert events.last_seq == 64 and len(events.lines) == 4 and events.problems == ()
    assert DECISION in json.loads(events.lines[0])["message"]["content"][0]["text"]


def test_a_broken_compressed_event_is_skipped_and_named(tmp_path: Path) -> None:
    install("2026.9.6", tmp_path)
    with as_openclaw(database(tmp_path)) as conn:
        conn.execute(
            "UPDATE transcript_events SET event_zstd = ? WHERE session_id = ? AND seq = 61",
            (b"\x28\xb5\x2f\xfd not a frame", MAIN_ID),
        )
    events = read_events(database(tmp_path), MAIN_ID, 60)
    assert len(events.lines) == 3 and "event 61" in events.problems[0] and "zstd" in events.problems[0]


def test_a_database_without_the_columns_memcli_reads_is_bad_data_naming_its_schema(
    cli: Invoke, tmp_path: Path
) -> None:
    workspace = install("2026.9.6", tmp_path)
    db = database(tmp_path)
    db.unlink()
    with contextlib.closing(sqlite3.connect(db)) as conn:
        conn.executescript(
            "CREATE TABLE session_nodes (session_key TEXT, current_session_id TEXT, entry_json TEXT, "
            "entry_valid INTEGER, updated_at INTEGER); CREATE TABLE transcript_events (session_id TEXT, "
            "event_json TEXT); PRAGMA user_version = 31;"
        )
    before = digest(db)
    result = memcli(cli, tmp_path, workspace, "flush")
    assert result.exit_code == 3
    assert "schema 31" in result.stderr and "transcript_events.seq" in result.stderr
    assert digest(db) == before and not (workspace / TODAY).exists()


def test_a_row_openclaw_is_rewriting_is_left_for_the_next_run(cli: Invoke, tmp_path: Path) -> None:
    workspace = install("2026.9.6", tmp_path)
    with as_openclaw(database(tmp_path)) as conn:
        conn.execute("UPDATE session_nodes SET entry_valid = 0 WHERE session_key = ?", (MAIN,))
    report = as_json(memcli(cli, tmp_path, workspace, "status"))
    assert MAIN not in {r["session"] for r in report["sessions"]}
    assert any("being rewritten by OpenClaw" in p for p in report["session_problems"])
    assert MAIN not in by_key(as_json(memcli(cli, tmp_path, workspace, "flush")))


# --- status, flush, compact ----------------------------------------------------------------


@pytest.mark.parametrize("version", VERSIONS)
def test_status_shows_the_sessions_of_the_agents_database(cli: Invoke, tmp_path: Path, version: str) -> None:
    workspace = install(version, tmp_path)
    rows = {r["session"]: r for r in as_json(memcli(cli, tmp_path, workspace, "status"))["sessions"]}
    assert set(rows) == {MAIN, TELEGRAM, "agent:main:cron:d89739ca-9755-4f36-8454-ce39cb12cfda"}
    main = rows[MAIN]
    assert (main["kind"], main["agent"], main["tokens"], main["compactions"]) == (
        "sqlite",
        "main",
        181_200,
        2,
    )
    assert main["due"] and "new compaction cycle 2" in main["why"]  # OpenClaw flushed in cycle 1
    assert main["last_flush"] == "in cycle 1 (OpenClaw)"  # it records no time
    assert not rows[TELEGRAM]["due"]
    ops = {r["session"] for r in as_json(memcli(cli, tmp_path, None, "--agent", "ops", "status"))["sessions"]}
    assert ops == {"agent:ops:main"}


@pytest.mark.parametrize("version", VERSIONS)
def test_flush_appends_the_events_durable_notes_and_keeps_its_own_record_never_writing_the_database(
    cli: Invoke, tmp_path: Path, version: str
) -> None:
    workspace = install(version, tmp_path)
    before = {agent: digest(database(tmp_path, agent)) for agent in ("main", "ops")}
    main = by_key(as_json(memcli(cli, tmp_path, workspace, "flush")))[MAIN]
    assert main["recorded"] and main["kind"] == "sqlite" and main["note"] == TODAY
    text = (workspace / TODAY).read_text(encoding="utf-8")
    assert f"## Flushed from {MAIN} (09:00)" in text
    assert DECISION in text and PREFERENCE in text
    record = records(workspace)[f"sqlite:{database(tmp_path).resolve()}#{MAIN}"]
    assert record == {"sessionId": MAIN_ID, "lastSeq": 64, "flushedAt": 1793408400000, "compactionCount": 2}
    assert {agent: digest(database(tmp_path, agent)) for agent in ("main", "ops")} == before
    assert not Path(f"{database(tmp_path)}-journal").exists()
    wal = Path(f"{database(tmp_path)}-wal")
    assert not wal.exists() or wal.stat().st_size == 0  # read only: nothing in the WAL either
    assert not (tmp_path / "workspace-ops" / TODAY).exists()  # ops's notes are ops's
    # flushed in this cycle now (memcli's record, since the database does not say so)
    again = by_key(as_json(memcli(cli, tmp_path, workspace, "flush")))[MAIN]
    assert not again["due"] and "already flushed in compaction cycle 2" in again["why"]
    forced = by_key(as_json(memcli(cli, tmp_path, workspace, "flush", "--force", "--session", MAIN)))[MAIN]
    assert forced["recorded"] and forced["items"] == []  # nothing said since its last seq
    assert (workspace / TODAY).read_text(encoding="utf-8") == text


@pytest.mark.parametrize("version", VERSIONS)
def test_the_next_flush_reads_only_the_events_after_its_last_seq(
    cli: Invoke, tmp_path: Path, version: str
) -> None:
    workspace = install(version, tmp_path)
    as_json(memcli(cli, tmp_path, workspace, "flush"))
    first = (workspace / TODAY).read_text(encoding="utf-8")
    with as_openclaw(database(tmp_path)) as conn:  # OpenClaw: more turns, then a compaction
        said(
            conn,
            MAIN_ID,
            ("user", "We decided to keep staging on Postgres 16 until March."),
            ("assistant", "OK"),
        )
        patch_entry(conn, MAIN, compactionCount=3)
    later = "2026-10-31T10:00:00+08:00"  # past the cooldown
    main = by_key(as_json(memcli(cli, tmp_path, workspace, "flush", now=later)))[MAIN]
    assert main["due"] and "new compaction cycle 3" in main["why"]
    assert main["items"] == ["We decided to keep staging on Postgres 16 until March."]
    assert (workspace / TODAY).read_text(encoding="utf-8").startswith(first)
    assert records(workspace)[f"sqlite:{database(tmp_path).resolve()}#{MAIN}"]["lastSeq"] == 66


def test_the_other_agent_is_flushed_into_its_own_workspace_with_agent(cli: Invoke, tmp_path: Path) -> None:
    main_ws = install("2026.9.6", tmp_path)
    ops = by_key(as_json(memcli(cli, tmp_path, None, "--agent", "ops", "flush")))["agent:ops:main"]
    assert ops["recorded"] and ops["agent"] == "ops"
    text = (tmp_path / "workspace-ops" / TODAY).read_text(encoding="utf-8")
    assert "Grafana on port 3000" in text and "#ops-oncall" in text
    assert not (main_ws / TODAY).exists()


@pytest.mark.parametrize("version", VERSIONS)
def test_compact_leaves_the_database_to_openclaw_exit_3_nothing_written(
    cli: Invoke, tmp_path: Path, version: str
) -> None:
    workspace = install(version, tmp_path)
    before = digest(database(tmp_path)), tree_bytes(workspace)
    result = memcli(cli, tmp_path, workspace, "compact", "--force")
    assert result.exit_code == 3
    assert (
        "OpenClaw 2026.8+ compacts its own sessions" in result.stderr
        and "nothing was written" in result.stderr
    )
    assert (digest(database(tmp_path)), tree_bytes(workspace)) == before


def test_a_legacy_sessions_json_beside_the_database_is_not_read_as_live(cli: Invoke, tmp_path: Path) -> None:
    workspace = install("2026.9.6", tmp_path)
    legacy = tmp_path / "agents" / "main" / "sessions" / "sessions.json"
    legacy.parent.mkdir()
    legacy.write_text(json.dumps({"agent:main:old": {"sessionId": "x", "totalTokens": 199_000}}))
    before = legacy.read_bytes()
    report = as_json(memcli(cli, tmp_path, workspace, "flush"))
    rows = by_key(report)
    assert rows[MAIN]["recorded"] and "legacy store" in rows["agent:main:old"]["why"]
    assert legacy.read_bytes() == before


# --- OpenClaw writing at the same time -----------------------------------------------------------

HOLDER = r"""
import sqlite3, sys, time
db = sqlite3.connect(sys.argv[1], timeout=5, isolation_level=None)
db.execute("PRAGMA ignore_check_constraints = ON")
db.execute(sys.argv[2])  # BEGIN IMMEDIATE (a write under way) or BEGIN EXCLUSIVE (a commit)
db.execute("UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 1) "
           "WHERE session_key = ?", ("agent:main:telegram:direct:5550123",))
print("held", flush=True)
time.sleep(30)
"""


@contextlib.contextmanager
def openclaw_writing(db: Path, begin: str) -> Iterator[None]:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(db), begin], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield
    finally:
        holder.send_signal(signal.SIGKILL)  # its transaction is never committed
        holder.wait()


def test_a_write_transaction_openclaw_holds_does_not_stop_a_read_in_wal_mode(
    cli: Invoke, tmp_path: Path
) -> None:
    workspace = install("2026.9.6", tmp_path)
    db = database(tmp_path)
    before = digest(db)
    with openclaw_writing(db, "BEGIN IMMEDIATE"):
        rows = by_key(as_json(memcli(cli, tmp_path, workspace, "flush")))
    assert rows[MAIN]["recorded"] and rows[TELEGRAM]["tokens"] == 42_000  # the last commit, not the write
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert digest(db) == before


def test_a_lock_held_longer_than_the_wait_is_exit_4_nothing_read_nothing_written(
    cli: Invoke, tmp_path: Path
) -> None:
    workspace = install("2026.9.6", tmp_path)
    (workspace / "memcli.toml").write_text('timezone = "Asia/Shanghai"\nlock_timeout_seconds = 0.5\n')
    db = database(tmp_path)
    with contextlib.closing(sqlite3.connect(db)) as conn:  # as OpenClaw opens it on a network file system
        conn.execute("PRAGMA journal_mode = DELETE")
    before = digest(db), tree_bytes(workspace)
    with openclaw_writing(db, "BEGIN EXCLUSIVE"):
        started = time.monotonic()
        result = memcli(cli, tmp_path, workspace, "flush")
        elapsed = time.monotonic() - started
    assert result.exit_code == 4, result.stderr
    assert "is locked by OpenClaw" in result.stderr and "nothing was written" in result.stderr
    assert elapsed < 5
    assert (digest(db), tree_bytes(workspace)) == before


# --- watch -----------------------------------------------------------------------------------------


def test_the_watcher_wakes_for_the_database_and_its_wal() -> None:
    agents = "/state/agents"
    for name in ("openclaw-agent.sqlite", "openclaw-agent.sqlite-wal", "openclaw-agent.sqlite-journal"):
        assert classify(f"{agents}/main/agent/{name}", [agents]) is Change.CHANGE


def test_watch_once_counts_the_user_turns_of_database_sessions(cli: Invoke, tmp_path: Path) -> None:
    workspace = install("2026.9.6", tmp_path)
    (workspace / "memcli.toml").write_text('timezone = "Asia/Shanghai"\ngc_every_turns = 100\n')
    as_json(memcli(cli, tmp_path, workspace, "flush"))  # nothing due after this
    first = as_json(memcli(cli, tmp_path, workspace, "watch", "--once"))
    assert first["turns"] == 0  # counting starts at the events there now
    with as_openclaw(database(tmp_path)) as conn:
        said(conn, MAIN_ID, ("user", "问题一"), ("assistant", "答"), ("user", "问题二"))
    assert as_json(memcli(cli, tmp_path, workspace, "watch", "--once"))["turns"] == 2


def test_watch_flushes_a_database_session_when_openclaw_writes_it(tmp_path: Path) -> None:
    from test_watch import WAIT, Watching

    workspace = install("2026.9.6", tmp_path)
    (workspace / "memcli.toml").write_text('timezone = "UTC"\n')
    subprocess.run(
        [
            sys.executable,
            "-m",
            "memcli",
            "-w",
            str(workspace),
            "--state-dir",
            str(tmp_path),
            "--now",
            NOW,
            "flush",
        ],
        check=True,
        capture_output=True,
    )
    watching = Watching(workspace, "--state-dir", str(tmp_path), "watch", "--debounce", "0.3")
    try:
        watching.wait_for("watching ")
        time.sleep(0.5)
        with as_openclaw(database(tmp_path)) as conn:
            said(conn, MAIN_ID, ("user", "We decided to move the nightly export to 02:30 UTC."))
            patch_entry(conn, MAIN, compactionCount=3)
        line = watching.wait_for(f"flushed {MAIN} → memory/", WAIT)
        note = line.split("→ ", 1)[1].split(" (", 1)[0]
        assert "nightly export to 02:30 UTC" in (workspace / note).read_text(encoding="utf-8")
        code, err = watching.end(signal.SIGTERM)
    finally:
        watching.close()
    assert code == 0 and "Traceback" not in err, err


def test_reading_a_database_that_is_not_one_is_bad_data(tmp_path: Path) -> None:
    path = tmp_path / "openclaw-agent.sqlite"
    path.write_bytes(b"SQLite format 3\x00" + b"\x00" * 100)
    with pytest.raises(DataError, match="cannot be read as OpenClaw's session database"):
        read_sessions(path)
