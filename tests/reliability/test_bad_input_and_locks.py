"""Bad input and other writers' locks and lines (issue 15, points 5, 7 and 10).

5. A lock file another process is still writing (created, its record not in it yet) is
   live: a lock younger than the stale age (30 s, by its file time) whose content is no
   lock record is waited for, then exit 4, nothing written; OpenClaw's `sessions.json.lock`
   and a transcript's `<file>.lock` alike. One whose holder is gone is still taken over
   at once, and memcli's own lock never appears without its record.
7. No traceback (exit 70) on bad input: a lone UTF-16 surrogate in sessions.json (refused,
   exit 3, naming the file and line, wherever the store is read) or in a transcript (read
   as U+FFFD, like invalid UTF-8), a young lock whose pid no process can have (a damaged
   lock: exit 3, nothing written; taken over once stale), a memcli.toml nested too deeply
   (exit 3), `--summarizer-cmd` output that is not UTF-8 or carries conflict markers
   (exit 3, nothing written).
10. compact never splits a line another process is writing: it waits for the line (2 s at
   most), then appends after it; a line never finished is exit 4, the transcript as it was.

Every test runs memcli on real files in tmp_path with a fixed --now: in-process through
typer's CliRunner, other writers as separate processes.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from conftest import NOW, tree_bytes
from memcli.cli.app import app
from memcli.errors import DataError, LockTimeout
from memcli.workspace.session_store import lock_path, store_lock
from memcli.workspace.transcripts import read_store

from .kit import MAIN, MAIN_TRANSCRIPT, NOW_MS, STORE, TELEGRAM, assert_clean, sessions_workspace, user_bytes

RUNNER = CliRunner()
STORE_LOCK = STORE + ".lock"
TELEGRAM_TRANSCRIPT = "sessions/bbdd76e8-0991-4455-a96d-99f4dd919733.jsonl"
# the Telegram session of kit.sessions_workspace is due for a compaction, not for a flush:
# compacting it writes nothing before it takes its transcript's lock
COMPACT_TELEGRAM = ("compact", "--session", TELEGRAM, "--keep-recent-tokens", "100")
STALE = 30.0


def memcli(root: Path, *args: str) -> Result:
    return RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """The sample workspace with sessions (kit.sessions_workspace), locks waited for 0.3 s."""
    root = sessions_workspace(tmp_path / "ws", today=False)
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\nlock_timeout_seconds = 0.3\n')
    return root


def age(path: Path, seconds: float) -> None:
    """Make a file's modification time `seconds` old."""
    then = time.time() - seconds
    os.utime(path, (then, then))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], Path]]:
    """A fresh folder per Hypothesis example (tmp_path is one per test, and a fixture of
    the function's scope is not reset between examples)."""
    base = tmp_path_factory.mktemp("examples")
    yield lambda: Path(tempfile.mkdtemp(dir=base))


# --- 5. a lock still being written is live -------------------------------------------------

# What a lock holds between its exclusive creation and its owner's write, or when it is no
# record at all: none of these names a holder, so only the file's age can say it is stale.
NO_RECORD = {
    "empty": b"",
    "half-written": b'{"pid": 4',
    "empty object": b"{}",
    "no pid": b'{"createdAt": 1}',
    "pid as text": b'{"pid": "12", "createdAt": 1}',
    "not JSON": b"\x00\xfflock",
}


@pytest.mark.parametrize("content", NO_RECORD.values(), ids=NO_RECORD.keys())
def test_a_store_lock_without_its_record_is_live_until_it_is_30_s_old(ws: Path, content: bytes) -> None:
    lock = ws / STORE_LOCK
    lock.write_bytes(content)
    before = user_bytes(ws)
    result = memcli(ws, "flush")
    assert_clean(result, (4,), "sessions.json.lock is held by another process", "nothing was written")
    assert user_bytes(ws) == before and lock.read_bytes() == content  # not taken, not written

    age(lock, STALE + 5)  # now its writer is gone
    assert_clean(memcli(ws, "flush"), (0,))
    assert not lock.exists() and user_bytes(ws) != before


def test_a_transcript_lock_without_its_record_is_live_and_compact_writes_nothing(ws: Path) -> None:
    lock = ws / (TELEGRAM_TRANSCRIPT + ".lock")
    lock.write_bytes(b"")  # created by its owner, which has not written its record yet
    before = user_bytes(ws)
    result = memcli(ws, *COMPACT_TELEGRAM)
    assert_clean(
        result, (4,), "bbdd76e8-0991-4455-a96d-99f4dd919733.jsonl.lock is held", "nothing was written"
    )
    assert user_bytes(ws) == before and lock.read_bytes() == b""

    age(lock, STALE + 5)
    assert_clean(memcli(ws, *COMPACT_TELEGRAM), (0,))
    assert not lock.exists()
    assert b'"type": "compaction"' in (ws / TELEGRAM_TRANSCRIPT).read_bytes()


@settings(max_examples=60)
@given(
    content=st.binary(max_size=60)
    | st.text(max_size=40).map(str.encode)
    | st.sampled_from(list(NO_RECORD.values()))
)
def test_any_lock_content_that_names_no_holder_is_judged_by_its_age_alone(
    scratch: Callable[[], Path], content: bytes
) -> None:
    try:
        record = json.loads(content)
        if isinstance(record, dict) and type(record.get("pid")) is int:
            return  # a record naming a holder: judged by its pid and createdAt instead
    except (ValueError, RecursionError):
        pass
    folder = scratch()
    store = folder / STORE
    store.write_text("{}")
    lock = lock_path(store)
    lock.write_bytes(content)
    with pytest.raises(LockTimeout), store_lock(store, wait=0):
        pass
    assert lock.read_bytes() == content
    age(lock, STALE + 1)
    with store_lock(store, wait=0):
        assert json.loads(lock.read_bytes())["pid"] == os.getpid()
    assert not lock.exists()


def test_a_lock_whose_holder_is_gone_is_still_taken_over_at_once(ws: Path) -> None:
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    (ws / STORE_LOCK).write_text(json.dumps({"pid": int(dead.stdout), "createdAt": int(time.time() * 1000)}))
    started = time.monotonic()
    assert_clean(memcli(ws, "flush"), (0,))
    assert time.monotonic() - started < 2 and not (ws / STORE_LOCK).exists()


READER = r"""
import os, sys
path, stop = sys.argv[1], sys.argv[2]
seen = empty = 0
while not os.path.exists(stop):
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        continue
    seen += 1
    empty += not data
print(seen, empty)
"""


def test_memclis_own_lock_never_appears_without_its_record(tmp_path: Path) -> None:
    """Another process reading the lock the instant memcli has made it finds memcli's
    record in it: an empty lock is someone still writing it, live, and memcli must not
    look like that (nor leave one behind when killed at that instant)."""
    store = tmp_path / STORE
    store.write_text("{}")
    stop = tmp_path / "stop"
    reader = subprocess.Popen(
        [sys.executable, "-c", READER, str(lock_path(store)), str(stop)], stdout=subprocess.PIPE, text=True
    )
    try:
        time.sleep(0.3)  # the reader is polling
        taken = 0
        started = time.monotonic()
        while time.monotonic() - started < 1.0:
            with store_lock(store, wait=1):
                taken += 1
    finally:
        stop.touch()
        out, _ = reader.communicate(timeout=30)
    seen, empty = map(int, out.split())
    assert taken > 100 and seen > 100, (taken, seen)
    assert empty == 0, f"the reader found memcli's lock empty {empty} times in {seen}"


# --- 7. bad input: exit 3 (or read as it is), never a traceback ----------------------------


def with_lone_surrogate(root: Path) -> int:
    """The Telegram session's origin.label cut in the middle of an emoji, as JavaScript's
    String.slice can leave it: `"Lin \\ud83d"`. Returns its line in sessions.json."""
    text = (root / STORE).read_text(encoding="utf-8")
    assert text.count('"label": "Lin"') == 1
    text = text.replace('"label": "Lin"', '"label": "Lin \\ud83d"')
    (root / STORE).write_text(text, encoding="utf-8")
    return text[: text.index("\\ud83d")].count("\n") + 1


REFUSING = {
    "flush": ("flush",),
    "flush --dry-run": ("flush", "--dry-run"),
    "compact": ("compact",),
    "compact --force": ("compact", "--force"),
    "summarize --session": ("summarize", "--session", MAIN, "-o", "-"),
}


@pytest.mark.parametrize("args", REFUSING.values(), ids=REFUSING.keys())
def test_a_lone_surrogate_in_the_store_is_refused_naming_the_file_and_line(
    ws: Path, args: tuple[str, ...]
) -> None:
    line = with_lone_surrogate(ws)
    before = tree_bytes(ws)
    result = memcli(ws, *args)
    assert_clean(result, (3,), f"sessions.json: line {line}", "surrogate", "nothing was written")
    assert tree_bytes(ws) == before


def test_status_and_watch_report_a_store_with_a_lone_surrogate_and_write_nothing(ws: Path) -> None:
    line = with_lone_surrogate(ws)
    before = user_bytes(ws)
    status = memcli(ws, "status")
    assert_clean(status, (0,))
    assert f"sessions: sessions.json: line {line} holds a lone UTF-16 surrogate" in status.stdout
    watch = memcli(ws, "watch", "--once")
    assert_clean(watch, (0,))
    assert f"sessions.json: line {line} holds a lone UTF-16 surrogate" in watch.stdout + watch.stderr
    assert "UnicodeEncodeError" not in watch.stdout + watch.stderr
    assert user_bytes(ws) == before


# Strings of any characters, lone surrogates (category Cs) included.
ANY_TEXT = st.text(st.characters(codec=None) | st.characters(categories=["Cs"]), max_size=8)
STORE_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | ANY_TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(ANY_TEXT, inner, max_size=3),
    max_leaves=8,
)


def lone(value: Any) -> bool:
    """Whether a value read from JSON holds a lone surrogate anywhere (a key included)."""
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, list):
        return any(lone(v) for v in value)
    if isinstance(value, dict):
        return any(lone(k) or lone(v) for k, v in value.items())
    return False


STRING = re.compile(r'"(?:[^"\\]|\\.)*"')  # a JSON string token, escapes and all


def first_lone_surrogate_line(text: str) -> int | None:
    """The first line of a JSON text holding a string (key or value) that decodes to a
    lone surrogate; None when there is none."""
    for number, line in enumerate(text.splitlines(), 1):
        if any(lone(json.loads(token)) for token in STRING.findall(line)):
            return number
    return None


@settings(max_examples=150)
@given(
    store=st.dictionaries(ANY_TEXT, st.dictionaries(ANY_TEXT, STORE_VALUES, max_size=4), max_size=4),
    upper=st.booleans(),
)
@example(store={"agent:main:main": {"label": "Lin \ud83d"}}, upper=False)  # the issue's
@example(store={"agent:main:main": {"label": "\ud83d\ude00", "\udc00": [1]}}, upper=True)
def test_the_store_is_read_exactly_unless_it_holds_a_lone_surrogate_which_is_refused(
    scratch: Callable[[], Path], store: dict[str, Any], upper: bool
) -> None:
    # JSON.stringify (OpenClaw) writes a lone surrogate as its escape; json.dumps escapes
    # pairs too (which then must be read as the one character they are), lower or upper case
    text = json.dumps(store, indent=2)
    if upper:
        text = re.sub(r"\\u([0-9a-f]{4})", lambda m: "\\u" + m.group(1).upper(), text)
    folder = scratch()
    path = folder / STORE
    path.write_text(text, encoding="utf-8")
    decoded = json.loads(text)  # a high and a low surrogate side by side read as one character
    line = first_lone_surrogate_line(text)
    assert (line is None) == (not lone(decoded))
    if line is None:
        assert read_store(path, folder) == decoded
        return
    with pytest.raises(DataError) as refused:
        read_store(path, folder)
    assert f"sessions.json: line {line} holds a lone UTF-16 surrogate" in refused.value.one_line()
    assert "nothing was written" in refused.value.one_line()


def with_surrogate_message(root: Path) -> None:
    """A user message of the main session holding half an emoji (`\\ud83d`), escaped as
    JSON allows, in a transcript that is otherwise whole UTF-8."""
    path = root / MAIN_TRANSCRIPT
    text = path.read_text(encoding="utf-8")
    old = "早上好，继续昨天的 job queue 设计文档，先看看现在写到哪了"
    assert text.count(old) == 1
    path.write_text(text.replace(old, "我喜欢用 tabs 缩进 \\ud83d，记住这个"), encoding="utf-8")


@pytest.mark.parametrize(
    "args",
    [
        ("summarize", "--session", MAIN, "-o", "-"),
        ("summarize", "--session", MAIN),
        ("flush", "--force", "--session", MAIN),
        ("compact", "--force", "--session", MAIN, "--keep-recent-tokens", "100"),
    ],
    ids=["summarize -o -", "summarize", "flush", "compact"],
)
def test_a_lone_surrogate_in_a_transcript_is_read_as_a_replacement_character(
    ws: Path, args: tuple[str, ...]
) -> None:
    with_surrogate_message(ws)
    result = memcli(ws, *args)
    assert_clean(result, (0,))
    for rel, data in user_bytes(ws).items():
        text = data.decode("utf-8")  # everything memcli wrote is UTF-8
        if rel.endswith(".jsonl"):
            for line in text.splitlines():
                json.loads(line)
    if args[-1] == "-":
        assert "tabs 缩进 \ufffd" in result.stdout


IMPOSSIBLE_PID = 99_999_999_999  # beyond any pid (Linux's limit is 2**22): a damaged lock


def test_a_young_store_lock_naming_a_pid_no_process_can_have_is_bad_data(ws: Path) -> None:
    (ws / STORE_LOCK).write_text(json.dumps({"pid": IMPOSSIBLE_PID, "createdAt": int(time.time() * 1000)}))
    before = tree_bytes(ws)
    result = memcli(ws, "flush")
    assert_clean(result, (3,), STORE_LOCK, str(IMPOSSIBLE_PID))
    assert tree_bytes(ws) == before


def test_a_young_transcript_lock_naming_a_pid_no_process_can_have_is_bad_data(ws: Path) -> None:
    lock = ws / (TELEGRAM_TRANSCRIPT + ".lock")
    lock.write_text(json.dumps({"pid": IMPOSSIBLE_PID, "createdAt": int(time.time() * 1000)}))
    before = tree_bytes(ws)
    assert_clean(memcli(ws, *COMPACT_TELEGRAM), (3,), lock.name)
    assert tree_bytes(ws) == before


def test_a_stale_lock_naming_a_pid_no_process_can_have_is_taken_over(ws: Path) -> None:
    old = int(time.time() * 1000) - 60_000
    (ws / STORE_LOCK).write_text(json.dumps({"pid": IMPOSSIBLE_PID, "createdAt": old}))
    result = memcli(ws, "flush")
    assert_clean(result, (0,))
    assert not (ws / STORE_LOCK).exists()
    assert json.loads((ws / STORE).read_text(encoding="utf-8"))[MAIN]["memoryFlushAt"] == NOW_MS


DEEP = "a = " + "[" * 5000 + "]" * 5000 + "\n"
DEEP_TABLES = "a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n"
CONFIG_READERS = {
    "status": ("status",),
    "list": ("list",),
    "gc --dry-run": ("gc", "--dry-run"),
    "gc": ("gc",),
    "flush": ("flush",),
    "compact": ("compact",),
    "summarize": ("summarize", "-o", "-"),
    "check": ("check",),
}


@pytest.mark.parametrize("args", CONFIG_READERS.values(), ids=CONFIG_READERS.keys())
def test_a_memcli_toml_nested_too_deeply_is_bad_data(ws: Path, args: tuple[str, ...]) -> None:
    (ws / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n' + DEEP)
    before = tree_bytes(ws)
    result = memcli(ws, *args)
    assert_clean(result, (1, 3) if args == ("check",) else (3,), "memcli.toml")
    if result.exit_code == 3:
        assert "too deeply" in result.stderr
    else:  # check reports it among its findings
        assert "memcli.toml" in result.stdout and "too deeply" in result.stdout
    assert tree_bytes(ws) == before


@pytest.mark.parametrize(
    "text", [DEEP, DEEP_TABLES, "[rules.preference]\nadd = " + "[" * 4000 + "]" * 4000 + "\n"]
)
def test_a_config_file_named_elsewhere_nested_too_deeply_is_bad_data(
    ws: Path, tmp_path: Path, text: str
) -> None:
    config = tmp_path / "elsewhere.toml"
    config.write_text(text)
    before = tree_bytes(ws)
    assert_clean(memcli(ws, "--config", str(config), "status"), (3,), "elsewhere.toml", "too deeply")
    assert tree_bytes(ws) == before


def summarizer(tmp_path: Path, out: bytes, err: bytes = b"", code: int = 0) -> str:
    """A summariser command that reads its prompt and prints `out` (and `err` on stderr)."""
    script = tmp_path / "summarizer.py"
    script.write_text(
        "import sys\nsys.stdin.buffer.read()\n"
        f"sys.stdout.buffer.write({out!r})\nsys.stderr.buffer.write({err!r})\nsys.exit({code})\n"
    )
    return f"{sys.executable} {script}"


SUMMARIES = {
    "notes": ("summarize", "--period", "2026-W43"),
    "notes -o -": ("summarize", "--period", "2026-W43", "-o", "-"),
    "session": ("summarize", "--session", MAIN),
}


@pytest.mark.parametrize("args", SUMMARIES.values(), ids=SUMMARIES.keys())
@pytest.mark.parametrize(
    "out",
    [
        b"## Goal\n\xff\xfe caf\xe9\n",
        b"## Goal\n- half a character \xe4\xb8",
        b"## Goal\n\x00\n",
        b"## Goal\n<<<<<<< HEAD\n- ours\n=======\n- theirs\n>>>>>>> branch\n",
    ],
    ids=["latin-1", "cut", "nul", "conflict-markers"],
)
def test_summarizer_output_that_is_not_clean_utf8_text_is_bad_data_and_nothing_is_written(
    ws: Path, tmp_path: Path, args: tuple[str, ...], out: bytes
) -> None:
    before = tree_bytes(ws)
    result = memcli(ws, *args, "--summarizer-cmd", summarizer(tmp_path, out))
    assert_clean(result, (3,), "--summarizer-cmd", "nothing was written")
    assert tree_bytes(ws) == before


def test_a_failing_summarizer_whose_errors_are_not_utf8_falls_back_to_the_extractive_summary(
    ws: Path, tmp_path: Path
) -> None:
    command = summarizer(tmp_path, b"", err=b"model \xff crashed\n", code=2)
    result = memcli(ws, "--json", "summarize", "--period", "2026-W43", "-o", "-", "--summarizer-cmd", command)
    assert_clean(result, (0,))
    assert json.loads(result.stdout)["summarizer"] == "extractive"
    assert (
        "--summarizer-cmd exited with 2: model \ufffd crashed; used the extractive summary" in result.stderr
    )


# --- 10. compact never splits a line being written ----------------------------------------

# Appends the first half of a line (one write), then the rest with its line break once the
# transcript's lock appears, or after `give_up` seconds (whichever is first), 0.3 s later.
HALF_WRITER = r"""
import os, sys, time
path, line, lock, give_up = sys.argv[1], sys.argv[2].encode(), sys.argv[3], float(sys.argv[4])
fd = os.open(path, os.O_WRONLY | os.O_APPEND)
os.write(fd, line[: len(line) // 2])
started = time.monotonic()
while not os.path.exists(lock) and time.monotonic() - started < give_up:
    time.sleep(0.001)
time.sleep(0.3)
os.write(fd, line[len(line) // 2 :] + b"\n")
os.close(fd)
"""


def agent_line(transcript: Path) -> bytes:
    """An OpenClaw message line hung on the transcript's last entry."""
    last = json.loads(transcript.read_bytes().splitlines()[-1])
    entry = {
        "type": "message",
        "id": "5eed1e55",
        "parentId": last["id"],
        "timestamp": "2026-10-31T00:59:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": "我还在打字：部署改到周五"}]},
    }
    return json.dumps(entry, ensure_ascii=False).encode("utf-8")


def test_compact_waits_for_a_line_being_written_and_appends_after_it(ws: Path) -> None:
    transcript = ws / TELEGRAM_TRANSCRIPT
    before = transcript.read_bytes()
    line = agent_line(transcript)
    writer = subprocess.Popen(
        [sys.executable, "-c", HALF_WRITER, str(transcript), line.decode(), str(transcript) + ".lock", "1.0"]
    )
    try:
        deadline = time.monotonic() + 30
        while transcript.stat().st_size == len(before):  # the half line is there
            assert time.monotonic() < deadline and writer.poll() is None
            time.sleep(0.001)
        result = memcli(ws, *COMPACT_TELEGRAM)
    finally:
        writer.wait(timeout=30)
    assert_clean(result, (0,))
    after = transcript.read_bytes()
    assert after.startswith(before + line + b"\n")  # the writer's line whole, where it began
    added = after[len(before) + len(line) + 1 :].splitlines()
    assert len(added) == 1
    compaction = json.loads(added[0])
    assert compaction["type"] == "compaction" and compaction["parentId"] == "5eed1e55"  # read whole
    for each in after.splitlines():
        json.loads(each)


def test_compact_refuses_with_exit_4_when_the_last_line_is_never_finished(ws: Path) -> None:
    transcript = ws / TELEGRAM_TRANSCRIPT
    line = agent_line(transcript)
    with open(transcript, "ab") as f:
        f.write(line[: len(line) // 2])  # its writer stalls mid-line
    before = user_bytes(ws)
    started = time.monotonic()
    result = memcli(ws, *COMPACT_TELEGRAM)
    assert_clean(
        result,
        (4,),
        TELEGRAM_TRANSCRIPT,
        "ends in a line another process is still writing",
        "nothing was written",
    )
    assert time.monotonic() - started < 10
    assert user_bytes(ws) == before
    assert not (ws / (TELEGRAM_TRANSCRIPT + ".lock")).exists()


def test_a_last_line_its_writer_left_unfinished_long_ago_is_ended_before_the_compaction(ws: Path) -> None:
    """A line unfinished and untouched for longer than the stale age has no writer left to
    finish it: compact ends it (a malformed line, reported and skipped) and appends its own
    whole line, instead of refusing that transcript for ever."""
    transcript = ws / TELEGRAM_TRANSCRIPT
    line = agent_line(transcript)
    with open(transcript, "ab") as f:
        f.write(line[: len(line) // 2])
    torn = transcript.read_bytes()
    age(transcript, STALE + 30)
    assert_clean(memcli(ws, *COMPACT_TELEGRAM), (0,))
    after = transcript.read_bytes()
    assert after.startswith(torn + b"\n")
    assert json.loads(after[len(torn) + 1 :])["type"] == "compaction"


@pytest.mark.parametrize(
    "text, said",
    [
        ('{"a": {"label": "Lin \\ud83d"}}\n', "lone UTF-16 surrogate"),
        ('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}\n", "too deeply"),
    ],
    ids=["lone-surrogate", "nested"],
)
def test_check_reports_a_store_it_cannot_read_as_an_error_not_a_crash(ws: Path, text: str, said: str) -> None:
    (ws / STORE).write_text(text, encoding="utf-8")
    result = memcli(ws, "--json", "check", str(ws / STORE))
    assert_clean(result, (1,))
    found = json.loads(result.stdout)["findings"]
    assert [(f["file"], f["check"]) for f in found] == [(STORE, "sessions")] and said in found[0]["message"]
