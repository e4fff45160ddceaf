"""memcli's own small records in .memcli/ (watch.json): read as they are, replaced whole.

Best effort by design: a record that cannot be read is no record, and one that cannot be
written (a read-only workspace, a .memcli/ that leads out of the workspace) lives in memory
only; neither stops a command.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memcli.core.roles import STATE_DIR
from memcli.errors import MemcliError
from memcli.workspace.files import make_dirs, replace_file, resolve_inside

RECORD_MODE = 0o600  # memcli's private state: paths of transcripts, counts


def read_record(root: Path, name: str) -> Any:
    """The JSON value of .memcli/<name>; None when it is missing, unreadable or not JSON."""
    try:
        return json.loads(resolve_inside(root / STATE_DIR / name, root).read_bytes())
    except (OSError, ValueError, RecursionError, MemcliError):
        return None


def write_record(root: Path, name: str, value: Any) -> bool:
    """.memcli/<name> replaced by `value` as JSON (temp file, fsync, rename); False when it
    cannot be written, and then nothing was."""
    target = root / STATE_DIR / name
    try:
        make_dirs(target.parent, root)
        replace_file(resolve_inside(target, root), json.dumps(value, indent=1).encode("utf-8"), RECORD_MODE)
    except (OSError, MemcliError):
        return False
    return True
