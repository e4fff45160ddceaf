#!/usr/bin/env python3
"""Search and status beside their floors (issue 20, point 2): `bench/search_speed.py`.

Measures, on one workspace and in one run, with the runs of every command interleaved
(round-robin, so a load from elsewhere on the machine falls on all of them alike):

  memcli search WORD (text and --json) for an English and a Chinese word, and the full
  command line's --json search (without the fast path: what a search costs when the index
  is stale or a hit was not scored before), beside
  `rg -i WORD` and `grep -ri WORD` over the same notes; memcli status (text and --json)
  beside `cat` of every note; and the start of a bare Python (`python -c pass`), the floor
  under any Python command.

Every figure is the median of --runs runs. The index is built (and the status cache
filled) by one warm-up run of each command before timing, as a user's second search finds
it. Targets: search within 3× of `rg -i`, status ≤ 0.5 s.

Usage::

    python bench/search_speed.py [WORKSPACE] [--runs 7] [--now ISO]

WORKSPACE defaults to bench/workspaces/decade (generated on first use).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import NOW, ensure_workspace, memcli, note_files  # noqa: E402

WORDS = ("Diego", "审计")


def tool(name: str) -> str | None:
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def wall(argv: Sequence[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):  # grep and rg exit 1 when nothing matched
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    return seconds


def commands(root: Path, now: str) -> list[tuple[str, list[str]]]:
    base = [*memcli(), "-w", str(root), "--now", now]
    # the command line without the fast path: what a search costs when the index is stale, the
    # configuration new, or (under --json) a hit not scored before
    full = [sys.executable, "-c", "from memcli.cli.app import app; app()", "-w", str(root), "--now", now]
    rg, grep = tool("rg"), tool("grep")
    out: list[tuple[str, list[str]]] = [("python -c pass", [sys.executable, "-c", "pass"])]
    out.append(("cat (every note)", ["cat", *note_files(root)]))
    for word in WORDS:
        if rg:
            out.append((f"rg -i {word}", [rg, "-i", "--no-messages", "-g", "*.md", "-e", word, str(root)]))
        if grep:
            out.append((f"grep -ri {word}", [grep, "-ri", "--include=*.md", "-e", word, str(root)]))
        out.append((f"memcli search {word}", [*base, "search", word]))
        out.append((f"memcli --json search {word}", [*base, "--json", "search", word]))
        out.append((f"full CLI --json search {word}", [*full, "--json", "search", word]))
    out.append(("memcli status", [*base, "status"]))
    out.append(("memcli --json status", [*base, "--json", "status"]))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("workspace", nargs="?", type=Path, help="default: bench/workspaces/decade")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--now", default=NOW)
    args = parser.parse_args(argv)
    root = args.workspace.resolve() if args.workspace else ensure_workspace("decade")[0]
    todo = commands(root, args.now)
    for _, command in todo:  # warm-up: the index built, the page cache filled
        wall(command)
    times: dict[str, list[float]] = {label: [] for label, _ in todo}
    for _ in range(args.runs):
        for label, command in todo:
            times[label].append(wall(command))
    median = {label: statistics.median(values) for label, values in times.items()}

    def ratio(label: str) -> str:
        if label.startswith(("memcli", "full CLI")) and "search" in label:
            word = label.split()[-1]
            floor = median.get(f"rg -i {word}") or median.get(f"grep -ri {word}")
            name = "rg" if f"rg -i {word}" in median else "grep"
            return f"{median[label] / floor:.1f}× {name}" if floor else ""
        if label.startswith("memcli") and "status" in label:
            return f"{median[label] / median['cat (every note)']:.1f}× cat; target ≤ 0.5 s"
        return ""

    files = len(note_files(root))
    print(f"{root}: {files:,} notes, median of {args.runs} runs (interleaved)\n")
    print("| command | median | min | max | ratio |")
    print("|---|---|---|---|---|")
    for label, values in times.items():
        print(
            f"| {label} | {median[label] * 1000:.0f} ms | {min(values) * 1000:.0f} ms"
            f" | {max(values) * 1000:.0f} ms | {ratio(label)} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
