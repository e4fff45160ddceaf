"""Appending to daily notes: the one way memcli adds to a note that is still open."""

from __future__ import annotations

from pathlib import Path

from memcli.workspace.files import append_text, create_text, make_dirs


def append_or_create(root: Path, rel: str, entry: str, new_file_text: str, max_bytes: int) -> bool:
    """Append `entry` to `rel`, or create it holding `new_file_text`. True when created."""
    path = root / rel
    make_dirs(path.parent, root)
    if not path.exists() and create_text(path, new_file_text, root):
        return True
    append_text(path, entry, root, max_bytes)
    return False
