"""Where the workspace is and which files it holds (SPEC §1); roles come from core.roles."""

from __future__ import annotations

import os
from collections.abc import Mapping
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
from memcli.errors import UsageError


@dataclass(frozen=True, slots=True)
class Layout:
    root: Path
    files: tuple[MemoryFile, ...]
    bad_names: tuple[BadName, ...]
    temp_files: tuple[str, ...]

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


def discover(explicit: str | None, environ: Mapping[str, str], cwd: Path, home: Path) -> Path:
    """`-w`, then MEMCLI_WORKSPACE, then the current folder, then OpenClaw's default."""
    for source, value in (("--workspace", explicit), ("MEMCLI_WORKSPACE", environ.get("MEMCLI_WORKSPACE"))):
        if value:
            path = Path(value).expanduser()
            if not path.is_dir():
                raise UsageError(
                    f"workspace {value} (from {source}) is not a folder",
                    "pass an existing workspace, or create one with `memcli init PATH`",
                )
            return path.resolve()
    if looks_like_workspace(cwd):
        return cwd.resolve()
    default = openclaw_default(environ, home)
    if default.is_dir():
        return default.resolve()
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


def scan(root: Path) -> Layout:
    """Every Markdown file at the root and under memory/, classified.

    Hidden files and folders are skipped (memcli's own state lives in one);
    memcli's leftover temp files are collected so a writing run can remove them.
    """
    files: list[MemoryFile] = []
    bad: list[BadName] = []
    temps: list[str] = []

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
        elif path.is_symlink() and not path.exists():
            bad.append(BadName(rel, f"a dangling symlink (to {os.readlink(path)}); remove or fix it"))
        elif path.is_file():
            verdict = classify(rel)
            if isinstance(verdict, BadName):
                bad.append(verdict)
            else:
                files.append(verdict)

    with os.scandir(root) as it:
        for item in it:
            consider(item.name, item.name, Path(item.path))
    memory = root / MEMORY_DIR
    if memory.is_dir():
        for dirpath, dirnames, filenames in os.walk(memory):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            base = Path(dirpath).relative_to(root).as_posix()
            for name in filenames:
                consider(f"{base}/{name}", name, Path(dirpath) / name)
    state = root / STATE_DIR
    if state.is_dir():
        temps.extend(f"{STATE_DIR}/{n}" for n in os.listdir(state) if n.endswith(TEMP_SUFFIX))
    files.sort(key=_file_order)
    bad.sort(key=lambda b: b.rel)
    return Layout(root, tuple(files), tuple(bad), tuple(sorted(temps)))
