"""Ways a user's bytes could be lost or silently changed, each shut (review of the foundation)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import NOW, Invoke, as_json, tree_bytes, tree_state
from memcli.errors import DataError
from memcli.workspace.files import (
    CARRY_DIR,
    append_bytes,
    atomic_write,
    read_state,
    recover_carried,
    remove_stale_temp_files,
    settle_carried,
)
from memcli.workspace.layout import scan

MAX = 10 << 20


def test_a_symlinked_lock_file_is_refused_and_its_target_kept(cli: Invoke, ws: Path) -> None:
    (ws / ".memcli").mkdir()
    (ws / ".memcli" / "lock").symlink_to(ws / "MEMORY.md")
    before = (ws / "MEMORY.md").read_bytes()
    result = cli("-w", str(ws), "--now", NOW, "add", "y")
    assert result.exit_code == 3 and "lock" in result.stderr
    assert (ws / "MEMORY.md").read_bytes() == before


KILL_AFTER_REPLACE = """
import os, signal, sys
from pathlib import Path
from memcli.workspace import files
root = Path(sys.argv[1]); target = root / "memory" / "2026-10-29.md"
state = files.read_state(target, root, 1 << 20)
def agent_appends(temp, target):
    with open(target, "ab") as f:
        f.write(b"- appended during the rename\\n")
files.before_replace = agent_appends
files.after_replace = lambda target: os.kill(os.getpid(), signal.SIGKILL)
files.atomic_write(target, b"# rewritten\\n", root, state)
"""


def test_lines_appended_during_the_rename_survive_a_kill_right_after_it(cli: Invoke, ws: Path) -> None:
    note = ws / "memory" / "2026-10-29.md"
    proc = subprocess.run([sys.executable, "-c", KILL_AFTER_REPLACE, str(ws)], capture_output=True)
    assert proc.returncode == -9
    assert note.read_bytes() == b"# rewritten\n"  # the late line is only in the kept old file
    assert list((ws / CARRY_DIR).glob("*.json"))
    assert cli("-w", str(ws), "--now", NOW, "add", "next").exit_code == 0
    assert note.read_bytes() == b"# rewritten\n- appended during the rename\n"
    assert list((ws / CARRY_DIR).iterdir()) == []


def test_recovery_does_not_duplicate_lines_already_carried(ws: Path) -> None:
    note = ws / "memory" / "2026-10-29.md"
    carry = ws / CARRY_DIR
    carry.mkdir(parents=True)
    old = carry / "999999.abcd0123.old"
    old.write_bytes(b"old\n- late\n")
    note.write_bytes(b"new\n- late\n")
    # a run killed after it appended the late line, before it removed its record: the record
    # says what it was appending, and where
    carrying = {"from": 4, "length": 7, "at": 4, "inode": note.stat().st_ino}
    record = {"target": "memory/2026-10-29.md", "offset": 4, "carrying": carrying}
    (carry / "999999.abcd0123.json").write_text(json.dumps(record))
    assert recover_carried(ws) == []
    assert note.read_bytes() == b"new\n- late\n"
    assert list(carry.iterdir()) == []


def test_a_file_a_kill_left_unreplaced_is_not_carried_onto_itself(ws: Path) -> None:
    """Killed after its carry record was written but before the rename: the kept link is
    the file itself, which the agent went on appending to; nothing is carried (it doubled
    the lines appended since the read)."""
    note = ws / "memory" / "2026-10-29.md"
    carry = ws / CARRY_DIR
    carry.mkdir(parents=True)
    os.link(note, carry / "999999.abcd0123.old")
    record = {"target": "memory/2026-10-29.md", "offset": note.stat().st_size}
    (carry / "999999.abcd0123.json").write_text(json.dumps(record))
    with open(note, "ab") as f:
        f.write(b"- appended after memcli read the note\n")
    before = note.read_bytes()
    assert recover_carried(ws) == []
    assert note.read_bytes() == before
    assert list(carry.iterdir()) == []


def test_a_successful_write_leaves_no_carry_behind_once_settled(ws: Path) -> None:
    note = ws / "memory" / "2026-10-29.md"
    atomic_write(note, b"x\n", ws, read_state(note, ws, MAX))
    assert list((ws / CARRY_DIR).glob("*.old"))  # the replaced file, reachable until settled
    settle_carried(ws)
    assert list((ws / CARRY_DIR).iterdir()) == []


TORN_APPEND = """
import resource, signal, sys
from pathlib import Path
from memcli.workspace.files import append_bytes
path = Path(sys.argv[1])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
size = path.stat().st_size
resource.setrlimit(resource.RLIMIT_FSIZE, (size + 3, size + 3))
try:
    append_bytes(path, "- 我的新条目\\n".encode())
except OSError as exc:
    print("refused", exc.errno)
"""


def test_a_torn_append_is_taken_back(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_bytes(b"- one\n")
    proc = subprocess.run([sys.executable, "-c", TORN_APPEND, str(path)], capture_output=True, text=True)
    assert proc.stdout.startswith("refused"), proc.stderr
    assert path.read_bytes() == b"- one\n"


def test_append_bytes_appends_everything(tmp_path: Path) -> None:
    path = tmp_path / "note.md"
    path.write_bytes(b"- one\n")
    append_bytes(path, b"- two\n")
    assert path.read_bytes() == b"- one\n- two\n"


def test_add_refuses_control_characters_and_growth_past_the_limit(cli: Invoke, ws: Path) -> None:
    before = tree_state(ws)
    result = cli("-w", str(ws), "--now", NOW, "add", "-", input="a\x00b")
    assert result.exit_code == 2 and "control character" in result.stderr
    (ws / "memory" / "2026-10-31.md").write_text("# 2026-10-31\n\n- x\n")
    before = tree_state(ws)
    result = cli("-w", str(ws), "--now", NOW, "add", "y" * 200, env={"MEMCLI_MAX_FILE_BYTES": "100"})
    assert result.exit_code == 3 and "would grow over max_file_bytes" in result.stderr
    assert tree_state(ws) == before


def test_add_text_never_merges_into_the_previous_entry(cli: Invoke, ws: Path) -> None:
    note = ws / "memory" / "2026-10-31.md"
    note.write_text("# 2026-10-31\n\n- a\n")
    data = as_json(cli("--json", "-w", str(ws), "--now", NOW, "add", "    - nested?"))
    assert note.read_text() == "# 2026-10-31\n\n- a\n- nested?\n"
    assert data["line"] == 4 and data["text"] == "- nested?"
    listed = as_json(cli("--json", "-w", str(ws), "--now", NOW, "list", "--file", "memory/2026-10-31.md"))
    assert [e["text"] for e in listed["entries"]] == ["- a", "- nested?"]


def test_add_after_a_lazy_paragraph_uses_a_blank_line(cli: Invoke, ws: Path) -> None:
    note = ws / "memory" / "2026-10-31.md"
    note.write_text("# 2026-10-31\n\n> quoted\n")
    data = as_json(cli("--json", "-w", str(ws), "--now", NOW, "add", "plain"))
    text = note.read_text()
    assert text.startswith("# 2026-10-31\n\n> quoted\n") and text.endswith("- plain\n")
    listed = as_json(cli("--json", "-w", str(ws), "--now", NOW, "list", "--file", "memory/2026-10-31.md"))
    assert listed["entries"][-1]["text"] == "- plain" and listed["entries"][-1]["line"] == data["line"]


@pytest.mark.parametrize("tail", ["```bash\nls\n", "<!-- open comment\n"])
def test_add_refuses_a_note_that_ends_inside_a_block(cli: Invoke, ws: Path, tail: str) -> None:
    note = ws / "memory" / "2026-10-31.md"
    note.write_text("# 2026-10-31\n\n" + tail)
    before = tree_state(ws)
    result = cli("-w", str(ws), "--now", NOW, "add", "x")
    assert result.exit_code == 3 and "unclosed" in result.stderr
    assert tree_state(ws) == before


@pytest.mark.parametrize("command", [["status"], ["add", "x"]])
def test_a_conflict_marked_note_is_refused(cli: Invoke, ws: Path, command: list[str]) -> None:
    (ws / "memory" / "2026-10-31.md").write_text("# t\n\n<<<<<<< HEAD\n- a\n=======\n- b\n>>>>>>> other\n")
    before = tree_state(ws)
    result = cli("-w", str(ws), "--now", NOW, *command)
    assert result.exit_code == 3 and "merge conflict at line 3" in result.stderr
    assert tree_state(ws) == before


@pytest.mark.parametrize(
    ("setting", "env"),
    [
        ("max_removal_share = nan\n", {}),
        ("lock_timeout_seconds = inf\n", {}),
        ("", {"MEMCLI_HALF_LIFE_DAYS": "1e999"}),
    ],
)
def test_infinite_and_nan_settings_are_refused(
    cli: Invoke, ws: Path, setting: str, env: dict[str, str]
) -> None:
    (ws / "memcli.toml").write_text(setting)
    result = cli("-w", str(ws), "status", env=env)
    assert result.exit_code == 3 and "finite" in result.stderr


def test_a_bad_environment_value_names_the_variable(cli: Invoke, ws: Path) -> None:
    result = cli("-w", str(ws), "status", env={"MEMCLI_CORE_MAX_CHARS": "0"})
    assert result.exit_code == 3 and "MEMCLI_CORE_MAX_CHARS must be at least 1" in result.stderr


def test_a_config_with_a_bom_is_read(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_bytes("\ufeffcore_max_chars = 50\n".encode())
    assert as_json(cli("--json", "-w", str(ws), "status"))["core"]["budget"] == 50


def test_the_host_time_zone_follows_summer_time(ws: Path) -> None:
    env = {**os.environ, "TZ": "Europe/Berlin"}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "memcli",
            "--json",
            "-w",
            str(ws),
            "--now",
            "2026-07-01T22:30+00:00",
            "status",
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["today"] == "2026-07-02"  # 00:30 CEST


def test_text_that_is_not_utf8_and_dates_out_of_range_are_usage_errors(cli: Invoke, ws: Path) -> None:
    before = tree_state(ws)
    result = cli("-w", str(ws), "--now", NOW, "add", "caf\udce9")
    assert result.exit_code == 2 and "not valid UTF-8" in result.stderr
    for moment in ("0001-01-01T00:00+01:00", "9999-12-31T23:59-10:00"):
        result = cli("-w", str(ws), "--now", moment, "status")
        assert result.exit_code == 2 and result.stdout == "", result.stderr
    result = cli("-w", str(ws), "status", env={"MEMCLI_NOW": "soon"})
    assert result.exit_code == 2 and "MEMCLI_NOW" in result.stderr
    assert tree_state(ws) == before


def test_dangling_links_are_reported_and_bootstrap_links_out_are_read(
    cli: Invoke, ws: Path, tmp_path: Path
) -> None:
    (ws / "memory" / "2026-10-01.md").symlink_to(ws / "memory" / "missing.md")
    shared = tmp_path / "shared-agents.md"
    shared.write_text("# shared agents\n")
    (ws / "AGENTS.md").symlink_to(shared)
    data = as_json(cli("--json", "-w", str(ws), "status"))
    assert data["bad_names"] == [
        {
            "file": "memory/2026-10-01.md",
            "reason": f"a dangling symlink (to {ws / 'memory' / 'missing.md'}); remove or fix it",
        }
    ]
    assert data["bootstrap"] == [{"file": "AGENTS.md", "chars": len("# shared agents\n")}]


def test_writing_identical_bytes_changes_nothing(ws: Path) -> None:
    note = ws / "memory" / "2026-10-29.md"
    before = os.stat(note)
    atomic_write(note, note.read_bytes(), ws, read_state(note, ws, MAX))
    after = os.stat(note)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert not (ws / ".memcli").exists()


def test_a_hard_linked_note_is_not_split(ws: Path) -> None:
    note = ws / "memory" / "2026-10-29.md"
    os.link(note, ws / "memory" / "alias.md")
    with pytest.raises(DataError, match="hard links"):
        atomic_write(note, b"x\n", ws, read_state(note, ws, MAX))
    assert note.read_bytes() == (ws / "memory" / "alias.md").read_bytes() != b"x\n"


def test_temp_cleanup_removes_only_memclis_own_files_of_dead_writers(ws: Path) -> None:
    mine_dead = ws / "memory" / ".2026-10-29.md.999999.0badc0de.memcli-tmp"
    foreign = ws / "memory" / "backup.memcli-tmp"
    no_pid = ws / "memory" / ".x.md.notapid.0badc0de.memcli-tmp"
    mine_alive = ws / "memory" / f".x.md.{os.getppid()}.0badc0de.memcli-tmp"
    for path in (mine_dead, foreign, no_pid, mine_alive):
        path.write_bytes(b"data")
    removed = remove_stale_temp_files(ws, scan(ws).temp_files)
    assert removed == ["memory/.2026-10-29.md.999999.0badc0de.memcli-tmp"]
    assert foreign.exists() and no_pid.exists() and mine_alive.exists()


def test_a_refused_add_creates_nothing(cli: Invoke, ws: Path) -> None:
    (ws / "memory" / "2026-10-31.md").write_bytes(b"- caf\xe9\n")
    leftover = ws / "memory" / ".2026-10-29.md.999999.0badc0de.memcli-tmp"
    leftover.write_bytes(b"x")
    before = tree_bytes(ws)
    assert cli("-w", str(ws), "--now", NOW, "add", "x").exit_code == 3
    assert tree_bytes(ws) == before


def test_init_keeps_a_dangling_memory_link_and_changes_nothing_else(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "w"
    root.mkdir()
    (root / "MEMORY.md").symlink_to(root / "elsewhere.md")
    data = as_json(cli("--json", "init", str(root)))
    assert "MEMORY.md" in data["kept"]
    assert (root / "MEMORY.md").is_symlink() and not (root / "elsewhere.md").exists()
