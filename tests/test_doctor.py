"""memcli doctor: one screen that says whether memcli can do its job here, what to do about
each problem (a fix line), exit 1 when a problem needs action; it reads only."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import GIT, NOW, SAMPLE, Invoke, copy_tree, tree_state

ORDER = ["workspace", "config", "memory", "writable", "sessions", "hook", "schedule"]


def doctor(cli: Invoke, *args: str, code: int | None = None) -> dict[str, Any]:
    result = cli("--json", "--now", NOW, *args, "doctor")
    assert result.exit_code in ((0, 1) if code is None else (code,)), (result.stdout, result.stderr)
    data: dict[str, Any] = json.loads(result.stdout)
    assert result.exit_code == (0 if data["ok"] else 1)
    return data


def finding(data: dict[str, Any], check: str) -> dict[str, Any]:
    found: dict[str, Any] = next(f for f in data["checks"] if f["check"] == check)
    return found


@pytest.fixture
def home(isolated_env: Path) -> Path:
    return isolated_env


def test_the_sample_workspace(cli: Invoke, sample: Path) -> None:
    data = doctor(cli, "-w", str(sample), code=0)
    assert data["workspace"] == str(sample) and data["found_by"] == "-w"
    checks = [f["check"] for f in data["checks"]]
    assert checks[: len(ORDER)] == ORDER
    assert set(checks) == {*ORDER, "timezone", "index", "cache", "state"}
    assert finding(data, "memory")["details"]["chars"] == len(
        (sample / "MEMORY.md").read_text(encoding="utf-8")
    )
    sessions = finding(data, "sessions")["details"]
    assert sessions["sessions"] == 3 and sessions["due"] >= 1
    assert [(s["path"], s["agent"], s["kind"]) for s in sessions["stores"]] == [
        (str(sample / "sessions.json"), None, "json")
    ]
    assert finding(data, "timezone")["details"]["zone"] == "Asia/Shanghai"
    assert finding(data, "hook")["status"] == "info"  # not in git: nothing to install
    schedule = finding(data, "schedule")
    assert schedule["status"] == "warning" and "memcli schedule" in schedule["fix"]
    for f in data["checks"]:
        assert (f["fix"] is not None) == (f["status"] in ("warning", "problem")), f
    screen = cli("-w", str(sample), "--now", NOW, "doctor")
    assert screen.exit_code == 0 and screen.stderr == ""
    lines = screen.stdout.splitlines()
    assert lines[0] == f"memcli doctor  {sample}"
    fixes = [line.strip() for line in lines if line.strip().startswith("fix: ")]
    assert len(fixes) == sum(f["fix"] is not None for f in data["checks"])
    assert any(line.split()[:2] == ["warning", "schedule"] for line in lines)
    assert lines[-1].startswith("no problem, 2 warnings")


def test_an_over_budget_memory_is_a_problem_with_its_fix(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_text("core_max_chars = 60\n", encoding="utf-8")
    data = doctor(cli, "-w", str(ws), code=1)
    memory = finding(data, "memory")
    assert memory["status"] == "problem" and "memcli gc --fit" in memory["fix"]
    assert data["problems"] == 1 and not data["ok"]
    screen = cli("-w", str(ws), "--now", NOW, "doctor")
    assert screen.exit_code == 1 and "fix: `memcli gc --fit`" in screen.stdout
    assert screen.stdout.splitlines()[-1].startswith("1 problem, ")


def test_no_memory_file_yet_is_a_warning(cli: Invoke, ws: Path) -> None:
    (ws / "MEMORY.md").unlink()
    memory = finding(doctor(cli, "-w", str(ws), code=0), "memory")
    assert memory["status"] == "warning" and "memcli init" in memory["fix"]


def test_a_folder_that_is_no_workspace_is_the_one_problem_and_nothing_is_made(
    cli: Invoke, tmp_path: Path
) -> None:
    folder = tmp_path / "not a workspace"
    folder.mkdir()
    data = doctor(cli, "-w", str(folder), code=1)
    assert [f["check"] for f in data["checks"]] == ["workspace"] and data["workspace"] is None
    assert f"memcli init {folder}" in data["checks"][0]["fix"]
    assert os.listdir(folder) == []


def test_a_broken_config_is_a_problem_and_the_rest_is_still_checked(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_text("no_such_key = 1\n", encoding="utf-8")
    data = doctor(cli, "-w", str(ws), code=1)
    config = finding(data, "config")
    assert config["status"] == "problem" and "no_such_key" in config["summary"]
    assert finding(data, "memory")["status"] == "ok"


def test_a_read_only_workspace_is_a_problem(cli: Invoke, ws: Path) -> None:
    note = ws / "MEMORY.md"
    note.chmod(0o444)
    try:
        writable = finding(doctor(cli, "-w", str(ws), code=1), "writable")
    finally:
        note.chmod(0o644)
    assert writable["status"] == "problem" and writable["details"]["read_only"] == ["MEMORY.md"]
    assert "chmod u+w" in writable["fix"]


def test_the_agents_and_their_stores_are_named(cli: Invoke, ws: Path, home: Path) -> None:
    state = home / ".openclaw"
    (state / "agents" / "ops" / "sessions").mkdir(parents=True)
    (state / "agents" / "ops" / "sessions" / "sessions.json").write_text("{}\n", encoding="utf-8")
    (state / "openclaw.json").write_text(
        json.dumps({"agents": {"list": [{"id": "ops", "workspace": str(ws)}]}}), encoding="utf-8"
    )
    data = doctor(cli, "--agent", "ops")
    assert data["workspace"] == str(ws) and data["found_by"].startswith("--agent ops")
    assert finding(data, "workspace")["details"]["agents"] == ["ops"]
    sessions = finding(data, "sessions")
    assert sessions["status"] == "ok" and "agent ops's" in sessions["summary"]
    assert [(s["agent"], s["kind"]) for s in sessions["details"]["stores"]] == [("ops", "json")]
    assert sessions["details"]["openclaw"]["agents"] == ["ops"]


def test_no_session_store_is_a_warning_that_says_where_it_looked(cli: Invoke, ws: Path) -> None:
    sessions = finding(doctor(cli, "-w", str(ws), code=0), "sessions")
    assert sessions["status"] == "warning" and "does not exist" in sessions["summary"]
    assert "--state-dir" in sessions["fix"]
    schedule = finding(doctor(cli, "-w", str(ws), code=0), "schedule")
    assert "gc" in schedule["summary"] and "flush" not in schedule["summary"]  # no sessions, no flush


def fake_crontab(folder: Path, monkeypatch: pytest.MonkeyPatch, table: str, code: int = 0) -> None:
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    script = bin_dir / "crontab"
    script.write_text(
        f"#!/bin/sh\ncat <<'EOF'\n{table}EOF\n"
        + ("echo 'no crontab for me' >&2\n" if code else "")
        + f"exit {code}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def test_cron_lines_for_the_workspace_are_found(
    cli: Invoke, sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lines = json.loads(cli("--json", "-w", str(sample), "--now", NOW, "schedule").stdout)["jobs"]
    table = "# m h dom mon dow command\n" + "".join(j["line"] + "\n" for j in lines)
    fake_crontab(tmp_path, monkeypatch, table + "0 4 * * * memcli -w /somewhere/else gc\n")
    schedule = finding(doctor(cli, "-w", str(sample), code=0), "schedule")
    assert schedule["status"] == "ok" and schedule["details"]["jobs"] == {"gc": "cron", "flush": "cron"}
    assert len(schedule["details"]["cron_lines"]) == 2


def test_an_empty_crontab_is_no_error(
    cli: Invoke, sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_crontab(tmp_path, monkeypatch, "", code=1)
    schedule = finding(doctor(cli, "-w", str(sample), code=0), "schedule")
    assert schedule["status"] == "warning" and schedule["details"]["crontab"] is True
    assert "1 memcli cron line" not in schedule["summary"]


def test_systemd_timers_are_found_and_a_disabled_one_is_said(cli: Invoke, sample: Path, home: Path) -> None:
    units = json.loads(cli("--json", "-w", str(sample), "--now", NOW, "schedule", "--systemd").stdout)[
        "units"
    ]
    folder = home / ".config" / "systemd" / "user"
    folder.mkdir(parents=True)
    for unit in units:
        (folder / unit["name"]).write_text(unit["text"], encoding="utf-8")
    schedule = finding(doctor(cli, "-w", str(sample), code=0), "schedule")
    assert schedule["status"] == "warning" and "systemctl --user enable --now" in schedule["fix"]
    (folder / "timers.target.wants").mkdir()
    for name in ("memcli-gc.timer", "memcli-flush.timer"):
        (folder / "timers.target.wants" / name).symlink_to(folder / name)
    schedule = finding(doctor(cli, "-w", str(sample), code=0), "schedule")
    assert schedule["status"] == "ok" and schedule["details"]["jobs"] == {"gc": "systemd", "flush": "systemd"}


def test_the_git_hook_and_a_pre_commit_config(
    cli: Invoke, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    subprocess.run([*GIT, "init", "-q", str(sample)], check=True)
    hook = finding(doctor(cli, "-w", str(sample)), "hook")
    assert hook["status"] == "warning" and "memcli hook install" in hook["fix"]
    monkeypatch.chdir(sample)
    assert cli("-w", str(sample), "hook", "install").exit_code == 0
    hook = finding(doctor(cli, "-w", str(sample)), "hook")
    assert hook["status"] == "ok" and hook["details"]["installed"] == "memcli" and hook["details"]["current"]
    assert cli("-w", str(sample), "hook", "uninstall").exit_code == 0
    (sample / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    assert finding(doctor(cli, "-w", str(sample)), "hook")["status"] == "warning"
    (sample / ".pre-commit-config.yaml").write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: memcli-check\n", encoding="utf-8"
    )
    assert finding(doctor(cli, "-w", str(sample)), "hook")["status"] == "ok"


def test_a_hook_whose_python_is_gone_is_a_problem(
    cli: Invoke, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    subprocess.run([*GIT, "init", "-q", str(sample)], check=True)
    monkeypatch.chdir(sample)
    assert cli("-w", str(sample), "hook", "install").exit_code == 0
    hook_file = sample / ".git" / "hooks" / "pre-commit"
    python = json.loads(cli("--json", "-w", str(sample), "hook", "status").stdout)["python"]
    hook_file.write_text(hook_file.read_text().replace(python, "/no/such/python3"))
    hook = finding(doctor(cli, "-w", str(sample), code=1), "hook")
    assert hook["status"] == "problem" and "memcli hook install" in hook["fix"]


def test_index_and_cache_are_described_as_they_are(cli: Invoke, sample: Path) -> None:
    data = doctor(cli, "-w", str(sample))
    assert finding(data, "index")["details"]["exists"] is False
    assert finding(data, "cache")["details"]["exists"] is False
    assert cli("-w", str(sample), "--now", NOW, "search", "周会").exit_code == 0
    assert cli("-w", str(sample), "--now", NOW, "list").exit_code == 0
    data = doctor(cli, "-w", str(sample))
    index, cache = finding(data, "index"), finding(data, "cache")
    assert index["status"] == "ok" and index["details"]["fresh"] is True and index["details"]["entries"] > 500
    assert cache["status"] == "ok" and cache["details"]["notes"] > 50
    assert cache["details"]["memo_tables"] >= 3 and cache["details"]["memo_bytes"] > 0  # list's
    assert "the judgement's memo" in cache["summary"]
    with open(sample / "memory" / "2026-10-30.md", "a", encoding="utf-8") as f:
        f.write("- one more line\n")
    index = finding(doctor(cli, "-w", str(sample)), "index")
    assert index["status"] == "info" and index["details"]["fresh"] is False


def test_a_transaction_a_stopped_run_left_is_a_problem(cli: Invoke, sample: Path) -> None:
    journal = sample / ".memcli" / "journal" / "20261031T090000-abcdef"
    journal.mkdir(parents=True)
    (journal / "journal.json").write_text(
        json.dumps({"tx": journal.name, "command": "gc", "state": "prepared"})
    )
    state = finding(doctor(cli, "-w", str(sample), code=1), "state")
    assert state["status"] == "problem" and "memcli gc" in state["fix"]
    assert state["details"]["unfinished"] == [
        {"transaction": journal.name, "state": "prepared", "command": "gc"}
    ]


def test_notes_dated_after_today_question_the_time_zone(cli: Invoke, ws: Path) -> None:
    (ws / "memory" / "2026-11-02.md").write_text("# 2026-11-02\n\n- from the future\n", encoding="utf-8")
    zone = finding(doctor(cli, "-w", str(ws), code=0), "timezone")
    assert zone["status"] == "warning" and zone["details"]["ahead"] == ["memory/2026-11-02.md"]
    assert "timezone" in zone["fix"]


def test_doctor_writes_nothing(cli: Invoke, tmp_path: Path) -> None:
    root = copy_tree(SAMPLE, tmp_path / "ws")
    assert cli("-w", str(root), "--now", NOW, "search", "atlas").exit_code == 0  # an index to read
    before = tree_state(root)
    for args in (["doctor"], ["--json", "doctor"]):
        assert cli("-w", str(root), "--now", NOW, *args).exit_code in (0, 1)
    assert tree_state(root) == before


def test_without_w_the_default_workspace_is_in_the_state_folder_state_dir_names(
    cli: Invoke, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "openclaw-state"
    (state / "workspace" / "memory").mkdir(parents=True)
    (state / "workspace" / "MEMORY.md").write_text("# MEMORY.md\n", encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    data = doctor(cli, "--state-dir", str(state))
    assert data["workspace"] == str((state / "workspace").resolve())
    assert "OpenClaw's default workspace" in finding(data, "workspace")["summary"]
