"""The command line: global options anywhere, init/status/add/list, one error line and its exit code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import (
    NOW,
    Invoke,
    as_json,
    copy_tree,
    corpus_workspaces,
    planner_modules_imported,
    tree_bytes,
    tree_state,
)
from memcli.cli.app import hoist_global_options
from memcli.workspace.lock import WorkspaceLock

SPEC_ENTRY_KEYS = {"id", "file", "line", "text", "tier", "score", "decayed", "date", "mentions", "last_seen"}


# --- global options -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["status", "--json"], ["--json", "status"]),
        (["--json", "status"], ["--json", "status"]),
        (
            ["list", "-w", "ws", "--since", "2026-01-01", "-q"],
            ["-w", "ws", "-q", "list", "--since", "2026-01-01"],
        ),
        (
            ["-w", "ws", "add", "--now", "2026-10-31", "text"],
            ["-w", "ws", "--now", "2026-10-31", "add", "text"],
        ),
        (["add", "--", "-q"], ["add", "--", "-q"]),
        (["add", "--workspace=ws", "x"], ["--workspace=ws", "add", "x"]),
        (["--help"], ["--help"]),
    ],
)
def test_global_options_are_moved_before_the_command(argv: list[str], expected: list[str]) -> None:
    assert hoist_global_options(argv) == expected


def test_json_before_and_after_the_command_give_the_same_document(cli: Invoke, ws: Path) -> None:
    before = as_json(cli("--json", "-w", str(ws), "--now", NOW, "status"))
    after = as_json(cli("status", "--json", "-w", str(ws), "--now", NOW))
    assert before == after
    assert before["today"] == "2026-10-31"


def test_help_teaches_each_command(cli: Invoke) -> None:
    top = cli("--help")
    assert top.exit_code == 0
    for command in ("init", "status", "add", "list"):
        assert command in top.stdout
        sub = cli(command, "--help")
        assert sub.exit_code == 0 and "Usage:" in sub.stdout


def test_no_arguments_prints_the_help(cli: Invoke) -> None:
    result = cli()
    assert result.exit_code == 0 and "Commands:" in result.stdout and result.stderr == ""


def test_usage_errors_exit_2_with_one_line(cli: Invoke, ws: Path) -> None:
    for args in (["frobnicate"], ["list", "--bogus"], ["-w", str(ws), "--now", "yesterday-ish", "status"]):
        result = cli(*args)
        assert result.exit_code == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and result.stderr.startswith("memcli: error:")
        assert result.stdout == ""


def test_missing_workspace_is_a_usage_error(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("status")
    assert result.exit_code == 2
    assert "no workspace found" in result.stderr and "memcli init" in result.stderr


def test_workspace_from_environment_and_current_folder(
    cli: Invoke, ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert as_json(cli("--json", "status", env={"MEMCLI_WORKSPACE": str(ws)}))["workspace"] == str(ws)
    monkeypatch.chdir(ws)
    assert as_json(cli("--json", "status"))["workspace"] == str(ws)


# --- init --------------------------------------------------------------------------------


def test_init_creates_a_workspace_and_never_overwrites(cli: Invoke, tmp_path: Path) -> None:
    target = tmp_path / "new"
    data = as_json(cli("--json", "init", str(target)))
    assert sorted(data["created"]) == ["MEMORY.md", "memcli.toml", "memory/"]
    config = (target / "memcli.toml").read_text()
    assert tomllib.loads(config) == {} and "# half_life_days = 30.0" in config
    (target / "MEMORY.md").write_text("# mine\n")
    again = as_json(cli("--json", "init", str(target)))
    assert again["created"] == [] and sorted(again["kept"]) == ["MEMORY.md", "memcli.toml", "memory/"]
    assert (target / "MEMORY.md").read_text() == "# mine\n"
    assert as_json(cli("--json", "-w", str(target), "status"))["core"]["chars"] == len("# mine\n")


def test_init_on_an_existing_openclaw_workspace_adds_only_what_is_missing(cli: Invoke, sample: Path) -> None:
    before = tree_bytes(sample)
    data = as_json(cli("--json", "init", str(sample)))
    assert data["created"] == []
    assert tree_bytes(sample) == before


# --- add -----------------------------------------------------------------------------------


def test_add_creates_todays_note_in_the_configured_time_zone(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n')
    # 20:30 UTC on the 30th is already the 31st in Shanghai.
    data = as_json(cli("--json", "-w", str(ws), "--now", "2026-10-30T20:30:00+00:00", "add", "我习惯用 Vim"))
    assert data["file"] == "memory/2026-10-31.md" and data["created"] is True and data["line"] == 3
    assert (ws / "memory" / "2026-10-31.md").read_text() == "# 2026-10-31\n\n- 我习惯用 Vim\n"


def test_add_appends_without_touching_existing_bytes(cli: Invoke, ws: Path) -> None:
    note = ws / "memory" / "2026-10-30.md"
    note.write_bytes(b"# 2026-10-30\r\n\r\n- [ ] \xe8\xaf\x84\xe5\xae\xa1")  # CRLF, no final newline
    before = note.read_bytes()
    data = as_json(
        cli("--json", "-w", str(ws), "--now", "2026-10-30T12:00:00+08:00", "add", "line one\nline two")
    )
    after = note.read_bytes()
    assert after.startswith(before)
    assert after[len(before) :] == b"\r\n- line one\r\n  line two\r\n"
    assert data["line"] == 4 and data["created"] is False


def test_add_reads_stdin_and_sets_markers(cli: Invoke, ws: Path) -> None:
    result = cli(
        "-w",
        str(ws),
        "--now",
        NOW,
        "add",
        "--pin",
        "--importance",
        "8",
        "-",
        input="remember: 发布前先跑测试\n",
    )
    assert result.exit_code == 0, result.stderr
    text = (ws / "memory" / "2026-10-31.md").read_text()
    assert text.endswith("- remember: 发布前先跑测试 #pin <!-- importance: 8 -->\n")
    listed = as_json(cli("--json", "-w", str(ws), "--now", NOW, "list", "--file", "memory/2026-10-31.md"))
    (entry,) = listed["entries"]
    assert entry["pinned"] is True and entry["importance"] == 8


def test_add_rejects_empty_text_and_bad_importance(cli: Invoke, ws: Path) -> None:
    before = tree_bytes(ws)
    assert cli("-w", str(ws), "add", "   ").exit_code == 2
    assert cli("-w", str(ws), "add", "--importance", "11", "x").exit_code == 2
    assert tree_bytes(ws) == before


def test_add_waits_for_the_lock_then_exits_4(cli: Invoke, ws: Path) -> None:
    before = tree_bytes(ws)
    with WorkspaceLock(ws, "gc", timeout=1):
        result = cli("-w", str(ws), "--now", NOW, "add", "x", env={"MEMCLI_LOCK_TIMEOUT_SECONDS": "0.2"})
    assert result.exit_code == 4
    assert "locked by `memcli gc`" in result.stderr and result.stderr.count("\n") == 1
    after = tree_bytes(ws)
    after.pop(".memcli/lock")
    assert after == before


def test_a_lock_left_by_a_dead_holder_is_taken_over(cli: Invoke, ws: Path) -> None:
    (ws / ".memcli").mkdir()
    (ws / ".memcli" / "lock").write_text(
        json.dumps({"pid": 999999, "host": "h", "command": "gc", "since": 1.0})
    )
    result = cli("-w", str(ws), "--now", NOW, "add", "x")
    assert result.exit_code == 0
    assert "took over the lock" in result.stderr and "pid 999999" in result.stderr


def test_add_cleans_temp_files_left_by_a_killed_writer(cli: Invoke, ws: Path) -> None:
    leftover = ws / "memory" / ".2026-10-29.md.999999.deadbeef.memcli-tmp"
    leftover.write_bytes(b"half a file")
    status = as_json(cli("--json", "-w", str(ws), "status"))
    assert status["temp_files"] == ["memory/.2026-10-29.md.999999.deadbeef.memcli-tmp"]
    assert leftover.exists()  # reading never writes
    assert cli("-w", str(ws), "--now", NOW, "add", "x").exit_code == 0
    assert not leftover.exists()


# --- list and status ---------------------------------------------------------------------


def test_list_json_has_the_spec_keys_and_filters(cli: Invoke, ws: Path) -> None:
    data = as_json(cli("list", "--json", "-w", str(ws), "--now", NOW))
    entries = data["entries"]
    assert all(set(e) >= SPEC_ENTRY_KEYS for e in entries)
    assert [(e["file"], e["line"]) for e in entries] == [
        ("MEMORY.md", 5),
        ("MEMORY.md", 6),
        ("memory/2026-10-29.md", 3),
        ("memory/2026-10-29.md", 4),
        ("memory/2026-10-30.md", 3),
    ]
    assert entries[0]["section"] == "# MEMORY.md > ## Preferences"
    assert (
        entries[0]["tier"] == "core" and entries[0]["score"] == 5 and entries[0]["decayed"] == 5
    )  # evergreen
    assert entries[3]["tier"] == "discard" and entries[3]["score"] == -1  # 好的
    assert entries[2]["date"] == "2026-10-29" and entries[2]["time"] == "09:10"
    assert entries[4]["kind"] == "task" and entries[4]["done"] is False
    since = as_json(cli("list", "--json", "-w", str(ws), "--since", "2026-10-30"))["entries"]
    assert [e["file"] for e in since] == ["memory/2026-10-30.md"]
    until = as_json(cli("list", "--json", "-w", str(ws), "--until", "2026-10-29"))["entries"]
    assert [e["line"] for e in until] == [3, 4]
    one = as_json(cli("list", "--json", "-w", str(ws), "--file", "memory/2026-10-3*"))["entries"]
    assert [e["file"] for e in one] == ["memory/2026-10-30.md"]
    assert cli("list", "-w", str(ws), "--since", "last week").exit_code == 2


def test_list_plain_output_when_piped(cli: Invoke, ws: Path) -> None:
    result = cli("list", "-w", str(ws))
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["id", "place", "date", "tier", "score", "decayed", "days", "text"]
    assert any(
        "memory/2026-10-29.md:3" in line and "deployed atlas-api on port 8080" in line for line in lines
    )
    assert "5 entries" in result.stderr


def test_status_reports_roles_budget_and_bad_names(cli: Invoke, ws: Path) -> None:
    (ws / "memory" / "2026-13-01.md").write_text("- x\n")
    (ws / "SOUL.md").write_text("# soul\n")
    data = as_json(cli("--json", "-w", str(ws), "status"))
    assert data["roles"]["core"]["entries"] == 2 and data["roles"]["daily"]["files"] == 2
    assert data["core"]["budget"] == 12_000 and data["core"]["over"] is False
    assert data["bootstrap"] == [{"file": "SOUL.md", "chars": 7}]
    assert data["bad_names"] == [{"file": "memory/2026-13-01.md", "reason": "2026-13-01 is not a real date"}]
    (ws / "memcli.toml").write_text("core_max_chars = 50\n")
    data = as_json(cli("--json", "-w", str(ws), "status"))
    assert data["core"]["over"] is True
    text = cli("-w", str(ws), "status").stdout
    assert "OVER BUDGET" in text and "2026-13-01" in text


def test_reading_commands_leave_every_file_untouched(cli: Invoke, sample: Path) -> None:
    before = tree_state(sample)
    for args in (["status"], ["list"], ["--json", "list"], ["--json", "status"]):
        assert cli("-w", str(sample), "--now", NOW, *args).exit_code == 0
    assert tree_state(sample) == before
    assert not (sample / ".memcli").exists()


# --- bad input: one line, exit 3 (4 for a lock), nothing written ------------------------


def _assert_refused(cli: Invoke, ws: Path, args: list[str], code: int, needle: str) -> None:
    before = tree_state(ws)
    result = cli("-w", str(ws), "--now", NOW, *args)
    assert result.exit_code == code, (result.exit_code, result.stderr)
    assert result.stderr.count("\n") == 1 and needle in result.stderr, result.stderr
    assert result.stdout == ""
    assert tree_state(ws) == before


@pytest.mark.parametrize("command", [["status"], ["list"], ["add", "x"]])
def test_invalid_utf8_in_a_daily_note(cli: Invoke, ws: Path, command: list[str]) -> None:
    (ws / "memory" / "2026-10-31.md").write_bytes(b"# 2026-10-31\n\n- caf\xe9\n")
    _assert_refused(cli, ws, command, 3, "memory/2026-10-31.md: invalid UTF-8 at byte 19 (line 3)")


@pytest.mark.parametrize("command", [["status"], ["list"]])
def test_binary_file_named_md(cli: Invoke, ws: Path, command: list[str]) -> None:
    (ws / "memory" / "photo.md").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    _assert_refused(cli, ws, command, 3, "memory/photo.md looks binary")


def test_a_50_mb_note(cli: Invoke, ws: Path) -> None:
    with (ws / "memory" / "2026-10-28.md").open("wb") as f:
        f.write(b"- " + b"x" * (50 * 1000 * 1000) + b"\n")
    _assert_refused(cli, ws, ["list"], 3, "memory/2026-10-28.md is 50.0 MB, over the limit")


@pytest.mark.parametrize("command", [["list"], ["add", "x"]])
def test_a_symlink_pointing_outside_the_workspace(
    cli: Invoke, ws: Path, tmp_path: Path, command: list[str]
) -> None:
    outside = tmp_path / "elsewhere.md"
    outside.write_text("- private\n")
    (ws / "memory" / "2026-10-31.md").symlink_to(outside)
    _assert_refused(cli, ws, command, 3, "outside the workspace")
    assert outside.read_text() == "- private\n"


def test_a_read_only_workspace(cli: Invoke, ws: Path) -> None:
    for path in (ws, ws / "memory"):
        os.chmod(path, 0o555)
    try:
        _assert_refused(cli, ws, ["add", "x"], 3, "read-only")
        os.chmod(ws, 0o755)
        _assert_refused(cli, ws, ["add", "x"], 3, "memory is read-only")
    finally:
        for path in (ws, ws / "memory"):
            os.chmod(path, 0o755)


def test_a_malformed_config(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_text("half_life_days = [\n")
    _assert_refused(cli, ws, ["status"], 3, "memcli.toml is not valid TOML")


def test_an_unknown_config_key(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_text("half_life_dayz = 3\n")
    _assert_refused(cli, ws, ["add", "x"], 3, "unknown setting half_life_dayz")


def test_a_missing_config_file(cli: Invoke, ws: Path, tmp_path: Path) -> None:
    _assert_refused(cli, ws, ["--config", str(tmp_path / "nope.toml"), "status"], 3, "does not exist")


# --- real workspaces -------------------------------------------------------------------------


@pytest.mark.parametrize("workspace", corpus_workspaces(), ids=lambda p: p.name)
def test_status_and_list_on_each_corpus_workspace(cli: Invoke, workspace: Path, tmp_path: Path) -> None:
    copy = copy_tree(workspace, tmp_path / workspace.name)
    before = tree_state(copy)
    status = as_json(cli("--json", "-w", str(copy), "--now", NOW, "status"))
    listed = as_json(cli("--json", "-w", str(copy), "--now", NOW, "list"))
    memory_roles = ("core", "daily", "daily-with-slug", "other")
    assert len(listed["entries"]) > 100
    assert len(listed["entries"]) <= sum(status["roles"].get(r, {}).get("entries", 0) for r in memory_roles)
    assert all(set(e) >= SPEC_ENTRY_KEYS for e in listed["entries"])
    assert tree_state(copy) == before


def test_status_and_list_on_the_sample_workspace(cli: Invoke, sample: Path) -> None:
    status = as_json(cli("--json", "-w", str(sample), "--now", NOW, "status"))
    assert status["roles"]["daily"]["files"] == 55
    assert status["roles"]["daily-with-slug"]["files"] == 1
    assert status["core"]["over"] is False
    assert status["bad_names"] == []
    listed = as_json(cli("--json", "-w", str(sample), "--now", NOW, "list"))["entries"]
    assert len(listed) > 500
    assert {e["file"] for e in listed} >= {
        "MEMORY.md",
        "memory/2026-09-23.md",
        "memory/2026-10-12-release-retro.md",
    }


# --- the installed entry points ----------------------------------------------------------------


def test_python_dash_m_memcli_runs_and_exits_with_the_error_code(ws: Path) -> None:
    ok = subprocess.run(
        [sys.executable, "-m", "memcli", "--json", "-w", str(ws), "status"], capture_output=True
    )
    assert ok.returncode == 0 and json.loads(ok.stdout)["workspace"] == str(ws)
    (ws / "memcli.toml").write_text("nope = 1\n")
    bad = subprocess.run(
        [sys.executable, "-m", "memcli", "-w", str(ws), "status"], capture_output=True, text=True
    )
    assert bad.returncode == 3 and bad.stderr.count("\n") == 1


HEAVY = ("rich", "rapidfuzz", "jinja2", "watchdog", "sqlite3", "frontmatter", "yaml", "hypothesis")
HEAVY_OWN = ("memcli.core", "memcli.workspace", "memcli.config", "memcli.runtime")


def test_help_imports_no_heavy_module() -> None:
    code = (
        "import sys\n"
        "from memcli.cli.app import app\n"
        "try:\n    app(['--help'])\nexcept SystemExit:\n    pass\n"
        f"print([m for m in sys.modules if m.split('.')[0] in {HEAVY!r} or m.startswith({HEAVY_OWN!r})])\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_json_documents_with_long_lists_stay_one_valid_document() -> None:
    from memcli.cli.output import BIG_LIST, json_chunks

    def json_document(data: object) -> str:
        return "".join(json_chunks(data))

    small = {"a": [1, 2], "b": {"c": "中文"}}
    big = {
        "query": "x",
        "entries": [{"n": i, "t": "周会 ok"} for i in range(BIG_LIST + 1)],
        "meta": {"k": [1]},
    }
    assert json.loads(json_document(small)) == small and json_document(small).endswith("}\n")
    text = json_document(big)
    assert json.loads(text) == big
    assert '\n    {"n": 0, "t": "周会 ok"},\n' in text  # one compact line per item
    assert text.count("\n") == BIG_LIST + 11  # the item lines, and the rest indented as before


@pytest.mark.parametrize("command", [["check"], ["status"], ["context", "--budget", "500"], ["doctor"]])
def test_a_short_command_does_not_import_the_planner(cli: Invoke, sample: Path, command: list[str]) -> None:
    """The pre-commit hook's `check`, `status`, the `context` an agent reads at the start of
    a session and `doctor` start in a fraction of gc's time: they import neither the
    planner nor its judgements (PLANNER_MODULES), even when the note cache rebuilds the
    notes they read."""
    (sample / ".memcli").mkdir()  # (a dry run then leaves the note cache they rebuild notes from)
    assert cli("-w", str(sample), "--now", NOW, "gc", "--dry-run").exit_code == 0
    assert (sample / ".memcli" / "cache.sqlite").exists()
    args = ["-w", str(sample), "--now", NOW, "-q", *command]
    code, imported = planner_modules_imported(args)
    assert imported == [] and code in (0, 1)  # (doctor: 1 when something needs action)
    # (the probe sees an import when there is one)
    assert "memcli.core.lifecycle" in planner_modules_imported(args, "import memcli.services")[1]
