"""Where the workspace is and which files it holds (SPEC §1); roles come from core.roles."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from memcli.core.roles import (
    CORE_NAMES,
    MEMORY_DIR,
    STATE_DIR,
    TEMP_SUFFIX,
    BadName,
    MemoryFile,
    Role,
    classify,
)
from memcli.errors import DataError, UsageError

# The workspace's own files that are not notes (SPEC §1): reported like a note when they
# are not regular files.
WORKSPACE_FILES = ("sessions.json", "memcli.toml")


@dataclass(frozen=True, slots=True)
class Unusable:
    """An entry memcli must read but never opens: a FIFO, socket or device named like a
    note (opening a FIFO would hang), a folder named like one, memory/ (or a folder in it)
    linked out of the workspace, a folder that cannot be listed."""

    rel: str
    problem: str  # what it is, without its name: "is a FIFO (named pipe), not a file"
    hint: str

    def one_line(self) -> str:
        return f"{self.rel} {self.problem}"


@dataclass(frozen=True, slots=True)
class Layout:
    root: Path
    files: tuple[MemoryFile, ...]
    bad_names: tuple[BadName, ...]
    temp_files: tuple[str, ...]
    unusable: tuple[Unusable, ...] = ()

    def path(self, rel: str) -> Path:
        return self.root / rel

    @property
    def core(self) -> MemoryFile | None:
        return next((f for f in self.files if f.role is Role.CORE), None)

    def by_role(self, role: Role) -> list[MemoryFile]:
        return [f for f in self.files if f.role is role]


def openclaw_default(environ: Mapping[str, str], home: Path) -> Path:
    state = environ.get("OPENCLAW_STATE_DIR")
    base = Path(state).expanduser() if state else home / ".openclaw"
    return base / "workspace"


def looks_like_workspace(path: Path) -> bool:
    return any((path / name).is_file() for name in CORE_NAMES) or (path / MEMORY_DIR).is_dir()


# besides MEMORY.md and memory/, what makes a named folder a workspace: memcli's config, a
# session store, or the files OpenClaw itself puts in a new workspace before any memory
WORKSPACE_SIGNS = ("memcli.toml", "sessions.json", "SOUL.md", "IDENTITY.md", "HEARTBEAT.md")


def is_workspace(path: Path) -> bool:
    return looks_like_workspace(path) or any((path / name).is_file() for name in WORKSPACE_SIGNS)


def discover(
    explicit: str | None, environ: Mapping[str, str], cwd: Path, home: Path, check: bool = True
) -> Path:
    """`-w`, then MEMCLI_WORKSPACE, then the current folder, then OpenClaw's default. A folder
    named by -w or MEMCLI_WORKSPACE must be a workspace (`check`): memcli does not start one
    (.memcli/, memory/) in a folder given by mistake; `memcli init` does."""
    return locate(explicit, environ, cwd, home, check)[0]


def locate(
    explicit: str | None, environ: Mapping[str, str], cwd: Path, home: Path, check: bool = True
) -> tuple[Path, str]:
    """`discover`, with how the workspace was found: "-w", "MEMCLI_WORKSPACE", "the current
    folder" or "OpenClaw's default workspace"."""
    for source, value in (("-w", explicit), ("MEMCLI_WORKSPACE", environ.get("MEMCLI_WORKSPACE"))):
        if value:
            path = Path(value).expanduser()
            if not path.is_dir():
                raise UsageError(
                    f"workspace {value} (from {source}) is not a folder",
                    "pass an existing workspace, or create one with `memcli init PATH`",
                )
            if check and not is_workspace(path):
                raise DataError(
                    f"{value} (from {source}) is not a workspace: it holds no MEMORY.md and no memory/",
                    f"check the path, or make it one with `memcli init {value}`",
                )
            return path.resolve(), source
    if looks_like_workspace(cwd):
        return cwd.resolve(), "the current folder"
    default = openclaw_default(environ, home)
    if default.is_dir():
        return default.resolve(), "OpenClaw's default workspace"
    raise UsageError(
        f"no workspace found: {cwd} holds no MEMORY.md or memory/, and {default} does not exist",
        "pass -w PATH, set MEMCLI_WORKSPACE, or create one with `memcli init`",
    )


def _file_order(f: MemoryFile) -> tuple[int, str]:
    return (0 if f.role is Role.CORE else 1, f.rel)


def _printable(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words ("a FIFO (named pipe)", "a folder", …)."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return "not a regular file"


def not_a_file(rel: str, st: os.stat_result, linked: bool) -> Unusable:
    """A name memcli reads as a file that leads to something else (never opened)."""
    what = file_kind(st.st_mode)
    via = "a symlink to " if linked else ""
    if stat.S_ISDIR(st.st_mode):
        return Unusable(
            rel,
            f"is {via}a folder named like a note, not a note",
            "rename the folder (a note is a file: memory/YYYY-MM-DD.md), or move it out of the workspace",
        )
    return Unusable(
        rel,
        f"is {via}{what}, not a regular file; memcli never opens it",
        "remove it, or move it out of the workspace",
    )


def _inside(real: str, real_root: str) -> bool:
    return real == real_root or real.startswith(real_root.rstrip(os.sep) + os.sep)


def folder_problem(root: Path, rel: str) -> Unusable | None:
    """Why memcli cannot walk the folder `rel` (memory/ or one in it): a symlink out of the
    workspace or a dangling one, or no folder at all. None when it may be walked (or is
    absent)."""
    path = root / rel
    try:
        linked = stat.S_ISLNK(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return Unusable(rel, f"cannot be read: {exc.strerror}", "make it a folder memcli can read")
    if linked:
        real = os.path.realpath(path)
        if not os.path.exists(real):
            return Unusable(rel, f"is a dangling symlink (to {os.readlink(path)})", "remove or fix the link")
        if not _inside(real, os.path.realpath(root)):
            return Unusable(
                rel,
                f"is a symlink to {real}, outside the workspace; memcli does not follow it",
                "replace the link with the folder itself (or a link to a folder inside the workspace)",
            )
    try:
        st = os.stat(path)
    except OSError as exc:
        return Unusable(rel, f"cannot be read: {exc.strerror}", "make it a folder memcli can read")
    if not stat.S_ISDIR(st.st_mode):
        via = "a symlink to " if linked else ""
        return Unusable(
            rel,
            f"is {via}{file_kind(st.st_mode)}, not the folder of notes",
            f"move it away and make {rel}/ a folder",
        )
    return None


def scan(root: Path, lenient: bool = False) -> Layout:
    """Every Markdown file at the root and under memory/, classified.

    Hidden files and folders are skipped (memcli's own state lives in one);
    memcli's leftover temp files are collected so a writing run can remove them.
    What memcli would read but cannot (see `Unusable`) is never opened nor walked: it
    is a DataError naming it (exit 3), or with `lenient` (check, which reports each, and
    the commands that only want the temp files) listed in `unusable`.
    """
    files: list[MemoryFile] = []
    bad: list[BadName] = []
    temps: list[str] = []
    unusable: list[Unusable] = []

    def consider(rel: str, name: str, path: Path) -> None:
        if name.endswith(TEMP_SUFFIX):
            temps.append(rel)
            return
        if name.startswith(".") or not name.lower().endswith(".md"):
            return
        if not _printable(rel):
            bad.append(
                BadName(
                    rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace"),
                    "the file name is not valid UTF-8; rename it",
                )
            )
            return
        try:
            st = os.stat(path)  # follows a link; never opens (a FIFO would block)
        except FileNotFoundError:
            if path.is_symlink():
                bad.append(BadName(rel, f"a dangling symlink (to {os.readlink(path)}); remove or fix it"))
            return  # removed while we looked
        except OSError as exc:  # a symlink loop, a folder we may not search
            unusable.append(Unusable(rel, f"cannot be read: {exc.strerror}", "fix or remove it"))
            return
        if not stat.S_ISREG(st.st_mode):
            unusable.append(not_a_file(rel, st, path.is_symlink()))
            return
        verdict = classify(rel)
        if isinstance(verdict, BadName):
            bad.append(verdict)
        else:
            files.append(verdict)

    with os.scandir(root) as it:
        for item in it:
            if item.name in WORKSPACE_FILES:
                _workspace_file(root, item.name, unusable)
            elif item.name != MEMORY_DIR:
                consider(item.name, item.name, Path(item.path))
    problem = folder_problem(root, MEMORY_DIR)
    if problem is not None:
        unusable.append(problem)
    elif (root / MEMORY_DIR).is_dir():
        _walk_memory(root, consider, unusable)
    state = root / STATE_DIR
    if state.is_dir():
        temps.extend(f"{STATE_DIR}/{n}" for n in os.listdir(state) if n.endswith(TEMP_SUFFIX))
    files.sort(key=_file_order)
    bad.sort(key=lambda b: b.rel)
    unusable.sort(key=lambda u: u.rel)
    if unusable and not lenient:
        raise unusable_error(unusable)
    return Layout(root, tuple(files), tuple(bad), tuple(sorted(temps)), tuple(unusable))


def _workspace_file(root: Path, name: str, unusable: list[Unusable]) -> None:
    """sessions.json or memcli.toml: reported when there but not a regular file."""
    path = root / name
    try:
        st = os.stat(path)
    except OSError:
        return  # absent, or a dangling link: the commands that read it say so
    if not stat.S_ISREG(st.st_mode):
        unusable.append(not_a_file(name, st, path.is_symlink()))


def _walk_memory(root: Path, consider: Callable[[str, str, Path], None], unusable: list[Unusable]) -> None:
    """memory/ and its subfolders; a folder linked out of the workspace is reported and not
    walked (os.walk never follows a link below its top), a folder named like a note is
    reported (and walked: what it holds is still checked), one that cannot be listed is
    reported."""
    memory = root / MEMORY_DIR

    def failed(exc: OSError) -> None:
        where = Path(exc.filename).relative_to(root).as_posix() if exc.filename else MEMORY_DIR
        unusable.append(
            Unusable(where, f"cannot be read: {exc.strerror}", "make it readable, or move it away")
        )

    for dirpath, dirnames, filenames in os.walk(memory, onerror=failed):
        base = Path(dirpath).relative_to(root).as_posix()
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in dirnames:
            rel = f"{base}/{name}"
            path = Path(dirpath) / name
            if path.is_symlink():
                problem = folder_problem(root, rel)
                if problem is not None:
                    unusable.append(problem)
                    continue
            if name.lower().endswith(".md"):
                try:
                    unusable.append(not_a_file(rel, os.stat(path), path.is_symlink()))
                except OSError:
                    continue  # removed while we looked
        for name in filenames:
            consider(f"{base}/{name}", name, Path(dirpath) / name)


def unusable_error(unusable: list[Unusable] | tuple[Unusable, ...]) -> DataError:
    first = unusable[0]
    more = len(unusable) - 1
    also = (
        f" (and {more} more such entr{'y' if more == 1 else 'ies'}; `memcli check` lists them)"
        if more
        else ""
    )
    return DataError(first.one_line() + also, first.hint)
