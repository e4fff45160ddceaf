"""Reading and writing workspace files without ever losing a byte (SPEC §14).

- Reads take bytes and decode UTF-8 strictly; binary, oversized and
  non-UTF-8 files are refused with the file and offset named.
- `atomic_write` writes a temp file in the same folder, fsyncs it, keeps the
  file's mode, re-checks that the file still holds what was read (lines an
  agent appended meanwhile are carried over), renames, and fsyncs the folder.
- `append_text` only ever adds bytes at the end.
- No path is followed out of the workspace through a symlink.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from memcli.core.roles import TEMP_SUFFIX
from memcli.errors import ConfigError, ConflictError, DataError

READ_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class FileState:
    """What a file held when memcli read it; the base a later write is checked against."""

    path: Path
    data: bytes
    mode: int
    inode: int
    uid: int
    gid: int


def display(path: Path, root: Path | None) -> str:
    if root is not None:
        with contextlib.suppress(ValueError):
            return path.relative_to(root).as_posix()
    return str(path)


def resolve_inside(path: Path, root: Path) -> Path:
    """The real path behind `path`, refused when a symlink leads out of `root`."""
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(path))
    if real != real_root and real_root not in real.parents:
        raise DataError(
            f"{display(path, root)} is a symlink to {real}, outside the workspace",
            "memcli does not follow links out of the workspace; replace the link with the file",
        )
    return real


def _check_regular(path: Path, st: os.stat_result, root: Path | None, max_bytes: int) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise DataError(f"{display(path, root)} is not a regular file", "move it out of the workspace")
    if st.st_size > max_bytes:
        raise DataError(
            f"{display(path, root)} is {st.st_size / 1e6:.1f} MB, over the limit of "
            f"{max_bytes / 1e6:.1f} MB for one note",
            "split it into smaller notes, or raise max_file_bytes in memcli.toml",
        )


def read_state(path: Path, root: Path, max_bytes: int) -> FileState:
    real = resolve_inside(path, root)
    try:
        _check_regular(path, os.stat(real), root, max_bytes)
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise DataError(f"{display(path, root)} does not exist") from None
    except PermissionError:
        raise DataError(f"{display(path, root)} cannot be read: permission denied") from None
    try:
        st = os.fstat(fd)
        _check_regular(path, st, root, max_bytes)
        data = _read_all(fd)
    finally:
        os.close(fd)
    return FileState(real, data, stat.S_IMODE(st.st_mode), st.st_ino, st.st_uid, st.st_gid)


def _read_all(fd: int, offset: int = 0) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.pread(fd, READ_CHUNK, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def decode(data: bytes, name: str) -> str:
    """Strict UTF-8; a BOM stays in the text so that rendering gives it back."""
    nul = data.find(b"\x00")
    if nul >= 0:
        raise DataError(
            f"{name} looks binary (NUL byte at offset {nul}), not a Markdown note",
            "move it out of the workspace or give it another extension",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(
            f"{name}: invalid UTF-8 at byte {exc.start} (line {line})",
            "re-save the file as UTF-8",
        ) from None


def read_text(path: Path, root: Path, max_bytes: int) -> tuple[FileState, str]:
    state = read_state(path, root, max_bytes)
    return state, decode(state.data, display(path, root))


def read_config_text(path: Path, max_bytes: int = 1 << 20) -> str:
    """A configuration file (it may live outside the workspace); errors are ConfigErrors."""
    try:
        st = os.stat(path)
        if st.st_size > max_bytes:
            raise ConfigError(f"{path} is {st.st_size} bytes, too large for a configuration file")
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: invalid UTF-8 at byte {exc.start}", "re-save it as UTF-8") from None


# --- writing ------------------------------------------------------------------------


def ensure_writable(path: Path, root: Path) -> None:
    """Refuse to write where the user made things read-only, even when running as root."""
    directory = path.parent
    dir_mode = stat.S_IMODE(os.stat(directory).st_mode)
    if not dir_mode & 0o222 or not os.access(directory, os.W_OK):
        raise DataError(
            f"{display(directory, root) or '.'} is read-only; nothing was written",
            "make the workspace writable, or use --dry-run",
        )
    try:
        file_mode = stat.S_IMODE(os.lstat(path).st_mode)
    except FileNotFoundError:
        return
    if not file_mode & 0o222:
        raise DataError(
            f"{display(path, root)} is read-only; nothing was written",
            "make it writable (chmod u+w) if memcli should change it",
        )


def temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


def temp_owner_pid(name: str) -> int | None:
    parts = name.split(".")
    try:
        return int(parts[-3])
    except (IndexError, ValueError):
        return None


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def fsync_dir(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


# Called between fsync of the temp file and the rename: the seam where a test
# kills a writer at the worst moment.
before_replace: Callable[[Path, Path], None] = lambda temp, target: None  # noqa: E731


def atomic_write(path: Path, data: bytes, root: Path, expected: FileState | None) -> int:
    """Replace `path` with `data` atomically; return how many appended bytes were carried.

    `expected` is what the caller read (None: the file must not exist yet). If
    the file changed other than by appends since then, nothing is written and
    ConflictError is raised.
    """
    target = resolve_inside(path, root)
    name = display(path, root)
    ensure_writable(target, root)
    old_fd: int | None = None
    seen = 0
    temp = temp_name(target)
    try:
        if expected is not None:
            try:
                old_fd = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            except FileNotFoundError:
                raise ConflictError(f"{name} was removed while memcli worked", "run again") from None
            if os.fstat(old_fd).st_ino != expected.inode:
                raise ConflictError(f"{name} was replaced while memcli worked", "run again")
        elif target.exists():
            raise ConflictError(f"{name} was created while memcli worked", "run again")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            mode = expected.mode if expected is not None else 0o666 & ~_umask()
            os.fchmod(fd, mode)
            if expected is not None and (expected.uid, expected.gid) != (os.getuid(), os.getgid()):
                with contextlib.suppress(OSError):
                    os.fchown(fd, expected.uid, expected.gid)
            _write_all(fd, data)
            carried = 0
            if old_fd is not None and expected is not None:
                current = _read_all(old_fd)
                if current != expected.data:
                    if not current.startswith(expected.data):
                        raise ConflictError(
                            f"{name} changed while memcli worked (not only appended to)",
                            "nothing was written; run again",
                        )
                    tail = current[len(expected.data) :]
                    _write_all(fd, tail)
                    carried = len(tail)
                seen = len(current)
            os.fsync(fd)
        finally:
            os.close(fd)
        before_replace(temp, target)
        if expected is None:
            try:
                os.link(temp, target)
            except FileExistsError:
                raise ConflictError(f"{name} was created while memcli worked", "run again") from None
            os.unlink(temp)
        else:
            os.replace(temp, target)
        fsync_dir(target.parent)
        if old_fd is not None:
            late = _read_all(old_fd, seen)
            if late:
                _append_bytes(target, late)
                carried += len(late)
        return carried
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    finally:
        if old_fd is not None:
            os.close(old_fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _append_bytes(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0))
    try:
        _write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)


def append_text(path: Path, text: str, root: Path, max_bytes: int) -> None:
    """Add `text` (lines ending in LF) at the end of an existing file, in its line-ending style.

    If the file lacks a final newline, one is added first so the new lines start
    fresh; nothing already in the file is rewritten.
    """
    target = resolve_inside(path, root)
    ensure_writable(target, root)
    state = read_state(target, root, max_bytes)
    decode(state.data, display(path, root))
    first_newline = state.data.find(b"\n")
    crlf = first_newline > 0 and state.data[first_newline - 1 : first_newline] == b"\r"
    newline = b"\r\n" if crlf else b"\n"
    payload = text.encode("utf-8")
    if newline == b"\r\n":
        payload = payload.replace(b"\n", b"\r\n")
    if state.data and not state.data.endswith(b"\n"):
        payload = newline + payload
    _append_bytes(target, payload)


def make_dirs(directory: Path, root: Path) -> None:
    """Create a folder (and its parents) inside the workspace."""
    real = resolve_inside(directory, root)
    if real.is_dir():
        return
    make_dirs(real.parent, root)
    ensure_writable(real, root)
    try:
        real.mkdir(exist_ok=True)
    except PermissionError:
        raise DataError(f"cannot create {display(directory, root)}: permission denied") from None
    fsync_dir(real.parent)


def create_text(path: Path, text: str, root: Path) -> bool:
    """Create a new file holding `text`; False (and nothing written) if it already exists."""
    target = resolve_inside(path, root)
    ensure_writable(target, root)
    try:
        atomic_write(target, text.encode("utf-8"), root, None)
    except ConflictError:
        return False
    return True


def remove_stale_temp_files(root: Path, rels: tuple[str, ...]) -> list[str]:
    """Remove temp files left by memcli processes that no longer run."""
    removed = []
    for rel in rels:
        pid = temp_owner_pid(Path(rel).name)
        if pid is not None and pid != os.getpid() and pid_alive(pid):
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(root / rel)
            removed.append(rel)
    return removed
