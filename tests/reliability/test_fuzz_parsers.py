"""Every parser memcli has, fed what a careless editor, a broken disk or a hostile file can
produce (issue 9): Markdown notes, OpenClaw's sessions.json, JSONL transcripts, memcli.toml
and Jinja2 summary templates.

The promise checked each time: memcli reads the input or refuses it with its own error —
one line on stderr naming the file (exit 3, or 2 for usage) — and never with a traceback,
a hang, a lost byte or a half-written file. Inputs that hit a known bug are left out of
the generators and kept as `xfail(strict=True)` reproductions at the end of each part.

Examples are kept small so the file runs in well under a minute; `FUZZ_EXAMPLES=2000`
raises every generator to that many examples for a long run.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from conftest import NOW, SAMPLE, tree_bytes
from memcli.cli.app import app
from memcli.config import load_policy
from memcli.core.conversation import parse_transcript
from memcli.core.entries import BOM, parse
from memcli.core.policy import POLICY_FIELDS, Policy
from memcli.errors import DataError, UsageError
from memcli.workspace.files import decode
from memcli.workspace.session_store import sessions_of
from memcli.workspace.templates import KILL_GRACE, RENDER_SECONDS
from memcli.workspace.transcripts import read_store, read_transcript, transcript_path

from .kit import assert_clean

FUZZ = int(os.environ.get("FUZZ_EXAMPLES", "0"))
RUNNER = CliRunner()
MAIN = "agent:main:main"
MAIN_TRANSCRIPT = "sessions/557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl"
FLUSH_FIELDS = ("memoryFlushAt", "memoryFlushCompactionCount")
COMPACT_FIELDS = ("compactionCount", "totalTokens", "totalTokensFresh")


def fuzz(examples: int) -> Callable[[Any], Any]:
    """Hypothesis settings: `examples` by default, FUZZ_EXAMPLES when that is more."""
    return settings(
        max_examples=max(examples, FUZZ),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def memcli(root: Path, *args: str) -> Result:
    return RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fail (instead of hanging the test run) when the block takes longer than `seconds`."""

    def expired(signum: int, frame: Any) -> None:
        raise TimeoutError(f"still running after {seconds} s: a loop that never ends?")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def scratch(base: Path) -> Iterator[Path]:
    """A fresh folder per Hypothesis example (tmp_path is one per test, not per example)."""
    folder = Path(tempfile.mkdtemp(dir=base))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


# Text without lone surrogates (they cannot be written as UTF-8 at all) and, but where a
# test asks for it, without NUL (which makes any file binary).
CHARS = st.characters(codec="utf-8")
SAFE_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12)


# --- 1. Markdown notes ----------------------------------------------------------------------

MD_PIECES = st.sampled_from(
    [
        "- ", "* ", "+ ", "1. ", "2) ", "# ", "## ", "###### ", "> ", ">> ", "    ", "  ", "\t",
        "```", "```python", "~~~", "| a | b |", "|---|:-:|", "---", "...", "***", "title: 记忆",
        "<!-- ", " -->", "<!-- pin -->", "<!-- importance: 9 -->", "#pin", "- [ ] ", "- [x] ",
        "<div>", "</div>", "<details>", "===", "记住：用 pnpm", "我喜欢简洁的回答", "I prefer vim",
        "remember: deploy on friday", "好的", "thanks", "port 8080", "2026-10-01 ", "**09:10** — ",
        "🧠", "emoji 🚀 and 中文", "x", "\ufeff", "\r", "\r\n", "\n", "\n", "\n", "\n\n",
        "\u2028", "\u0085", "\x0b", "\x0c",
    ]
)  # fmt: skip
HOSTILE = ["<<<<<<< HEAD\n", "=======\n", ">>>>>>> theirs\n", "\x00"]


@st.composite
def markdown_text(draw: st.DrawFn, hostile: bool = False) -> str:
    """Markdown-ish soup: syntax pieces, arbitrary Unicode, every line ending, a BOM anywhere;
    `hostile` adds merge-conflict markers and NUL bytes."""
    pieces = MD_PIECES | SAFE_TEXT
    if hostile:
        pieces = pieces | st.sampled_from(HOSTILE) | st.text(CHARS, max_size=5)
    text = "".join(draw(st.lists(pieces, max_size=40)))
    if draw(st.booleans()):
        text = BOM + text
    return text


def assert_lossless(text: str, name: str = "note.md") -> None:
    doc = parse(text, name, date(2026, 9, 1))
    assert doc.render() == text
    n = len(doc.lines)
    body = [line[:-2] if line.endswith("\r\n") else line.removesuffix("\n") for line in doc.lines]
    if body:
        body[0] = body[0].removeprefix(BOM)
    for entry in doc.entries:
        assert 1 <= entry.first_line <= entry.last_line <= n
        assert entry.text == "\n".join(body[entry.first_line - 1 : entry.last_line])


@fuzz(400)
@given(markdown_text(hostile=True))
def test_markdown_bytes_read_back_exactly_or_are_refused_naming_the_place(text: str) -> None:
    # From bytes, as memcli reads a note: decoded strictly, then parsed; rendering and
    # encoding gives back the very bytes. A conflict-marked or binary file is refused,
    # naming the file and the line or offset.
    data = text.encode("utf-8")
    try:
        decoded = decode(data, "memory/2026-09-01.md")
    except DataError as exc:
        assert re.search(
            r"^memory/2026-09-01\.md(: unresolved merge conflict at line \d+| looks binary "
            r"\(NUL byte at offset \d+\))",
            exc.message,
        ), exc.message
        assert ("\x00" in text) == ("binary" in exc.message)
        return
    assert decoded == text
    assert_lossless(decoded)
    assert parse(decoded).render().encode("utf-8") == data


@fuzz(300)
@given(st.lists(st.sampled_from(["\n", "\r\n", "\r"]), min_size=1, max_size=6), markdown_text())
def test_any_line_ending_mix_round_trips(endings: list[str], text: str) -> None:
    # Lone CRs (old Mac files), CRLF and LF mixed line by line, around arbitrary content.
    lines = text.split("\n")
    mixed = "".join(line + endings[i % len(endings)] for i, line in enumerate(lines))
    assert_lossless(mixed)
    assert_lossless(mixed.removesuffix(endings[(len(lines) - 1) % len(endings)]))


@fuzz(30)
@given(core=markdown_text(), old=markdown_text(), note=markdown_text())
def test_notes_of_any_text_are_listed_in_place_and_gc_then_undo_gives_every_byte_back(
    base: Path, core: str, old: str, note: str
) -> None:
    with scratch(base) as root:
        (root / "memory").mkdir()
        (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n')
        files = {
            "MEMORY.md": core,
            "memory/2026-09-01.md": old,
            "memory/2026-09-02.md": old + "\n" + note,
            "memory/2026-10-27.md": note,
            "memory/2026-10-30.md": note + old,
        }
        for rel, text in files.items():
            (root / rel).write_bytes(text.encode("utf-8"))
        before = tree_bytes(root)
        listed = memcli(root, "--json", "list")
        assert_clean(listed, (0,))
        for entry in json.loads(listed.stdout)["entries"]:
            lines = files[entry["file"]].split("\n")
            assert 1 <= entry["line"] <= entry["end_line"] <= len(lines)
        assert tree_bytes(root) == before  # reading wrote nothing (its cache aside)
        gc = memcli(root, "gc", "--force")
        assert_clean(gc, (0,))
        undone = memcli(root, "undo")
        assert_clean(undone, (0,))
        after = {k: v for k, v in tree_bytes(root).items() if not k.startswith(".memcli/")}
        assert after == before


# --- 2. sessions.json -----------------------------------------------------------------------

JSON_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    SAFE_TEXT,
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(SAFE_TEXT, inner, max_size=3),
    max_leaves=10,
)
# Paths and ids without NUL: a NUL is a known bug (test_a_nul_in_a_session_path_...).
PATH_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=20)
# memoryFlushAt outside what a datetime can hold is a known bug (test_a_flush_time_out_of_range_...).
FLUSH_TIMES = st.integers(min_value=0, max_value=4_102_444_800_000)


def odd(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A field's usual values, or any JSON value at all."""
    return strategy | JSON_VALUES


SESSION_FIELDS = {
    "sessionId": odd(PATH_TEXT | st.sampled_from(["s1", "../../etc/x", "sessions/../s1"])),
    "sessionFile": odd(
        PATH_TEXT | st.sampled_from(["s1.jsonl", "../../outside.jsonl", "/etc/passwd", "sessions", "."])
    ),
    "updatedAt": odd(FLUSH_TIMES),
    "totalTokens": odd(st.integers(-(10**12), 10**12)),
    "totalTokensFresh": odd(st.booleans()),
    "contextTokens": odd(st.integers(-5, 10**9)),
    "compactionCount": odd(st.integers(-3, 10**6)),
    "memoryFlushAt": FLUSH_TIMES | st.none() | SAFE_TEXT | st.floats(allow_nan=False) | st.lists(st.none()),
    "memoryFlushCompactionCount": odd(st.integers(-3, 10**6)),
}
SESSION_ENTRY = st.fixed_dictionaries({}, optional=SESSION_FIELDS).flatmap(
    lambda known: st.dictionaries(SAFE_TEXT, JSON_VALUES, max_size=3).map(lambda extra: {**extra, **known})
)
SESSION_KEYS = st.sampled_from([MAIN, "agent:main:cron:x", "agent:main:heartbeat", ""]) | SAFE_TEXT
STORES = st.one_of(
    st.dictionaries(SESSION_KEYS, SESSION_ENTRY | JSON_VALUES, max_size=4).map(json.dumps),
    JSON_VALUES.map(json.dumps),
    st.text(CHARS, max_size=60),
    st.sampled_from(['{"a": 1', "", "\ufeff{}", "{}\n{}", "[1, 2]", '{"a": NaN}', '{"a": 1e999}', "null"]),
)


@fuzz(300)
@given(store=STORES, raw=st.binary(max_size=40), use_raw=st.booleans())
def test_the_store_reader_gives_sessions_or_a_data_error_naming_the_file(
    base: Path, store: str, raw: bytes, use_raw: bool
) -> None:
    with scratch(base) as root:
        path = root / "sessions.json"
        path.write_bytes(raw if use_raw else store.encode("utf-8"))
        try:
            data = read_store(path, root)
        except DataError as exc:
            assert "sessions.json" in exc.one_line() and "\n" not in exc.one_line()
            return
        assert isinstance(data, dict)
        try:
            for _, key, entry in sessions_of(root):
                assert isinstance(entry, dict) and key in data
                found = transcript_path(path, entry)
                assert found is None or root.resolve() in found.parents
        except DataError as exc:
            assert "\n" not in exc.one_line()


@pytest.fixture(scope="module")
def sessions_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small workspace with the sample's session store and transcripts."""
    root = tmp_path_factory.mktemp("sessions-ws")
    (root / "memory").mkdir()
    (root / "MEMORY.md").write_text("# MEMORY.md\n\n## Preferences\n\n- I prefer dark mode\n")
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n')
    shutil.copytree(SAMPLE / "sessions", root / "sessions")
    shutil.copy(SAMPLE / "sessions.json", root / "sessions.json")
    return root


@fuzz(40)
@given(store=STORES)
def test_flush_and_status_on_any_store_exit_0_or_3_with_one_line(
    base: Path, sessions_ws: Path, store: str
) -> None:
    with scratch(base) as folder:
        root = folder / "ws"
        shutil.copytree(sessions_ws, root)
        (root / "sessions.json").write_text(store, encoding="utf-8")
        before = tree_bytes(root)
        assert_clean(memcli(root, "flush", "--dry-run"), (0, 3))
        assert_clean(memcli(root, "status"), (0, 3))
        assert tree_bytes(root) == before


def without(entry: Any, fields: tuple[str, ...]) -> Any:
    return {k: v for k, v in entry.items() if k not in fields} if isinstance(entry, dict) else entry


def assert_kept(store: dict[str, Any], after: dict[str, Any], changed: tuple[str, ...]) -> None:
    """Every session and field of `store` is in `after`, in its place; only `changed` differ."""
    assert list(after) == list(store)  # sessions in their order
    for key, entry in store.items():
        assert without(after[key], changed) == without(entry, changed), key
        if isinstance(entry, dict):
            kept = [k for k in after[key] if k in entry]
            assert kept == list(entry), key  # fields in their order, new ones only appended


@fuzz(25)
@given(
    extra_fields=st.lists(st.tuples(st.integers(0, 30), SAFE_TEXT, JSON_VALUES), max_size=5),
    extra_sessions=st.lists(
        st.tuples(st.integers(0, 4), SESSION_KEYS, SESSION_ENTRY | JSON_VALUES), max_size=4
    ),
)
def test_flush_and_compact_keep_every_unknown_field_and_the_order_of_keys(
    base: Path,
    sessions_ws: Path,
    extra_fields: list[tuple[int, str, Any]],
    extra_sessions: list[tuple[int, str, Any]],
) -> None:
    original = json.loads((sessions_ws / "sessions.json").read_text(encoding="utf-8"))
    main = list(original[MAIN].items())
    for where, name, value in extra_fields:
        if name not in original[MAIN] and name not in dict(main):
            main.insert(min(where, len(main)), (name, value))
    sessions = list(original.items())
    sessions[list(original).index(MAIN)] = (MAIN, dict(main))
    for where, key, value in extra_sessions:
        if key not in dict(sessions):
            if isinstance(value, dict):  # no transcript of its own: never due, so never written
                value = {k: v for k, v in value.items() if k not in ("sessionFile", "sessionId")}
            sessions.insert(min(where, len(sessions)), (key, value))
    store = dict(sessions)
    with scratch(base) as folder:
        root = folder / "ws"
        shutil.copytree(sessions_ws, root)
        (root / "sessions.json").write_text(json.dumps(store, indent=2, ensure_ascii=False), encoding="utf-8")
        assert_clean(memcli(root, "flush", "--force", "--session", MAIN), (0,))
        flushed = json.loads((root / "sessions.json").read_text(encoding="utf-8"))
        assert_clean(
            memcli(root, "compact", "--force", "--keep-recent-tokens", "500", "--session", MAIN), (0,)
        )
        compacted = json.loads((root / "sessions.json").read_text(encoding="utf-8"))
    assert_kept(store, flushed, FLUSH_FIELDS)
    assert flushed[MAIN]["memoryFlushCompactionCount"] == flushed[MAIN]["compactionCount"]
    assert_kept(flushed, compacted, COMPACT_FIELDS)
    assert compacted[MAIN]["compactionCount"] == flushed[MAIN]["compactionCount"] + 1


@pytest.mark.parametrize("first", [["add", "hello"], ["flush", "--session", MAIN]], ids=["add", "flush"])
def test_flush_appends_to_a_note_that_already_exists(
    sessions_ws: Path, tmp_path: Path, first: list[str]
) -> None:
    root = shutil.copytree(sessions_ws, tmp_path / "ws")
    assert_clean(memcli(root, *first), (0,))
    note = (root / "memory" / "2026-10-31.md").read_bytes()
    assert_clean(memcli(root, "flush", "--force"), (0,))  # main (again) and the telegram session
    after = (root / "memory" / "2026-10-31.md").read_bytes()
    assert after.startswith(note) and b"## Flushed from agent:main:telegram" in after


@pytest.mark.parametrize("field", ["sessionFile", "sessionId"])
def test_a_nul_in_a_session_path_is_refused_as_bad_data(
    sessions_ws: Path, tmp_path: Path, field: str
) -> None:
    root = shutil.copytree(sessions_ws, tmp_path / "ws")
    store = json.loads((root / "sessions.json").read_text(encoding="utf-8"))
    store[MAIN].update({"sessionFile": None, field: "a\x00b"})
    (root / "sessions.json").write_text(json.dumps(store), encoding="utf-8")
    assert_clean(memcli(root, "flush", "--dry-run"), (3,), "transcript")


@pytest.mark.parametrize("command", [["status"], ["flush", "--dry-run", "--force"]])
def test_a_flush_time_out_of_range_is_bad_data_not_a_crash(
    sessions_ws: Path, tmp_path: Path, command: list[str]
) -> None:
    root = shutil.copytree(sessions_ws, tmp_path / "ws")
    store = json.loads((root / "sessions.json").read_text(encoding="utf-8"))
    store[MAIN]["memoryFlushAt"] = -(10**15)
    (root / "sessions.json").write_text(json.dumps(store), encoding="utf-8")
    assert_clean(memcli(root, *command), (0, 3))


def test_a_huge_number_in_the_store_is_written_back_as_json(sessions_ws: Path, tmp_path: Path) -> None:
    root = shutil.copytree(sessions_ws, tmp_path / "ws")
    text = (root / "sessions.json").read_text(encoding="utf-8")
    (root / "sessions.json").write_text(text.replace('"systemSent": true', '"costCents": 1e999'), "utf-8")
    result = memcli(root, "flush", "--force", "--session", MAIN)
    assert result.exit_code in (0, 3)
    json.loads((root / "sessions.json").read_text(encoding="utf-8"), parse_constant=_no_constants)


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# --- 3. transcripts -------------------------------------------------------------------------

IDS = ["a1b2c3d4", "0000beef", "cafe0001", "deadbeef", "12345678"]
# Ids that cannot be dict keys (lists, objects) are a known bug (test_an_id_that_is_a_list_...).
ID_VALUES = st.sampled_from(IDS) | st.none() | st.integers(-2, 2) | st.booleans() | SAFE_TEXT
CONTENT = SAFE_TEXT | st.lists(
    st.fixed_dictionaries(
        {"type": st.sampled_from(["text", "toolCall", "tool_use", "image", "thinking"])},
        optional={
            "text": SAFE_TEXT | JSON_VALUES,
            "name": st.sampled_from(["read", "write", "bash", "edit"]),
            "arguments": st.dictionaries(st.sampled_from(["path", "file_path", "command"]), JSON_VALUES),
        },
    ),
    max_size=3,
)
MESSAGE = st.fixed_dictionaries(
    {"type": st.just("message"), "id": ID_VALUES, "parentId": ID_VALUES},
    optional={
        "timestamp": st.sampled_from(["2026-10-30T01:02:03.456Z", "not a time", "2026-10-30"]) | JSON_VALUES,
        "message": st.fixed_dictionaries(
            {},
            optional={
                "role": st.sampled_from(["user", "assistant", "toolResult", "system"]) | JSON_VALUES,
                "content": CONTENT | JSON_VALUES,
                "isError": JSON_VALUES,
            },
        )
        | JSON_VALUES,
    },
)
OTHER_ENTRY = st.fixed_dictionaries(
    {"type": st.sampled_from(["compaction", "session", "model_change", "custom", "branch_summary"])},
    optional={
        "id": ID_VALUES,
        "parentId": ID_VALUES,
        "summary": JSON_VALUES,
        "firstKeptEntryId": ID_VALUES,
        "version": JSON_VALUES,
    },
)
GOOD_LINE = (MESSAGE | OTHER_ENTRY).map(lambda e: json.dumps(e, ensure_ascii=False))
JSONL_LINE = st.one_of(
    GOOD_LINE,
    GOOD_LINE.flatmap(lambda line: st.integers(0, max(0, len(line) - 1)).map(lambda cut: line[:cut])),
    JSON_VALUES.map(json.dumps),
    st.binary(max_size=30).map(lambda b: b.decode("utf-8", "replace")),
    st.sampled_from(['{"type":"session","version":3,"id":"s"}', "", "   ", "{", "\x00\x01\x02", "[]"]),
)


@fuzz(500)
@given(st.lists(JSONL_LINE, max_size=30))
def test_parse_transcript_reads_any_lines_and_never_loops(lines: list[str]) -> None:
    with within(10):
        transcript = parse_transcript(lines, "t.jsonl")
        transcript.context()
        _ = (transcript.leaf_id, transcript.previous_summary)
    assert len(transcript.messages) <= len(transcript.entries)
    bad = 0
    for line in lines:
        if not line.strip():
            continue
        try:
            is_object = isinstance(json.loads(line), dict)
        except ValueError:
            is_object = False
        bad += not is_object
    assert len(transcript.problems) == bad
    assert all(p.startswith("t.jsonl:") for p in transcript.problems)


@pytest.mark.parametrize(
    "chain",
    [
        [("a", "a")],  # its own parent
        [("a", "b"), ("b", "a")],  # a cycle of two
        [("a", None), ("b", "a"), ("c", "b"), ("a", "c")],  # the leaf's id repeats the root's
        [(f"{i:08x}", f"{i + 1:08x}") for i in range(20_000)],  # a long chain, every parent later
        [(f"{i:08x}", f"{i - 1:08x}" if i else None) for i in range(20_000)],  # a long ordinary one
    ],
    ids=["self", "two-cycle", "repeated-id", "long-backwards", "long"],
)
def test_parent_cycles_and_long_chains_end(chain: list[tuple[str, str | None]]) -> None:
    lines = [
        json.dumps({"type": "message", "id": i, "parentId": p, "message": {"role": "user", "content": i}})
        for i, p in chain
    ]
    with within(10):
        transcript = parse_transcript(lines)
    assert 1 <= len(transcript.messages) <= len(chain)
    assert len({m.id for m in transcript.messages}) == len(transcript.messages)


def transcript_ws(folder: Path, sessions_ws: Path, data: bytes) -> Path:
    """A copy of the small session workspace whose main transcript holds `data`; its session is
    not due for a flush (flushed in this compaction cycle), so only compaction writes. The
    transcript was last written a minute ago: a last line without its newline is one its
    writer left, not one being written (compact waits for that: test_bad_input_and_locks)."""
    root = shutil.copytree(sessions_ws, folder / "ws")
    (root / MAIN_TRANSCRIPT).write_bytes(data)
    then = time.time() - 60
    os.utime(root / MAIN_TRANSCRIPT, (then, then))
    store = json.loads((root / "sessions.json").read_text(encoding="utf-8"))
    store[MAIN]["memoryFlushCompactionCount"] = store[MAIN]["compactionCount"]
    (root / "sessions.json").write_text(json.dumps(store, indent=2), encoding="utf-8")
    return root


@fuzz(40)
@given(lines=st.lists(JSONL_LINE, max_size=25), final_newline=st.booleans())
def test_summarize_and_compact_read_any_transcript(
    base: Path, sessions_ws: Path, lines: list[str], final_newline: bool
) -> None:
    data = ("\n".join(lines) + ("\n" if final_newline else "")).encode("utf-8")
    with scratch(base) as folder:
        root = transcript_ws(folder, sessions_ws, data)
        for command in (
            ["summarize", "--session", MAIN, "--output", "-"],
            ["compact", "--dry-run", "--force", "--keep-recent-tokens", "5"],
            ["compact", "--force", "--keep-recent-tokens", "5"],
        ):
            with within(30):
                assert_clean(memcli(root, *command), (0, 3))
        # compaction only ever appends: the transcript's bytes are kept
        assert (root / MAIN_TRANSCRIPT).read_bytes().startswith(data)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\n\n\n",
        b'{"type":"message","id":"a1b2c3d4","message":{"role":"user","content":"'
        + b"x" * 3_000_000
        + b'"}}\n',
        b'{"type":"message","id":"a1b2c3d4","message":{"role":"user","content":"' + b"y" * 3_000_000,
        bytes(range(256)) * 2000,
        b'{"type":"message","id":"a1","parentId":null,"message":{"role":"user","content":"no header"}}\n',
    ],
    ids=["empty", "blank-lines", "huge-line", "huge-truncated", "binary", "no-header"],
)
def test_odd_transcript_files_are_read(sessions_ws: Path, tmp_path: Path, data: bytes) -> None:
    root = transcript_ws(tmp_path, sessions_ws, data)
    with within(60):
        transcript = read_transcript(root / MAIN_TRANSCRIPT, root)
        assert_clean(memcli(root, "summarize", "--session", MAIN, "--output", "-"), (0, 3))
        assert_clean(memcli(root, "compact", "--dry-run", "--force"), (0, 3))
    assert len(transcript.messages) <= 1


@pytest.mark.parametrize("field", ["id", "parentId"])
def test_an_id_that_is_a_list_is_read_like_any_odd_id(field: str) -> None:
    entry: dict[str, Any] = {
        "type": "message",
        "id": "a1b2c3d4",
        "parentId": None,
        "message": {"role": "user", "content": "x"},
    }
    entry[field] = ["a1b2c3d4"]
    transcript = parse_transcript([json.dumps(entry)])
    assert len(transcript.entries) == 1


def test_a_message_holding_a_line_separator_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    message = {"type": "message", "id": "a1b2c3d4", "message": {"role": "user", "content": "one\u2028two"}}
    path.write_text(json.dumps(message, ensure_ascii=False) + "\n", encoding="utf-8")
    transcript = read_transcript(path, tmp_path)
    assert transcript.problems == () and [m.text for m in transcript.messages] == ["one\u2028two"]


def test_compact_works_on_a_transcript_without_ids(sessions_ws: Path, tmp_path: Path) -> None:
    lines = [{"type": "session", "version": 3, "id": "s"}] + [
        {"type": "message", "message": {"role": ("user", "assistant")[i % 2], "content": f"turn {i} " * 60}}
        for i in range(6)
    ]
    root = transcript_ws(tmp_path, sessions_ws, "".join(json.dumps(x) + "\n" for x in lines).encode())
    result = memcli(root, "compact", "--force", "--keep-recent-tokens", "100", "--session", MAIN)
    assert_clean(result, (0,))


# --- 4. memcli.toml -------------------------------------------------------------------------

BARE_KEY = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_key(key: str) -> str:
    return key if BARE_KEY.match(key) else toml_string(key)


def toml_string(text: str) -> str:
    return json.dumps(text).replace("\x7f", "\\u007f")  # JSON's escapes are TOML's


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return (
            "nan"
            if math.isnan(value)
            else ("inf" if value > 0 else "-inf")
            if math.isinf(value)
            else repr(value)
        )
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    assert isinstance(value, dict)
    return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


TOML_SCALARS = st.one_of(
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(),
    SAFE_TEXT,
    st.sampled_from(["Asia/Shanghai", "UTC", "Mars/Olympus", "", "zh", "en", "fr"]),
)
TOML_VALUES = st.recursive(
    TOML_SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(SAFE_TEXT, inner, max_size=3),
    max_leaves=6,
)
KNOWN = sorted(POLICY_FIELDS)
RULES = st.dictionaries(
    st.sampled_from(["preference", "decision", "noise", "urgency", "nonsense"]),
    st.dictionaries(st.sampled_from(["points", "cues", "add", "other"]), TOML_VALUES, max_size=3)
    | TOML_VALUES,
    max_size=2,
)
TOML_DOCS = st.dictionaries(st.sampled_from(KNOWN) | SAFE_TEXT, TOML_VALUES, max_size=4).flatmap(
    lambda doc: st.one_of(st.just(doc), RULES.map(lambda rules: {**doc, "rules": rules}))
)


def keys_of(table: dict[str, Any]) -> Iterator[str]:
    """Every key of a TOML document, tables' keys included."""
    for key, value in table.items():
        yield key
        if isinstance(value, dict):
            yield from keys_of(value)


def toml_text(doc: dict[str, Any]) -> str:
    return "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in doc.items())


@fuzz(300)
@given(doc=TOML_DOCS, garbage=st.text(CHARS, max_size=40), use_garbage=st.booleans())
def test_load_policy_loads_or_names_the_key_or_the_line(
    base: Path, doc: dict[str, Any], garbage: str, use_garbage: bool
) -> None:
    text = garbage if use_garbage else toml_text(doc)
    with scratch(base) as folder:
        path = folder / "memcli.toml"
        path.write_bytes(text.encode("utf-8"))
        try:
            policy = load_policy(path, {})
        except (DataError, UsageError) as exc:
            line = exc.one_line()
            assert "\n" not in line and "memcli.toml" in line
            try:
                parsed = tomllib.loads(text)
            except tomllib.TOMLDecodeError:
                assert re.search(r"\(at (line \d+, column \d+|end of document)\)", line), line
                return
            unknown = [" ".join(k.split()) for k in parsed if k not in POLICY_FIELDS and k != "rules"]
            if unknown:
                assert all(k in line for k in unknown), line  # every unknown key is named
            else:  # the key at fault is named (rules.<signal>.<key> for the scoring rules)
                assert any(" ".join(k.split()) in line for k in keys_of(parsed)), line
            return
    assert isinstance(policy, Policy)
    assert tomllib.loads(text).keys() <= {*POLICY_FIELDS, "rules"}


# Numbers stay within ±10**5 here: day counts that reach past the year 1 crash commands
# (test_huge_day_counts_are_refused_or_used_never_a_crash).
CONFIG_VALUES = st.one_of(
    st.integers(-(10**5), 10**5),
    st.floats(-1e5, 1e5),
    st.booleans(),
    SAFE_TEXT,
    st.sampled_from(["Asia/Shanghai", "UTC", "Mars/Olympus", "", "zh", "en", "fr", "echo hi"]),
)


@fuzz(30)
@given(
    doc=st.dictionaries(st.sampled_from(KNOWN), CONFIG_VALUES, max_size=3),
    garbage=st.sampled_from(
        ["", "x = ", "[rules\n", "timezone = 'Asia/Shanghai'\ntimezone = 'UTC'\n", "\x00"]
    ),
)
def test_commands_with_any_config_exit_0_2_or_3_with_one_line(
    base: Path, sessions_ws: Path, doc: dict[str, Any], garbage: str
) -> None:
    with scratch(base) as folder:
        root = shutil.copytree(sessions_ws, folder / "ws")
        (root / "memory" / "2026-09-01.md").write_text(
            "# 2026-09-01\n\n- deployed atlas on port 8080\n- 好的\n"
        )
        (root / "memcli.toml").write_text(toml_text(doc) + garbage, encoding="utf-8")
        before = tree_bytes(root)
        for command in (["status"], ["gc", "--dry-run"], ["list"]):
            result = memcli(root, *command)
            assert_clean(result, (0, 2, 3))
            if result.exit_code:  # the config is named, or a note its max_file_bytes refuses
                assert "memcli.toml" in result.stderr or "max_file_bytes" in result.stderr, result.stderr
        assert tree_bytes(root) == before


@pytest.mark.parametrize(
    ("setting", "command"),
    [
        ("short_term_days = 9223372036854775807", "gc"),
        ("open_days = 1e308", "gc"),
        ("open_days = 9223372036854775807", "context"),
    ],
)
def test_huge_day_counts_are_refused_or_used_never_a_crash(
    sessions_ws: Path, tmp_path: Path, setting: str, command: str
) -> None:
    root = shutil.copytree(sessions_ws, tmp_path / "ws")
    (root / "memcli.toml").write_text(setting + "\n")
    args = ["gc", "--dry-run"] if command == "gc" else [command]
    assert_clean(memcli(root, *args), (0, 3), "memcli.toml")


@pytest.mark.parametrize("points", ["nan", "inf", "-inf"])
def test_rule_points_that_are_not_finite_are_refused(sessions_ws: Path, tmp_path: Path, points: str) -> None:
    root = shutil.copytree(sessions_ws, tmp_path / "ws")
    (root / "memcli.toml").write_text(f"[rules.preference]\npoints = {points}\n")
    assert_clean(memcli(root, "--json", "score", "I prefer vim"), (3,), "rules.preference.points")


# --- 5. summary templates -------------------------------------------------------------------

TEMPLATE_PIECES = st.sampled_from(
    [
        "{{ period }}", "{{ kind }}", "{{ language }}", "{{ budget * 2 }}", "{{ tokens_in // 3 }}",
        "{{ sources|join(', ') }}", "{{ headings }}", "{{ by_kind['goal'] }}", "{{ goal|length }}",
        "{% for s in sections %}## {{ s.title }}\n", "{% for i in s['items'] %}- {{ i }}\n{% endfor %}",
        "{% endfor %}", "{% if language == 'zh' %}", "{% elif kind %}", "{% else %}", "{% endif %}",
        "{% set x = 3 %}", "{{ x }}", "{{ missing }}", "{{ missing|default('d') }}", "{{ period.upper() }}",
        "{{ period|int }}", "{{ sections[0] }}", "{{ [1, 2][5] }}", "{{ {'a': 1}.b }}", "{{ none.x }}",
        "{{ 7 / 2 }}", "{{ 'ab' * 3 }}", "{{ '%s'|format(1) }}", "{{ '%d' % 'x' }}", "{{ 'x' ~ period }}",
        "{% for i in range(3) %}{{ loop.index }}{% endfor %}", "{{ range(5)|list }}",
        "{% macro m(a) %}[{{ a }}]{% endmacro %}{{ m(1) }}", "{% raw %}{{ raw }}{% endraw %}",
        "{# comment #}", "{{ ''.__class__ }}", "{{ cycler.__init__.__globals__ }}",
        "{{ lipsum.__globals__ }}",
        "{{ self.__init__ }}", "{{ period.__class__.__mro__ }}", "{{ ''.format }}", "{{ joiner() }}",
        "{% include 'other' %}", "{% extends 'base' %}", "{% import 'x' as y %}",
        "{{", "}}", "{%", "%}", "{#", "#}", "{{ 1 + }}", "{% for %}", "{% endif %}", "text ", "中文 ",
        "\n", "\n", "\r\n", "\t",
    ]
)  # fmt: skip


@pytest.fixture(scope="module")
def notes_ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Notes in last week (2026-W43, what `summarize` summarises by default at NOW)."""
    root = tmp_path_factory.mktemp("notes-ws")
    (root / "memory").mkdir()
    (root / "templates").mkdir()
    (root / "MEMORY.md").write_text("# MEMORY.md\n\n## Preferences\n\n- I prefer dark mode\n")
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n')
    (root / "memory" / "2026-10-20.md").write_text(
        "# 2026-10-20\n\n- 我们决定用 Redis 做任务队列\n- atlas-api listens on port 8080\n"
        "- [ ] write the runbook\n"
    )
    (root / "memory" / "2026-10-22.md").write_text("# 2026-10-22\n\n- TIL: bullmq only has named exports\n")
    return root


def user_bytes(root: Path) -> dict[str, bytes]:
    return {k: v for k, v in tree_bytes(root).items() if not k.startswith(".memcli/")}


TEMPLATE = "templates/weekly-digest.md.j2"


@fuzz(50)
@given(st.lists(TEMPLATE_PIECES | SAFE_TEXT, max_size=12).map("".join))
def test_any_template_renders_or_is_refused_naming_its_file_and_line(
    base: Path, notes_ws: Path, template: str
) -> None:
    with scratch(base) as folder:
        root = shutil.copytree(notes_ws, folder / "ws")
        (root / TEMPLATE).write_text(template, encoding="utf-8")
        before = user_bytes(root)
        with within(30):
            result = memcli(root, "summarize")
        assert_clean(result, (0, 3), "weekly-digest.md.j2")
        if result.exit_code == 3:
            assert re.search(r"weekly-digest\.md\.j2, line \d+: ", result.stderr), result.stderr
            assert user_bytes(root) == before  # no summary, not even part of one
            assert not list((root / ".memcli" / "journal").glob("*/journal.json"))
        else:
            written = set(user_bytes(root)) - set(before)
            assert written == {"memory/summaries/2026-W43.md"}


@pytest.mark.parametrize(
    "template",
    [
        "{{ ''.__class__.__mro__ }}",
        "{{ ''.__class__.__mro__[1].__subclasses__() }}",
        "{{ cycler.__init__.__globals__.os.popen('touch PWNED').read() }}",
        "{{ lipsum.__globals__['os'].system('id') }}",
        "{{ self.__init__.__globals__ }}",
        "{{ joiner.__init__.__globals__ }}",
        "{{ namespace.__init__.__globals__ }}",
        "{% set f = ''.format %}{{ f.__self__ }}",
        "{{ sections.__class__.__base__ }}",
    ],
)
def test_sandbox_escapes_are_refused_and_nothing_is_written(
    notes_ws: Path, tmp_path: Path, template: str
) -> None:
    root = shutil.copytree(notes_ws, tmp_path / "ws")
    (root / TEMPLATE).write_text(template.replace("PWNED", str(tmp_path / "pwned")) + "\n")
    before = user_bytes(root)
    result = memcli(root, "summarize")
    assert_clean(result, (3,), "weekly-digest.md.j2", "line 1")
    assert user_bytes(root) == before
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "template",
    [
        "{{ 1 / 0 }}",
        "{{ 1 // 0 }}",
        "{% for i in range(10**9) %}x{% endfor %}",
        "{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}",
    ],
    ids=["division", "floor-division", "huge-range", "recursion"],
)
def test_a_template_failing_at_render_time_is_bad_data_naming_it(
    notes_ws: Path, tmp_path: Path, template: str
) -> None:
    root = shutil.copytree(notes_ws, tmp_path / "ws")
    (root / TEMPLATE).write_text(template + "\n")
    before = user_bytes(root)
    assert_clean(memcli(root, "summarize"), (3,), "weekly-digest.md.j2")
    assert user_bytes(root) == before


def test_a_template_that_loops_for_ever_is_stopped(notes_ws: Path, tmp_path: Path) -> None:
    root = shutil.copytree(notes_ws, tmp_path / "ws")
    (root / TEMPLATE).write_text(
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n"
    )
    command = [sys.executable, "-m", "memcli", "-w", str(root), "--now", NOW, "summarize"]
    # rendering stops at RENDER_SECONDS (its worker is killed KILL_GRACE later at worst);
    # the rest is the process's start-up, which takes seconds on a busy machine (3 s in all
    # was once too few). The template alone would render for hours.
    limit = RENDER_SECONDS + KILL_GRACE + 5
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        pytest.fail(f"memcli summarize still rendered the template after {limit:g} s")
    assert done.returncode == 3 and "weekly-digest.md.j2" in done.stderr


def test_a_summary_over_max_file_bytes_is_not_written(notes_ws: Path, tmp_path: Path) -> None:
    root = shutil.copytree(notes_ws, tmp_path / "ws")
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\nmax_file_bytes = 20000\n')
    (root / TEMPLATE).write_text("{{ 'a' * 50000 }}\n")
    before = user_bytes(root)
    assert_clean(memcli(root, "summarize"), (3,))
    assert user_bytes(root) == before
    assert_clean(memcli(root, "status"), (0,))
