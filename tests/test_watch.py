"""memcli watch (SPEC §11): when it acts (debounce, turn counts), and a real watcher — a real
observer in a real process — that flushes a session growing past its threshold, runs a light
gc every few turns, keeps watching a folder that vanishes and comes back, and ends cleanly
on SIGTERM and SIGINT."""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import NOW, Invoke, as_json, tree_bytes
from memcli.core.watching import (
    Change,
    Debouncer,
    classify,
    complete_lines,
    counts_turns,
    ignored,
    read_from,
    user_turns,
)

MAIN = "agent:main:main"
WAIT = 5.0  # the bound: a due session is flushed within 5 s


# -- the pure decisions ------------------------------------------------------------------


@given(
    st.lists(st.floats(0, 100, allow_nan=False), min_size=1, max_size=30),
    st.floats(0.05, 5),
    st.floats(0, 20),
)
def test_a_burst_is_acted_on_after_its_last_event_or_after_max_wait(
    times: list[float], delay: float, max_wait: float
) -> None:
    d = Debouncer(delay, max_wait)
    assert not d.pending and d.wait(0.0) is None and not d.due(1e9)
    for t in sorted(times):
        d.note(t)
    first, last = min(times), max(times)
    at = min(last + delay, first + max(max_wait, delay))
    assert d.due_at() == at
    assert d.due(at) and not d.due(at - 1e-6)
    assert d.wait(last) == pytest.approx(max(0.0, at - last))
    assert d.due(last + d.wait(last))  # type: ignore[operator]
    d.take()
    assert not d.pending and not d.due(at + 100)


def test_events_that_keep_coming_still_get_their_action_after_max_wait() -> None:
    d = Debouncer(1.5, 10.0)
    t = 0.0
    while t < 30:  # an event every second: the burst never goes quiet for 1.5 s
        d.note(t)
        if d.due(t):
            break
        t += 1.0
    assert t == 10.0


def _message(role: str, text: str) -> dict[str, Any]:
    return {
        "type": "message",
        "id": os.urandom(4).hex(),
        "parentId": None,
        "timestamp": "2026-10-31T01:00:00.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": text}]},
    }


LINE = st.sampled_from(  # a transcript line, and whether it is a turn of the user
    [
        (json.dumps(_message("user", "我喜欢用 pnpm"), ensure_ascii=False), True),
        (json.dumps(_message("user", 'a "user" said {')), True),
        (json.dumps(_message("assistant", "user")), False),
        (json.dumps({"type": "custom", "data": {"role": "user"}}), False),
        (json.dumps({"type": "message", "message": {"role": "toolResult", "content": "user"}}), False),
        ('{"type": "message", "message": {"role": "user"', False),  # a broken line
        ("", False),
    ]
)


@given(st.lists(LINE, max_size=25), st.lists(st.integers(0, 5000), max_size=8))
def test_turns_counted_from_appends_in_any_pieces_equal_the_whole_count(
    lines: list[tuple[str, bool]], cuts: list[int]
) -> None:
    data = "".join(line + "\n" for line, _ in lines).encode("utf-8")
    whole = user_turns(complete_lines(data)[0])
    assert whole == sum(turn for _, turn in lines)
    # the file as a writer grows it (cut anywhere, even inside a line or a character),
    # read from where the last read stopped, as the watcher does
    offset = counted = 0
    for size in [*sorted(min(c, len(data)) for c in cuts), len(data)]:
        found, used = complete_lines(data[offset:size])
        counted += user_turns(found)
        offset += used
    assert counted == whole and offset == len(data)


def test_where_a_transcript_is_read_from() -> None:
    assert read_from(None, 500, baseline=True) == 500  # first run: from now on
    assert read_from(None, 500, baseline=False) == 0  # a transcript new since the last pass
    assert read_from(200, 500, baseline=False) == 200
    assert read_from(800, 500, baseline=False) == 0  # shorter than before: another file


def test_what_wakes_the_watcher() -> None:
    targets = ["/w/ws", "/w/state/agents"]
    assert classify("/w/ws/memory/2026-10-31.md", targets) is Change.CHANGE
    assert classify("/w/ws/sessions.json", targets) is Change.CHANGE
    assert classify("/w/state/agents/main/sessions/s1.jsonl", targets) is Change.CHANGE
    for own in (
        "/w/ws/.memcli/watch.json",
        "/w/ws/.memcli/journal/x.json",
        "/w/ws/sessions.json.lock",
        "/w/ws/memory/.2026-10-31.md.123.ab12cd34.memcli-tmp",
        "/w/ws/.git/index",
        "/w/ws/memory/.#2026-10-31.md",
        "/w/ws/memory/2026-10-31.md.swp",
        "/w/state/agents/main/sessions/sessions.json.4242.tmp",
    ):
        assert classify(own, targets) is Change.NONE, own
    assert classify("/w/elsewhere/notes.md", targets) is Change.NONE
    assert classify("/w/ws", targets) is Change.RESYNC  # the folder itself came or went
    assert classify("/w/state", targets) is Change.RESYNC  # a folder above one
    assert ignored([".memcli"]) and not ignored(["memory", "2026-10-31.md"])


def test_heartbeat_and_cron_sessions_do_not_count_turns() -> None:
    assert counts_turns(MAIN) and counts_turns("agent:main:telegram:direct:5550123")
    assert not counts_turns("agent:main:cron:d89739ca") and not counts_turns("agent:main:heartbeat")


# -- workspaces --------------------------------------------------------------------------


def write_store(path: Path, sessions: dict[str, Any]) -> None:
    """As OpenClaw writes it: a temp file renamed over the store."""
    temp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    temp.write_text(json.dumps(sessions, indent=2), encoding="utf-8")
    os.replace(temp, path)


def append(transcript: Path, *messages: tuple[str, str]) -> None:
    """Messages appended as OpenClaw does: each hangs on the entry before it."""
    lines = transcript.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1]) if lines else {}
    parent = None if last.get("type") in (None, "session") else last.get("id")
    with open(transcript, "a", encoding="utf-8") as f:
        for role, text in messages:
            entry = {**_message(role, text), "parentId": parent}
            parent = entry["id"]
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")


def session_folder(folder: Path, tokens: int = 1_000) -> Path:
    """A store and its transcript: one session, far from its threshold."""
    folder.mkdir(parents=True, exist_ok=True)
    transcript = folder / "s1.jsonl"
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-10-31T01:00:00.000Z"}
    transcript.write_text(json.dumps(header) + "\n", encoding="utf-8")
    append(transcript, ("user", "早上好"), ("assistant", "早上好，今天做什么？"))
    store = {
        MAIN: {"sessionId": "s1", "sessionFile": "s1.jsonl", "totalTokens": tokens, "contextTokens": 200_000}
    }
    write_store(folder / "sessions.json", store)
    return transcript


def raise_tokens(store: Path, tokens: int = 190_000) -> None:
    data = json.loads(store.read_text(encoding="utf-8"))
    data[MAIN]["totalTokens"] = tokens  # past 200,000 - 20,000 - 4,000
    write_store(store, data)


DURABLE = (
    ("user", "I prefer pnpm over npm for every project, never run npm install"),
    ("assistant", "Understood, pnpm from now on."),
    ("user", "We decided to keep the export queue on Redis 7.2 with noeviction"),
    ("assistant", "Noted."),
)


class Watching:
    """`memcli watch` in its own process, its log lines collected as they come."""

    def __init__(self, root: Path, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "memcli", "-w", str(root), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = WAIT) -> str:
        deadline = time.monotonic() + timeout
        while True:
            for line in self.seen:
                if text in line:
                    self.seen.remove(line)
                    return line
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {text!r} within {timeout} s; log so far: {self.seen}")
            try:
                self.seen.append(self.lines.get(timeout=left))
            except queue.Empty:
                continue

    def end(self, sig: int = signal.SIGTERM) -> tuple[int, str]:
        self.proc.send_signal(sig)
        try:
            code = self.proc.wait(timeout=WAIT)
        finally:
            self.proc.kill()
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read()

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def eventually(check: Callable[[], bool], timeout: float = 2.0) -> bool:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def drain(watching: Watching) -> list[str]:
    out = list(watching.seen)
    while not watching.lines.empty():
        out.append(watching.lines.get_nowait())
    return out


def todays(line: str) -> str:
    """The note a `flushed … → memory/YYYY-MM-DD.md (n items)` line names."""
    return line.split("→ ", 1)[1].split(" (", 1)[0]


# -- the real watcher --------------------------------------------------------------------


def test_a_transcript_growing_past_the_threshold_is_flushed_within_5_s_then_sigterm_ends_it(
    ws: Path,
) -> None:
    (ws / "memcli.toml").write_text('timezone = "UTC"\n', encoding="utf-8")
    transcript = session_folder(ws)
    watching = Watching(ws, "watch", "--debounce", "0.3")
    try:
        watching.wait_for("watching ")
        start = time.monotonic()
        append(transcript, *DURABLE)
        raise_tokens(ws / "sessions.json")
        line = watching.wait_for(f"flushed {MAIN} → memory/", WAIT)
        assert time.monotonic() - start < WAIT
        note = todays(line)
        today = datetime.now(UTC).date()
        assert note in (f"memory/{today}.md", f"memory/{today - timedelta(days=1)}.md")  # midnight
        text = (ws / note).read_text(encoding="utf-8")
        assert f"## Flushed from {MAIN}" in text and "pnpm" in text and "Redis 7.2" in text
        assert isinstance(json.loads((ws / "sessions.json").read_text())[MAIN]["memoryFlushAt"], int)
        time.sleep(1.0)  # its own writes (the note, the store, its lock) do not start it again
        assert watching.lines.empty() and not any("flushed" in s for s in watching.seen)
        code, err = watching.end(signal.SIGTERM)
    finally:
        watching.close()
    assert code == 0 and "Traceback" not in err, err
    assert any("stopped (SIGTERM)" in s for s in drain(watching))


@pytest.mark.parametrize("how", ["--sessions", "OPENCLAW_STATE_DIR"])
def test_a_sessions_folder_that_vanishes_and_comes_back_is_watched_again(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    (ws / "memcli.toml").write_text('timezone = "UTC"\n', encoding="utf-8")
    if how == "--sessions":
        gone = tmp_path / "agent" / "sessions"  # the folder watched, removed whole
        folder = gone
        args = ["--sessions", str(folder / "sessions.json")]
    else:
        state = tmp_path / "openclaw"
        state.mkdir()
        monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
        config = {"agents": {"list": [{"id": "main", "workspace": str(ws)}]}}  # ws is main's
        (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
        gone = state / "agents"  # the folder watched, removed with every agent in it
        folder = gone / "main" / "sessions"
        args = []
    session_folder(folder)
    watching = Watching(ws, "watch", "--debounce", "0.3", *args)
    try:
        watching.wait_for("watching ")
        shutil.rmtree(gone)
        watching.wait_for(f"{gone} is missing; watching {gone.parent}")
        shutil.rmtree(ws / "memory")  # inside the workspace too
        time.sleep(0.3)
        transcript = session_folder(folder)
        (ws / "memory").mkdir()
        watching.wait_for(f"{gone} is back")
        append(transcript, *DURABLE)
        raise_tokens(folder / "sessions.json")
        line = watching.wait_for(f"flushed {MAIN} → memory/", WAIT)
        assert "## Flushed from" in (ws / todays(line)).read_text(encoding="utf-8")
        code, err = watching.end(signal.SIGINT)
    finally:
        watching.close()
    assert code == 0 and "Traceback" not in err, err
    assert any("stopped (SIGINT)" in s for s in drain(watching))


def test_a_light_gc_runs_every_gc_every_turns_turns_as_json_lines(ws: Path) -> None:
    (ws / "memcli.toml").write_text('timezone = "UTC"\ngc_every_turns = 3\n', encoding="utf-8")
    transcript = session_folder(ws)
    watching = Watching(ws, "--json", "watch", "--debounce", "0.2")
    try:
        started = json.loads(watching.wait_for('"started"'))
        assert started["gc_every_turns"] == 3 and started["folders"] == [str(ws)]
        # a first run counts from the transcripts' ends as its first pass finds them
        assert eventually(lambda: (ws / ".memcli" / "watch.json").is_file())
        append(transcript, ("user", "第一个问题"), ("assistant", "好的"), ("user", "第二个问题"))
        time.sleep(0.8)  # two turns: not yet
        append(transcript, ("assistant", "嗯"), ("user", "第三个问题"))
        gc = json.loads(watching.wait_for('"action": "gc"', WAIT))
        assert gc["turns"] == 3 and gc["message"].startswith("gc after 3 turns")
        assert eventually(lambda: json.loads((ws / ".memcli" / "watch.json").read_text())["turns"] == 0)
        code, err = watching.end()
    finally:
        watching.close()
    assert code == 0 and "Traceback" not in err, err
    lines = drain(watching)
    assert all(isinstance(json.loads(line), dict) for line in lines)  # one JSON object a line
    assert [json.loads(line)["action"] for line in lines] == ["stopped"]


def test_idle_it_sleeps(ws: Path) -> None:
    """No busy polling: a second of nothing costs (almost) no CPU."""
    session_folder(ws)
    watching = Watching(ws, "watch", "--debounce", "0.2")
    try:
        watching.wait_for("watching ")
        time.sleep(0.5)
        before = cpu_seconds(watching.proc.pid)
        time.sleep(2.0)
        used = cpu_seconds(watching.proc.pid) - before
        code, err = watching.end()
    finally:
        watching.close()
    assert used < 0.05, used
    assert code == 0 and "Traceback" not in err


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- --once --------------------------------------------------------------------------------


def test_once_counts_turns_since_the_last_pass_and_its_gc_is_undone_by_undo(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_text('timezone = "Asia/Shanghai"\ngc_every_turns = 2\n', encoding="utf-8")
    transcript = session_folder(ws)
    # an old week outside the short-term window: gc summarises and archives it
    (ws / "memory" / "2026-09-01.md").write_text(
        "# 2026-09-01\n\n- decided to use Redis 7.2 for the export queue\n- checked the build\n"
        "- TIL: pnpm store prune frees disk space\n- 好的\n- the staging host is atlas-staging-2\n",
        encoding="utf-8",
    )
    once = ["--json", "-w", str(ws), "--now", NOW, "watch", "--once"]
    first = as_json(cli(*once))
    assert first["actions"] == [] and first["turns"] == 0 and first["gc_every_turns"] == 2
    append(transcript, ("user", "问题一"), ("assistant", "答"), ("user", "问题二"))  # said since
    before = tree_bytes(ws)
    report = as_json(cli(*once))
    [gc] = [a for a in report["actions"] if a["action"] == "gc"]
    assert gc["turns"] == 2 and gc["transaction"] and "memcli undo" in gc["message"]
    assert report["turns"] == 0
    assert as_json(cli(*once))["actions"] == []  # nothing said since
    result = cli("-w", str(ws), "--now", NOW, "undo")
    assert result.exit_code == 0, result.stderr
    after = tree_bytes(ws)
    assert {k: v for k, v in after.items() if not k.startswith(".memcli/")} == {
        k: v for k, v in before.items() if not k.startswith(".memcli/")
    }


def test_once_flushes_a_due_session_on_the_day_now_names(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n', encoding="utf-8")
    transcript = session_folder(ws, tokens=190_000)
    append(transcript, *DURABLE)
    result = cli("-w", str(ws), "--now", NOW, "watch", "--once")
    assert result.exit_code == 0, result.stderr
    # at the time --now gives, in the user's zone
    assert result.stdout.startswith(f"09:00:00 flushed {MAIN} → memory/2026-10-31.md (")
    assert result.stdout.endswith(" items)\n") and result.stdout.count("\n") == 1
    assert "pnpm" in (ws / "memory" / "2026-10-31.md").read_text(encoding="utf-8")
    again = cli("-w", str(ws), "--now", NOW, "watch", "--once")
    assert again.exit_code == 0 and again.stdout == ""  # flushed in this cycle already


def test_now_is_refused_without_once(cli: Invoke, ws: Path) -> None:
    result = cli("-w", str(ws), "--now", NOW, "watch")
    assert result.exit_code == 2 and "only goes with --once" in result.stderr


def test_a_gc_the_removal_guard_refuses_is_logged_and_waits_for_more_turns(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_text('timezone = "Asia/Shanghai"\ngc_every_turns = 1\n', encoding="utf-8")
    (ws / "memory" / "2026-10-27.md").write_text(
        "# 2026-10-27\n\n- 好的\n- 谢谢\n- ok\n- deployed atlas-api on port 8080\n", encoding="utf-8"
    )
    transcript = session_folder(ws)
    once = ["--json", "-w", str(ws), "--now", NOW, "watch", "--once"]
    as_json(cli(*once))
    append(transcript, ("user", "还在吗"))
    before = tree_bytes(ws)
    report = as_json(cli(*once))
    [refused] = report["actions"]
    assert refused["action"] == "gc_refused" and "memcli gc --force" in refused["message"]
    assert refused["over_share"] == [{"file": "memory/2026-10-27.md", "removed": 3, "entries": 4}]
    assert {k: v for k, v in tree_bytes(ws).items() if not k.startswith(".memcli/")} == {
        k: v for k, v in before.items() if not k.startswith(".memcli/")
    }
    assert report["turns"] == 0  # tried again after the next gc_every_turns turns, not every pass
    assert as_json(cli(*once))["actions"] == []


def test_a_gc_that_finds_the_workspace_locked_is_tried_again_on_the_next_pass(cli: Invoke, ws: Path) -> None:
    from memcli.workspace.lock import WorkspaceLock

    (ws / "memcli.toml").write_text(
        'timezone = "Asia/Shanghai"\ngc_every_turns = 2\nlock_timeout_seconds = 0.2\n', encoding="utf-8"
    )
    transcript = session_folder(ws)
    once = ["--json", "-w", str(ws), "--now", NOW, "watch", "--once"]
    as_json(cli(*once))
    append(transcript, ("user", "一"), ("user", "二"))
    with WorkspaceLock(ws, "gc", 1.0):  # another memcli at work
        report = as_json(cli(*once))
    [busy] = report["actions"]
    assert busy["action"] == "gc_busy" and "memcli gc" in busy["message"] and report["turns"] == 2
    [gc] = as_json(cli(*once))["actions"]
    assert gc["action"] == "gc" and gc["turns"] == 2


@pytest.mark.parametrize(
    "record",
    [
        b'{"turns": 1e999, "offsets": {}}',  # a count too large for an int
        b'{"turns": 3, "offsets": {"/x.jsonl": -1e999}}',
        b'{"turns": 3, "offsets": []}',
        b'{"turns": 3, "offsets": {"/x.jsonl": -5}}',  # no read stops before the start
        b"[" * 100_000 + b"]" * 100_000,  # nested deeper than json can read
        b"[1, 2",
        b"\xff\xfe",
    ],
)
def test_a_broken_turn_record_starts_the_count_again(cli: Invoke, ws: Path, record: bytes) -> None:
    session_folder(ws)
    (ws / ".memcli").mkdir(exist_ok=True)
    (ws / ".memcli" / "watch.json").write_bytes(record)
    result = cli("--json", "-w", str(ws), "--now", NOW, "watch", "--once")
    assert result.exit_code == 0, result.stderr
    assert as_json(result)["turns"] == 0
    saved = json.loads((ws / ".memcli" / "watch.json").read_text(encoding="utf-8"))
    assert saved["turns"] == 0 and isinstance(saved["offsets"], dict)
