"""The write path of SPEC §14: atomic, mode-keeping, symlink-safe, append-preserving."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from memcli.errors import ConflictError, DataError
from memcli.workspace import files
from memcli.workspace.files import (
    append_text,
    atomic_write,
    create_text,
    decode,
    read_state,
    read_text,
    remove_stale_temp_files,
)
from memcli.workspace.layout import scan

MAX = 10 << 20


@pytest.fixture
def note(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    path = root / "memory" / "2026-10-29.md"
    path.write_bytes(b"# 2026-10-29\n\n- one\n- two\n")
    return root, path


def temps(root: Path) -> list[str]:
    return list(scan(root).temp_files)


def test_atomic_write_replaces_content_and_leaves_no_temp(note: tuple[Path, Path]) -> None:
    root, path = note
    state = read_state(path, root, MAX)
    carried = atomic_write(path, b"# 2026-10-29\n\n- one\n", root, state)
    assert carried == 0
    assert path.read_bytes() == b"# 2026-10-29\n\n- one\n"
    assert temps(root) == []


def test_atomic_write_keeps_the_file_mode(note: tuple[Path, Path]) -> None:
    root, path = note
    os.chmod(path, 0o640)
    atomic_write(path, b"x\n", root, read_state(path, root, MAX))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    os.chmod(path, 0o600)
    atomic_write(path, b"y\n", root, read_state(path, root, MAX))
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_lines_appended_after_the_read_are_carried_into_the_new_file(note: tuple[Path, Path]) -> None:
    root, path = note
    state = read_state(path, root, MAX)
    with path.open("ab") as f:
        f.write(b"- three (appended by the agent)\n")
    carried = atomic_write(path, b"# 2026-10-29\n\n- one\n- two (edited)\n", root, state)
    assert carried == len(b"- three (appended by the agent)\n")
    assert path.read_bytes() == b"# 2026-10-29\n\n- one\n- two (edited)\n- three (appended by the agent)\n"


def test_lines_appended_between_check_and_rename_are_carried(
    note: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, path = note
    state = read_state(path, root, MAX)

    def agent_appends(temp: Path, target: Path) -> None:
        with target.open("ab") as f:
            f.write(b"- late line\n")

    monkeypatch.setattr(files, "before_replace", agent_appends)
    atomic_write(path, b"new\n", root, state)
    assert path.read_bytes() == b"new\n- late line\n"


def test_a_file_changed_other_than_by_append_is_a_conflict_and_nothing_is_written(
    note: tuple[Path, Path],
) -> None:
    root, path = note
    state = read_state(path, root, MAX)
    path.write_bytes(b"# 2026-10-29\n\n- one (edited by the user)\n")
    with pytest.raises(ConflictError):
        atomic_write(path, b"memcli's version\n", root, state)
    assert path.read_bytes() == b"# 2026-10-29\n\n- one (edited by the user)\n"
    assert temps(root) == []


def test_a_replaced_file_is_a_conflict(note: tuple[Path, Path]) -> None:
    root, path = note
    state = read_state(path, root, MAX)
    other = path.with_name("other.md")
    other.write_bytes(state.data)
    os.replace(other, path)
    with pytest.raises(ConflictError):
        atomic_write(path, b"x\n", root, state)
    assert path.read_bytes() == state.data


def test_creating_refuses_to_clobber_a_file_that_appeared(note: tuple[Path, Path]) -> None:
    root, path = note
    assert create_text(path, "clobber\n", root) is False
    assert path.read_bytes() == b"# 2026-10-29\n\n- one\n- two\n"
    fresh = root / "memory" / "2026-10-30.md"
    assert create_text(fresh, "# 2026-10-30\n", root) is True
    assert fresh.read_bytes() == b"# 2026-10-30\n"


def test_symlink_out_of_the_workspace_is_refused_for_read_and_write(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    outside = tmp_path / "secret.md"
    outside.write_bytes(b"private\n")
    link = root / "memory" / "2026-10-29.md"
    link.symlink_to(outside)
    with pytest.raises(DataError, match="outside the workspace"):
        read_state(link, root, MAX)
    with pytest.raises(DataError, match="outside the workspace"):
        atomic_write(link, b"overwritten\n", root, None)
    with pytest.raises(DataError, match="outside the workspace"):
        append_text(link, "- more\n", root, MAX)
    assert outside.read_bytes() == b"private\n"
    assert link.is_symlink()


def test_symlink_inside_the_workspace_is_written_through(note: tuple[Path, Path]) -> None:
    root, path = note
    link = root / "memory" / "today.md"
    link.symlink_to(path)
    atomic_write(link, b"via link\n", root, read_state(link, root, MAX))
    assert link.is_symlink()
    assert path.read_bytes() == b"via link\n"


def test_read_only_folder_and_file_are_refused_even_for_root(note: tuple[Path, Path]) -> None:
    root, path = note
    before = path.read_bytes()
    os.chmod(path, 0o444)
    with pytest.raises(DataError, match="read-only"):
        atomic_write(path, b"x\n", root, read_state(path, root, MAX))
    os.chmod(path, 0o644)
    os.chmod(path.parent, 0o555)
    try:
        with pytest.raises(DataError, match="read-only"):
            atomic_write(path, b"x\n", root, read_state(path, root, MAX))
        with pytest.raises(DataError, match="read-only"):
            append_text(path, "- x\n", root, MAX)
    finally:
        os.chmod(path.parent, 0o755)
    assert path.read_bytes() == before


def test_decode_names_the_offset_of_invalid_utf8_and_refuses_binary() -> None:
    with pytest.raises(DataError, match=r"invalid UTF-8 at byte 10 \(line 2\)"):
        decode(b"- ok\n- bad\xff\n", "memory/x.md")
    with pytest.raises(DataError, match="looks binary"):
        decode(b"\x89PNG\r\n\x1a\n\x00\x00", "memory/x.md")
    assert decode("\ufeff# 标题\r\n".encode(), "x") == "\ufeff# 标题\r\n"


def test_oversized_and_non_regular_files_are_refused(tmp_path: Path) -> None:
    root = tmp_path
    big = root / "big.md"
    big.write_bytes(b"- x\n" * 1000)
    with pytest.raises(DataError, match="over the limit"):
        read_state(big, root, 1000)
    fifo = root / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(DataError, match="not a regular file"):
        read_state(fifo, root, MAX)


def test_append_keeps_crlf_and_adds_a_missing_final_newline(tmp_path: Path) -> None:
    root = tmp_path
    crlf = root / "a.md"
    crlf.write_bytes(b"# t\r\n\r\n- one")
    append_text(crlf, "- two\n  detail\n", root, MAX)
    assert crlf.read_bytes() == b"# t\r\n\r\n- one\r\n- two\r\n  detail\r\n"
    lf = root / "b.md"
    lf.write_bytes(b"- one\n")
    append_text(lf, "- 二\n", root, MAX)
    assert lf.read_bytes() == "- one\n- 二\n".encode()


def test_append_refuses_a_file_that_is_not_utf8(tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"- caf\xe9\n")
    with pytest.raises(DataError, match="invalid UTF-8"):
        append_text(bad, "- more\n", tmp_path, MAX)
    assert bad.read_bytes() == b"- caf\xe9\n"


KILL_SCRIPT = """
import os, signal, sys
from pathlib import Path
from memcli.workspace import files
root = Path(sys.argv[1]); target = root / "memory" / "2026-10-29.md"
state = files.read_state(target, root, 1 << 20)
files.before_replace = lambda temp, target: os.kill(os.getpid(), signal.SIGKILL)
files.atomic_write(target, b"the new version\\n", root, state)
"""


def test_a_writer_killed_before_the_rename_leaves_the_original_and_the_next_run_cleans_up(
    note: tuple[Path, Path],
) -> None:
    root, path = note
    before = path.read_bytes()
    proc = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(root)], capture_output=True)
    assert proc.returncode == -signal.SIGKILL
    assert path.read_bytes() == before
    left = temps(root)
    assert len(left) == 1 and left[0].endswith(".memcli-tmp")
    assert (root / left[0]).read_bytes() == b"the new version\n"
    removed = remove_stale_temp_files(root, scan(root).temp_files)
    assert removed == left
    assert temps(root) == []
    assert path.read_bytes() == before


def test_temp_files_of_a_live_process_are_not_removed(tmp_path: Path) -> None:
    root = tmp_path
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        mine = root / f".x.md.{proc.pid}.abcd1234.memcli-tmp"
        mine.write_bytes(b"in progress")
        assert remove_stale_temp_files(root, (mine.name,)) == []
        assert mine.exists()
    finally:
        proc.kill()
        proc.wait()
    assert remove_stale_temp_files(root, (mine.name,)) == [mine.name]


def test_no_appended_line_is_lost_while_files_are_rewritten(note: tuple[Path, Path]) -> None:
    """An agent appends every millisecond while memcli rewrites the file 30 times."""
    root, path = note
    stop = threading.Event()
    written: list[str] = []

    def agent() -> None:
        n = 0
        while not stop.is_set():
            line = f"- agent line {n}\n"
            with path.open("a", encoding="utf-8") as f:
                f.write(line)
            written.append(line)
            n += 1
            time.sleep(0.001)

    thread = threading.Thread(target=agent)
    thread.start()
    rewrites = 0
    try:
        while rewrites < 30:
            state, text = read_text(path, root, MAX)
            try:
                atomic_write(path, text.replace("- one", "- one!", 1).encode(), root, state)
                rewrites += 1
            except ConflictError:
                continue
    finally:
        stop.set()
        thread.join()
    # the end of the run (the lock's release): an agent that opened the note just before a
    # rename may have written to the replaced file after memcli last read it
    files.settle_carried(root)
    final = path.read_text(encoding="utf-8")
    lost = [line for line in written if line not in final]
    assert lost == []
    assert "- one" + "!" * 30 in final
