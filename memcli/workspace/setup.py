"""Setting up a workspace: create what is missing, never overwrite what exists."""

from __future__ import annotations

from pathlib import Path

from memcli.core.roles import CORE_NAMES, MEMORY_DIR
from memcli.errors import UsageError
from memcli.workspace.files import create_folders, create_text, make_dirs


def initialise(target: Path, files: dict[str, str]) -> tuple[Path, list[str], list[str]]:
    """Create `target`, memory/ and each of `files` that does not exist: (root, created, kept)."""
    target = target.expanduser()
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target} exists and is not a folder")
    try:
        create_folders(target)
    except OSError as exc:
        raise UsageError(f"cannot create {target}: {exc.strerror}") from None
    root = target.resolve()
    created: list[str] = []
    kept: list[str] = []

    def present(name: str) -> bool:
        names = CORE_NAMES if name in CORE_NAMES else (name,)
        return any((root / n).exists() or (root / n).is_symlink() for n in names)

    missing = [name for name in files if not present(name)]
    if (root / MEMORY_DIR).is_dir():
        kept.append(MEMORY_DIR + "/")
    else:
        make_dirs(root / MEMORY_DIR, root)
        created.append(MEMORY_DIR + "/")
    for name, text in files.items():
        if name in missing and create_text(root / name, text, root):
            created.append(name)
        else:
            kept.append(name)
    return root, created, kept
