"""The nightly gc (issue 20): a workspace gc'ed last night, one new note since.

On a copy of a generated workspace, gc is applied once at the morning after its last note
(the backlog), and planned once more so that memcli's caches hold what a nightly run would
find (with --never-gced, only planned: every note stays live, as in a workspace gc never
ran on). Then, for each run, the copy is put back as it was (not timed), a new daily note is
written for that day, and the next morning's gc is timed:

- cold: `gc --dry-run` without memcli's caches (.memcli/cache.sqlite removed): the
  baseline, measured in the same run;
- warm: `gc --dry-run` with them (the note cache and the judgement's memo, core.memo);
- applied: `gc --force` with them;
- again: `gc --dry-run` and `list --json` a second time over the same files (a dry run,
  then gc; list after list): what the first run worked out of the whole workspace
  (core.analysis.Standing) is not worked out again, and list streams note by note;
- `list --json` after the new note (the caches warm, the Standing not);

beside the floor, `cat` of every note. Medians of --runs runs, with peak memory.

Usage::

    python bench/nightly.py [--preset year|decade] [--runs 3] [--write bench/RESULTS.md]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path
from statistics import median

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ensure_workspace, machine, measure, memcli, note_files, run_once, write_block
from gc_bench import next_morning

# a day's note as the generator writes them, and a change or two said in it
NEW_LINES = (
    "- Switched the staging database to PostgreSQL 16, no longer on MySQL",
    "- 周会改到每周三上午 10 点",
    "- remember: the release checklist lives in docs/release.md",
)


def new_note(root: Path, day: date) -> None:
    """A note for `day`: the words of the last note written (agents restate a lot), and a
    few lines of news."""
    notes = sorted((root / "memory").glob("????-??-??.md"))
    last = notes[-1].read_text(encoding="utf-8") if notes else ""
    body = "\n".join(line for line in last.splitlines()[1:])
    (root / "memory" / f"{day.isoformat()}.md").write_text(
        f"# {day.isoformat()}\n{body}\n" + "".join(f"{line}\n" for line in NEW_LINES), encoding="utf-8"
    )


def _time(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


# (label, with memcli's caches, arguments, timed as the second run over the same files)
RUNS = (
    ("cold: gc --dry-run, no cache", False, ("gc", "--dry-run"), False),
    ("warm: gc --dry-run", True, ("gc", "--dry-run"), False),
    ("warm: gc applied", True, ("gc", "--force"), False),
    ("warm: gc --dry-run again, no change since", True, ("gc", "--dry-run"), True),
    ("warm: list --json", True, ("--json", "list"), False),
    ("warm: list --json again, no change since", True, ("--json", "list"), True),
)


def bench(preset: str, runs: int, never_gced: bool = False, commands: Sequence[str] = ("gc", "list")) -> str:
    source, manifest = ensure_workspace(preset)
    morning = next_morning(manifest)
    day = date.fromisoformat(morning[:10])
    tomorrow = f"{(day + timedelta(days=1)).isoformat()}{morning[10:]}"
    with tempfile.TemporaryDirectory(prefix="memcli-nightly-") as tmp:
        gced = Path(tmp) / "gced"
        shutil.copytree(source, gced, ignore=shutil.ignore_patterns(".memcli"))
        (gced / ".memcli").mkdir()
        if not never_gced:
            run_once([*memcli(), "-w", str(gced), "--now", morning, "-q", "gc", "--force"])  # last night's gc
        run_once([*memcli(), "-w", str(gced), "--now", morning, "-q", "gc", "--dry-run"])  # caches warm
        work = Path(tmp) / "w"

        def fresh(caches: bool) -> list[str]:
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(gced, work)
            if not caches:
                for cache in (work / ".memcli").glob("cache.sqlite*"):
                    cache.unlink()
            new_note(work, day)
            return [*memcli(), "-w", str(work), "--now", tomorrow, "-q"]

        cat = median(measure(["cat", *note_files(gced)], 1)[0] for _ in range(max(runs, 5)))
        rows = []
        for label, caches, args, again in RUNS:
            if not any(c in args for c in commands):
                continue
            timed = []
            for _ in range(runs):
                argv = fresh(caches)
                if again:  # a first run over these very files, not timed
                    run_once([*argv, *args])
                timed.append(run_once([*argv, *args]))
            rows.append((label, median(t for t, _ in timed), max(m for _, m in timed)))
    cold = rows[0][1]  # the first row run: the baseline the others are set beside
    since = "a first gc (never gc'ed: every note still live)" if never_gced else "last night's gc"
    lines = [
        f"{preset}, one new note before {since}; {machine()}; medians of {runs} runs; "
        f"floor `cat` of every note {_time(cat)} (same run)",
        "",
        f"| run | median | peak memory | × cat | vs {rows[0][0].split(':')[0]} |",
        "|---|---|---|---|---|",
    ]
    for label, seconds, mb in rows:
        lines.append(
            f"| {label} | {_time(seconds)} | {mb:.0f} MB | {seconds / cat:.0f}× | {seconds / cold:.2f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--preset", choices=("year", "decade"), default="year")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument(
        "--never-gced",
        action="store_true",
        help="no gc last night: every note is still live (the caches warmed by a dry run)",
    )
    parser.add_argument(
        "--commands",
        default="gc,list",
        help="which runs: gc, list or both (comma-separated); the first row is the baseline",
    )
    parser.add_argument("--write", type=Path, help="put the table in this file (between nightly marks)")
    args = parser.parse_args(argv)
    commands = tuple(c.strip() for c in args.commands.split(",") if c.strip())
    report = bench(args.preset, args.runs, args.never_gced, commands)
    print(report)
    if args.write:
        name = f"nightly-{args.preset}{'-never-gced' if args.never_gced else ''}"
        if commands != ("gc", "list"):
            name += "-" + "-".join(commands)
        write_block(args.write, name, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
