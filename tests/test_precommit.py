"""`.pre-commit-hooks.yaml`: valid for pre-commit, selecting memory files, runnable as pre-commit runs it."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import FAKE_OPENAI_KEY, GIT, REPO, SAMPLE, copy_tree
from memcli.core.automation import MEMORY_FILES_REGEX, is_memory_path

MANIFEST = REPO / ".pre-commit-hooks.yaml"
VENV_BIN = Path(sys.executable).parent

# The fields pre-commit's manifest schema knows (pre_commit/clientlib.py, MANIFEST_HOOK_DICT).
KNOWN_FIELDS = {
    "id", "name", "entry", "language", "alias", "files", "exclude", "types", "types_or",
    "exclude_types", "additional_dependencies", "args", "always_run", "fail_fast",
    "pass_filenames", "description", "language_version", "log_file", "require_serial",
    "stages", "verbose", "minimum_pre_commit_version",
}  # fmt: skip

SHOULD_MATCH = [
    "MEMORY.md",
    "memory.md",
    "ws/MEMORY.md",
    "agents/小明/MEMORY.md",
    "memory/2026-10-30.md",
    "memory/2026-10-30-会议 notes.md",
    "ws/memory/summaries/2026-W44.md",
    "ws/memory/archive/2026/10/2026-10-01.md",
    "sessions.json",
    "state/sessions.json",
    "memcli.toml",
    "a b/memcli.toml",
]
SHOULD_NOT_MATCH = [
    "README.md",
    "MEMORY.md.bak",
    "OLD_MEMORY.md",
    "notes/memory.md.orig",
    "memory/2026-10-30.txt",
    "memory/",
    "memoryx/a.md",
    "my-memory/a.md",
    "sessions.json.lock",
    "sessions/abc.jsonl",
    "other_sessions.json",
    "memcli.toml.example",
    "pyproject.toml",
    "AGENTS.md",
]


def manifest() -> list[dict[str, Any]]:
    data = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def hook(hook_id: str) -> dict[str, Any]:
    (found,) = [h for h in manifest() if h["id"] == hook_id]
    return found


def test_the_manifest_has_what_pre_commit_requires() -> None:
    hooks = manifest()
    assert [h["id"] for h in hooks] == ["memcli-check", "memcli-gc"]
    for h in hooks:
        for field in ("id", "name", "entry", "language"):
            assert isinstance(h.get(field), str) and h[field], (h, field)
        assert set(h) <= KNOWN_FIELDS, set(h) - KNOWN_FIELDS
        assert h["language"] == "python"
        assert shlex.split(h["entry"])[0] == "memcli"
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert "memcli" in scripts  # what `language: python` puts on PATH


def test_memcli_check_gets_the_memory_files() -> None:
    check = hook("memcli-check")
    assert check["entry"] == "memcli check"  # not --staged: `pre-commit run --all-files` checks all
    assert check["pass_filenames"] is True
    assert check["files"] == MEMORY_FILES_REGEX
    assert "stages" not in check  # runs on every commit


def test_memcli_gc_runs_only_when_asked() -> None:
    gc = hook("memcli-gc")
    assert gc["entry"] == "memcli gc"
    assert gc["pass_filenames"] is False
    assert gc["stages"] == ["manual"]


@pytest.mark.parametrize("path", SHOULD_MATCH)
def test_the_files_regex_matches_memory_files(path: str) -> None:
    assert re.search(hook("memcli-check")["files"], path)
    assert is_memory_path(path)


@pytest.mark.parametrize("path", SHOULD_NOT_MATCH)
def test_the_files_regex_leaves_other_files(path: str) -> None:
    assert not re.search(hook("memcli-check")["files"], path)
    assert not is_memory_path(path)


@pytest.fixture(autouse=True)
def no_git_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run from inside a git hook (GIT_DIR, GIT_INDEX_FILE set) must not reach that repository."""
    for var in list(os.environ):
        if var.startswith("GIT_"):
            monkeypatch.delenv(var)


# --- run as pre-commit runs a hook ------------------------------------------------------


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    proc = subprocess.run([*GIT, *args], cwd=cwd, env=env, capture_output=True, check=True)
    return os.fsdecode(proc.stdout)


def staged(root: Path) -> list[str]:
    out = subprocess.run(
        ["git", "diff", "--staged", "--name-only", "--no-ext-diff", "-z"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def run_like_pre_commit(
    root: Path, hook_id: str, filenames: list[str], args: list[str] | None = None
) -> subprocess.CompletedProcess[str]:
    """shlex.split(entry) + args + the matching file names (repo-relative), cwd = repo root,
    the environment's bin folder first on PATH (what pre-commit does for language: python)."""
    h = hook(hook_id)
    matched = (
        [f for f in filenames if re.search(h.get("files", ""), f)] if h.get("pass_filenames", True) else []
    )
    argv = [*shlex.split(h["entry"]), *(args if args is not None else h.get("args", [])), *matched]
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture
def memory_repo(tmp_path: Path) -> Path:
    """A git repository holding a small workspace in a subfolder, with other files around it."""
    root = tmp_path / "repo 仓库"
    ws = root / "agent ws"
    (ws / "memory").mkdir(parents=True)
    git(root, "-c", "init.defaultBranch=main", "init", "-q")
    (ws / "MEMORY.md").write_text("# MEMORY.md\n\n## Preferences\n\n- I prefer dark mode\n", encoding="utf-8")
    (root / "README.md").write_text("hello\n", encoding="utf-8")
    (root / "setup.cfg").write_text("[x]\n", encoding="utf-8")
    git(root, "add", "-A")
    return root


def test_memcli_check_runs_as_pre_commit_runs_it(memory_repo: Path) -> None:
    proc = run_like_pre_commit(memory_repo, "memcli-check", staged(memory_repo))
    assert proc.returncode == 0, (proc.stdout, proc.stderr)

    with (memory_repo / "agent ws" / "MEMORY.md").open("a", encoding="utf-8") as f:
        f.write(f"- the OpenAI key is {FAKE_OPENAI_KEY}\n")
    git(memory_repo, "add", "-A")
    proc = run_like_pre_commit(memory_repo, "memcli-check", staged(memory_repo))
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "MEMORY.md" in proc.stdout + proc.stderr


def keep_only_the_index_like_pre_commit(root: Path) -> bytes:
    """What pre-commit does before it runs hooks (pre_commit/staged_files_only.py): the
    unstaged changes saved as a binary patch, then the working tree reset to the index."""
    tree = git(root, "write-tree").strip()
    diff = subprocess.run(
        ["git", "diff-index", "--ignore-submodules", "--binary", "--exit-code", "--no-color",
         "--no-ext-diff", tree, "--"],
        cwd=root, capture_output=True, check=False,
    )  # fmt: skip
    assert diff.returncode == 1 and diff.stdout.strip()
    git(root, "checkout", "--", ".")
    return diff.stdout


def test_under_pre_commit_the_files_given_to_check_hold_the_staged_content(memory_repo: Path) -> None:
    """The decision for .pre-commit-hooks.yaml: `memcli check FILES` there checks what is
    committed, because pre-commit leaves the working tree equal to the index."""
    ws = memory_repo / "agent ws"
    note = ws / "memory" / "2026-10-30 会议.md"
    note.write_text(f"- 新 key：{FAKE_OPENAI_KEY}\n", encoding="utf-8")
    with (ws / "MEMORY.md").open("a", encoding="utf-8") as f:
        f.write(f"- the OpenAI key is {FAKE_OPENAI_KEY}\n")
    git(memory_repo, "add", "-A")
    note.unlink()  # staged, then deleted from disk
    (ws / "MEMORY.md").write_text("# MEMORY.md\n\n- I prefer dark mode\n", encoding="utf-8")  # edited clean

    patch = keep_only_the_index_like_pre_commit(memory_repo)
    proc = run_like_pre_commit(memory_repo, "memcli-check", staged(memory_repo))
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "MEMORY.md:6: error: OpenAI API key" in proc.stdout
    assert "memory/2026-10-30 会议.md:1: error: OpenAI API key" in proc.stdout
    subprocess.run(["git", "apply", "--whitespace=nowarn", "-"], cwd=memory_repo, input=patch, check=True)
    assert not note.exists() and FAKE_OPENAI_KEY not in (ws / "MEMORY.md").read_text(encoding="utf-8")


def test_memcli_gc_runs_as_pre_commit_runs_it_in_a_manual_stage(tmp_path: Path) -> None:
    root = copy_tree(SAMPLE, tmp_path / "repo")
    git(root, "-c", "init.defaultBranch=main", "init", "-q")
    git(root, "add", "-A")
    proc = run_like_pre_commit(
        root, "memcli-gc", staged(root), ["--dry-run", "--now", "2026-10-31T09:00+08:00"]
    )
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert "dry run" in proc.stderr


@pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None, reason="pre-commit is not installed")
def test_pre_commit_try_repo(memory_repo: Path) -> None:  # pragma: no cover - only with pre-commit
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "memcli-check", "--all-files"],
        cwd=memory_repo,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
