"""What a person sees: each screen rendered in a real terminal (a pseudo-terminal of 80 and
160 columns) on sample-workspace/, every line within the width, no cell cut, every text
whole; colour on a terminal and never in a pipe; a long diff through the pager."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from fcntl import ioctl
from pathlib import Path

import pytest

from conftest import NOW, SAMPLE, Invoke, as_json, copy_tree
from memcli.cli.gc import SHOWN_PER_KIND, plan_lines
from memcli.cli.layout import Column, display_width, plan_table, render_table, row_lines, wrap
from memcli.core.lifecycle import Action

ANSI = re.compile(r"\x1b\[[0-9;]*m")
WIDTHS = (80, 160)
READABLE = 20  # no wrapped text column is narrower than this


def in_terminal(
    root: Path, args: list[str], columns: int, lines: int = 200, env: dict[str, str | None] | None = None
) -> tuple[str, str, int]:
    """memcli run with its stdout on a pseudo-terminal of `columns` x `lines`: (what the
    terminal shows, stderr, exit code). `env` adds variables (None: removes one)."""
    master, slave = pty.openpty()
    ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
    wanted: dict[str, str | None] = {
        "COLUMNS": str(columns),
        "LINES": str(lines),
        "TERM": "xterm-256color",
        "MEMCLI_PAGER": "cat",
        "PAGER": None,
        "NO_COLOR": None,
        **(env or {}),
    }
    settings = {k: v for k, v in os.environ.items() if k not in wanted}
    settings.update({k: v for k, v in wanted.items() if v is not None})
    proc = subprocess.Popen(
        [sys.executable, "-m", "memcli", "-w", str(root), "--now", NOW, *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=subprocess.PIPE,
        env=settings,
    )
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 1.0)
        if not ready:
            if proc.poll() is not None:
                break
            continue
        try:
            data = os.read(master, 65536)
        except OSError:  # the other end closed
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    _, err = proc.communicate(timeout=60)
    shown = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
    return shown, err.decode("utf-8"), proc.returncode


def plain(text: str) -> str:
    return ANSI.sub("", text)


def squeeze(text: str) -> str:
    """Text without any white space: what survives wrapping at any width."""
    return re.sub(r"\s+", "", text)


def within(screen: str, width: int) -> None:
    for line in plain(screen).splitlines():
        assert display_width(line) <= width, (width, line)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = copy_tree(SAMPLE, tmp_path_factory.mktemp("screens") / "sample")
    shutil.rmtree(root / ".memcli", ignore_errors=True)
    yield root


def json_of(root: Path, *args: str) -> dict[str, object]:
    run = subprocess.run(
        [sys.executable, "-m", "memcli", "-w", str(root), "--now", NOW, "--json", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    data: dict[str, object] = json.loads(run.stdout)
    return data


# --- the screens, at 80 and 160 columns -----------------------------------------------------


@pytest.mark.parametrize("columns", WIDTHS)
def test_gc_plan_is_one_action_a_line_with_its_text_whole(workspace: Path, columns: int) -> None:
    screen, err, code = in_terminal(workspace, ["gc", "--dry-run"], columns)
    assert code == 0, err
    within(screen, columns)
    text = plain(screen)
    plan = json_of(workspace, "gc", "--dry-run")
    actions = plan["actions"]
    assert isinstance(actions, list)
    counts: dict[str, int] = {}
    for a in actions:
        counts[a["action"]] = counts.get(a["action"], 0) + 1
    for kind, n in counts.items():  # grouped, with counts
        assert f"\n{kind} ({n})\n" in "\n" + text
    seen: dict[str, int] = {}
    flat = squeeze(text)
    for a in actions:
        seen[a["action"]] = seen.get(a["action"], 0) + 1
        if seen[a["action"]] > SHOWN_PER_KIND:
            continue
        place = a["files"][0] if a.get("files") else a["from"]  # a note archived whole: its name
        assert squeeze(f"{a['action']} {place}") in flat, a
        assert squeeze(a["reason"]) in flat, a["reason"]
        if a.get("text"):
            assert squeeze(a["text"]) in flat, a["text"]  # whole, never cut
    assert "…" not in text.replace("… and", "")
    if columns == 160:  # a plan line fits on one line when the screen is wide enough
        assert any(line.startswith("  archive    memory/2026-09-01.md → ") for line in text.splitlines())


@pytest.mark.parametrize("columns", WIDTHS)
def test_status_keeps_its_numbers_whole(workspace: Path, columns: int) -> None:
    screen, err, code = in_terminal(workspace, ["status"], columns)
    assert code == 0, err
    within(screen, columns)
    text = plain(screen)
    data = json_of(workspace, "status")
    roles = data["roles"]
    assert isinstance(roles, dict)
    for figures in roles.values():
        for key in ("files", "entries", "chars", "tokens"):
            assert re.search(rf"(?<![\d,]){figures[key]:,}(?![\d,])", text), (key, figures)
    sessions = data["sessions"]
    assert isinstance(sessions, list) and sessions
    flat = squeeze(text)
    table = text[text.index("\nsession ") + 1 :].splitlines()
    keys = squeeze("".join(line[: table[0].index("tokens")] for line in table))  # the first column
    for s in sessions:
        for key in ("tokens", "flush_threshold", "compactions"):
            assert re.search(rf"(?<![\d,]){s[key]:,}(?![\d,])", text), (key, s)
        assert squeeze(s["session"]) in keys and squeeze(s["why"]) in flat
    if columns == 160:
        assert "window" in text and "200,000" in text
    else:
        assert "window left out at 80 columns" in err
    assert "…" not in text


@pytest.mark.parametrize("columns", WIDTHS)
def test_list_shows_ids_places_and_whole_texts(workspace: Path, columns: int) -> None:
    screen, err, code = in_terminal(workspace, ["list", "--since", "2026-10-20"], columns)
    assert code == 0, err
    within(screen, columns)
    text = plain(screen)
    assert text.splitlines()[0].split()[:2] == ["id", "place"]
    entries = json_of(workspace, "list", "--since", "2026-10-20")["entries"]
    assert isinstance(entries, list) and entries
    flat = squeeze(text)
    for e in entries:
        place = f"{e['file']}:{e['line']}"  # never wrapped at these widths
        assert any(x.startswith(e["id"] + " ") and f" {place} " in x for x in text.splitlines()), place
        body = re.sub(r"^\s*(?:[-*+] (?:\[[ xX]\] )?)?", "", e["text"].splitlines()[0])
        assert squeeze(body) in flat
    assert "…" not in text


@pytest.mark.parametrize("columns", WIDTHS)
def test_search_hits_are_whole(workspace: Path, columns: int) -> None:
    screen, err, code = in_terminal(workspace, ["search", "周会"], columns)
    assert code == 0, err
    within(screen, columns)
    hits = json_of(workspace, "search", "周会")["hits"]
    assert isinstance(hits, list) and hits
    flat = squeeze(plain(screen))
    for h in hits:
        assert squeeze(f"{h['file']}:{h['line']}") in flat
        assert squeeze(" ".join(h["text"].split())) in flat


@pytest.mark.parametrize("columns", WIDTHS)
def test_diff_on_a_terminal_is_the_diff_coloured(workspace: Path, columns: int) -> None:
    screen, err, code = in_terminal(workspace, ["gc", "--dry-run", "--diff"], columns)
    assert code == 0, err
    diff = json_of(workspace, "gc", "--dry-run", "--diff")["diff"]
    assert plain(screen) == diff
    assert "\x1b[32m+" in screen and "\x1b[31m-" in screen and "\x1b[36m@@" in screen


# --- colour ---------------------------------------------------------------------------------


def test_colour_on_a_terminal_and_never_in_a_pipe(workspace: Path, cli: Invoke) -> None:
    screen, _, _ = in_terminal(workspace, ["gc", "--dry-run"], 120)
    assert "\x1b[" in screen
    for env in ({"NO_COLOR": "1"}, {"TERM": "dumb"}):
        quiet, _, _ = in_terminal(workspace, ["gc", "--dry-run"], 120, env=env)
        assert "\x1b[" not in quiet and plain(screen) == quiet
    never, _, _ = in_terminal(workspace, ["--color", "never", "gc", "--dry-run"], 120)
    assert "\x1b[" not in never
    piped = cli("-w", str(workspace), "--now", NOW, "gc", "--dry-run")
    assert piped.exit_code == 0 and "\x1b[" not in piped.stdout
    forced = cli("-w", str(workspace), "--now", NOW, "gc", "--dry-run", "--color", "always")
    assert "\x1b[" in forced.stdout and plain(forced.stdout) == piped.stdout
    diff = cli("-w", str(workspace), "--now", NOW, "gc", "--diff", "--color=always")
    assert "\x1b[32m+" in diff.stdout
    data = cli("-w", str(workspace), "--now", NOW, "--json", "--color", "always", "gc", "--dry-run")
    assert "\x1b[" not in data.stdout and json.loads(data.stdout)["actions"]  # JSON stays JSON


def test_a_pipe_gets_every_text_on_its_line(workspace: Path, cli: Invoke) -> None:
    result = cli("-w", str(workspace), "--now", NOW, "list")
    entries = as_json(cli("-w", str(workspace), "--now", NOW, "--json", "list"))["entries"]
    lines = result.stdout.splitlines()
    assert len(lines) == len(entries) + 1  # a header, then one entry a line: nothing wrapped
    assert all(line.split()[0] == e["id"] for line, e in zip(lines[1:], entries, strict=True))


# --- the pager ------------------------------------------------------------------------------


def test_a_long_diff_goes_through_the_pager_on_a_terminal(workspace: Path, cli: Invoke) -> None:
    pager = {"MEMCLI_PAGER": "sed 's/^/PAGED /'"}
    screen, err, code = in_terminal(workspace, ["gc", "--diff"], 100, lines=40, env=pager)
    assert code == 0, err
    lines = plain(screen).splitlines()
    assert len(lines) > 40 and all(line.startswith("PAGED ") for line in lines)
    # $PAGER when MEMCLI_PAGER is not set; MEMCLI_PAGER wins over it
    by_pager = {"MEMCLI_PAGER": None, "PAGER": "sed 's/^/P /'"}
    paged, _, _ = in_terminal(workspace, ["gc", "--diff"], 100, lines=40, env=by_pager)
    assert plain(paged).startswith("P ") and "\nP --- a/MEMORY.md\n" in plain(paged)
    both, _, _ = in_terminal(workspace, ["gc", "--diff"], 100, lines=40, env={**by_pager, **pager})
    assert plain(both).startswith("PAGED ")
    # a diff that fits the screen is written as it is
    short, _, _ = in_terminal(workspace, ["gc", "--diff"], 100, lines=60_000, env=pager)
    assert "PAGED" not in short
    # never in a pipe
    piped = cli("-w", str(workspace), "--now", NOW, "gc", "--diff", env=pager)
    assert piped.exit_code == 0 and "PAGED" not in piped.stdout and piped.stdout.startswith("--- a/")


# --- the layout rules, at any width ---------------------------------------------------------


def test_wrapping_keeps_every_character() -> None:
    text = (
        "Atlas 是 Lin 在公司负责的 web 服务（atlas-api + atlas-web），https://github.com/lin-dev/notes-sync"
    )
    for width in (5, 12, 30, 80):
        lines = wrap(text, width)
        assert all(display_width(line) <= width for line in lines)
        assert squeeze("".join(lines)) == squeeze(text)
        assert not any(line.startswith("，") for line in lines)


@pytest.mark.parametrize("width", [80, 100, 120, 160, 240])
def test_tables_keep_numbers_whole_and_text_readable(width: int) -> None:
    columns = [
        Column("session", key_min=16),
        Column("tokens", numeric=True),
        Column("window", numeric=True, drop=1),
        Column("flush at", numeric=True),
        Column("last flush"),
        Column("compactions", numeric=True),
        Column("why", text=True, beneath=True),
    ]
    rows = [
        ["agent:main:cron:d89739ca-9755-4f36-8454-ce39cb12cfda", "181,200", "200,000", "176,000",
         "2026-10-30 09:12", "2", "181,200 tokens (totalTokens) ≥ 176,000 (new compaction cycle 2)"],
        ["agent:main:main", "42,000", "200,000", "176,000", "never", "0", "a heartbeat or cron session"],
    ]  # fmt: skip
    natural = [
        max(display_width(c.name), *(display_width(r[i]) for r in rows)) for i, c in enumerate(columns)
    ]
    layout = plan_table(columns, natural, width)
    for i, w in zip(layout.shown, layout.widths, strict=True):
        c = columns[i]
        if c.numeric or not (c.text or c.key_min):
            assert w == natural[i], c.name  # numbers and dates whole
        else:
            assert w >= min(natural[i], READABLE if c.text else c.key_min), c.name
    lines, dropped = render_table(columns, rows, width, False)
    assert all(display_width(line) <= width for line in lines)
    assert ("window" in dropped) == (width < 110)
    for row in rows:  # each cell shown whole, wrapped at most, in its own column
        printed = row_lines(row, columns, layout, width, False)
        under = [line for line in printed if line.startswith("    ")] if layout.below is not None else []
        cells = printed[: len(printed) - len(under)]
        start = 0
        for i, w in zip(layout.shown, layout.widths, strict=True):
            assert squeeze("".join(line[start : start + w] for line in cells)) == squeeze(row[i])
            start += w + 2
        if layout.below is not None:
            assert squeeze("".join(under)) == squeeze(row[layout.below])


def test_plan_lines_wrap_within_the_width_and_keep_the_text() -> None:
    long_text = "- 踩坑：seed 数据没有被测试覆盖，e2e 只用 admin 账号登录 " * 3
    actions = [
        Action(
            "promote",
            "core: standing preference (只用); score 8",
            text=long_text,
            source="memory/2026-10-12-release-retro.md:14",
            to="MEMORY.md",
        ),
        Action(
            "archive",
            "summarised in memory/summaries/2026-W36.md",
            source="memory/2026-09-01.md",
            to="memory/archive/2026/09/2026-09-01.md",
        ),
    ]
    for width in (40, 80, 160):
        lines, hidden = plan_lines(actions, width, color=False)
        assert not hidden and all(display_width(line) <= width for line in lines)
        flat = squeeze("\n".join(lines))
        assert squeeze(long_text) in flat and squeeze(actions[0].reason) in flat
    piped, _ = plan_lines(actions, None, color=False)
    assert piped[1].startswith("  promote    memory/2026-10-12-release-retro.md:14 → MEMORY.md — core:")
    assert piped[2].strip() == long_text.strip()
