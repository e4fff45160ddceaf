"""Benchmark recall (issue 7): the index, `memcli search`, `memcli context`, and our n-gram
terms against SQLite's trigram tokenizer.

Measures, in one run on this machine, on the generated year and decade workspaces:

- building the index from nothing, in-process (`Index.refresh()` after deleting it);
- a warm query in-process: `recall.search` (index freshness check + bm25 + ranking) and
  the query alone (bm25 + ranking, no freshness check), median of 21;
- `memcli search WORD` wall time (start-up included, warm index) beside `rg -i WORD` and
  `grep -ri WORD` over the same Markdown files, as ratios;
- `memcli context --budget 2000` wall time, and its tokens beside the tokens of MEMORY.md
  plus the last seven daily notes (what an agent loads without memcli);
- the index as ours (words, every CJK character and CJK pair) against an FTS5 trigram
  index of the same entries: build time, size, query time and hits, for English words and
  Chinese words of two and four characters (a trigram index cannot match fewer than three
  characters, so two-character words fall back to a LIKE scan).

Usage::

    python bench/recall_bench.py [--runs 3] [--no-decade] [--write bench/README.md]

Targets (issue 7): build on the decade <= 20 s; warm query <= 50 ms in-process; context
on the year <= 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from common import ensure_workspace, fmt_row, measure, memcli, write_block  # noqa: E402
from gc_bench import next_morning  # noqa: E402

from memcli.cli_options import GlobalOptions  # noqa: E402
from memcli.core.recall import fts_query  # noqa: E402
from memcli.core.tokens import estimate_tokens  # noqa: E402
from memcli.recall import search  # noqa: E402
from memcli.runtime import open_runtime  # noqa: E402
from memcli.workspace.index import Index, remove_index  # noqa: E402

# words the generator writes: an English name and word, Chinese words of 2 and 4 characters
QUERIES = ("Diego", "migration", "审计", "暗色模式")
FLOOR_FLAGS = {"rg": "rg -i", "grep": "grep -ri"}
PLAIN = "SELECT rowid FROM terms WHERE terms MATCH ?"  # hits only: no bm25, as the trigram side


def median_of(function: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def build_seconds(root: Path, runs: int) -> float:
    def build() -> None:
        remove_index(root)
        with Index(root, 1 << 30) as index:
            index.refresh()

    return median_of(build, runs)


def warm_query(root: Path, now: str, query: str) -> tuple[float, float]:
    """Median seconds of recall.search with its freshness check, and of the query alone."""
    from memcli.recall import CANDIDATES, rank

    run = open_runtime(GlobalOptions(workspace=str(root), now=now))
    search(run, query, 6)  # warm: the index is current, caches loaded
    with_check = median_of(lambda: search(run, query, 6), 21)
    with Index(root, 1 << 30) as index:
        alone = median_of(lambda: rank(run, index.search(query, CANDIDATES), 6), 21)
    return with_check, alone


def tool(name: str) -> str | None:
    """rg or grep: on PATH, or beside this Python (the ripgrep wheel puts rg there)."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def floors(root: Path, word: str, runs: int) -> dict[str, float]:
    out = {}
    rg, grep = tool("rg"), tool("grep")
    if rg:
        out["rg"] = measure([rg, "-i", "--no-messages", "-g", "*.md", "-e", word, str(root)], runs)[0]
    if grep:
        out["grep"] = measure([grep, "-ri", "--include=*.md", "-e", word, str(root)], runs)[0]
    return out


def baseline_tokens(root: Path, now: str) -> int:
    """MEMORY.md plus the last seven daily notes, as an agent would load them."""
    today = date.fromisoformat(now[:10])
    texts = [(root / "MEMORY.md").read_text(encoding="utf-8")]
    for n in range(7):
        note = root / "memory" / f"{(today - timedelta(days=n)).isoformat()}.md"
        if note.exists():
            texts.append(note.read_text(encoding="utf-8"))
    return estimate_tokens("\n".join(texts))


def context_tokens(root: Path, now: str) -> int:
    argv = [*memcli(), "-w", str(root), "--now", now, "--json", "context", "--budget", "2000"]
    import json

    return int(json.loads(subprocess.run(argv, capture_output=True, check=True).stdout)["tokens"])


def trigram_comparison(root: Path) -> list[dict[str, Any]]:
    """Ours against FTS5 trigram on the same entry texts: build, size, query time and hits."""
    with Index(root, 1 << 30) as index:
        index.refresh()
        texts = [(i, t) for i, t in index.db.execute("SELECT id, text FROM entries")]
        ours_bytes = os.path.getsize(index.path) if index.path.exists() else 0
    rows = []
    with tempfile.TemporaryDirectory(prefix="memcli-trigram-") as tmp:
        db = sqlite3.connect(Path(tmp) / "t.sqlite")
        start = time.perf_counter()
        db.execute("CREATE VIRTUAL TABLE tri USING fts5(text, tokenize = 'trigram')")
        db.executemany("INSERT INTO tri(rowid, text) VALUES (?, ?)", texts)
        db.commit()
        tri_build = time.perf_counter() - start
        tri_bytes = os.path.getsize(Path(tmp) / "t.sqlite")
        with Index(root, 1 << 30) as index:
            for q in QUERIES:
                match = fts_query(q) or ""
                ours_hits = index.db.execute("SELECT count(*) FROM terms WHERE terms MATCH ?", (match,))
                ours_n = int(ours_hits.fetchone()[0])
                ours_s = median_of(lambda m=match: index.db.execute(PLAIN, (m,)).fetchall(), 11)  # type: ignore[misc]
                if len(q) >= 3:
                    sql, arg, how = "SELECT rowid FROM tri WHERE tri MATCH ?", f'"{q}"', "MATCH"
                else:  # LIKE on a trigram table finds nothing under three characters (SQLite 3.40)
                    like = len(db.execute("SELECT rowid FROM tri WHERE text LIKE ?", (f"%{q}%",)).fetchall())
                    sql, arg, how = (
                        "SELECT rowid FROM tri WHERE instr(text, ?)",
                        q,
                        f"scan (LIKE: {like} hits)",
                    )
                tri_n = len(db.execute(sql, (arg,)).fetchall())
                tri_s = median_of(lambda s=sql, a=arg: db.execute(s, (a,)).fetchall(), 11)  # type: ignore[misc]
                rows.append({"query": q, "ours": (ours_n, ours_s), "trigram": (tri_n, tri_s, how)})
        db.close()
    return [{"build": tri_build, "tri_bytes": tri_bytes, "ours_bytes": ours_bytes}, *rows]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-decade", action="store_true")
    parser.add_argument("--write", type=Path, help="write the results as Markdown into this file")
    args = parser.parse_args(argv)
    names = ["year"] if args.no_decade else ["year", "decade"]

    table = [
        "| workspace | entries | measure | median | target / floor | ratio |",
        "|---|---|---|---|---|---|",
    ]
    extra: list[str] = []
    for name in names:
        root, manifest = ensure_workspace(name)
        now = next_morning(manifest)
        entries = f"{manifest['entries']:,}"
        built = build_seconds(root, args.runs if name == "year" else max(1, args.runs - 1))
        print(f"{name}: index build {built:.2f} s", flush=True)
        table.append(
            fmt_row(
                [
                    name,
                    entries,
                    "index build (in-process, from nothing)",
                    f"{built:.2f} s",
                    "≤ 20 s on the decade",
                    "",
                ]
            )
        )
        for q in QUERIES[:1] + QUERIES[2:3]:
            with_check, alone = warm_query(root, now, q)
            table.append(
                fmt_row(
                    [
                        name,
                        entries,
                        f"warm query `{q}` in-process (freshness check + ranking)",
                        f"{with_check * 1000:.1f} ms",
                        "≤ 50 ms",
                        "",
                    ]
                )
            )
            table.append(
                fmt_row(
                    [
                        name,
                        entries,
                        f"warm query `{q}` in-process (query + ranking only)",
                        f"{alone * 1000:.1f} ms",
                        "",
                        "",
                    ]
                )
            )
            print(f"{name}: warm {q} {with_check * 1000:.1f} ms ({alone * 1000:.1f} ms alone)", flush=True)
        base = [*memcli(), "-w", str(root), "--now", now, "--json"]
        for q in QUERIES[:1] + QUERIES[2:3]:
            wall, mb = measure([*base, "search", q], args.runs)
            for floor_name, floor_s in floors(root, q, args.runs).items():
                table.append(
                    fmt_row(
                        [
                            name,
                            entries,
                            f"`memcli search {q}` ({mb:.0f} MB)",
                            f"{wall:.3f} s",
                            f"`{FLOOR_FLAGS[floor_name]} {q}` {floor_s:.3f} s",
                            f"{wall / floor_s:.1f}×",
                        ]
                    )
                )
            print(f"{name}: memcli search {q} {wall:.3f} s", flush=True)
        if name == "year":
            wall, mb = measure([*base, "context", "--budget", "2000"], args.runs)
            table.append(
                fmt_row(
                    [
                        name,
                        entries,
                        f"`memcli context --budget 2000` ({mb:.0f} MB)",
                        f"{wall:.3f} s",
                        "≤ 0.5 s",
                        "",
                    ]
                )
            )
            print(f"{name}: context {wall:.3f} s", flush=True)
            loaded, plain = context_tokens(root, now), baseline_tokens(root, now)
            extra.append(
                f"Tokens on the year at {now}: `memcli context --budget 2000` {loaded:,} against "
                f"MEMORY.md + the last seven daily notes {plain:,} ({loaded / plain:.0%} of it)."
            )
            tri = trigram_comparison(root)
            head, rows = tri[0], tri[1:]
            extra += [
                "",
                f"n-gram terms (ours) against FTS5 trigram on the year's {manifest['entries']:,} entries: "
                f"trigram table built in {head['build']:.2f} s, {head['tri_bytes'] / 1e6:.1f} MB; our whole "
                f"index {head['ours_bytes'] / 1e6:.1f} MB (entries, texts and terms).",
                "",
                "| query | ours: hits | ours: time | trigram: hits | trigram: time | trigram: how |",
                "|---|---|---|---|---|---|",
            ]
            for r in rows:
                (on, os_), (tn, ts, how) = r["ours"], r["trigram"]
                extra.append(
                    fmt_row(
                        [r["query"], f"{on:,}", f"{os_ * 1000:.2f} ms", f"{tn:,}", f"{ts * 1000:.2f} ms", how]
                    )
                )
    report = "\n".join([*table, "", *extra])
    print(report)
    if args.write:
        write_block(args.write, "recall", report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
