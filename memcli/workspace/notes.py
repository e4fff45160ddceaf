"""Appending to daily notes: the one way memcli adds to a note that is still open."""

from __future__ import annotations

from pathlib import Path

from memcli.workspace.files import append_text, create_text, ensure_writable, make_dirs, read_text


def check_appendable(root: Path, rel: str, max_bytes: int) -> None:
    """Refuse early (before any lock or folder is created) what an append would refuse later."""
    path = root / rel
    if path.exists() or path.is_symlink():
        read_text(path, root, max_bytes)
        ensure_writable(path, root)
        return
    existing = path.parent
    while not existing.exists():
        existing = existing.parent
    ensure_writable(existing / "_", root)


def append_or_create(root: Path, rel: str, entry: str, new_file_text: str, max_bytes: int) -> bool:
    """Append `entry` to `rel`, or create it holding `new_file_text`. True when created."""
    path = root / rel
    make_dirs(path.parent, root)
    if not path.exists() and create_text(path, new_file_text, root):
        return True
    append_text(path, entry, root, max_bytes)
    return False
