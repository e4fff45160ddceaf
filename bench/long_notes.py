"""Notes of any length (issue 20, point 3): every main command's cost per megabyte on the
long-notes workspace beside the decade's.

The long notes (``generate.py --preset long``: 90 notes of 2,000-3,100 lines, ~5.9 MB, bullet
trees 3-4 levels deep, tables, fenced code) hold a tenth of the decade's entries per megabyte
in entries five times longer, so a command whose cost grows with an entry's length (or with
the square of it) shows here and not on the decade. Each round times, on both workspaces,
``cat`` of every note (the floor), ``memcli --help`` (start-up) and each command, after one
untimed run of each (caches warm); medians over the rounds. Cost per MB is reported whole
and net of start-up; the target is long/decade ≤ 1.5 on the net cost.

Usage::

    python bench/long_notes.py [--decade DIR] [--long DIR] [--runs 3] [--only list,check]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
from common import WORKSPACES, ensure_workspace, machine, memcli, note_files  # noqa: E402

TARGET = 1.5
COMMANDS: dict[str, list[str]] = {
    "status": ["status"],
    "list --json": ["--json", "list"],
    "dedupe": ["dedupe"],
    "gc --dry-run": ["gc", "--dry-run"],
    "search Diego": ["search", "Diego"],
    "check": ["check"],
}


def run_once(argv: Sequence[str]) -> None:
    """One untimed run; exit 1 (findings) is a result, not a failure."""
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode(errors='replace')}")


def timed(argv: Sequence[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MB (of the command itself, not the other children)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} exited {code}")
    return seconds, usage.ru_maxrss / 1024


def morning_after(root: Path) -> str:
    last = max(date.fromisoformat(Path(p).stem) for p in note_files(root / "memory"))
    return f"{(last + timedelta(days=1)).isoformat()}T09:00:00+08:00"


def long_workspace(path: Path | None) -> Path:
    out = path or WORKSPACES / "long"
    if not (out / "memory").is_dir():
        generate.generate_long(out, force=True)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decade", type=Path, help="decade workspace (default bench/workspaces/decade)")
    parser.add_argument("--long", type=Path, help="long-notes workspace (default bench/workspaces/long)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", help="comma-separated commands, e.g. 'list --json,check'")
    args = parser.parse_args(argv)

    decade = args.decade or ensure_workspace("decade")[0]
    workspaces = {"decade": decade, "long": long_workspace(args.long)}
    commands = {k: v for k, v in COMMANDS.items() if not args.only or k in args.only.split(",")}
    sizes = {
        name: sum(os.path.getsize(p) for p in note_files(root)) / 1e6 for name, root in workspaces.items()
    }
    nows = {name: morning_after(root) for name, root in workspaces.items()}

    def command(name: str, words: list[str]) -> list[str]:
        return [*memcli(), "-w", str(workspaces[name]), "--now", nows[name], *words]

    for name in workspaces:  # warm every cache once, untimed
        for words in commands.values():
            run_once(command(name, words))
    times: dict[tuple[str, str], list[float]] = {}
    peaks: dict[tuple[str, str], float] = {}
    for _ in range(args.runs):
        for name, root in workspaces.items():
            rows = {"cat": ["cat", *note_files(root)], "start-up": [*memcli(), "--help"]}
            rows |= {label: command(name, words) for label, words in commands.items()}
            for label, cmd in rows.items():
                seconds, peak = timed(cmd)
                times.setdefault((name, label), []).append(seconds)
                peaks[(name, label)] = max(peaks.get((name, label), 0.0), peak)
            print(f"  round done on {name}", file=sys.stderr)

    med = {key: statistics.median(values) for key, values in times.items()}
    print(f"Measured {date.today().isoformat()} on {machine()}; medians of {args.runs}.\n")
    print("| workspace | MB | command | median | peak memory | s/MB | net of start-up, s/MB |")
    print("|---|---|---|---|---|---|---|")
    for name in workspaces:
        mb = sizes[name]
        up = med[(name, "start-up")]
        for label in ["cat", "start-up", *commands]:
            m = med[(name, label)]
            net = "" if label in ("cat", "start-up") else f"{max(m - up, 0) / mb:.3f}"
            print(
                f"| {name} | {mb:.1f} | {label} | {m:.3f} s | {peaks[(name, label)]:.0f} MB "
                f"| {m / mb:.3f} | {net} |"
            )
    print("\n| command | decade s/MB (net) | long s/MB (net) | long/decade | within 1.5×? | vs cat, long |")
    print("|---|---|---|---|---|---|")
    for label in commands:
        per = {}
        for name in workspaces:
            per[name] = max(med[(name, label)] - med[(name, "start-up")], 0) / sizes[name]
        ratio = per["long"] / per["decade"] if per["decade"] else float("inf")
        vs_cat = med[("long", label)] / med[("long", "cat")]
        print(
            f"| {label} | {per['decade']:.3f} | {per['long']:.3f} | {ratio:.2f} "
            f"| {'yes' if ratio <= TARGET else 'no'} | {vs_cat:.0f}× |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
