"""Benchmark `memcli gc` on a generated year and decade.

Measures, in one run on this machine:

- `memcli gc --dry-run` (plan only) on the year and the decade: median wall time and
  peak memory, beside baselines measured in the same run: `memcli dedupe` (reading,
  parsing and grouping every entry, the planner's input) and `memcli --help` (start-up);
- `memcli gc` applied on a fresh copy of the year for every run (the copy is not
  timed), then `memcli undo`, and a check that undo gave back every byte;
- the counts of each action in the plan.

Each workspace is planned the morning after its last daily note, as a nightly cron job
would see it the first time it runs.

Usage::

    python bench/gc_bench.py [--runs 3] [--no-decade] [--write bench/README.md]

Targets (issue 4): dry run on a year <= 3 s, on a decade <= 30 s; apply on a year <= 5 s.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import ensure_workspace, fmt_row, measure, memcli, run_once, write_block

KINDS = ("merge", "drop", "promote", "supersede", "demote", "summarize", "archive")


def next_morning(manifest: dict[str, Any]) -> str:
    """The morning after the workspace's last daily note: where a nightly gc would run."""
    day = date.fromisoformat(manifest["start"]) + timedelta(days=manifest["days"])
    return f"{day.isoformat()}T09:00:00+08:00"


def tree_digest(root: Path) -> str:
    """One hash over every file's path and bytes, memcli's own state left out."""
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        rel = path.relative_to(root).as_posix()
        if rel.startswith(".memcli/"):
            continue
        h.update(rel.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def plan_counts(root: Path, now: str) -> dict[str, int]:
    argv = [*memcli(), "-w", str(root), "--now", now, "--json", "gc", "--dry-run"]
    out = subprocess.run(argv, capture_output=True, check=True)
    counts: dict[str, int] = json.loads(out.stdout)["counts"]
    return counts


def apply_and_undo(root: Path, now: str, runs: int) -> dict[str, Any]:
    """gc applied on a fresh copy each run, then undone; times of both, and whether undo
    restored every byte every time."""
    applied, undone, peaks = [], [], []
    restored = True
    for _ in range(runs):
        with tempfile.TemporaryDirectory(prefix="memcli-bench-") as tmp:
            copy = Path(tmp) / "w"
            shutil.copytree(root, copy)
            before = tree_digest(copy)
            base = [*memcli(), "-w", str(copy), "--now", now, "-q"]
            seconds, mb = run_once([*base, "gc"])
            applied.append(seconds)
            peaks.append(mb)
            undone.append(run_once([*base, "undo"])[0])
            restored = restored and tree_digest(copy) == before
    return {
        "apply": statistics.median(applied),
        "apply_mb": max(peaks),
        "undo": statistics.median(undone),
        "restored": restored,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-decade", action="store_true")
    parser.add_argument("--write", type=Path, help="write the results as Markdown into this file")
    args = parser.parse_args(argv)
    names = ["year"] if args.no_decade else ["year", "decade"]

    startup, _ = measure([*memcli(), "--help"], max(args.runs, 5))
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        root, manifest = ensure_workspace(name)
        now = next_morning(manifest)
        base = [*memcli(), "-w", str(root), "--now", now, "--json"]
        dedupe_s, dedupe_mb = measure([*base, "dedupe"], args.runs)
        dry_s, dry_mb = measure([*base, "gc", "--dry-run"], args.runs)
        results[name] = {
            "entries": manifest["entries"],
            "dedupe": (dedupe_s, dedupe_mb),
            "dry": (dry_s, dry_mb),
            "now": now,
            "counts": plan_counts(root, now),
        }
        print(f"{name}: gc --dry-run {dry_s:.2f} s {dry_mb:.0f} MB, dedupe {dedupe_s:.2f} s", flush=True)
    year_root, year_manifest = ensure_workspace("year")
    applied = apply_and_undo(year_root, next_morning(year_manifest), args.runs)
    print(f"year: gc {applied['apply']:.2f} s, undo {applied['undo']:.2f} s", flush=True)

    lines = [
        "| workspace | entries | command | median wall | peak memory | vs `memcli dedupe` |",
        "|---|---|---|---|---|---|",
    ]
    for name in names:
        r = results[name]
        dry_s, dry_mb = r["dry"]
        dedupe_s, _ = r["dedupe"]
        lines.append(
            fmt_row(
                [
                    name,
                    f"{r['entries']:,}",
                    "memcli gc --dry-run",
                    f"{dry_s:.2f} s",
                    f"{dry_mb:.0f} MB",
                    f"{dry_s / dedupe_s:.2f}× ({dedupe_s:.2f} s)",
                ]
            )
        )
    year = results["year"]
    lines += [
        fmt_row(
            [
                "year (fresh copy)",
                f"{year['entries']:,}",
                "memcli gc (applied)",
                f"{applied['apply']:.2f} s",
                f"{applied['apply_mb']:.0f} MB",
                f"{applied['apply'] / year['dedupe'][0]:.2f}×",
            ]
        ),
        fmt_row(["year (after gc)", "", "memcli undo", f"{applied['undo']:.2f} s", "", ""]),
        "",
        f"Start-up floor: `memcli --help` {startup * 1000:.0f} ms (median of {max(args.runs, 5)}). "
        f"Undo restored every byte in every run: {'yes' if applied['restored'] else 'NO'}.",
    ]
    if "decade" in results:
        ratio = results["decade"]["dry"][0] / year["dry"][0]
        lines.append(f"Decade/year ratio of the dry run: {ratio:.1f} (10× the entries).")
    lines += ["", "| workspace | " + " | ".join(KINDS) + " |", "|---|" + "---|" * len(KINDS)]
    for name in names:
        counts = results[name]["counts"]
        label = f"{name} (now {results[name]['now'][:10]})"
        lines.append(fmt_row([label, *(f"{counts.get(k, 0):,}" for k in KINDS)]))
    report = "\n".join(lines)
    print(report)
    if args.write:
        write_block(args.write, "gc", report)
    return 0 if applied["restored"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
