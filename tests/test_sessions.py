# ruff: noqa: E501  (the decision table reads best one case a line)
"""Sessions (SPEC §9): the flush decision and OpenClaw's session store and its lock."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from memcli.core.policy import Policy
from memcli.core.sessions import OwnFlush, flush_decision, is_history, max_tokens
from memcli.errors import DataError, LockTimeout
from memcli.workspace.openclaw import load_openclaw
from memcli.workspace.session_store import find_stores, lock_path, render_store, store_lock, update_store
from memcli.workspace.transcripts import locate

NOW_MS = 1_793_400_000_000
MIN = 60_000
POLICY = Policy()  # 200k window: threshold 200,000 - 20,000 - 4,000 = 176,000


@pytest.mark.parametrize(
    ("case", "key", "entry", "size", "estimate", "read_only", "due", "why"),
    [
        ("fresh session over the threshold", "agent:main:main", {"totalTokens": 180_000}, 10, None, False, True,
         "never flushed"),
        ("fresh session below it", "agent:main:main", {"totalTokens": 100_000}, 10, None, False, False,
         "below 176,000"),
        ("same cycle", "agent:main:main",
         {"totalTokens": 190_000, "compactionCount": 2, "memoryFlushAt": NOW_MS - 60 * MIN,
          "memoryFlushCompactionCount": 2}, 10, None, False, False, "already flushed in compaction cycle 2"),
        ("new cycle", "agent:main:main",
         {"totalTokens": 190_000, "compactionCount": 3, "memoryFlushAt": NOW_MS - 60 * MIN,
          "memoryFlushCompactionCount": 2}, 10, None, False, True, "new compaction cycle 3"),
        ("zero == zero is no trap", "agent:main:main", {"totalTokens": 180_000, "compactionCount": 0}, 10, None,
         False, True, "never flushed"),
        ("stale tokens, estimate high", "agent:main:main", {"totalTokens": 1_000, "totalTokensFresh": False}, 10,
         185_000, False, True, "estimated"),
        ("stale tokens, estimate low", "agent:main:main", {"totalTokens": 190_000, "totalTokensFresh": False}, 10,
         5_000, False, False, "estimated from the transcript"),
        ("big transcript", "agent:main:main", {"totalTokens": 1_000}, 3 << 20, None, False, True, "bytes"),
        ("read-only workspace", "agent:main:main", {"totalTokens": 190_000}, 10, None, True, False, "read-only"),
        ("heartbeat key", "agent:main:heartbeat", {"totalTokens": 190_000}, 10, None, False, False, "heartbeat"),
        ("cron key", "agent:main:cron:nightly", {"totalTokens": 190_000}, 10, None, False, False, "cron"),
        ("cooldown", "agent:main:main",
         {"totalTokens": 190_000, "compactionCount": 1, "memoryFlushAt": NOW_MS - 3 * MIN,
          "memoryFlushCompactionCount": 0}, 10, None, False, False, "cooldown"),
        ("own window", "agent:main:main", {"totalTokens": 90_000, "contextTokens": 100_000}, 10, None, False,
         True, "≥ 76,000"),
    ],
)  # fmt: skip
def test_the_flush_decision(
    case: str,
    key: str,
    entry: dict[str, Any],
    size: int,
    estimate: int | None,
    read_only: bool,
    due: bool,
    why: str,
) -> None:
    decision = flush_decision(key, entry, POLICY, NOW_MS, size, estimate, read_only)
    assert decision.due is due, (case, decision)
    assert why in decision.why, (case, decision.why)


def test_a_stale_count_is_ruled_out_by_the_transcripts_size_or_asks_for_an_estimate() -> None:
    stale = {"totalTokens": 1_000, "totalTokensFresh": False}
    small = flush_decision("agent:main:main", stale, POLICY, NOW_MS, 300_000, None)
    assert not small.due and not small.needs_estimate and "at most ~104,688 tokens" in small.why
    big = flush_decision("agent:main:main", stale, POLICY, NOW_MS, 900_000, None)
    assert not big.due and big.needs_estimate  # it might be due: only reading can tell
    flushed = {
        **stale,
        "compactionCount": 1,
        "memoryFlushAt": NOW_MS - 60 * MIN,
        "memoryFlushCompactionCount": 1,
    }
    done = flush_decision("agent:main:main", flushed, POLICY, NOW_MS, 900_000, None)
    assert not done.needs_estimate and "already flushed in compaction cycle 1" in done.why
    assert max_tokens(300_000) >= 300_000 // 3  # a CJK character: 3 bytes, 1 token


@pytest.mark.parametrize(
    ("case", "entry", "own", "due", "why"),
    [
        ("OpenClaw flushed this cycle", {"compactionCount": 2, "memoryFlush": {"kind": "succeeded", "compactionCount": 2}},
         None, False, "already flushed in compaction cycle 2 by OpenClaw"),
        ("OpenClaw flushed an earlier cycle", {"compactionCount": 2, "memoryFlush": {"kind": "succeeded", "compactionCount": 1}},
         None, True, "new compaction cycle 2"),
        ("a failed flush is no flush", {"compactionCount": 2, "memoryFlush": {"kind": "failed", "failureCount": 3}},
         None, True, "never flushed"),
        ("memcli flushed this cycle", {"compactionCount": 2}, OwnFlush(NOW_MS - 60 * MIN, 2), False,
         "already flushed in compaction cycle 2"),
        ("memcli flushed minutes ago", {"compactionCount": 3}, OwnFlush(NOW_MS - 2 * MIN, 2), False, "cooldown"),
        ("memcli flushed an earlier cycle", {"compactionCount": 3}, OwnFlush(NOW_MS - 60 * MIN, 2), True,
         "new compaction cycle 3"),
    ],
)  # fmt: skip
def test_openclaw_2026_8_records_and_memclis_own_count_as_flushes(
    case: str, entry: dict[str, Any], own: OwnFlush | None, due: bool, why: str
) -> None:
    decision = flush_decision(
        "agent:main:main", {"totalTokens": 190_000, **entry}, POLICY, NOW_MS, 10, None, own=own
    )
    assert decision.due is due, (case, decision)
    assert why in decision.why, (case, decision.why)


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("s1.jsonl", None),
        ("s1.jsonl.reset.2026-10-29T08-00-00.000Z", "reset"),
        ("s1.jsonl.deleted.2026-10-29T08-00-00.000Z", "deleted"),
        ("s1.jsonl.bak.2026-10-29T08-00-00.000Z", "backup"),
        ("s1.jsonl.bak-4242-1793400000000", "backup"),
        ("reset.jsonl", None),
    ],
)
def test_openclaws_archives_are_history(name: str, kind: str | None) -> None:
    assert is_history(name) == kind


def test_a_transcript_is_located_inside_its_folder_a_stale_absolute_path_by_its_name(tmp_path: Path) -> None:
    folder = tmp_path / "agents" / "main" / "sessions"
    folder.mkdir(parents=True)
    path = store(folder)
    (folder / "s1.jsonl").write_text("")
    stale = locate(path, {"sessionFile": "/home/old/.openclaw/agents/main/sessions/s1.jsonl"}, "k")
    assert stale.path == (folder / "s1.jsonl").resolve() and "/home/old/" in str(stale.note)
    missing = locate(path, {"sessionFile": "/home/old/gone.jsonl", "sessionId": "nope"}, "k")
    assert missing.path is None and "does not exist" in str(missing.problem)
    (tmp_path / "elsewhere.jsonl").write_text("")
    with pytest.raises(DataError, match="lies outside"):  # a real file elsewhere: not followed
        locate(path, {"sessionFile": str(tmp_path / "elsewhere.jsonl")}, "k")
    (folder / "s1.jsonl.reset.2026-10-29T08-00-00.000Z").write_text("")
    archived = locate(path, {"sessionFile": "s1.jsonl.reset.2026-10-29T08-00-00.000Z"}, "k")
    assert archived.path is None and "an archive (reset)" in str(archived.problem)


# --- the store ------------------------------------------------------------------------------

STORE = {
    "agent:main:main": {
        "sessionId": "s1",
        "zUnknown": {"nested": [1, 2, "三"]},
        "totalTokens": 10,
        "aFieldOpenClawAddsLater": True,
    },
    "agent:main:telegram:direct:1": {"sessionId": "s2", "origin": {"label": "Lin"}},
}


def store(tmp_path: Path, mode: int = 0o600) -> Path:
    path = tmp_path / "sessions.json"
    path.write_text(json.dumps(STORE, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.chmod(path, mode)
    return path


def test_a_write_keeps_unknown_fields_key_order_and_mode(tmp_path: Path) -> None:
    path = store(tmp_path)

    def flush(data: dict[str, Any]) -> bool:
        data["agent:main:main"]["memoryFlushAt"] = NOW_MS
        return True

    assert update_store(path, tmp_path, flush)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert list(data) == list(STORE)
    assert list(data["agent:main:main"]) == [*STORE["agent:main:main"], "memoryFlushAt"]
    assert data["agent:main:main"]["zUnknown"] == {"nested": [1, 2, "三"]}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_bytes() == render_store(data) and b'\n  "agent:main:main": {\n    ' in path.read_bytes()
    assert not lock_path(path).exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".memcli-tmp")]


def test_nothing_is_written_when_nothing_changed(tmp_path: Path) -> None:
    path = store(tmp_path, 0o644)
    before = path.stat()
    assert not update_store(path, tmp_path, lambda data: False)
    assert path.stat().st_ino == before.st_ino and path.stat().st_mtime_ns == before.st_mtime_ns


HOLDER = """
import json, os, sys, time
path = sys.argv[1]
fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
os.write(fd, json.dumps({"pid": os.getpid(), "createdAt": int(time.time() * 1000)}).encode())
os.close(fd)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
os.unlink(path)
"""


def test_a_live_lock_is_waited_for_then_the_writer_gives_up_with_nothing_written(tmp_path: Path) -> None:
    path = store(tmp_path)
    before = path.read_bytes()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock_path(path)), "5"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(LockTimeout) as caught:
            update_store(path, tmp_path, lambda data: True, wait=0.5)
        assert time.monotonic() - started >= 0.5
        assert caught.value.exit_code == 4 and "sessions.json.lock" in caught.value.message
        assert path.read_bytes() == before
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_released_while_waiting_is_taken(tmp_path: Path) -> None:
    path = store(tmp_path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(lock_path(path)), "0.4"], stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    assert update_store(path, tmp_path, lambda data: data.update(x=1) is None, wait=5)
    holder.wait()
    assert json.loads(path.read_text())["x"] == 1


def test_a_stale_lock_is_taken_over(tmp_path: Path) -> None:
    path = store(tmp_path)
    lock_path(path).write_text(
        json.dumps({"pid": os.getpid(), "createdAt": int(time.time() * 1000) - 31_000})
    )
    with store_lock(path, wait=0.2):
        assert json.loads(lock_path(path).read_text())["pid"] == os.getpid()
    assert not lock_path(path).exists()
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    lock_path(path).write_text(json.dumps({"pid": int(dead.stdout), "createdAt": int(time.time() * 1000)}))
    with store_lock(path, wait=0.2):  # its holder is gone
        pass


def test_malformed_json_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sessions.json"
    path.write_text('{"agent:main:main": {', encoding="utf-8")
    with pytest.raises(DataError) as caught:
        update_store(path, tmp_path, lambda data: True)
    assert caught.value.exit_code == 3 and "not valid JSON" in caught.value.message
    assert path.read_text() == '{"agent:main:main": {' and not lock_path(path).exists()


def test_stores_are_found_and_a_store_beside_openclaws_database_is_legacy(tmp_path: Path) -> None:
    state = tmp_path / "state"
    root = state / "workspace"  # the main agent's workspace, by default
    root.mkdir(parents=True)
    store(root)
    (state / "agents" / "main" / "sessions").mkdir(parents=True)
    (state / "agents" / "main" / "sessions" / "sessions.json").write_text("{}")
    (state / "agents" / "main" / "agent").mkdir()
    (state / "agents" / "main" / "agent" / "openclaw-agent.sqlite").write_bytes(b"SQLite format 3\x00")
    found = find_stores(root, openclaw=load_openclaw(state, {}, tmp_path))
    assert [(s.path.relative_to(tmp_path).as_posix(), s.kind, s.legacy, s.agent) for s in found] == [
        ("state/workspace/sessions.json", "json", False, None),
        ("state/agents/main/agent/openclaw-agent.sqlite", "sqlite", False, "main"),
        ("state/agents/main/sessions/sessions.json", "json", True, "main"),
    ]
    elsewhere = tmp_path / "ws"  # the workspace of no agent: its own store only
    elsewhere.mkdir()
    store(elsewhere)
    assert [s.path for s in find_stores(elsewhere, openclaw=load_openclaw(state, {}, tmp_path))] == [
        elsewhere / "sessions.json"
    ]
