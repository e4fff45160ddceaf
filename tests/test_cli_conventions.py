"""Telling the user what happened: a folder that is no workspace, -q and -v, the id column of
`list`, progress on long work (on a terminal only), and Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import pty
import select
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from conftest import NOW, Invoke, as_json, tree_state
from memcli.cli import progress
from memcli.cli.app import app
from memcli.phases import END

EVERY_COMMAND = [
    ["status"],
    ["add", "x"],
    ["score", "x"],
    ["list"],
    ["dedupe"],
    ["gc"],
    ["gc", "--dry-run"],
    ["summarize"],
    ["flush"],
    ["compact"],
    ["search", "x"],
    ["context"],
    ["entities"],
    ["check"],
    ["undo"],
    ["restore", "x"],
    ["purge", "--older-than", "1"],
    ["show", "x"],
    ["watch", "--once"],
    ["hook", "status"],
    ["schedule"],
]


# --- a folder that is no workspace ----------------------------------------------------------


@pytest.mark.parametrize("args", EVERY_COMMAND, ids=" ".join)
def test_a_folder_that_is_no_workspace_is_refused(cli: Invoke, tmp_path: Path, args: list[str]) -> None:
    folder = tmp_path / "not a workspace"
    folder.mkdir()
    (folder / "notes.txt").write_text("hello\n")
    before = tree_state(folder)
    result = cli("-w", str(folder), "--now", NOW, *args)
    assert result.exit_code == 3, (result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and "is not a workspace" in result.stderr
    assert f"memcli init {folder}" in result.stderr
    assert tree_state(folder) == before and sorted(os.listdir(folder)) == [
        "notes.txt"
    ]  # no .memcli/, no memory/


def test_init_makes_it_one_and_then_every_command_works(cli: Invoke, tmp_path: Path) -> None:
    folder = tmp_path / "new"
    folder.mkdir()
    assert cli("-w", str(folder), "status").exit_code == 3
    assert cli("-w", str(folder), "init").exit_code == 0
    assert cli("-w", str(folder), "--now", NOW, "status").exit_code == 0
    env = {"MEMCLI_WORKSPACE": str(tmp_path)}  # the variable is held to the same rule
    assert cli("status", env=env).exit_code == 3


def test_an_openclaw_workspace_without_memory_yet_is_a_workspace(cli: Invoke, tmp_path: Path) -> None:
    fresh = tmp_path / "workspace"
    fresh.mkdir()
    (fresh / "SOUL.md").write_text("# SOUL\n")
    result = cli("-w", str(fresh), "--now", NOW, "add", "first note")
    assert result.exit_code == 0 and (fresh / "memory" / "2026-10-31.md").is_file()


# --- -q and -v -------------------------------------------------------------------------------


def test_quiet_prints_only_data(cli: Invoke, sample: Path) -> None:
    base = ["-w", str(sample), "--now", NOW]
    for args in (["status"], ["list"], ["gc", "--dry-run"], ["search", "周会"], ["dedupe"], ["context"]):
        loud = cli(*base, *args)
        quiet = cli(*base, "-q", *args)
        assert quiet.exit_code == 0 and quiet.stderr == "", (args, quiet.stderr)
        assert quiet.stdout == loud.stdout and quiet.stdout, args
        if args[0] in ("list", "gc", "dedupe", "context"):
            assert loud.stderr  # the notes -q leaves out
    error = cli("-q", "-w", str(sample), "--now", NOW, "list", "--since", "last week")
    assert error.exit_code == 2 and error.stderr.startswith("memcli: error:")  # errors stay


def test_verbose_adds_the_time_of_each_phase(cli: Invoke, sample: Path) -> None:
    base = ["-w", str(sample), "--now", NOW]
    timed = cli(*base, "-v", "gc", "--dry-run")
    phases = [line.split()[1:-2] for line in timed.stderr.splitlines() if line.startswith("timing: ")]
    assert [" ".join(p) for p in phases] == [
        "reading notes",
        "reading entries",
        "analysing entries",
        "planning",
    ]
    assert all(line.endswith(" s") for line in timed.stderr.splitlines() if line.startswith("timing: "))
    search = cli(*base, "-v", "search", "周会")
    assert "timing: indexing " in search.stderr and "timing: searching " in search.stderr
    assert search.stdout == cli(*base, "search", "周会").stdout  # timings go to stderr only
    assert "timing: writing " in cli(*base, "-v", "gc").stderr
    assert "timing:" not in cli(*base, "gc", "--dry-run").stderr


# --- list's id column -----------------------------------------------------------------------


def test_list_shows_the_id_that_show_and_restore_take(cli: Invoke, sample: Path) -> None:
    base = ["-w", str(sample), "--now", NOW]
    lines = cli(*base, "list", "--file", "memory/2026-10-27.md").stdout.splitlines()
    assert lines[0].split()[:2] == ["id", "place"]
    row = next(line for line in lines if line.endswith("- got it") or line.endswith(" got it"))
    entry_id = row.split()[0]
    entries = as_json(cli(*base, "--json", "list"))["entries"]
    assert entry_id in {e["id"] for e in entries}
    assert cli(*base, "gc").exit_code == 0  # drops the noise
    shown = cli(*base, "show", entry_id)
    assert shown.exit_code == 0 and "drop" in shown.stdout
    restored = cli(*base, "restore", entry_id)
    assert restored.exit_code == 0 and f"restored {entry_id}" in restored.stdout


# --- progress ------------------------------------------------------------------------------


@contextlib.contextmanager
def terminal_stderr(monkeypatch: pytest.MonkeyPatch) -> Any:
    """sys.stderr on a pseudo-terminal; yields a function that reads what it showed."""
    master, slave = pty.openpty()
    stream = os.fdopen(slave, "w", encoding="utf-8", buffering=1)
    monkeypatch.setattr(sys, "stderr", stream)
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.delenv("NO_COLOR", raising=False)
    got: list[bytes] = []

    def shown() -> str:
        stream.flush()
        while select.select([master], [], [], 0.2)[0]:
            got.append(os.read(master, 65536))
        return b"".join(got).decode("utf-8", "replace")

    try:
        yield shown
    finally:
        shown()
        stream.close()
        os.close(master)


def run_app(*args: str) -> int:
    code = app(list(args), standalone_mode=False)
    return int(code) if isinstance(code, int) else 0


@pytest.fixture
def slow_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """A search whose ranking takes 0.6 s, and a bar that shows after 0.1 s."""
    from memcli.workspace.index import Index

    search = Index.search

    def slow(self: Index, *args: Any, **kwargs: Any) -> Any:
        time.sleep(0.6)
        return search(self, *args, **kwargs)

    monkeypatch.setattr(Index, "search", slow)
    monkeypatch.setattr(progress, "DELAY", 0.1)


def test_a_progress_bar_on_a_terminal_for_long_work(
    sample: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], slow_search: None
) -> None:
    with terminal_stderr(monkeypatch) as shown:
        assert run_app("-w", str(sample), "--now", NOW, "search", "周会") == 0
        screen = shown()
    assert "searching" in screen  # the phase, named
    assert "周会" in capsys.readouterr().out  # and the data, after the bar went away


@pytest.mark.parametrize("flag", ["-q", "--json"])
def test_no_progress_with_quiet_or_json(
    sample: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    slow_search: None,
    flag: str,
) -> None:
    with terminal_stderr(monkeypatch) as shown:
        assert run_app(flag, "-w", str(sample), "--now", NOW, "search", "周会") == 0
        assert shown() == ""
    assert capsys.readouterr().out


def test_no_progress_in_a_pipe(cli: Invoke, sample: Path, slow_search: None) -> None:
    result = cli("-w", str(sample), "--now", NOW, "search", "周会")
    assert result.exit_code == 0 and result.stderr == ""


def test_quick_work_shows_no_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    with terminal_stderr(monkeypatch) as shown:
        report = progress.Reporter(show=True, timings=False)
        report("reading notes", 0, 10)
        report("reading notes", 10, 10)
        report("reading notes", END, 10)
        report.close()
        time.sleep(progress.DELAY + 0.2)
        assert shown() == ""


# --- Ctrl-C ------------------------------------------------------------------------------------


def interrupt(*_: object, **__: object) -> Any:
    raise KeyboardInterrupt


def test_ctrl_c_while_reading_changes_nothing(
    cli: Invoke, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memcli.cli.gc.plan_gc_analysed", interrupt)
    before = tree_state(sample)
    result = cli("-w", str(sample), "--now", NOW, "gc")
    assert result.exit_code == 130 and result.stdout == ""
    assert result.stderr == "memcli: stopped (Ctrl-C); nothing was changed\n"
    assert {k: v for k, v in tree_state(sample).items() if not k.startswith(".memcli/")} == before


def test_ctrl_c_while_gc_writes_rolls_back(
    cli: Invoke, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memcli.workspace import transaction

    ledger = transaction.append_ledger
    calls = []

    def stop_once(*args: Any, **kwargs: Any) -> None:
        calls.append(1)
        if len(calls) == 1:  # after every file was written, before the transaction is done
            raise KeyboardInterrupt
        ledger(*args, **kwargs)

    monkeypatch.setattr(transaction, "append_ledger", stop_once)
    before = tree_state(sample)
    result = cli("-w", str(sample), "--now", NOW, "gc")
    assert result.exit_code == 130, result.stderr
    assert result.stderr == (
        "memcli: stopped (Ctrl-C); what it had written was rolled back; nothing was changed\n"
    )
    after = {k: v[0] for k, v in tree_state(sample).items() if not k.startswith(".memcli/")}
    assert after == {k: v[0] for k, v in before.items()}


def test_ctrl_c_after_a_write_says_what_was_written(
    cli: Invoke, ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("memcli.cli.output.Output.line", interrupt)
    result = cli("-w", str(ws), "--now", NOW, "add", "deploys go out on Tuesdays")
    assert result.exit_code == 130
    assert result.stderr == (
        "memcli: stopped (Ctrl-C) after it wrote 1 file(s), last 2026-10-31.md; "
        "each write is whole (nothing was half-written)\n"
    )
    assert "deploys go out on Tuesdays" in (ws / "memory" / "2026-10-31.md").read_text()
    again = cli("-w", str(ws), "--now", NOW, "--json", "status")  # the count is per run
    assert again.exit_code == 0
    monkeypatch.setattr("memcli.cli.status.count_files", interrupt)
    assert cli("-w", str(ws), "status").stderr == "memcli: stopped (Ctrl-C); nothing was changed\n"


def test_ctrl_c_in_a_real_process(tmp_path: Path) -> None:
    """A real SIGINT while a big workspace is being indexed: one line, exit 130."""
    import signal
    import subprocess

    root = tmp_path / "big"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# MEMORY.md\n")
    for day in range(240):
        lines = [
            f"- note {day}-{n}: deployed service-{n % 17} on port {8000 + n} 第{n}次部署" for n in range(40)
        ]
        date = f"2025-{1 + day // 28:02d}-{1 + day % 28:02d}"
        (root / "memory" / f"{date}.md").write_text(f"# {date}\n\n" + "\n".join(lines) + "\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memcli", "-w", str(root), "--now", NOW, "-v", "search", "部署"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert proc.stderr is not None
    first = proc.stderr.readline()  # "timing: reading notes …": the index is being built
    assert first.startswith(b"timing: reading notes"), first
    proc.send_signal(signal.SIGINT)
    rest = proc.stderr.read()
    proc.wait(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the run ended before the signal")
    assert proc.returncode == 130, rest
    assert rest.decode().splitlines()[-1] == "memcli: stopped (Ctrl-C); nothing was changed"
    assert b"Traceback" not in rest
