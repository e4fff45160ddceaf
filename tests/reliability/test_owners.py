"""memcli run as root on a user's workspace (cron as root, a container) leaves every file
and folder it creates or replaces owned as the folder (or the file it replaces) was
(issue 15, point 6): the agent, running as the user, can go on writing all of it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from conftest import GIT, NOW
from memcli.cli.app import app

from .kit import MAIN, STORE, TODAY_NOTE, sessions_workspace

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="only root can run as another user's owner")
USER, GROUP = 4242, 4343  # the workspace's owner: an id no process of this machine runs as
RUNNER = CliRunner()


def memcli(root: Path, *args: str) -> Result:
    return RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])


def ok(result: Result) -> Result:
    assert result.exit_code in (0, 1), (result.exit_code, result.stdout, result.stderr, result.exception)
    return result


def give(root: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            os.chown(os.path.join(dirpath, name), USER, GROUP, follow_symlinks=False)
    os.chown(root, USER, GROUP)


def not_the_users(root: Path) -> list[str]:
    """Every path under root (memcli's own folder too) not owned by the user and group."""
    wrong = []
    for dirpath, dirnames, filenames in os.walk(root):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath) / name
            st = os.lstat(path)
            if (st.st_uid, st.st_gid) != (USER, GROUP):
                wrong.append(f"{path.relative_to(root)} {st.st_uid}:{st.st_gid}")
    return sorted(wrong)


def test_everything_memcli_writes_as_root_stays_the_users(tmp_path: Path) -> None:
    root = sessions_workspace(tmp_path / "ws", today=False)
    subprocess.run([*GIT, "init", "-q", str(root)], check=True)
    give(root)
    assert not (root / TODAY_NOTE).exists()
    ok(memcli(root, "list"))  # .memcli/ and its cache
    ok(memcli(root, "search", "atlas"))  # the index
    ok(memcli(root, "flush"))  # today's note created, sessions.json replaced (mode 0600)
    assert (root / TODAY_NOTE).exists()
    ok(memcli(root, "compact", "--session", MAIN, "--force", "--keep-recent-tokens", "100"))
    ok(memcli(root, "gc", "--force"))  # archive folders, summaries, MEMORY.md, trash, journal
    assert (root / "memory" / "archive").is_dir() and (root / "memory" / "summaries").is_dir()
    ok(memcli(root, "add", "以后部署前先跑 lint"))
    ok(memcli(root, "check", "--fix"))
    ok(memcli(root, "undo"))
    # git itself refuses a repository of another owner unless told it is safe
    safe = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory", "GIT_CONFIG_VALUE_0": "*"}
    result = RUNNER.invoke(app, ["-w", str(root), "--now", NOW, "hook", "install"], env=safe)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert not_the_users(root) == []
    assert os.stat(root / STORE).st_mode & 0o777 == 0o600


def test_a_new_workspace_made_as_root_is_the_owners_of_the_folder_above(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    os.chown(home, USER, GROUP)
    target = home / "agents" / "workspace"
    result = RUNNER.invoke(app, ["--now", NOW, "init", str(target)])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert not_the_users(home) == []
    shutil.rmtree(home)
