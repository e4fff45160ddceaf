"""A hostile or unusual workspace (issue 9): symlinks and paths that lead out of it, and a
workspace the user made read-only.

1. Symlinks and path traversal: MEMORY.md, a daily note, today's note, memory/ and its
   archive/ and summaries/, .memcli/, sessions.json, a transcript and the templates/
   folder each linked to a place outside the workspace, and session paths that climb out
   of the sessions folder. Every command runs on each; whatever it does, the outside
   files keep their bytes, modification times and modes and nothing appears beside them
   (SPEC §14: no write follows a symlink out of the workspace). A read through such a link
   is either refused with one line (exit 3) or is one SPEC allows (bootstrap files).
2. A read-only workspace (chmod -R a-w). Running as root, chmod does not stop a write:
   memcli must check the mode bits itself (README: "read-only folders and files are
   respected even when running as root"). Reading commands work and change nothing;
   writing commands refuse with one line and change nothing (flush skips).

Each bug found has a minimal reproduction marked xfail(strict=True) next to the check that
found it.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from conftest import NOW, SAMPLE, copy_tree, tree_bytes, tree_state
from memcli.cli.app import app

from .kit import assert_clean

RUNNER = CliRunner()
ROOT_USER = os.geteuid() == 0
MAIN = "agent:main:main"
MAIN_TRANSCRIPT = "sessions/557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl"
OLD_NOTES = ("2026-09-01", "2026-09-02", "2026-09-03", "2026-09-04", "2026-10-20", "2026-10-22", "2026-10-29")
DUPLICATE = "- the nightly export job runs at 02:30 on db-2\n"


def memcli(root: Path, *args: str, now: str = NOW) -> Result:
    return RUNNER.invoke(app, ["-w", str(root), "--now", now, *args])


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small workspace with a history: the sample's MEMORY.md, sessions and some of its notes,
    one gc applied (so `undo` has archive moves and rewrites to revert), then new work for
    the next gc (an old note, an exact copy within a closed note for `check --fix`)."""
    root = tmp_path_factory.mktemp("adversarial") / "ws"
    (root / "memory").mkdir(parents=True)
    for name in ("MEMORY.md", "memcli.toml", "sessions.json"):
        shutil.copy(SAMPLE / name, root / name)
    shutil.copytree(SAMPLE / "sessions", root / "sessions")
    for day in OLD_NOTES:
        shutil.copy(SAMPLE / "memory" / f"{day}.md", root / "memory" / f"{day}.md")
    with open(root / "memory" / "2026-10-20.md", "a", encoding="utf-8") as f:
        f.write("- ok thanks\n")  # noise in a closed note the first gc keeps: it goes to the trash
    first = memcli(root, "gc")
    assert first.exit_code == 0 and "applied" in first.stderr, first.stderr
    shutil.copy(SAMPLE / "memory" / "2026-09-08.md", root / "memory" / "2026-09-08.md")
    with open(root / "memory" / "2026-10-27.md", "w", encoding="utf-8") as f:
        f.write("# 2026-10-27\n\n" + DUPLICATE + "- 好的\n" + DUPLICATE)
    return root


@pytest.fixture
def ws(pristine: Path, tmp_path: Path) -> Path:
    return copy_tree(pristine, tmp_path / "ws")


def trashed_id(root: Path) -> str:
    """The id of an entry the first gc dropped (for `memcli restore`)."""
    for path in sorted((root / ".memcli" / "trash").glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            return str(json.loads(line)["id"])
    raise AssertionError("the first gc trashed nothing")


# --- 1. symlinks and paths out of the workspace ---------------------------------------------


def outside_state(folder: Path) -> tuple[dict[str, tuple[bytes, int, int]], set[str]]:
    """Every file (bytes, mtime, mode) and every path below the outside folder."""
    paths = {p.relative_to(folder).as_posix() for p in folder.rglob("*")}
    return tree_state(folder), paths


def _move_out(ws: Path, rel: str, out: Path, name: str) -> None:
    shutil.move(ws / rel, out / name)
    (ws / rel).symlink_to(out / name)


def link_core(ws: Path, out: Path) -> None:
    _move_out(ws, "MEMORY.md", out, "core.md")


def link_old_note(ws: Path, out: Path) -> None:
    # a stand-in for /etc/passwd (test_a_note_linked_to_etc_passwd... uses the real one)
    (out / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n- daemon:x:1:1::/:/usr/sbin/nologin\n")
    (ws / "memory" / "2026-09-08.md").unlink()
    (ws / "memory" / "2026-09-08.md").symlink_to(out / "passwd")


def link_today(ws: Path, out: Path) -> None:
    (out / "today.md").write_text("# 2026-10-31\n\n- a note kept elsewhere\n")
    (ws / "memory" / "2026-10-31.md").symlink_to(out / "today.md")


def dangling_today(ws: Path, out: Path) -> None:
    (ws / "memory" / "2026-10-31.md").symlink_to(out / "new.md")  # must never be created


def link_memory(ws: Path, out: Path) -> None:
    _move_out(ws, "memory", out, "memory")


def link_archive(ws: Path, out: Path) -> None:
    _move_out(ws, "memory/archive", out, "archive")


def link_summaries(ws: Path, out: Path) -> None:
    _move_out(ws, "memory/summaries", out, "summaries")


def link_state(ws: Path, out: Path) -> None:
    _move_out(ws, ".memcli", out, "state")


def link_store(ws: Path, out: Path) -> None:
    _move_out(ws, "sessions.json", out, "sessions.json")


def link_transcript(ws: Path, out: Path) -> None:
    _move_out(ws, MAIN_TRANSCRIPT, out, "main.jsonl")


def _session_file(ws: Path, value: str) -> None:
    store = json.loads((ws / "sessions.json").read_text(encoding="utf-8"))
    store[MAIN]["sessionFile"] = value
    (ws / "sessions.json").write_text(
        json.dumps(store, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def climbing_session_file(ws: Path, out: Path) -> None:
    shutil.copy(ws / MAIN_TRANSCRIPT, out / "outside.jsonl")
    _session_file(ws, os.path.relpath(out / "outside.jsonl", ws))  # ../outside/outside.jsonl


def absolute_session_file(ws: Path, out: Path) -> None:
    shutil.copy(ws / MAIN_TRANSCRIPT, out / "outside.jsonl")
    _session_file(ws, str(out / "outside.jsonl"))


def link_templates(ws: Path, out: Path) -> None:
    (out / "templates").mkdir()
    (out / "templates" / "weekly-digest.md.j2").write_text("# {{ period }}\n\nfrom a shared folder\n")
    (ws / "templates").symlink_to(out / "templates")


SCENARIOS: dict[str, Callable[[Path, Path], None]] = {
    "MEMORY.md": link_core,
    "old-note": link_old_note,
    "today-note": link_today,
    "dangling-today": dangling_today,
    "memory-dir": link_memory,
    "archive-dir": link_archive,
    "summaries-dir": link_summaries,
    "state-dir": link_state,
    "sessions.json": link_store,
    "transcript": link_transcript,
    "sessionFile-relative": climbing_session_file,
    "sessionFile-absolute": absolute_session_file,
    "templates-dir": link_templates,
}
COMMANDS: dict[str, list[str]] = {
    "status": ["status"],
    "list": ["list"],
    "search": ["search", "Redis"],
    "context": ["context"],
    "check": ["check"],
    "gc-dry-run": ["gc", "--dry-run"],
    "gc": ["gc", "--force"],
    "add": ["add", "remember: the outside world stays as it is"],
    "check-fix": ["check", "--fix"],
    "summarize": ["summarize"],
    "flush": ["flush", "--force", "--session", MAIN],
    "compact": ["compact", "--force", "--keep-recent-tokens", "500", "--session", MAIN],
    "undo": ["undo"],
}
# Where memcli must refuse (exit 3, "outside" named): it would have to read a memory file or
# a transcript through a link out of the workspace, or write through one.
MEMORY_READERS = {"status", "list", "search", "context", "gc-dry-run", "gc", "summarize", "flush", "compact"}
REFUSED: dict[str, set[str]] = {
    "MEMORY.md": MEMORY_READERS | {"undo"},
    "old-note": MEMORY_READERS - {"summarize"},  # summarize reads last week's notes only
    "today-note": (MEMORY_READERS - {"summarize"}) | {"add"},
    "dangling-today": {"add", "flush", "compact"},  # each would create today's note
    "memory-dir": MEMORY_READERS | {"add", "undo"},
    "archive-dir": {"gc", "undo"},
    "summaries-dir": {"gc", "summarize", "undo"},
    "state-dir": {"gc", "add", "check-fix", "summarize", "flush", "compact", "undo"},
    "transcript": {"flush", "compact"},
    "sessionFile-relative": {"flush", "compact"},
    "sessionFile-absolute": {"flush", "compact"},
}
# Known bugs: a write through a link out of the workspace (the outside folder changes).
WRITES_OUT: dict[tuple[str, str], str] = {}  # (scenario, command) -> the bug it pins, while open


def matrix() -> list[Any]:
    params = []
    for scenario in SCENARIOS:
        for command in COMMANDS:
            why = WRITES_OUT.get((scenario, command))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
            params.append(pytest.param(scenario, command, id=f"{scenario}-{command}", marks=marks))
    return params


@pytest.mark.parametrize(("scenario", "command"), matrix())
def test_nothing_outside_the_workspace_is_written(
    ws: Path, tmp_path: Path, scenario: str, command: str
) -> None:
    out = tmp_path / "outside"
    out.mkdir()
    SCENARIOS[scenario](ws, out)
    before = outside_state(out)
    result = memcli(ws, *COMMANDS[command])
    assert outside_state(out) == before, result.stderr
    if command in REFUSED.get(scenario, set()):
        assert_clean(result, (3,), "outside")
    else:
        assert_clean(result, (0, 1, 3, 4))


def test_a_linked_session_store_stays_linked(ws: Path, tmp_path: Path) -> None:
    out = tmp_path / "outside"
    out.mkdir()
    link_store(ws, out)
    result = memcli(ws, "flush", "--force", "--session", MAIN)
    assert_clean(result, (0, 3))
    assert (ws / "sessions.json").is_symlink()
    # refused, or written through to the store the link names: never two stores that differ
    if result.exit_code == 0:
        assert "memoryFlushAt" in json.loads((out / "sessions.json").read_text(encoding="utf-8"))[MAIN]


def test_a_refused_undo_changes_nothing(ws: Path, tmp_path: Path) -> None:
    out = tmp_path / "outside"
    out.mkdir()
    link_core(ws, out)
    before = {k: v for k, v in tree_bytes(ws).items() if not k.startswith(".memcli/")}
    assert_clean(memcli(ws, "undo"), (3,), "outside the workspace")
    assert {k: v for k, v in tree_bytes(ws).items() if not k.startswith(".memcli/")} == before


@pytest.mark.parametrize("scenario", ["MEMORY.md", "old-note", "today-note", "memory-dir"])
def test_check_reports_a_memory_file_that_links_out(ws: Path, tmp_path: Path, scenario: str) -> None:
    # a pre-commit hook must not pass a workspace every other command refuses
    out = tmp_path / "outside"
    out.mkdir()
    SCENARIOS[scenario](ws, out)
    before = outside_state(out)
    result = memcli(ws, "check")
    assert_clean(result, (1,))
    assert "outside the workspace" in result.stdout
    assert outside_state(out) == before


@pytest.mark.parametrize(
    "command",
    [["status"], ["list"], ["search", "root"], ["context"], ["check"], ["dedupe"], ["gc", "--dry-run"]],
    ids=lambda c: c[0] if len(c) == 1 else "-".join(c),
)
def test_a_note_linked_to_etc_passwd_is_refused_and_etc_passwd_untouched(
    ws: Path, command: list[str]
) -> None:
    passwd = Path("/etc/passwd")
    if not passwd.is_file():
        pytest.skip("no /etc/passwd here")
    before = os.stat(passwd)
    (ws / "memory" / "2026-09-08.md").unlink()
    (ws / "memory" / "2026-09-08.md").symlink_to(passwd)
    result = memcli(ws, *command)  # reading commands only: nothing here may write
    after = os.stat(passwd)
    assert (after.st_mtime_ns, after.st_size, after.st_ino) == (
        before.st_mtime_ns,
        before.st_size,
        before.st_ino,
    )
    if command[0] == "check":
        assert_clean(result, (1,))
        assert "memory/2026-09-08.md" in result.stdout and "outside the workspace" in result.stdout
    else:
        assert_clean(result, (3,), "memory/2026-09-08.md", "outside the workspace")
    assert "root:x:0:0" not in result.stdout  # its text is never shown


@pytest.mark.parametrize(
    ("command", "code", "words"),
    [
        (["restore", "../../outside.md"], 3, "no dropped or archived entry"),
        (["restore", "/etc/passwd"], 3, "no dropped or archived entry"),
        (["show", "../../../etc/passwd"], 0, ""),
        (["summarize", "--template", "../../outside"], 3, "not a plain name"),
        (["summarize", "--template", "/etc/passwd"], 3, "not a plain name"),
        (["summarize", "--template", "..\\evil"], 3, "not a plain name"),
        (["summarize", "--template", ".hidden"], 3, "not a plain name"),
        (["summarize", "--output", "../outside.md"], 2, "outside the workspace"),
        (["summarize", "--output", "/tmp/../etc/memcli-summary.md"], 2, "outside the workspace"),
        (["list", "--file", "../*"], 0, ""),
        (["list", "--file", "/etc/*"], 0, ""),
        (["add", "../../outside.md"], 0, ""),
    ],
    ids=[
        "restore-climbing",
        "restore-absolute",
        "show-climbing",
        "template-climbing",
        "template-absolute",
        "template-backslash",
        "template-hidden",
        "output-climbing",
        "output-absolute",
        "list-file-climbing",
        "list-file-absolute",
        "add-text",
    ],
)
def test_paths_that_climb_out_are_refused_or_are_only_words(
    ws: Path, tmp_path: Path, command: list[str], code: int, words: str
) -> None:
    (tmp_path / "outside.md").write_text("# outside\n")
    before = outside_state(tmp_path)
    result = memcli(ws, *command)
    assert_clean(result, (code,), words)
    after = outside_state(tmp_path)
    assert {k: v for k, v in after[0].items() if not k.startswith("ws/")} == {
        k: v for k, v in before[0].items() if not k.startswith("ws/")
    }
    assert not Path("/etc/memcli-summary.md").exists()
    if command[0] == "list":
        assert "passwd" not in result.stdout and "outside" not in result.stdout
    if command[0] == "add":  # a text, appended to today's note like any other
        assert "../../outside.md" in (ws / "memory" / "2026-10-31.md").read_text(encoding="utf-8")


def test_a_template_outside_the_workspace_is_only_read(ws: Path, tmp_path: Path) -> None:
    # a templates_dir elsewhere is configuration (README: searched after <workspace>/templates)
    shared = tmp_path / "shared-templates"
    shared.mkdir()
    (shared / "weekly-digest.md.j2").write_text("# {{ period }} (shared)\n")
    (ws / "memcli.toml").write_text(f'timezone = "Asia/Shanghai"\ntemplates_dir = "{shared}"\n')
    before = outside_state(shared)
    result = memcli(ws, "summarize")
    assert_clean(result, (0,))
    assert outside_state(shared) == before
    assert "(shared)" in (ws / "memory" / "summaries" / "2026-W43.md").read_text(encoding="utf-8")


# --- 2. a read-only workspace ----------------------------------------------------------------


def make_read_only(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, stat.S_IMODE(os.lstat(path).st_mode) & ~0o222)
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o555)
    os.chmod(root, 0o555)


def make_writable(root: Path) -> None:
    os.chmod(root, 0o755)
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o755)
        for name in filenames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, 0o644)


@pytest.fixture
def read_only(ws: Path) -> Iterator[Path]:
    make_read_only(ws)
    try:
        yield ws
    finally:
        make_writable(ws)  # so that pytest can remove it when not running as root


CACHE = ".memcli/cache.sqlite"


def snapshot(root: Path) -> tuple[dict[str, tuple[bytes, int, int]], dict[str, bytes], set[str]]:
    """User files with bytes, mtime and mode; memcli's own files by bytes (the lock file's
    time changes when it is taken); and every path. The facts cache is left out here: it is
    checked by test_a_read_only_workspace_gets_no_results_cache."""
    state = {k: v for k, v in tree_state(root).items() if not k.startswith(".memcli/")}
    own = {k: v for k, v in tree_bytes(root).items() if k.startswith(".memcli/") and not k.startswith(CACHE)}
    paths = {p.relative_to(root).as_posix() for p in root.rglob("*") if not p.name.startswith("cache.sqlite")}
    return state, own, paths


READS = {
    "status": ["status"],
    "list": ["list", "--json"],
    "search": ["search", "Redis"],
    "context": ["context"],
    "check": ["check"],
    "entities": ["entities"],
    "dedupe": ["dedupe"],
    "score": ["score", "I prefer vim"],
    "show": ["show", "Redis"],
    "gc-dry-run": ["gc", "--dry-run"],
    "flush-dry-run": ["flush", "--dry-run"],
    "compact-dry-run": ["compact", "--dry-run", "--force"],
    "summarize-to-stdout": ["summarize", "--output", "-"],
    "doctor": ["doctor"],
}


@pytest.mark.parametrize("command", READS.values(), ids=READS.keys())
def test_reading_commands_work_in_a_read_only_workspace(read_only: Path, command: list[str]) -> None:
    before = snapshot(read_only)
    result = memcli(read_only, *command)
    assert_clean(result, (0, 1))  # check: 1 when it finds problems
    assert snapshot(read_only) == before


def test_a_read_only_workspace_gets_no_results_cache(read_only: Path) -> None:
    paths = {p: os.stat(p).st_mtime_ns for p in read_only.rglob("*")}
    assert_clean(memcli(read_only, "list"), (0,))
    assert {p: os.stat(p).st_mtime_ns for p in read_only.rglob("*")} == paths


WRITES: dict[str, list[str]] = {
    "add": ["add", "a new fact"],
    "gc": ["gc", "--force"],
    "summarize": ["summarize"],
    "check-fix": ["check", "--fix"],
    "restore": ["restore", "TRASHED"],
    "init": ["init", "WORKSPACE"],
    "undo": ["undo"],
    "purge": ["purge", "--older-than", "1"],
    "compact": ["compact", "--force", "--keep-recent-tokens", "500", "--session", MAIN],
}


def _args(command: list[str], root: Path) -> list[str]:
    return [trashed_id(root) if a == "TRASHED" else str(root) if a == "WORKSPACE" else a for a in command]


def _writing_params() -> list[Any]:
    return [pytest.param(command, id=name) for name, command in WRITES.items()]


@pytest.mark.parametrize("command", _writing_params())
def test_writing_commands_refuse_a_read_only_workspace(read_only: Path, command: list[str]) -> None:
    args = _args(command, read_only)
    if command[0] == "compact":  # no flush due first (a flush would stop at the note, read-only)
        _flushed_in_this_cycle(read_only)
    before = snapshot(read_only)
    # purge deletes what is older than DAYS: a year later, everything the first gc left is
    result = memcli(read_only, *args, now="2027-10-31T09:00:00+08:00" if command[0] == "purge" else NOW)
    after = snapshot(read_only)
    if command[0] == "init":  # nothing to create: everything is kept, nothing written
        assert_clean(result, (0,))
    else:
        assert_clean(result, (3,))
        # memcli's own words, or the system's when it is not root (chmod does stop a write then)
        assert "read-only" in result.stderr or "ermission denied" in result.stderr, result.stderr
    assert after == before


def _flushed_in_this_cycle(root: Path) -> None:
    store = root / "sessions.json"
    os.chmod(root, 0o755)
    os.chmod(store, 0o644)
    data = json.loads(store.read_text(encoding="utf-8"))
    data[MAIN].update(memoryFlushAt=1, memoryFlushCompactionCount=data[MAIN]["compactionCount"])
    store.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    os.chmod(store, 0o444)
    os.chmod(root, 0o555)


def test_flush_skips_a_read_only_workspace(ws: Path) -> None:
    assert_clean(memcli(ws, "flush", "--session", MAIN), (0,))  # the due session flushed once
    make_read_only(ws)
    try:
        before = snapshot(ws)
        root_mtime = os.stat(ws).st_mtime_ns
        result = memcli(ws, "--json", "flush", "--force", "--session", MAIN)
        after = snapshot(ws)
        assert_clean(result, (0,))
        assert after == before and os.stat(ws).st_mtime_ns == root_mtime
        assert all("read-only" in s["why"] for s in json.loads(result.stdout)["sessions"])
    finally:
        make_writable(ws)


def test_init_refuses_a_read_only_folder(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir(mode=0o555)
    try:
        result = memcli(tmp_path, "init", str(folder))
        assert_clean(result, (3,), "read-only")
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


def test_a_read_only_note_is_kept_while_the_rest_is_written(ws: Path) -> None:
    # Only one old note read-only: `add` (today's note) works; `check --fix`, which would
    # rewrite the read-only note, refuses, naming it.
    note = ws / "memory" / "2026-10-27.md"
    note.chmod(0o444)
    data = note.read_bytes()
    assert_clean(memcli(ws, "add", "still works"), (0,))
    result = memcli(ws, "check", "--fix")
    assert_clean(result, (3,), "memory/2026-10-27.md", "read-only")
    assert note.read_bytes() == data
