"""Reading commands and previews write nothing but memcli's cache, and take no lock (issue
15, point 11; issue 16, point 1; SPEC §14).

Every reading command and every preview flag runs on a workspace memcli has worked on
(a journal, a ledger, the lock file, the cache and the index in .memcli/): afterwards
every file holds the same bytes, mode and modification time, except the two caches SPEC
§14 allows (`.memcli/cache.sqlite`, `.memcli/index.sqlite`, with SQLite's -wal and -shm
files). On a read-only workspace, as root too, and on one without a .memcli/ (the sample as
shipped), nothing at all changes.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import NOW, SAMPLE, copy_tree, tree_state
from memcli.cli.app import app

from .kit import STATE

RUNNER = CliRunner()
PREVIEWS = [
    ["gc", "--dry-run"],
    ["gc", "--diff"],
    ["gc", "--dry-run", "--diff"],
    ["--json", "gc", "--diff"],
    ["purge", "--older-than", "0", "--dry-run"],
    ["flush", "--dry-run", "--force"],
    ["flush", "--prompt"],
    ["compact", "--dry-run", "--force"],
    ["summarize", "--output", "-"],
]
READERS = [
    ["status"],
    ["list"],
    ["dedupe"],
    ["score", "以后部署前先跑 lint"],
    ["search", "atlas"],
    ["context", "--budget", "400"],
    ["entities"],
    ["check"],
    ["show", "atlas"],
    ["doctor"],
    ["--json", "doctor"],
]
CACHES = (f"{STATE}cache.sqlite", f"{STATE}index.sqlite")


@pytest.fixture(scope="module")
def used(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample after a gc and a search: every kind of state memcli keeps is there."""
    root = copy_tree(SAMPLE, tmp_path_factory.mktemp("used") / "ws")
    shutil.rmtree(root / STATE, ignore_errors=True)
    for args in (["gc", "--force"], ["search", "atlas"]):
        result = RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])
        assert result.exit_code == 0, (result.stdout, result.stderr)
    assert (root / STATE / "lock").exists() and (root / STATE / "journal").is_dir()
    return root


def run(root: Path, args: list[str]) -> None:
    result = RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])
    assert result.exit_code in (0, 1), (args, result.exit_code, result.stdout, result.stderr)


@pytest.mark.parametrize("args", PREVIEWS + READERS, ids=" ".join)
def test_a_preview_or_a_read_changes_no_file_but_the_caches(
    used: Path, tmp_path: Path, args: list[str]
) -> None:
    root = copy_tree(used, tmp_path / "ws")
    before = tree_state(root)
    run(root, args)
    after = tree_state(root)
    changed = sorted(rel for rel in set(before) | set(after) if before.get(rel) != after.get(rel))
    assert [rel for rel in changed if not rel.startswith(CACHES)] == []


@pytest.fixture
def read_only(used: Path, tmp_path: Path) -> Path:
    root = copy_tree(used, tmp_path / "ro")
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o444)
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o555)
    os.chmod(root, 0o555)
    yield root
    for dirpath, dirnames, _ in os.walk(root):
        for name in dirnames:
            os.chmod(os.path.join(dirpath, name), 0o755)
    os.chmod(root, 0o755)


@pytest.mark.parametrize("args", PREVIEWS + READERS, ids=" ".join)
def test_a_preview_or_a_read_changes_nothing_in_a_read_only_workspace(
    read_only: Path, args: list[str]
) -> None:
    before = tree_state(read_only)
    run(read_only, args)
    assert tree_state(read_only) == before


INDEXERS = (["search", "atlas"], ["context", "--budget", "400"], ["entities"])


@pytest.mark.parametrize("args", PREVIEWS + READERS, ids=" ".join)
def test_a_preview_or_a_read_of_a_fresh_workspace_changes_nothing_at_all(
    tmp_path: Path, args: list[str]
) -> None:
    """No .memcli/ yet (the sample as shipped): reading makes none, so not a byte changes,
    but for the search index (SPEC §14's exception), which search, context and entities
    build in a .memcli/ of its own."""
    root = copy_tree(SAMPLE, tmp_path / "fresh")
    shutil.rmtree(root / STATE, ignore_errors=True)
    before = tree_state(root)
    run(root, args)
    after = tree_state(root)
    changed = sorted(rel for rel in set(before) | set(after) if before.get(rel) != after.get(rel))
    if args in INDEXERS:
        assert changed and all(rel.startswith(f"{STATE}index.sqlite") for rel in changed), changed
    else:
        assert changed == [] and not (root / STATE).exists()
