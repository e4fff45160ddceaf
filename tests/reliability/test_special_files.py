"""Special files and escapes (issue 15, point 8): what sits where memcli reads a note but is
no note is reported with one line naming it, never opened, never walked, never waited on.

- a FIFO, a socket or a device (here a symlink to /dev/zero: creating a device needs
  root's CAP_MKNOD) named like a daily note, like MEMORY.md or like sessions.json: every
  command that reads the workspace (status, list, gc --dry-run, gc) exits 3 with one line
  naming it and writes nothing; `check` reports it as an error finding (exit 1), as it
  reports any other file it cannot read as text (a binary file, invalid UTF-8);
- memory/ as a symlink out of the workspace: reported once, nothing behind it walked;
- a folder named like a note: reported;
- `check PATH` on a path that does not exist, or on a FIFO: an error finding, never "ok",
  never a hang.

Every run is a real `python -m memcli` process with a time-out: a FIFO opened for reading
would block it for ever, and that must fail the test, not hang the suite.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import NOW, SAMPLE, tree_bytes

TIMEOUT = 60  # seconds; a run that opens a FIFO never ends
NOTE = "memory/2026-10-01.md"
OUTSIDE_NOTES = 40


def memcli(root: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(
            [sys.executable, "-m", "memcli", "-w", str(root), "--now", NOW, *args],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            cwd=cwd,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"memcli {' '.join(args)} did not end within {TIMEOUT} s (it opened a FIFO?)")


def one_error_line(run: subprocess.CompletedProcess[str], *named: str) -> str:
    assert "Traceback" not in run.stderr + run.stdout, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memcli: error: "), run.stderr
    for name in named:
        assert name in lines[0], (name, lines[0])
    return lines[0]


def findings(run: subprocess.CompletedProcess[str]) -> list[dict[str, object]]:
    assert "Traceback" not in run.stderr, run.stderr
    report = json.loads(run.stdout)
    return list(report["findings"])


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A small workspace: MEMORY.md, sessions.json, memcli.toml and a few of the sample's notes."""
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    for name in ("MEMORY.md", "memcli.toml", "sessions.json"):
        (root / name).write_bytes((SAMPLE / name).read_bytes())
    for day in ("2026-09-01", "2026-09-02", "2026-10-01", "2026-10-20", "2026-10-29", "2026-10-30"):
        (root / "memory" / f"{day}.md").write_bytes((SAMPLE / "memory" / f"{day}.md").read_bytes())
    return root


def make_fifo(path: Path) -> None:
    os.mkfifo(path)


def make_socket(path: Path) -> None:
    # a socket file stays after its socket is closed; AF_UNIX paths are short, so bind
    # from inside the folder
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.bind(path.name)
    finally:
        os.chdir(here)


def make_device(path: Path) -> None:
    path.symlink_to("/dev/zero")  # a character device that never ends


KINDS: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (make_fifo, "FIFO"),
    "socket": (make_socket, "socket"),
    "device": (make_device, "character device"),
}


def replace_by(root: Path, rel: str, kind: str) -> None:
    path = root / rel
    path.unlink()
    KINDS[kind][0](path)


def everything_but_state(root: Path) -> dict[str, bytes]:
    return {k: v for k, v in tree_bytes(root).items() if not k.startswith(".memcli/")}


def regular_bytes(root: Path) -> dict[str, bytes]:
    """tree_bytes without opening anything that is not a regular file."""
    out = {}
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_file() and not path.is_symlink():
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


READERS = {
    "status": ["status"],
    "list": ["list"],
    "gc-dry-run": ["gc", "--dry-run"],
    "gc": ["gc", "--force"],
}
TARGETS = (NOTE, "MEMORY.md", "sessions.json")


@pytest.mark.parametrize("command", READERS, ids=str)
@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_a_fifo_where_a_workspace_file_belongs_stops_every_reading_command_with_one_line(
    ws: Path, target: str, command: str
) -> None:
    replace_by(ws, target, "fifo")
    before = regular_bytes(ws)
    run = memcli(ws, *READERS[command])
    assert run.returncode == 3, (run.returncode, run.stderr)
    one_error_line(run, target, "FIFO")
    assert {k: v for k, v in regular_bytes(ws).items() if not k.startswith(".memcli/")} == {
        k: v for k, v in before.items() if not k.startswith(".memcli/")
    }


@pytest.mark.parametrize("target", TARGETS, ids=str)
@pytest.mark.parametrize("kind", KINDS, ids=str)
def test_check_reports_a_special_file_where_a_workspace_file_belongs(
    ws: Path, kind: str, target: str
) -> None:
    replace_by(ws, target, kind)
    run = memcli(ws, "--json", "check")
    assert run.returncode == 1, (run.returncode, run.stderr)
    errors = [f for f in findings(run) if f["severity"] == "error"]
    assert [(f["file"], f["check"]) for f in errors] == [(target, "file")]
    assert KINDS[kind][1] in str(errors[0]["message"])


@pytest.mark.parametrize("kind", ["socket", "device"], ids=str)
def test_a_socket_or_a_device_named_like_a_note_is_refused_not_read(ws: Path, kind: str) -> None:
    replace_by(ws, NOTE, kind)
    for args in (["status"], ["gc", "--dry-run"]):
        run = memcli(ws, *args)
        assert run.returncode == 3, (args, run.returncode, run.stderr)
        one_error_line(run, NOTE, KINDS[kind][1])


@pytest.fixture
def linked_memory(ws: Path, tmp_path: Path) -> Path:
    """memory/ is a symlink to a folder outside the workspace that holds many notes (each
    with a secret, so that a check that walked it would have something to say about each)."""
    outside = tmp_path / "system"
    outside.mkdir()
    for n in range(OUTSIDE_NOTES):
        (outside / f"2026-09-{n % 28 + 1:02d}-{n}.md").write_text(f"- password: Xk9#mQ2v!pL{n}\n")
    (ws / "memory").rename(tmp_path / "kept-memory")
    (ws / "memory").symlink_to(outside)
    return ws


def test_memory_linked_out_of_the_workspace_is_reported_once_and_never_walked(linked_memory: Path) -> None:
    run = memcli(linked_memory, "--json", "check")
    assert run.returncode == 1, run.stderr
    report = json.loads(run.stdout)
    assert [(f["file"], f["check"], f["severity"]) for f in report["findings"]] == [
        ("memory", "file", "error")
    ]
    assert "outside the workspace" in report["findings"][0]["message"]
    assert not any(str(f).startswith("memory/") for f in report["files"]), report["files"]


@pytest.mark.parametrize("command", READERS, ids=str)
def test_memory_linked_out_of_the_workspace_is_named_by_every_reading_command(
    linked_memory: Path, tmp_path: Path, command: str
) -> None:
    outside = tmp_path / "system"
    before = tree_bytes(outside)
    run = memcli(linked_memory, *READERS[command])
    assert run.returncode == 3, (run.returncode, run.stderr)
    line = one_error_line(run, "memory", "outside the workspace")
    assert "memory/2026-09" not in line  # the folder is named, not a file behind it
    assert tree_bytes(outside) == before


def test_a_folder_named_like_a_note_is_reported(ws: Path) -> None:
    folder = ws / "memory" / "2026-01-01.md"
    folder.mkdir()
    (folder / "notes.txt").write_text("- kept in a folder named like a note\n")
    before = everything_but_state(ws)
    for args in (["status"], ["list"], ["gc", "--dry-run"], ["gc", "--force"]):
        run = memcli(ws, *args)
        assert run.returncode == 3, (args, run.returncode, run.stderr)
        one_error_line(run, "memory/2026-01-01.md", "folder")
    assert everything_but_state(ws) == before
    run = memcli(ws, "--json", "check")
    assert run.returncode == 1, run.stderr
    assert [(f["file"], f["check"]) for f in findings(run) if f["severity"] == "error"] == [
        ("memory/2026-01-01.md", "file")
    ]


def test_check_of_a_path_that_does_not_exist_is_an_error(ws: Path) -> None:
    missing = ws / "memory" / "2026-10-02.md"
    run = memcli(ws, "--json", "check", str(missing))
    assert run.returncode == 1, (run.returncode, run.stdout, run.stderr)
    assert [(f["file"], f["check"], f["severity"]) for f in findings(run)] == [
        (str(missing), "file", "error")
    ]
    assert "does not exist" in str(findings(run)[0]["message"])
    plain = memcli(ws, "check", str(missing))
    assert plain.returncode == 1 and "check ok" not in plain.stderr, plain.stderr


@pytest.mark.parametrize("where", ["workspace-note", "session-store", "outside"], ids=str)
def test_check_of_a_fifo_named_on_the_command_line_never_opens_it(
    ws: Path, tmp_path: Path, where: str
) -> None:
    # nothing ever writes to this FIFO: a memcli that opened it for reading would wait for
    # ever, and the run's time-out fails the test
    path = {
        "workspace-note": ws / NOTE,
        "session-store": ws / "sessions.json",
        "outside": tmp_path / "elsewhere.md",
    }[where]
    path.unlink(missing_ok=True)
    os.mkfifo(path)
    run = memcli(ws, "--json", "check", str(path), str(ws / "MEMORY.md"))
    assert run.returncode == 1, (run.returncode, run.stdout, run.stderr)
    errors = [f for f in findings(run) if f["severity"] == "error"]
    assert len(errors) == 1 and "FIFO" in str(errors[0]["message"]), errors
    assert str(errors[0]["file"]).endswith(path.name)


def test_a_fifo_named_like_a_template_is_refused_not_read(ws: Path) -> None:
    # without it, memcli would fall back to the shipped template and say nothing
    (ws / "templates").mkdir()
    os.mkfifo(ws / "templates" / "weekly-digest.md.j2")
    run = memcli(ws, "summarize", "--period", "2026-W40")
    assert run.returncode == 3, (run.returncode, run.stderr)
    one_error_line(run, "weekly-digest.md.j2", "not a regular file")
