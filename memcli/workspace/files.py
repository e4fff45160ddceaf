"""Reading and writing workspace files without ever losing a byte (SPEC §14).

- Reads take bytes and decode UTF-8 strictly; binary, oversized,
  conflict-marked and non-UTF-8 files are refused with the file and place named.
- `atomic_write` writes a temp file in the same folder, fsyncs it, keeps the
  file's mode and owner, re-checks that the file still holds what was read
  (lines an agent appended meanwhile are carried over), renames, and fsyncs
  the folder. Until the lines appended during the rename are carried too, the
  old file stays reachable under `.memcli/carry/`, so a crash cannot lose them.
- `append_text` only ever adds bytes at the end, and takes back a torn write.
- No path is followed out of the workspace through a symlink.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import secrets
import sqlite3
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from memcli.core.entries import conflict_marker_line
from memcli.core.roles import STATE_DIR, TEMP_SUFFIX
from memcli.errors import ConfigError, ConflictError, DataError

READ_CHUNK = 1 << 20
CARRY_DIR = f"{STATE_DIR}/carry"
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
TEMP_NAME = re.compile(r"^\..+\.(\d+)\.[0-9a-f]{8}" + re.escape(TEMP_SUFFIX) + "$")


class Changes:
    """The files this run has changed (memcli's own .memcli/ aside): what the command line
    reports when Ctrl-C stops a run."""

    def __init__(self) -> None:
        self.count = 0
        self.last: str | None = None

    def reset(self) -> None:
        self.count, self.last = 0, None

    def wrote(self, path: Path) -> None:
        if STATE_DIR not in path.parts:
            self.count += 1
            self.last = path.name


CHANGES = Changes()


@dataclass(frozen=True, slots=True)
class FileState:
    """What a file held when memcli read it; the base a later write is checked against."""

    path: Path
    data: bytes
    mode: int
    inode: int
    uid: int
    gid: int
    links: int = 1


def display(path: Path, root: Path | None) -> str:
    if root is not None:
        with contextlib.suppress(ValueError):
            return path.relative_to(root).as_posix()
    return str(path)


def _megabytes(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n:,} bytes"


def is_inside(path: Path, root: Path) -> bool:
    real_root = Path(os.path.realpath(root))
    real = Path(os.path.realpath(path))
    return real == real_root or real_root in real.parents


def resolve_inside(path: Path, root: Path) -> Path:
    """The real path behind `path`, refused when a symlink leads out of `root`."""
    real = Path(os.path.realpath(path))
    real_root = Path(os.path.realpath(root))
    if not (real == real_root or real_root in real.parents):
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
            f"{display(path, root)} is {_megabytes(st.st_size)}, over the limit of "
            f"{_megabytes(max_bytes)} for one note",
            "split it into smaller notes, or raise max_file_bytes in memcli.toml",
        )


def read_state(path: Path, root: Path, max_bytes: int, allow_outside: bool = False) -> FileState:
    """The file's bytes and metadata. `allow_outside` is for files memcli only reads
    (bootstrap files), never for anything it may write."""
    real = Path(os.path.realpath(path)) if allow_outside else resolve_inside(path, root)
    try:
        _check_regular(path, os.stat(real), root, max_bytes)
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | NOFOLLOW)
    except FileNotFoundError:
        what = "is a dangling symlink" if path.is_symlink() else "does not exist"
        raise DataError(f"{display(path, root)} {what}") from None
    except PermissionError:
        raise DataError(f"{display(path, root)} cannot be read: permission denied") from None
    try:
        st = os.fstat(fd)
        _check_regular(path, st, root, max_bytes)
        data = _read_all(fd)
    finally:
        os.close(fd)
    return FileState(real, data, stat.S_IMODE(st.st_mode), st.st_ino, st.st_uid, st.st_gid, st.st_nlink)


def _read_all(fd: int, offset: int = 0) -> bytes:
    chunks: list[bytes] = []
    while True:
        chunk = os.pread(fd, READ_CHUNK, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def decode(data: bytes, name: str) -> str:
    """Strict UTF-8; a BOM stays in the text so that rendering gives it back.

    Binary files and files left with git merge-conflict markers are refused.
    """
    nul = data.find(b"\x00")
    if nul >= 0:
        raise DataError(
            f"{name} looks binary (NUL byte at offset {nul}), not a Markdown note",
            "move it out of the workspace or give it another extension",
        )
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(
            f"{name}: invalid UTF-8 at byte {exc.start} (line {line})",
            "re-save the file as UTF-8",
        ) from None
    marker = conflict_marker_line(text)
    if marker is not None:
        raise DataError(
            f"{name}: unresolved merge conflict at line {marker}",
            "resolve the conflict (<<<<<<< / ======= / >>>>>>>) first",
        )
    return text


def read_text(path: Path, root: Path, max_bytes: int, allow_outside: bool = False) -> tuple[FileState, str]:
    state = read_state(path, root, max_bytes, allow_outside)
    return state, decode(state.data, display(path, root))


def read_loose(path: Path) -> bytes:
    """The bytes of a file memcli only looks at, wherever it lies (a path a git hook passes,
    the session store, memcli.toml): no workspace rules apply. OSError propagates."""
    return path.read_bytes()


def read_config_text(path: Path, max_bytes: int = 1 << 20) -> str:
    """A configuration file (it may live outside the workspace); errors are ConfigErrors."""
    if path.is_dir():
        raise ConfigError(f"config file {path} is a folder", "name the memcli.toml file itself")
    try:
        st = os.stat(path)
        if st.st_size > max_bytes:
            raise ConfigError(f"{path} is {st.st_size} bytes, too large for a configuration file")
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: invalid UTF-8 at byte {exc.start}", "re-save it as UTF-8") from None


# --- writing ------------------------------------------------------------------------


def _may_write(path: Path, st: os.stat_result) -> bool:
    """Its mode has a write bit (root ignores permissions, so os.access alone would say yes
    to what the user made read-only) and access allows it."""
    return bool(stat.S_IMODE(st.st_mode) & 0o222) and os.access(path, os.W_OK)


def ensure_writable(path: Path, root: Path) -> None:
    """Refuse to write where the user made things read-only, even when running as root."""
    directory = path.parent
    if not _may_write(directory, os.stat(directory)):
        raise DataError(
            f"{display(directory, root) or '.'} is read-only; nothing was written",
            "make the workspace writable, or use --dry-run",
        )
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not _may_write(path, st):
        raise DataError(
            f"{display(path, root)} is read-only; nothing was written",
            "make it writable (chmod u+w) if memcli should change it",
        )


def writable_dir(folder: Path) -> bool:
    """A folder memcli may write in (see `_may_write`); False when it cannot be seen."""
    try:
        return _may_write(folder, os.stat(folder))
    except OSError:
        return False


def usable_state_dir(root: Path, create: bool = False) -> Path | None:
    """memcli's own folder (.memcli/) when memcli may keep a cache or an index in it: a real
    folder inside the workspace (not a link out of it) that is writable, in a writable
    workspace; with `create`, made when missing. None otherwise: run without it."""
    folder = root / STATE_DIR
    if not writable_dir(root):
        return None
    if not folder.exists() and not folder.is_symlink():
        if not create:
            return None
        try:
            folder.mkdir()
        except OSError:
            return None
        adopt_owner(folder, root)
    if folder.is_symlink() or not folder.is_dir() or not is_inside(folder, root) or not writable_dir(folder):
        return None
    return folder


def temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name[:48]}.{os.getpid()}.{secrets.token_hex(4)}{TEMP_SUFFIX}")


def temp_owner_pid(name: str) -> int | None:
    m = TEMP_NAME.match(name)
    return int(m.group(1)) if m else None


def possible_pid(pid: int) -> bool:
    """Whether a process can have this id (Linux's PID_MAX_LIMIT is 2**22)."""
    return 0 < pid < 1 << 22


def pid_alive(pid: int) -> bool:
    """Whether a process of that id runs. An id no process can have (0, negative, beyond
    the kernel's range, as a damaged lock record may say) is no process: `os.kill` would
    signal a whole group for 0 or -1, and raise OverflowError beyond a C int."""
    if not possible_pid(pid):
        return False
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


P = ParamSpec("P")
R = TypeVar("R")


@contextlib.contextmanager
def naming(path: Path) -> Iterator[None]:
    """An OSError raised while writing `path` names it: os.write's errors (a full disk, a
    file-size limit) carry no file name, and the one-line error must say which file."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


def names_its_file(function: Callable[Concatenate[Path, P], R]) -> Callable[Concatenate[Path, P], R]:
    """`naming` around a function whose first argument is the file it writes."""

    @functools.wraps(function)
    def wrapper(path: Path, /, *args: P.args, **kwargs: P.kwargs) -> R:
        with naming(path):
            return function(path, *args, **kwargs)

    return wrapper


@names_its_file
def replace_file(path: Path, data: bytes, mode: int) -> None:
    """The whole file replaced at once: a temp file in the same folder, fsynced, given
    `mode` and the owner of the file it replaces (or of the folder), renamed over `path`,
    the folder fsynced. For files nothing else appends to (a session store under its lock,
    a git hook); notes go through atomic_write."""
    temp = temp_name(path)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
    try:
        try:
            os.fchmod(fd, mode)
            adopt_owner(fd, path if path.is_file() else path.parent)
            _write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    CHANGES.wrote(path)
    fsync_dir(path.parent)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


# Called just before and just after the rename: the seams where tests kill a
# writer at the worst moments.
before_replace: Callable[[Path, Path], None] = lambda temp, target: None  # noqa: E731
after_replace: Callable[[Path], None] = lambda target: None  # noqa: E731


@names_its_file
def atomic_write(path: Path, data: bytes, root: Path, expected: FileState | None) -> int:
    """Replace `path` with `data` atomically; return how many appended bytes were carried.

    `expected` is what the caller read (None: the file must not exist yet). If
    the file changed other than by appends since then, nothing is written and
    ConflictError is raised. Writing the bytes a file already holds is a no-op.
    """
    target = resolve_inside(path, root)
    name = display(path, root)
    ensure_writable(target, root)
    if expected is not None and expected.links > 1:
        raise DataError(
            f"{name} has {expected.links} hard links{_other_names(target, root)}; "
            "rewriting it would split them",
            "keep one of them (remove the other names, or make one a symlink), then run again",
        )
    old_fd: int | None = None
    seen = 0
    carried = 0
    temp = temp_name(target)
    carry: _Carry | None = None
    try:
        if expected is not None:
            try:
                old_fd = os.open(target, os.O_RDONLY | NOFOLLOW)
            except FileNotFoundError:
                raise ConflictError(f"{name} was removed while memcli worked", "run again") from None
            if os.fstat(old_fd).st_ino != expected.inode:
                raise ConflictError(f"{name} was replaced while memcli worked", "run again")
            if data == expected.data and _read_all(old_fd) == expected.data:
                return 0
        elif target.exists() or target.is_symlink():
            raise ConflictError(f"{name} was created while memcli worked", "run again")
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW, 0o600)
        try:
            os.fchmod(fd, expected.mode if expected is not None else 0o666 & ~_umask())
            if expected is None:
                adopt_owner(fd, target.parent)
            elif (expected.uid, expected.gid) != (os.getuid(), os.getgid()):
                try:
                    os.fchown(fd, expected.uid, expected.gid)
                except OSError:
                    raise DataError(
                        f"{name} belongs to another user; rewriting it would change its owner",
                        "run memcli as the file's owner",
                    ) from None
            _write_all(fd, data)
            if old_fd is not None and expected is not None:
                current = _read_all(old_fd)
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
        if old_fd is not None and not _is_state(target, root):
            carry = _Carry.keep(target, root, seen)
        before_replace(temp, target)
        if expected is None:
            try:
                os.link(temp, target)
            except FileExistsError:
                raise ConflictError(f"{name} was created while memcli worked", "run again") from None
            CHANGES.wrote(target)
            os.unlink(temp)
        else:
            os.replace(temp, target)
            CHANGES.wrote(target)
            after_replace(target)
        fsync_dir(target.parent)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        if carry is not None and _same_file(target, carry.link):
            carry.discard()  # the rename did not happen: nothing to carry
        if old_fd is not None:
            os.close(old_fd)
        raise
    try:
        if old_fd is not None:
            late = _read_all(old_fd, seen)
            if late:
                try:
                    if carry is not None:
                        carry.note(target, seen, len(late))
                    append_bytes(target, late)
                    if carry is not None:
                        carry.advance(seen + len(late))
                except OSError as exc:
                    raise DataError(
                        f"{name}: {len(late)} bytes appended during the write could not be carried "
                        f"({exc.strerror}); they are kept in {CARRY_DIR}/",
                        "the next memcli run adds them back",
                    ) from None
                carried += len(late)
        if carry is not None:
            _PENDING.append(carry)  # kept until settle_carried proves nothing more arrives
    finally:
        if old_fd is not None:
            os.close(old_fd)
    return carried


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _is_state(path: Path, root: Path) -> bool:
    """A file of memcli's own (.memcli/...): nobody else appends to it, nothing to carry."""
    state = Path(os.path.realpath(root)) / STATE_DIR
    return state in path.parents


def _other_names(target: Path, root: Path, limit: int = 3) -> str:
    """' (also a, b)': the other names of a file inside the workspace, for an error message."""
    try:
        key = _key(os.stat(target))
    except OSError:
        return ""
    found: list[str] = []
    real_root = Path(os.path.realpath(root))
    for dirpath, dirnames, filenames in os.walk(real_root):
        dirnames[:] = [d for d in dirnames if d != ".git"]
        for name in filenames:
            path = Path(dirpath) / name
            with contextlib.suppress(OSError):
                if path != target and _key(os.lstat(path)) == key:
                    found.append(display(path, real_root))
        if len(found) >= limit:
            break
    return f" (also {', '.join(found[:limit])})" if found else ""


def _key(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


# How long settle_carried waits, at most, for a process that still holds a replaced file open
# (an agent between its open and its write) before it leaves the file to the next run.
CARRY_WAIT_SECONDS = 1.0
CARRY_POLL_SECONDS = 0.005
# Where /proc cannot tell who holds a file open (not Linux): one pause, then the next run.
CARRY_GRACE_SECONDS = 0.05


@dataclass(frozen=True, slots=True)
class _Carry:
    """A replaced file kept under .memcli/carry/ (a hard link, `<pid>.<token>.old`) with its
    record (`.json`): the file it was replaced in (`target`) and how many of its bytes are in
    the new file already (`offset`); `carrying` while more are being appended."""

    link: Path
    record: Path

    @classmethod
    def keep(cls, target: Path, root: Path, offset: int) -> _Carry | None:
        folder = root / CARRY_DIR
        try:
            make_dirs(folder, root)
            token = f"{os.getpid()}.{secrets.token_hex(4)}"
            link = folder / f"{token}.old"
            os.link(target, link)
        except (OSError, DataError):
            return None  # another file system, or no room: fall back to the plain rename
        carry = cls(link, folder / f"{token}.json")
        try:
            carry._save({"target": display(target, Path(os.path.realpath(root))), "offset": offset})
        except BaseException:
            carry.discard()  # nothing is replaced yet: no record, no link
            raise
        return carry

    def info(self) -> dict[str, object]:
        data = json.loads(self.record.read_text(encoding="utf-8"))
        if not isinstance(data, dict):
            raise ValueError("not a carry record")
        return data

    def _save(self, info: dict[str, object]) -> None:
        replace_file(self.record, json.dumps(info).encode("utf-8"), 0o600)

    def note(self, target: Path, offset: int, length: int) -> None:
        """Before late bytes are appended: where in the new file they go, so that a run
        killed during or after the append is not carried twice by the next one."""
        st = os.stat(target)
        info = self.info()
        info["offset"] = offset
        info["carrying"] = {"from": offset, "length": length, "at": st.st_size, "inode": st.st_ino}
        self._save(info)

    def advance(self, offset: int) -> None:
        """After the append: those bytes are in the new file."""
        info = self.info()
        info["offset"] = offset
        info.pop("carrying", None)
        self._save(info)

    def discard(self) -> None:
        for path in (self.record, self.link):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)

    def carry_late(self, root: Path) -> str | None:
        """Append to the new file what arrived in the replaced one since it was last read;
        return the file's name when something was carried. A target that is gone (moved to
        the archive meanwhile) gets its late bytes as a new file of that name: nothing is
        dropped. A target that is still the kept file itself was never replaced (a kill came
        before the rename): there is nothing to carry, and the record goes."""
        info = self.info()
        rel, offset = str(info["target"]), int(str(info["offset"]))
        if _same_file(root / rel, self.link):
            self.discard()
            return None
        try:
            with open(self.link, "rb") as f:
                late = _read_all(f.fileno(), offset)
        except FileNotFoundError:
            late = b""
        if not late:
            return None
        target = root / rel
        if not is_inside(target, root):
            raise DataError(f"{CARRY_DIR}/{self.record.name} names a file outside the workspace")
        if not target.is_file():
            make_dirs(target.parent, root)
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | NOFOLLOW, 0o666 & ~_umask()))
            adopt_owner(target, target.parent)
        skip = _already_carried(info.get("carrying"), late, target)
        start, late = offset + skip, late[skip:]
        if late:
            self.note(target, start, len(late))
            append_bytes(resolve_inside(target, root), late)
        self.advance(start + len(late))
        return rel if late else None


def _held_open(keys: set[tuple[int, int]]) -> set[tuple[int, int]] | None:
    """Which of these files (device, inode) a process holds open, read from /proc; None
    where /proc cannot tell (not Linux). Processes whose descriptors memcli may not see (other
    users') are taken not to write to the user's notes."""
    if not _can_see_holders():
        return None
    held: set[tuple[int, int]] = set()
    if not keys:
        return held
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        folder = f"/proc/{pid}/fd"
        try:
            fds = os.listdir(folder)
        except OSError:
            continue
        for fd in fds:
            with contextlib.suppress(OSError):
                key = _key(os.stat(f"{folder}/{fd}"))
                if key in keys:
                    held.add(key)
    return held


def _can_see_holders() -> bool:
    return os.path.isdir("/proc/self/fd")


# Files this process replaced, kept reachable until settle_carried (the workspace lock's release).
_PENDING: list[_Carry] = []


def settle_carried(root: Path) -> list[str]:
    """End of a writing run (the workspace lock's release): carry what arrived in the files
    this run replaced since it last read them — an agent that opened a note just before the
    rename may write to the old file a few milliseconds later — and let each go once no
    process holds it open any more (then nothing more can arrive). One still held after
    CARRY_WAIT_SECONDS stays under .memcli/carry/ for the next run. Return the files that
    received bytes."""
    pending = [c for c in _PENDING if c.record.exists()]
    _PENDING.clear()
    if pending and not _can_see_holders():
        time.sleep(CARRY_GRACE_SECONDS)
    return _settle(pending, root, CARRY_WAIT_SECONDS, keep_unknown=True)


def recover_carried(root: Path) -> list[str]:
    """Start of a writing run: carry what the replaced files kept in .memcli/carry/ received
    since (a run killed during its write, or an agent that wrote late), and let go of those
    no process holds open. Return the files that received bytes."""
    folder = root / CARRY_DIR
    if not folder.is_dir():
        return []
    remove_stale_temp_files(folder, tuple(os.listdir(folder)))  # of records a kill cut short
    for link in sorted(folder.glob("*.old")):
        if not link.with_suffix(".json").exists() and not _writer_runs(link):
            # killed before its record was written, so before the rename: the link is only
            # a second name of the file, which would block the next rewrite of it
            with contextlib.suppress(FileNotFoundError):
                os.unlink(link)
    carries = [
        _Carry(record.with_suffix(".old"), record)
        for record in sorted(folder.glob("*.json"))
        if not _writer_runs(record)
    ]
    return _settle(carries, root, 0.0, keep_unknown=False)


def _settle(carries: list[_Carry], root: Path, wait: float, keep_unknown: bool) -> list[str]:
    """Carry each file's late bytes and let it go once no process holds it open, polling up
    to `wait` seconds. Where /proc cannot tell, the files are kept (`keep_unknown`, the end
    of the run that replaced them) or let go (a later run: time has passed)."""
    done: list[str] = []
    deadline = time.monotonic() + wait
    while carries:
        keys = {c: _link_key(c) for c in carries}
        held = _held_open({k for k in keys.values() if k is not None})
        still: list[_Carry] = []
        for carry in carries:
            try:
                rel = carry.carry_late(root)
            except (ValueError, KeyError, TypeError):
                # a record cut short by a kill while it was first written, so before the
                # rename (a later record is replaced whole): nothing to carry
                carry.discard()
                continue
            if rel is not None and rel not in done:
                done.append(rel)
            if not carry.record.exists():
                continue  # let go already: the file was never replaced
            key = keys[carry]
            if key is None or (key not in held if held is not None else not keep_unknown):
                carry.discard()  # read after no one held it: nothing more can arrive
            else:
                still.append(carry)
        carries = still
        if held is None or time.monotonic() >= deadline:
            break  # the rest waits in .memcli/carry/ for the next run
        time.sleep(CARRY_POLL_SECONDS)
    return done


def _link_key(carry: _Carry) -> tuple[int, int] | None:
    try:
        return _key(os.stat(carry.link))
    except OSError:
        return None


def _writer_runs(path: Path) -> bool:
    """Whether the memcli process that left this carry file (its name starts with its pid) still runs."""
    head = path.name.split(".")[0]
    pid = int(head) if head.isdigit() else None
    return pid is not None and pid != os.getpid() and pid_alive(pid)


def _already_carried(carrying: object, late: bytes, target: Path) -> int:
    """How many of the late bytes (those after the record's offset) a killed run had appended
    already: those its record says it was appending, when the new file holds them where it
    put them (or after: the agent may have appended a line between the note and the append)."""
    if not isinstance(carrying, dict):
        return 0
    try:
        length, at, inode = (int(carrying[k]) for k in ("length", "at", "inode"))
    except (KeyError, TypeError, ValueError):
        return 0
    if os.stat(target).st_ino != inode:
        return 0
    return length if target.read_bytes().find(late[:length], at) >= 0 else 0


def adopt_owner(target: int | Path, like: Path) -> None:
    """What memcli creates gets the owner and group of `like` (the folder it is made in, or
    the file it replaces), so that memcli run as root (cron as root, a container) never
    leaves a file the agent cannot write. Only root can give a file away; any other user
    keeps its own, as every tool does."""
    if os.geteuid() != 0:
        return
    try:
        want = os.stat(like)
        have = os.fstat(target) if isinstance(target, int) else os.lstat(target)
        if (have.st_uid, have.st_gid) != (want.st_uid, want.st_gid):
            if isinstance(target, int):
                os.fchown(target, want.st_uid, want.st_gid)
            else:
                os.chown(target, want.st_uid, want.st_gid, follow_symlinks=False)
    except OSError:
        pass  # a file system that keeps no owners (or squashes root's): nothing to give


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@names_its_file
def append_bytes(path: Path, data: bytes) -> None:
    """Append all of `data` or none of it: a torn write is truncated away again."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | NOFOLLOW)
    try:
        before = os.fstat(fd).st_size
        written = 0
        try:
            view = memoryview(data)
            while view:
                n = os.write(fd, view)
                written += n
                view = view[n:]
            CHANGES.wrote(path)
            os.fsync(fd)
        except BaseException:
            if 0 < written < len(data) and os.fstat(fd).st_size == before + written:
                with contextlib.suppress(OSError):
                    os.ftruncate(fd, before)
            raise
    finally:
        os.close(fd)


def newline_of(data: bytes) -> bytes:
    """The line ending a file uses (its first one), LF when it has none."""
    first = data.find(b"\n")
    return b"\r\n" if first > 0 and data[first - 1 : first] == b"\r" else b"\n"


def append_text(path: Path, text: str, root: Path, max_bytes: int) -> None:
    """Add `text` (lines ending in LF) at the end of an existing file, in its line-ending style.

    If the file lacks a final newline, one is added first so the new lines start
    fresh; nothing already in the file is rewritten.
    """
    target = resolve_inside(path, root)
    ensure_writable(target, root)
    state = read_state(target, root, max_bytes)
    decode(state.data, display(path, root))
    append_bytes(target, append_payload(state.data, text))


def append_payload(existing: bytes, text: str) -> bytes:
    newline = newline_of(existing)
    payload = text.encode("utf-8")
    if newline == b"\r\n":
        payload = payload.replace(b"\n", b"\r\n")
    if existing and not existing.endswith(b"\n"):
        payload = newline + payload
    return payload


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
    adopt_owner(real, real.parent)
    fsync_dir(real.parent)


def create_folders(folder: Path) -> None:
    """`mkdir -p` for a folder that need not be inside a workspace (a new workspace, git's
    hooks folder): each level made gets the owner of the one above it. OSError propagates."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for level in reversed(missing):
        level.mkdir(exist_ok=True)
        adopt_owner(level, level.parent)


def open_as_it_is(path: Path) -> sqlite3.Connection:
    """An SQLite file of memcli's read as it is (`doctor`): `immutable`, so SQLite takes no
    lock and creates no -wal or -shm file beside it."""
    return sqlite3.connect(f"{path.resolve().as_uri()}?immutable=1", uri=True)


def adopt_owner_of_database(path: Path) -> None:
    """An SQLite file memcli keeps (and its -wal and -shm) owned like its folder."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(OSError):
            if os.path.lexists(f"{path}{suffix}"):
                adopt_owner(Path(f"{path}{suffix}"), path.parent)


def create_text(path: Path, text: str, root: Path) -> bool:
    """Create a new file holding `text`; False (and nothing written) if it already exists."""
    target = resolve_inside(path, root)
    ensure_writable(target, root)
    try:
        atomic_write(target, text.encode("utf-8"), root, None)
    except ConflictError:
        return False
    return True


def remove_dead_temp_files(path: Path) -> list[str]:
    """The temp files of `path` (beside it, named after it) whose writer no longer runs:
    a store is written under its lock, so only a killed writer leaves one."""
    prefix = f".{path.name[:48]}."
    try:
        names = [n for n in os.listdir(path.parent) if n.startswith(prefix) and n.endswith(TEMP_SUFFIX)]
    except OSError:
        return []
    return remove_stale_temp_files(path.parent, tuple(names))


def remove_stale_temp_files(root: Path, rels: tuple[str, ...]) -> list[str]:
    """Remove memcli's own temp files whose writer no longer runs; nothing else."""
    removed = []
    for rel in rels:
        path = root / rel
        pid = temp_owner_pid(path.name)
        if pid is None or pid == os.getpid() or pid_alive(pid):
            continue
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue
        if not stat.S_ISREG(st.st_mode) or not is_inside(path.parent, root):
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
            removed.append(rel)
    return removed
