"""Whether any note changed since the index was last brought up to date: one stat per file.

Kept free of memcli's heavy modules (the parser, the scoring rules): the search fast path
(memcli.quick) runs it before anything else is imported.

Why every file is stat'ed, not only every folder: a folder's mtime changes when a name in
it is added, removed or renamed, but not when a file in it is written in place, and
OpenClaw appends to the day's note in place (so do editors that save in place). A check of
the folders alone would keep answering from an index that misses those lines. A stat per
file is what is both correct and cheap: on the decade (3,651 notes) the whole walk costs
about 15 ms, against 50 ms for `rg` to read the same files, and reads no file.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

MEMORY_DIR = "memory"  # memcli.core.roles.MEMORY_DIR (kept here: this module imports nothing heavy)


def _visit(folder: str, rel: str, deep: bool, parts: list[str]) -> None:
    try:
        with os.scandir(folder) as found:
            items = sorted(found, key=lambda e: e.name)
    except OSError:
        return
    for item in items:
        name = item.name
        if name.startswith("."):
            continue
        if deep and item.is_dir(follow_symlinks=False):
            _visit(item.path, f"{rel}{name}/", deep, parts)
        elif name.lower().endswith(".md"):
            try:
                st = item.stat()
                mark = f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}:{stat.S_IFMT(st.st_mode)}"
            except OSError:
                mark = "missing"
            parts.append(f"{rel}{name}\0{mark}")


def tree_fingerprint(root: Path, max_bytes: int) -> str:
    """A hash of the path, size, mtime and inode of every Markdown file where layout.scan
    looks (the root, and memory/ with its subfolders; hidden names skipped). The fingerprint
    taken before a refresh is stored with it, so a change during the refresh is seen next
    time."""
    parts: list[str] = [str(max_bytes)]
    _visit(str(root), "", False, parts)
    parts.append("\1")
    memory = root / MEMORY_DIR
    try:
        mode: int | None = os.lstat(memory).st_mode
    except FileNotFoundError:
        mode = None
    except OSError:
        mode = -1
    if mode is None:
        pass  # no memory/ (layout.folder_problem: nothing to walk)
    elif mode != -1 and stat.S_ISDIR(mode):
        _visit(str(memory), f"{MEMORY_DIR}/", True, parts)
    else:  # a link, or something else: as layout.scan decides (a link out is never walked)
        from memcli.workspace.layout import folder_problem

        problem = folder_problem(root, MEMORY_DIR)
        if problem is None:
            _visit(str(memory), f"{MEMORY_DIR}/", True, parts)
        else:
            parts.append(problem.problem)
    text = "\0".join(parts)
    return hashlib.blake2b(text.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()
