"""The search fast path (memcli.quick, issue 20): the full command line's output, byte for
byte, from the index alone; and never an answer from an index that misses a change."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import NOW, Invoke
from memcli import quick
from memcli.config import CONFIG_NAME, ENV_OPTIONS
from memcli.core import roles
from memcli.workspace import index as index_module
from memcli.workspace import layout

QUERIES = ("周会", "时区", "port 8080", "pnpm", "Asia/Shanghai", "会", "nosuchwordanywhere")


def full(cli: Invoke, root: Path, *args: str) -> str:
    result = cli("-w", str(root), "--now", NOW, *args)
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return str(result.stdout)


def fast(root: Path, *args: str) -> str | None:
    return quick.answer(["-w", str(root), "--now", NOW, *args])


def test_the_constants_it_stands_in_for() -> None:
    assert quick.SCHEMA == index_module.SCHEMA and quick.INDEX_NAME == index_module.INDEX_NAME
    assert quick.STATE_DIR == roles.STATE_DIR and quick.CORE_NAMES == roles.CORE_NAMES
    assert quick.WORKSPACE_SIGNS == layout.WORKSPACE_SIGNS and quick.CONFIG_NAME == CONFIG_NAME
    assert quick.ENV_OPTIONS == ENV_OPTIONS and quick.ROUTINE == index_module.ROUTINE
    assert quick.MENTION_ROLES == index_module.MENTION_ROLES
    from memcli import recall
    from memcli.cli import output, search
    from memcli.workspace import fingerprint

    assert quick.CANDIDATES == recall.CANDIDATES and quick.HIT_INDENT == search.HIT_INDENT
    assert quick.BIG_LIST == output.BIG_LIST and fingerprint.MEMORY_DIR == roles.MEMORY_DIR


def test_same_bytes_as_the_full_command_line(cli: Invoke, sample: Path) -> None:
    assert fast(sample, "search", "pnpm") is None  # no index yet: the full path builds it
    full(cli, sample, "search", "pnpm")
    for query in QUERIES:
        for extra in ((), ("-n", "3"), ("--limit=12",)):
            text = full(cli, sample, "search", query, *extra)
            if text:  # nothing found is said on stderr, by the full path
                assert fast(sample, "search", query, *extra) == text, query
            as_json = full(cli, sample, "--json", "search", query, *extra)
            assert json.loads(as_json)["reindexed"] == []
            assert fast(sample, "search", query, "--json", *extra) == as_json, query


def test_global_options_after_the_command_and_quiet(cli: Invoke, sample: Path) -> None:
    full(cli, sample, "search", "pnpm")  # the index built
    expected = full(cli, sample, "--json", "search", "周会")
    assert quick.answer(["search", "周会", "-q", "--json", "-w", str(sample), f"--now={NOW}"]) == expected


def test_a_note_appended_in_place_is_found_by_the_next_search(cli: Invoke, sample: Path) -> None:
    full(cli, sample, "--json", "search", "pnpm")
    note = sorted((sample / "memory").glob("20*.md"))[0]
    folder_mtime = os.stat(note.parent).st_mtime_ns
    with note.open("a", encoding="utf-8") as f:  # as OpenClaw writes: in place, no rename
        f.write("\n- zanzibarquokka moved to port 9191\n")
    assert os.stat(note.parent).st_mtime_ns == folder_mtime  # the folder did not change
    assert fast(sample, "--json", "search", "zanzibarquokka") is None  # stale: the full path runs
    found = json.loads(full(cli, sample, "--json", "search", "zanzibarquokka"))
    assert [h["file"] for h in found["hits"]] == [f"memory/{note.name}"]
    again = fast(sample, "--json", "search", "zanzibarquokka")
    assert again is not None and json.loads(again)["hits"] == found["hits"]


def test_what_it_leaves_to_the_full_command_line(cli: Invoke, sample: Path) -> None:
    full(cli, sample, "search", "pnpm")
    assert fast(sample, "search", "pnpm") is not None
    for args in (
        ("-v", "search", "pnpm"),
        ("search", "pnpm", "--help"),
        ("--config", str(sample / "memcli.toml"), "search", "pnpm"),
        ("status",),
        ("search",),
        ("search", "pnpm", "extra"),
        ("search", "pnpm", "-n", "0"),
        ("search", "pnpm", "-n", "x"),
        ("search", "pnpm", "-n", "500"),
    ):
        assert fast(sample, *args) is None, args
    assert fast(sample, "search", "nosuchwordanywhere") is None  # said on stderr
    (sample / "memcli.toml").write_text('timezone = "Europe/Paris"\n', encoding="utf-8")
    assert fast(sample, "search", "pnpm") is None  # a configuration the index has not seen
    assert fast(sample, "--json", "search", "pnpm") is None


def test_a_new_hit_under_json_waits_for_the_full_path(cli: Invoke, sample: Path) -> None:
    full(cli, sample, "search", "pnpm")
    assert fast(sample, "search", "周会") is not None  # ranking needs nothing more
    assert fast(sample, "--json", "search", "周会") is None  # the hits' scores are not known yet
    expected = full(cli, sample, "--json", "search", "周会")
    assert fast(sample, "--json", "search", "周会") == expected


def test_the_console_script_answers_without_the_command_line(cli: Invoke, sample: Path) -> None:
    full(cli, sample, "search", "pnpm")
    expected = full(cli, sample, "--json", "search", "周会")
    probe = (
        "import sys; from memcli.quick import main; code = main(sys.argv[1:]); "
        "sys.stderr.write(repr((code, sorted(m for m in ('typer', 'rich', 'jinja2', 'memcli.cli.app') "
        "if m in sys.modules))))"
    )
    args = ["-w", str(sample), "--now", NOW, "--json", "search", "周会"]
    done = subprocess.run([sys.executable, "-c", probe, *args], capture_output=True, text=True, check=True)
    assert done.stdout == expected and done.stderr == "(0, [])"
    whole = subprocess.run(
        [sys.executable, "-m", "memcli", *args], capture_output=True, text=True, check=True
    )
    assert whole.stdout == expected
