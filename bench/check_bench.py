"""Benchmark `memcli check`, the pre-commit hook's command.

Measures, in one run on this machine: `memcli check` on sample-workspace (the whole
workspace, and MEMORY.md alone as a hook passes it), then on the generated year,
start-up included, beside `memcli --help` (the start-up floor) and `cat` of the same
files (reading every byte); and the findings on each corpus workspace.

Usage::

    python bench/check_bench.py [--runs 11] [--write bench/README.md]

Target (issue 8): `memcli check` on sample-workspace <= 300 ms including start-up.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from common import ensure_workspace, fmt_row, measure, memcli, note_files, write_block  # noqa: E402

SAMPLE = REPO / "sample-workspace"
CORPUS = REPO.parent / "shared" / "corpus"
NOW = "2026-10-31T09:00:00+08:00"


def corpus_findings() -> list[str]:
    """Errors and warnings by check on a copy of each corpus workspace (never the original)."""
    lines = []
    for src in sorted(p for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []:
        with tempfile.TemporaryDirectory(prefix="memcli-check-") as tmp:
            copy = Path(tmp) / src.name
            shutil.copytree(src, copy, symlinks=True)
            argv = [*memcli(), "-w", str(copy), "--json", "check"]
            report = json.loads(subprocess.run(argv, capture_output=True, check=False).stdout)
        counts = Counter((f["severity"], f["check"]) for f in report["findings"])
        described = ", ".join(f"{n} {sev} {kind}" for (sev, kind), n in sorted(counts.items()))
        lines.append(fmt_row([src.name, str(len(report["files"])), described or "none"]))
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--write", type=Path, help="write the results as Markdown into this file")
    args = parser.parse_args(argv)

    year, manifest = ensure_workspace("year")
    startup, _ = measure([*memcli(), "--help"], args.runs)
    rows = [
        "| workspace | command | median wall | peak memory | floor |",
        "|---|---|---|---|---|",
    ]
    cases = [
        ("sample-workspace", SAMPLE, []),
        ("sample-workspace", SAMPLE, [str(SAMPLE / "MEMORY.md")]),
        (f"year ({manifest['entries']:,} entries)", year, []),
    ]
    for name, root, files in cases:
        wall, mb = measure([*memcli(), "-w", str(root), "--now", NOW, "check", *files], args.runs)
        cat_s, _ = measure(["cat", *(files or note_files(root))], args.runs)
        shown = "memcli check" + (" MEMORY.md" if files else "")
        rows.append(fmt_row([name, shown, f"{wall * 1000:.0f} ms", f"{mb:.0f} MB",
                             f"start-up {startup * 1000:.0f} ms; cat {cat_s * 1000:.0f} ms"]))  # fmt: skip
        print(rows[-1], flush=True)
    corpus = ["| corpus workspace | files | findings |", "|---|---|---|", *corpus_findings()]
    report = "\n".join([*rows, "", *corpus])
    print(report)
    if args.write:
        write_block(args.write, "check", report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
