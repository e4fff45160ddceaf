"""`memcli schedule`: cron lines and systemd user units that are ready to paste, and that run."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import NOW, SAMPLE, Invoke, copy_tree, tree_bytes
from memcli.core.automation import cron_unescape

PYTHON = os.path.abspath(sys.executable)
CRON_FIELD = re.compile(r"^(\*|\d+|\*/\d+)$")


def schedule(cli: Invoke, ws: Path, *args: str) -> str:
    result = cli("-w", str(ws), "schedule", *args)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return result.stdout


def schedule_json(cli: Invoke, ws: Path, *args: str) -> Any:
    return json.loads(schedule(cli, ws, "--json", *args))


def cron_lines(text: str) -> list[tuple[list[str], str]]:
    """(five time fields, command) of every line that is not a comment."""
    out = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        parts = line.split(None, 5)
        assert len(parts) == 6, line
        out.append((parts[:5], parts[5]))
    return out


def sh_words(command: str) -> list[str]:
    """Words of a shell command line, with ; && >> { } as words of their own."""
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    return list(lexer)


def state_dir() -> list[str]:
    """What every job names OpenClaw's state folder with: cron has no OPENCLAW_STATE_DIR."""
    return ["--state-dir", str(Path.home() / ".openclaw")]


@pytest.fixture
def spaced(tmp_path: Path) -> Path:
    """The sample workspace in a folder whose name has a space, Chinese and a percent sign."""
    return copy_tree(SAMPLE, tmp_path / "my ws 中文 100%")


def test_cron_is_the_default_nightly_gc_and_a_flush_every_15_minutes(cli: Invoke, spaced: Path) -> None:
    text = schedule(cli, spaced)
    assert text == schedule(cli, spaced, "--cron")
    lines = cron_lines(text)
    assert [fields for fields, _ in lines] == [["0", "3", "*", "*", "*"], ["*/15", "*", "*", "*", "*"]]
    for fields, command in lines:
        assert all(CRON_FIELD.match(f) for f in fields)
        assert "%" not in command.replace("\\%", "")  # cron would cut the line at a bare %
    assert f"{spaced}/.memcli/gc.log" in text and f"{spaced}/.memcli/flush.log" in text
    assert "lock_timeout_seconds (10 s here)" in " ".join(text.replace("\n# ", " ").split())
    assert "exit 4" in text


def test_the_commands_use_absolute_paths_and_quote_the_workspace(
    cli: Invoke, spaced: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(spaced.parent)
    text = schedule(cli, Path(spaced.name))  # -w relative: the lines still name it absolutely
    for (_, command), job in zip(cron_lines(text), ("gc", "flush"), strict=True):
        words = sh_words(cron_unescape(command))
        i = words.index(PYTHON)
        assert words[i : i + 9] == [PYTHON, "-P", "-m", "memcli", "-w", str(spaced), *state_dir(), job]
        assert words[words.index(">>") + 1] == f"{spaced}/.memcli/{job}.log"
        assert words[:2] == ["cd", str(spaced)]
        assert os.path.isabs(words[i]) and os.path.isabs(words[i + 5])


def run_cron_command(command: str, action: str, dry: str) -> subprocess.CompletedProcess[str]:
    """Run a printed cron command as cron would (sh -c, % unescaped, cwd HOME), the action
    replaced by its dry run."""
    shell = cron_unescape(command)
    assert shell.count(f" {action}; }}") == 1
    shell = shell.replace(f" {action}; }}", f" {action} {dry}; }}")
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ["HOME"], "MEMCLI_NOW": NOW}
    return subprocess.run(
        ["/bin/sh", "-c", shell], cwd=os.environ["HOME"], env=env, capture_output=True, text=True, timeout=300
    )


def test_the_printed_gc_command_runs(cli: Invoke, spaced: Path) -> None:
    before = tree_bytes(spaced)
    (_, gc_command), (_, flush_command) = cron_lines(schedule(cli, spaced))
    proc = run_cron_command(gc_command, "gc", "--dry-run")
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert proc.stdout == proc.stderr == ""  # everything went to the log
    log = (spaced / ".memcli" / "gc.log").read_text(encoding="utf-8")
    assert log.startswith("--- ") and " memcli gc\n" in log
    assert "plan:" in log and "dry run" in log
    proc = run_cron_command(flush_command, "flush", "--dry-run")
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert "agent:" in (spaced / ".memcli" / "flush.log").read_text(encoding="utf-8")
    after = {k: v for k, v in tree_bytes(spaced).items() if not k.startswith(".memcli/")}
    assert after == {k: v for k, v in before.items() if not k.startswith(".memcli/")}


def test_a_job_for_a_workspace_that_is_gone_fails_and_creates_nothing(cli: Invoke, spaced: Path) -> None:
    (_, gc_command), _ = cron_lines(schedule(cli, spaced))
    shutil.rmtree(spaced)
    proc = run_cron_command(gc_command, "gc", "--dry-run")
    assert proc.returncode != 0
    assert not spaced.exists()


def test_times_can_be_changed(cli: Invoke, ws: Path) -> None:
    lines = cron_lines(schedule(cli, ws, "--gc-at", "4:30", "--flush-every", "5"))
    assert [f for f, _ in lines] == [["30", "4", "*", "*", "*"], ["*/5", "*", "*", "*", "*"]]
    assert [f for f, _ in cron_lines(schedule(cli, ws, "--flush-every", "60"))][1] == [
        "0",
        "*",
        "*",
        "*",
        "*",
    ]
    only_gc = cron_lines(schedule(cli, ws, "--flush-every", "0"))
    assert len(only_gc) == 1 and " gc; }" in only_gc[0][1]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--gc-at", "24:00"], "--gc-at '24:00' is not a time of day"),
        (["--gc-at", "3:60"], "is not a time of day"),
        (["--gc-at", "noon"], "use HH:MM"),
        (["--flush-every", "7"], "does not divide the hour"),
        (["--flush-every", "-15"], "does not divide the hour"),
        (["--flush-every", "120"], "does not divide the hour"),
        (["--cron", "--systemd"], "exclude each other"),
    ],
)
def test_bad_options_are_usage_errors(cli: Invoke, ws: Path, args: list[str], message: str) -> None:
    result = cli("-w", str(ws), "schedule", *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert result.stdout == ""


def test_the_lock_note_tells_the_configured_timeout(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_text("lock_timeout_seconds = 3\n", encoding="utf-8")
    data = schedule_json(cli, ws)
    assert "lock_timeout_seconds (3 s here)" in data["lock"]


def test_cron_json(cli: Invoke, spaced: Path) -> None:
    data = schedule_json(cli, spaced)
    assert data["format"] == "cron"
    assert data["workspace"] == str(spaced) and data["python"] == PYTHON
    gc, flush = data["jobs"]
    assert gc["name"] == "gc" and gc["schedule"] == "0 3 * * *"
    assert gc["argv"] == [PYTHON, "-P", "-m", "memcli", "-w", str(spaced), *state_dir(), "gc"]
    assert flush["schedule"] == "*/15 * * * *"
    assert gc["line"] == f"0 3 * * * {gc['command'].replace('%', chr(92) + '%')}"
    assert gc["log"] == f"{spaced}/.memcli/gc.log"


# --- systemd --------------------------------------------------------------------------------


def unit_values(text: str) -> dict[str, list[str]]:
    """`Section.Key` -> values of an INI-style unit."""
    out: dict[str, list[str]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif "=" in line:
            key, value = line.split("=", 1)
            out.setdefault(f"{section}.{key}", []).append(value)
    return out


def exec_words(value: str) -> list[str]:
    """ExecStart= split as systemd does for what memcli writes: bare words and double-quoted
    ones with C escapes; %% and $$ stand for % and $."""
    words = []
    for m in re.finditer(r'"((?:[^"\\]|\\.)*)"|(\S+)', value):
        word = m.group(2) if m.group(2) is not None else re.sub(r"\\(.)", r"\1", m.group(1))
        words.append(word.replace("%%", "%").replace("$$", "$"))
    return words


def test_systemd_units(cli: Invoke, spaced: Path) -> None:
    data = schedule_json(cli, spaced, "--systemd")
    assert data["format"] == "systemd"
    units = {u["name"]: unit_values(u["text"]) for u in data["units"]}
    assert sorted(units) == [
        "memcli-flush.service",
        "memcli-flush.timer",
        "memcli-gc.service",
        "memcli-gc.timer",
    ]
    for job in ("gc", "flush"):
        service = units[f"memcli-{job}.service"]
        assert service["Service.Type"] == ["oneshot"]
        assert exec_words(service["Service.ExecStart"][0]) == [
            PYTHON, "-P", "-m", "memcli", "-w", str(spaced), *state_dir(), job,
        ]  # fmt: skip
        timer = units[f"memcli-{job}.timer"]
        assert timer["Install.WantedBy"] == ["timers.target"]
        assert timer["Timer.Unit"] == [f"memcli-{job}.service"]
    assert units["memcli-gc.timer"]["Timer.OnCalendar"] == ["*-*-* 03:00:00"]
    assert units["memcli-gc.timer"]["Timer.Persistent"] == ["true"]
    assert units["memcli-flush.timer"]["Timer.OnCalendar"] == ["*:0/15"]
    assert "100%%" in units["memcli-gc.service"]["Unit.Description"][0]
    assert data["commands"] == [
        "systemctl --user daemon-reload",
        "systemctl --user enable --now memcli-gc.timer memcli-flush.timer",
    ]
    for u in data["units"]:
        assert u["path"] == f"~/.config/systemd/user/{u['name']}"


def test_systemd_times_can_be_changed(cli: Invoke, ws: Path) -> None:
    data = schedule_json(cli, ws, "--systemd", "--gc-at", "23:05", "--flush-every", "0")
    texts = {u["name"]: u["text"] for u in data["units"]}
    assert sorted(texts) == ["memcli-gc.service", "memcli-gc.timer"]
    assert "OnCalendar=*-*-* 23:05:00\n" in texts["memcli-gc.timer"]
    assert data["commands"][1] == "systemctl --user enable --now memcli-gc.timer"


def test_the_printed_systemd_text_is_a_script_that_writes_the_units(
    cli: Invoke, spaced: Path, tmp_path: Path
) -> None:
    """Pasted into sh (systemctl stood in for), it writes exactly the units and enables the timers."""
    text = schedule(cli, spaced, "--systemd")
    units = {u["name"]: u["text"] for u in schedule_json(cli, spaced, "--systemd")["units"]}
    home = tmp_path / "home"
    home.mkdir()
    fake = tmp_path / "bin" / "systemctl"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path}/systemctl.log"\n', encoding="utf-8")
    fake.chmod(0o755)
    env = {"PATH": f"{fake.parent}:/usr/bin:/bin", "HOME": str(home)}
    proc = subprocess.run(["/bin/sh", "-e"], input=text, env=env, capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    written = {p.name: p.read_text(encoding="utf-8") for p in (home / ".config/systemd/user").iterdir()}
    assert written == units
    assert (tmp_path / "systemctl.log").read_text(encoding="utf-8").splitlines() == [
        "--user daemon-reload",
        "--user enable --now memcli-gc.timer memcli-flush.timer",
    ]


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_accepts_the_units(cli: Invoke, spaced: Path, tmp_path: Path) -> None:
    folder = tmp_path / "units"
    folder.mkdir()
    runtime_dir = tmp_path / "run"
    runtime_dir.mkdir(mode=0o700)
    for u in schedule_json(cli, spaced, "--systemd")["units"]:
        (folder / u["name"]).write_text(u["text"], encoding="utf-8")
    env = {**os.environ, "XDG_RUNTIME_DIR": str(runtime_dir), "SYSTEMD_LOG_LEVEL": "warning"}
    proc = subprocess.run(
        ["systemd-analyze", "verify", "--user", *sorted(str(p) for p in folder.iterdir())],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if proc.returncode != 0 and "Failed to initialize manager" in proc.stderr:
        pytest.skip(f"systemd-analyze cannot run here: {proc.stderr.strip()}")
    assert proc.returncode == 0, proc.stderr
    assert "memcli-" not in proc.stderr, proc.stderr


def test_the_lines_name_openclaws_state_folder_and_the_agent_so_cron_finds_the_store(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state = tmp_path / "oc state"
    ops = state / "workspace-ops"
    (ops / "memory").mkdir(parents=True)
    sessions = state / "agents" / "ops" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "sessions.json").write_text("{}", encoding="utf-8")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))  # set in the shell, not in cron
    data = schedule_json(cli, ops, "--agent", "ops")
    for job in data["jobs"]:
        argv = job["argv"]
        assert argv[argv.index("-w") : argv.index("-w") + 6] == [
            "-w", str(ops), "--state-dir", str(state), "--agent", "ops",
        ]  # fmt: skip
    flush_line = data["jobs"][1]["command"]
    monkeypatch.delenv("OPENCLAW_STATE_DIR")
    proc = run_cron_command(flush_line, "flush", "--dry-run")  # cron's bare environment
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    log = (ops / ".memcli" / "flush.log").read_text(encoding="utf-8")
    assert "no session store" not in log and "error" not in log
