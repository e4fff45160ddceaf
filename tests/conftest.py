"""Shared fixtures. Every test runs with a temporary HOME and no MEMCLI_* or OPENCLAW_*
settings, so no test can touch a real workspace or OpenClaw install (memcli looks in
~/.openclaw by default) or depend on the developer's environment."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from typer.testing import CliRunner, Result

from memcli.cli.app import app

# CI machines are slow and shared: no per-example deadline, same examples everywhere.
settings.register_profile(
    "memcli", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("memcli")

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"
SAMPLE = REPO / "sample-workspace"
NOW = "2026-10-31T09:00:00+08:00"
# an OpenAI-shaped key, in pieces so that no scanner takes this file for a leak
FAKE_OPENAI_KEY = "sk-proj-" + "Zq8vN3kRt1YbW6mP" + "x4LcH7sJd2FgA9eU" + "o5TiK0wQy3VnB8rM"
# git as tests run it: an identity of their own, nothing signed
GIT = [
    "git",
    "-c",
    "user.name=memcli tests",
    "-c",
    "user.email=tests@memcli.invalid",
    "-c",
    "commit.gpgsign=false",
]


@pytest.hookimpl(optionalhook=True)  # (a hook of pytest-xdist: none without it, `-p no:xdist`)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto` (pyproject.toml): a worker more than the cores. With a worker a core, the
    cores were busy three quarters of the suite's time (user and system time 17.4 min in
    11.6 min on 2 cores): the rest is spent waiting on what the tests run (memcli as a
    process, killed or timed; fsync; an agent's pauses between appends), which the extra
    worker fills. On 2 cores (2026-12-03), tests/reliability one after the other: 531 s with
    two workers, 378 s with three; the whole suite in the same hours, 9 min 49 s to 11 min
    41 s with three (four runs, one with the files in another order), 11 min 14 s and
    11 min 28 s with two."""
    return (os.cpu_count() or 1) + 1


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    for var in list(os.environ):
        if var.startswith(("MEMCLI_", "OPENCLAW_")):
            monkeypatch.delenv(var)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)  # the memo's key lives in ~/.cache
    yield home


def corpus_workspaces() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if p.is_dir())


def copy_tree(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, symlinks=True)
    for dirpath, dirnames, filenames in os.walk(dst):
        for name in dirnames + filenames:
            os.chmod(os.path.join(dirpath, name), 0o755 if name in dirnames else 0o644)
    os.chmod(dst, 0o755)
    return dst


def tree_bytes(root: Path) -> dict[str, bytes]:
    """Every file under root with its bytes (to prove that nothing changed)."""
    out = {}
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            if not path.is_symlink():
                out[path.relative_to(root).as_posix()] = path.read_bytes()
    return out


def tree_state(root: Path) -> dict[str, tuple[bytes, int, int]]:
    """Bytes, mtime and mode of every file: a stricter 'untouched' check."""
    out = {}
    for dirpath, _, filenames in os.walk(root):
        for name in filenames:
            path = Path(dirpath) / name
            if not path.is_symlink():
                st = path.stat()
                out[path.relative_to(root).as_posix()] = (path.read_bytes(), st.st_mtime_ns, st.st_mode)
    return out


@pytest.fixture
def sample(tmp_path: Path) -> Path:
    """A private copy of sample-workspace/ (without the .memcli/ state a manual run may leave)."""
    root = copy_tree(SAMPLE, tmp_path / "sample")
    shutil.rmtree(root / ".memcli", ignore_errors=True)
    return root


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A small bilingual workspace."""
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## Preferences\n\n- 我喜欢用 pnpm，不要用 npm\n- I prefer dark mode #pin\n",
        encoding="utf-8",
    )
    (root / "memory" / "2026-10-29.md").write_text(
        "# 2026-10-29\n\n- **09:10** — deployed atlas-api on port 8080\n- 好的\n", encoding="utf-8"
    )
    (root / "memory" / "2026-10-30.md").write_text(
        "# 2026-10-30\n\n- [ ] 评审定在 11 月 12 日\n", encoding="utf-8"
    )
    return root


Invoke = Callable[..., Result]


@pytest.fixture
def cli() -> Invoke:
    """Run memcli in-process: cli("status", "-w", path) -> Result (stdout and stderr apart)."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        return runner.invoke(app, list(args), input=input, env=env)

    return invoke


def as_json(result: Result) -> Any:
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr)
    return json.loads(result.stdout)


# What a command run as `python -m memcli` imports of the planner and its judgements (a
# short command such as `check` or `context` needs none of them: they take most of
# memcli's start-up).
PLANNER_MODULES = (
    "memcli.core.lifecycle",
    "memcli.core.judgement.replacements",
    "memcli.core.judgement.importance",
    "memcli.core.summarize",
)


def planner_modules_imported(args: Sequence[str], before: str = "") -> tuple[int, list[str]]:
    """The exit status of `memcli ARGS` and which of PLANNER_MODULES it imported; `before`:
    Python run first in that process (an import, to see the probe find one)."""
    probe = (
        "import os, sys; real = os._exit; sys.argv[0] = 'memcli'\n"
        f"heavy = {PLANNER_MODULES!r}\n"
        "def leave(code):\n"
        "    sys.stderr.write('\\n' + repr((code, [m for m in heavy if m in sys.modules])))\n"
        "    sys.stderr.flush(); real(code)\n"
        f"os._exit = leave\n{before}\n"
        "from memcli.__main__ import main; main()"
    )
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=False)
    code, found = ast.literal_eval(done.stderr.rsplit("\n", 1)[-1])
    return code, found
