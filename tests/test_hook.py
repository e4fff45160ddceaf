"""`memcli hook`: the git pre-commit hook, installed, replaced, removed and run by real commits."""

from __future__ import annotations

import json
import os
import re
import shlex
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FAKE_OPENAI_KEY, GIT, NOW, Invoke
from memcli.core.automation import GIT_PATHSPECS, HOOK_MARKER, is_memory_path


@pytest.fixture(autouse=True)
def no_git_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests run from inside a git hook (GIT_DIR, GIT_INDEX_FILE set) must not reach that repository."""
    for var in list(os.environ):
        if var.startswith("GIT_"):
            monkeypatch.delenv(var)


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
    proc = subprocess.run([*GIT, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if check:
        assert proc.returncode == 0, (args, proc.stdout, proc.stderr)
    return proc


def make_repo(root: Path) -> Path:
    root.mkdir(parents=True)
    git(root, "-c", "init.defaultBranch=main", "init", "-q")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository (with a space and Chinese in its name) whose workspace is a subfolder."""
    root = make_repo(tmp_path / "repo 仓库")
    ws = root / "agent ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# MEMORY.md\n\n- I prefer dark mode\n", encoding="utf-8")
    (root / "README.md").write_text("hello\n", encoding="utf-8")
    git(root, "add", "README.md")
    git(root, "commit", "-q", "-m", "first")
    return root


def hook_of(root: Path) -> Path:
    return root / ".git" / "hooks" / "pre-commit"


def head(root: Path) -> str:
    return git(root, "rev-parse", "HEAD").stdout.strip()


def install(cli: Invoke, ws: Path, *extra: str) -> dict[str, object]:
    result = cli("--json", "-w", str(ws), "hook", "install", *extra)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    data: dict[str, object] = json.loads(result.stdout)
    return data


def test_install_writes_an_executable_sh_script_marked_as_memcli(cli: Invoke, repo: Path) -> None:
    data = install(cli, repo / "agent ws")
    hook = hook_of(repo)
    assert data["action"] == "installed"
    assert data["hook"] == str(hook)
    assert data["python"] == os.path.abspath(sys.executable)
    assert data["backup"] is None
    assert stat.S_IMODE(hook.stat().st_mode) == 0o755
    text = hook.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\n")
    assert text.splitlines()[1].startswith(HOOK_MARKER)
    assert f"memcli_python={shlex.quote(os.path.abspath(sys.executable))}\n" in text
    assert "--diff-filter=ACMRT" in text and '"$memcli_python" -P -m memcli check --staged\n' in text
    assert "xargs" not in text  # no file name goes through the shell
    assert subprocess.run(["sh", "-n", str(hook)], check=False).returncode == 0
    leftovers = [p.name for p in hook.parent.iterdir() if p.name.endswith(".memcli-tmp")]
    assert leftovers == []


def test_human_output_names_the_hook(cli: Invoke, repo: Path) -> None:
    result = cli("-w", str(repo / "agent ws"), "hook", "install")
    assert result.exit_code == 0, result.stderr
    assert f"installed the memcli pre-commit hook: {hook_of(repo)}" in result.stdout
    assert "--no-verify" in result.stderr


def test_a_workspace_outside_git_is_a_usage_error_that_says_how_to_fix(cli: Invoke, ws: Path) -> None:
    result = cli("-w", str(ws), "hook", "install")
    assert result.exit_code == 2
    assert "not inside a git repository" in result.stderr
    assert "git init" in result.stderr
    assert result.stderr.count("\n") == 1


def test_a_foreign_hook_is_never_overwritten_without_force(cli: Invoke, repo: Path) -> None:
    hook = hook_of(repo)
    hook.write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    hook.chmod(0o700)
    result = cli("-w", str(repo / "agent ws"), "hook", "install")
    assert result.exit_code == 4
    assert "not memcli's" in result.stderr and "--force" in result.stderr
    assert hook.read_text(encoding="utf-8") == "#!/bin/sh\necho mine\n"
    assert not (hook.parent / "pre-commit.memcli-backup").exists()


def test_force_keeps_the_foreign_hook_under_a_free_backup_name(cli: Invoke, repo: Path) -> None:
    hook = hook_of(repo)
    hooks = hook.parent
    (hooks / "pre-commit.memcli-backup").write_text("an older backup\n", encoding="utf-8")
    hook.write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    hook.chmod(0o700)
    result = cli("-w", str(repo / "agent ws"), "hook", "install", "--force")
    assert result.exit_code == 0, result.stderr
    backup = hooks / "pre-commit.memcli-backup.1"
    assert f"kept as {backup}" in result.stdout
    assert backup.read_text(encoding="utf-8") == "#!/bin/sh\necho mine\n"
    assert stat.S_IMODE(backup.stat().st_mode) == 0o700
    assert (hooks / "pre-commit.memcli-backup").read_text(encoding="utf-8") == "an older backup\n"
    assert "# memcli-backup: pre-commit.memcli-backup.1" in hook.read_text(encoding="utf-8")

    # reinstalling keeps the record of the backup; uninstalling puts the foreign hook back
    assert install(cli, repo / "agent ws")["action"] == "unchanged"
    result = cli("-w", str(repo / "agent ws"), "hook", "uninstall")
    assert result.exit_code == 0, result.stderr
    assert "put back the previous hook" in result.stdout
    assert hook.read_text(encoding="utf-8") == "#!/bin/sh\necho mine\n"
    assert stat.S_IMODE(hook.stat().st_mode) == 0o700
    assert not backup.exists()
    assert (hooks / "pre-commit.memcli-backup").read_text(encoding="utf-8") == "an older backup\n"


def test_without_hard_links_the_backup_is_an_exclusive_copy(
    cli: Invoke, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_links(*args: object, **kwargs: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    hook = hook_of(repo)
    hook.write_text("#!/bin/sh\necho mine\n", encoding="utf-8")
    hook.chmod(0o750)
    with monkeypatch.context() as patch:
        patch.setattr(os, "link", no_links)
        data = install(cli, repo / "agent ws", "--force")
    backup = Path(str(data["backup"]))
    assert backup.name == "pre-commit.memcli-backup"
    assert backup.read_text(encoding="utf-8") == "#!/bin/sh\necho mine\n"
    assert stat.S_IMODE(backup.stat().st_mode) == 0o750


def test_force_over_a_symlinked_hook_keeps_the_link(cli: Invoke, repo: Path) -> None:
    shared = repo / "shared-hook.sh"
    shared.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    hook = hook_of(repo)
    hook.symlink_to(shared)
    assert cli("-w", str(repo / "agent ws"), "hook", "install").exit_code == 4
    data = install(cli, repo / "agent ws", "--force")
    assert data["action"] == "replaced"
    assert not hook.is_symlink()
    assert shared.read_text(encoding="utf-8") == "#!/bin/sh\nexit 0\n"
    assert cli("-w", str(repo / "agent ws"), "hook", "uninstall").exit_code == 0
    assert hook.is_symlink() and hook.resolve() == shared.resolve()


def test_reinstalling_updates_memcli_s_own_hook(cli: Invoke, repo: Path) -> None:
    ws = repo / "agent ws"
    install(cli, ws)
    hook = hook_of(repo)
    fresh = hook.read_text(encoding="utf-8")
    hook.write_text(fresh.replace("exit 0\n", "exit 0 # an older version\n"), encoding="utf-8")
    hook.chmod(0o644)
    inode = hook.stat().st_ino
    assert install(cli, ws)["action"] == "updated"
    assert hook.read_text(encoding="utf-8") == fresh
    assert stat.S_IMODE(hook.stat().st_mode) == 0o755
    assert hook.stat().st_ino != inode  # a new file renamed over the old one
    assert install(cli, ws)["action"] == "unchanged"
    assert not (hook.parent / "pre-commit.memcli-backup").exists()


def test_uninstall_removes_only_memcli_s_hook(cli: Invoke, repo: Path) -> None:
    ws = repo / "agent ws"
    result = cli("--json", "-w", str(ws), "hook", "uninstall")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["removed"] is False
    install(cli, ws)
    result = cli("--json", "-w", str(ws), "hook", "uninstall")
    assert json.loads(result.stdout) == {"removed": True, "hook": str(hook_of(repo)), "restored": None}
    assert not hook_of(repo).exists()
    hook_of(repo).write_text("#!/bin/sh\n", encoding="utf-8")
    result = cli("-w", str(ws), "hook", "uninstall")
    assert result.exit_code == 4
    assert hook_of(repo).read_text(encoding="utf-8") == "#!/bin/sh\n"


def test_status_reports_the_hook(cli: Invoke, repo: Path) -> None:
    ws = repo / "agent ws"
    assert json.loads(cli("--json", "-w", str(ws), "hook", "status").stdout)["installed"] == "none"
    install(cli, ws)
    data = json.loads(cli("--json", "-w", str(ws), "hook", "status").stdout)
    assert data["installed"] == "memcli"
    assert data["current"] is True and data["python_found"] is True
    assert data["python"] == os.path.abspath(sys.executable)


def test_core_hooks_path_is_honoured(cli: Invoke, repo: Path) -> None:
    git(repo, "config", "core.hooksPath", "my hooks")
    data = install(cli, repo / "agent ws")
    assert data["hook"] == str(repo / "my hooks" / "pre-commit")
    assert (repo / "my hooks" / "pre-commit").is_file()
    assert not hook_of(repo).exists()


def test_a_linked_worktree_uses_the_shared_hooks(cli: Invoke, repo: Path, tmp_path: Path) -> None:
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"))
    ws = tmp_path / "wt" / "agent ws"
    ws.mkdir()
    (ws / "MEMORY.md").write_text("# MEMORY.md\n")  # -w must name a workspace
    data = install(cli, ws)
    assert data["hook"] == str(hook_of(repo))
    assert data["repository"] == str(tmp_path / "wt")


# --- the hook at work: a stand-in for python records what memcli would be given ----------


def fake_python(tmp_path: Path, status: int) -> tuple[Path, Path]:
    record = tmp_path / "argv.bin"
    fake = tmp_path / "bin" / "fake python"
    fake.parent.mkdir(exist_ok=True)
    fake.write_text(
        f'#!/bin/sh\nfor a in "$@"; do printf "%s\\0" "$a"; done >> "{record}"\n'
        f'echo "fake check was here" >&2\nexit {status}\n',
        encoding="utf-8",
    )
    fake.chmod(0o755)
    return fake, record


def install_with(cli: Invoke, ws: Path, python: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        patch.setattr(sys, "executable", str(python))
        result = cli("-w", str(ws), "hook", "install")
    assert result.exit_code == 0, result.stderr


MEMORY_FILES = [
    "agent ws/MEMORY.md",
    "agent ws/memory/2026-10-30 会议.md",
    "agent ws/memory/projects/atlas.md",
    "agent ws/sessions.json",
    "agent ws/memcli.toml",
]
OTHER_FILES = ["README.md", "agent ws/notes.md", "agent ws/memory/raw.txt", "agent ws/memoryx/a.md"]


def write_files(root: Path, rels: list[str], text: str = "- a note\n") -> None:
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text + rel + "\n", encoding="utf-8")


def test_the_hook_runs_check_staged_when_memory_files_are_staged(
    cli: Invoke, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, record = fake_python(tmp_path, 0)
    install_with(cli, repo / "agent ws", fake, monkeypatch)
    write_files(repo, MEMORY_FILES + OTHER_FILES)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory")
    assert record.read_bytes().split(b"\0")[:-1] == [b"-P", b"-m", b"memcli", b"check", b"--staged"]


def test_check_staged_takes_exactly_the_staged_memory_files(
    cli: Invoke, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(repo, MEMORY_FILES + OTHER_FILES)
    write_files(repo, ["agent ws/memory/not staged.md"])
    git(repo, "add", "--", *MEMORY_FILES, *OTHER_FILES)
    monkeypatch.chdir(repo / "agent ws" / "memory")  # any folder of the repository
    result = cli("--json", "--now", NOW, "check", "--staged")
    data = json.loads(result.stdout)
    assert data["staged"] is True
    assert sorted(data["files"]) == sorted(MEMORY_FILES)  # relative to the repository's top


def test_check_failing_stops_the_commit(
    cli: Invoke, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, _ = fake_python(tmp_path, 1)
    install_with(cli, repo / "agent ws", fake, monkeypatch)
    before = head(repo)
    write_files(repo, ["agent ws/MEMORY.md"])
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-q", "-m", "memory", check=False)
    assert proc.returncode != 0
    assert "fake check was here" in proc.stderr
    assert "the commit was stopped" in proc.stderr and "--no-verify" in proc.stderr
    assert head(repo) == before


def test_a_commit_without_memory_files_does_not_start_memcli(
    cli: Invoke, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, record = fake_python(tmp_path, 1)
    install_with(cli, repo / "agent ws", fake, monkeypatch)
    write_files(repo, OTHER_FILES)
    git(repo, "add", "--", *OTHER_FILES)
    git(repo, "commit", "-q", "-m", "other files")
    assert not record.exists()


def test_a_deleted_memory_file_is_not_checked(
    cli: Invoke, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, record = fake_python(tmp_path, 1)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "memory")
    install_with(cli, repo / "agent ws", fake, monkeypatch)
    git(repo, "rm", "-q", "agent ws/MEMORY.md")
    git(repo, "commit", "-q", "-m", "drop it")
    assert not record.exists()


def test_a_hook_whose_python_is_gone_says_so(
    cli: Invoke, repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake, _ = fake_python(tmp_path, 0)
    install_with(cli, repo / "agent ws", fake, monkeypatch)
    fake.unlink()
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-q", "-m", "memory", check=False)
    assert proc.returncode != 0
    assert "is gone" in proc.stderr and "memcli hook install" in proc.stderr


def test_the_hook_filter_and_the_pre_commit_regex_select_the_same_files(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    paths = [*MEMORY_FILES, *OTHER_FILES, "MEMORY.md", "a/b/memory.md", "memory/x.md", "docs/MEMORY.md.bak"]
    write_files(root, paths)
    git(root, "add", "-A")
    proc = subprocess.run(
        ["git", "diff", "--cached", "--name-only", "--diff-filter=ACMR", "-z", "--", *GIT_PATHSPECS],
        cwd=root,
        capture_output=True,
        check=True,
    )
    selected = sorted(p.decode("utf-8") for p in proc.stdout.split(b"\0") if p)
    assert selected == sorted(p for p in paths if is_memory_path(p))
    assert "docs/MEMORY.md.bak" not in selected and "agent ws/memoryx/a.md" not in selected


def test_python_dash_m_memcli_runs_the_installed_memcli_whatever_the_folder(tmp_path: Path) -> None:
    decoy = tmp_path / "memcli"
    decoy.mkdir()
    (decoy / "__init__.py").write_text("raise SystemExit('decoy imported')\n", encoding="utf-8")
    (decoy / "__main__.py").write_text("raise SystemExit('decoy imported')\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-P", "-m", "memcli", "--version"], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("memcli ")


# --- with the real `memcli check` -------------------------------------------------------------


def test_a_commit_with_a_secret_in_memory_is_refused_and_a_clean_one_passes(cli: Invoke, repo: Path) -> None:
    ws = repo / "agent ws"
    install(cli, ws)
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-q", "-m", "clean memory", check=False)
    assert proc.returncode == 0, proc.stderr
    clean = head(repo)

    with (ws / "MEMORY.md").open("a", encoding="utf-8") as f:
        f.write(f"- the OpenAI key is {FAKE_OPENAI_KEY}\n")
    git(repo, "add", "-A")
    proc = git(repo, "commit", "-q", "-m", "leak", check=False)
    assert proc.returncode != 0
    assert "MEMORY.md" in proc.stderr
    assert "the commit was stopped" in proc.stderr, proc.stderr
    assert "OpenAI API key" in proc.stderr
    assert head(repo) == clean


# --- the hook checks what is committed: the index, not the working tree (issue 16, point 4) ----

LEAK = f"- 新的 OpenAI key：{FAKE_OPENAI_KEY}\n"
NOTE = "agent ws/memory/2026-10-30 会议 notes.md"  # a space and Chinese in the staged path


def committed(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A commit as a user makes it (the hook runs); the repository's head is unchanged if refused."""
    before = head(repo)
    proc = git(repo, "commit", "-q", "-m", "memory", *args, check=False)
    assert (proc.returncode == 0) == (head(repo) != before), proc.stderr
    return proc


def refused_for_the_secret_in(proc: subprocess.CompletedProcess[str], path: str) -> bool:
    """Refused, with check's finding naming the staged path (git shows a hook's output on stderr)."""
    return (
        proc.returncode != 0
        and re.search(rf"^{re.escape(path)}:\d+: error: OpenAI API key", proc.stderr, re.M) is not None
        and FAKE_OPENAI_KEY not in proc.stdout + proc.stderr
        and "the commit was stopped" in proc.stderr
    )


@pytest.fixture
def hooked(cli: Invoke, repo: Path) -> Path:
    """The repository with memcli's hook installed (the real memcli)."""
    install(cli, repo / "agent ws")
    return repo


def test_a_secret_staged_then_deleted_from_disk_is_refused_naming_the_staged_path(hooked: Path) -> None:
    write_files(hooked, [NOTE], LEAK)
    git(hooked, "add", "-A")
    (hooked / NOTE).unlink()
    proc = committed(hooked)
    assert refused_for_the_secret_in(proc, NOTE), (proc.stdout, proc.stderr)
    assert "does not exist" not in proc.stdout + proc.stderr


def test_a_secret_staged_then_edited_clean_on_disk_is_refused(hooked: Path) -> None:
    write_files(hooked, [NOTE], LEAK)
    git(hooked, "add", "-A")
    (hooked / NOTE).write_text("- nothing to see here\n", encoding="utf-8")
    proc = committed(hooked)
    assert refused_for_the_secret_in(proc, NOTE), (proc.stdout, proc.stderr)


def test_a_clean_staged_note_is_committed_whatever_the_working_tree_holds(hooked: Path) -> None:
    write_files(hooked, [NOTE], "- 今天把队列换成了 BullMQ\n")
    git(hooked, "add", "-A")
    with (hooked / NOTE).open("a", encoding="utf-8") as f:
        f.write(LEAK)  # on disk only: not part of this commit
    proc = committed(hooked)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert FAKE_OPENAI_KEY not in git(hooked, "show", f"HEAD:{NOTE}").stdout


def test_commit_all_and_commit_of_a_path_check_the_index_git_prepares(hooked: Path) -> None:
    memory = "agent ws/MEMORY.md"
    git(hooked, "add", "-A")
    assert committed(hooked).returncode == 0
    with (hooked / memory).open("a", encoding="utf-8") as f:
        f.write(LEAK)  # changed on disk, never `git add`ed
    assert refused_for_the_secret_in(committed(hooked, "-a"), memory)
    assert refused_for_the_secret_in(committed(hooked, "--", memory), memory)


def test_a_deleted_memory_file_in_the_commit_is_not_an_error(hooked: Path) -> None:
    write_files(hooked, [NOTE], "- a note\n")
    git(hooked, "add", "-A")
    assert committed(hooked).returncode == 0
    git(hooked, "rm", "-q", NOTE)
    with (hooked / "agent ws" / "MEMORY.md").open("a", encoding="utf-8") as f:
        f.write("- I use pnpm\n")
    git(hooked, "add", "-A")
    proc = committed(hooked)
    assert proc.returncode == 0, (proc.stdout, proc.stderr)


def test_a_renamed_note_is_checked_under_its_new_path(hooked: Path) -> None:
    old = "agent ws/memory/2026-10-29.md"
    write_files(hooked, [old], LEAK)
    git(hooked, "add", "-A")
    assert committed(hooked, "--no-verify").returncode == 0  # the leak got in before the hook
    new = "agent ws/memory/归档 2026-10-29.md"
    git(hooked, "mv", old, new)
    proc = committed(hooked)
    assert refused_for_the_secret_in(proc, new), (proc.stdout, proc.stderr)


def test_a_staged_note_over_the_size_limit_is_refused_unread(cli: Invoke, hooked: Path) -> None:
    ws = hooked / "agent ws"
    (ws / "memcli.toml").write_text("max_file_bytes = 64\n", encoding="utf-8")
    write_files(hooked, [NOTE], "- 很长的一行 " + "x" * 100 + "\n")
    git(hooked, "add", "-A")
    proc = committed(hooked)
    assert proc.returncode != 0
    assert re.search(
        rf"^{re.escape(NOTE)}: error: is 1\d\d bytes staged, over the limit of 64 ", proc.stderr, re.M
    )


def test_a_broken_staged_session_store_and_config_are_refused(
    cli: Invoke, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = repo / "agent ws"
    (ws / "sessions.json").write_text('{"agent:main:main": ', encoding="utf-8")
    (ws / "memcli.toml").write_text("no_such_key = 1\n", encoding="utf-8")
    git(repo, "add", "-A")
    (ws / "sessions.json").write_text("{}\n", encoding="utf-8")  # fixed on disk only
    (ws / "memcli.toml").unlink()
    monkeypatch.chdir(repo)
    result = cli("--json", "--now", NOW, "check", "--staged")
    assert result.exit_code == 1
    found = {(f["file"], f["check"]) for f in json.loads(result.stdout)["findings"]}
    assert found == {("agent ws/sessions.json", "sessions"), ("agent ws/memcli.toml", "config")}


def test_a_staged_symlink_is_noted_not_read(cli: Invoke, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outside = repo.parent / "secret.md"
    outside.write_text(LEAK, encoding="utf-8")
    (repo / "agent ws" / "memory" / "linked.md").symlink_to(outside)
    git(repo, "add", "-A")
    monkeypatch.chdir(repo)
    result = cli("--now", NOW, "check", "--staged")
    assert result.exit_code == 0, (result.stdout, result.stderr)
    assert "agent ws/memory/linked.md is staged as a symbolic link" in result.stderr


def test_check_staged_outside_git_or_with_files_or_fix_is_a_usage_error(
    cli: Invoke, ws: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(ws)
    result = cli("check", "--staged")
    assert result.exit_code == 2 and "not inside a git work tree" in result.stderr
    monkeypatch.chdir(repo)
    assert cli("check", "--staged", "agent ws/MEMORY.md").exit_code == 2
    assert cli("check", "--staged", "--fix").exit_code == 2


def test_check_of_files_still_reads_the_working_tree(cli: Invoke, repo: Path) -> None:
    note = repo / NOTE
    write_files(repo, [NOTE], LEAK)
    result = cli("--now", NOW, "check", str(note))
    assert result.exit_code == 1 and "OpenAI API key" in result.stdout
    missing = cli("--now", NOW, "check", str(repo / "agent ws" / "memory" / "gone.md"))
    assert missing.exit_code == 1 and "does not exist" in missing.stdout


def test_the_first_commit_of_a_repository_is_checked(cli: Invoke, tmp_path: Path) -> None:
    root = make_repo(tmp_path / "new repo")
    ws = root / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("# MEMORY.md\n\n- I prefer dark mode\n", encoding="utf-8")
    (ws / "memory" / "2026-10-30.md").write_text(LEAK, encoding="utf-8")
    install(cli, ws)
    git(root, "add", "-A")
    result = cli("--json", "-w", str(ws), "--now", NOW, "check", "--staged")  # from anywhere, with -w
    assert result.exit_code == 1
    assert [(f["file"], f["check"]) for f in json.loads(result.stdout)["findings"]] == [
        ("ws/memory/2026-10-30.md", "secret")
    ]
    proc = git(root, "commit", "-q", "-m", "first", check=False)
    assert refused_for_the_secret_in(proc, "ws/memory/2026-10-30.md"), (proc.stdout, proc.stderr)
    assert git(root, "rev-parse", "-q", "--verify", "HEAD", check=False).returncode != 0
