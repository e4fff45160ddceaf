"""Benchmark `memcli list` and `memcli dedupe` on a generated year and decade.

Measures, in one run on this machine:

- wall time (median of --runs) and peak memory of `memcli --json list` and
  `memcli --json dedupe` on each workspace, beside a floor measured in the same
  run: `cat` of every note (reading every byte) and `memcli --help` (start-up);
- the decade/year time ratio (near-linear means at most about 10-12);
- blocking recall: on a 5,000-entry sample, the share of the pairs that judging *every*
  pair (judgement.duplicates' verdict) finds the same fact that the blocking also proposes;
- dedupe quality against the planted manifest: recall of planted duplicate
  pairs, near misses wrongly merged, merges across planted groups.

Usage::

    python bench/dedupe.py [--runs 3] [--no-decade] [--write bench/README.md]

Workspaces are generated once into bench/workspaces/ (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import NOW, ensure_workspace, fmt_row, measure, memcli, note_files, write_block

from memcli.core.entries import parse
from memcli.core.judgement.duplicates import judge
from memcli.core.judgement.wording import HEAVY, Shape, shape, sketch, value_keys
from memcli.core.similarity import candidate_pairs

THRESHOLD = 0.8
SAMPLE = 5000


def dedupe_texts(root: Path) -> list[str]:
    texts = []
    for path in sorted(root.rglob("*.md")):
        for entry in parse(path.read_text(encoding="utf-8")).entries:
            if entry.kind in ("bullet", "task", "paragraph", "quote"):
                texts.append(entry.text)
    return texts


def enriched_sample(texts: Sequence[str], manifest: dict[str, Any], seed: int) -> list[str]:
    """5,000 entries: whole planted groups and near-miss pairs (so the sample holds many
    duplicate pairs to find), filled up with random entries."""
    rng = random.Random(seed)
    chosen: list[str] = []
    groups = manifest["exact_groups"] + manifest["paraphrase_groups"]
    for group in rng.sample(groups, len(groups)):
        if len(chosen) >= SAMPLE * 2 // 5:
            break
        chosen.extend(ref["text"] for ref in group)
    for pair in rng.sample(manifest["near_miss_pairs"], len(manifest["near_miss_pairs"])):
        if len(chosen) >= SAMPLE // 2:
            break
        chosen.extend(ref["text"] for ref in pair)
    chosen.extend(rng.sample(list(texts), SAMPLE - len(chosen)))
    return chosen


def blocking_recall(texts: Sequence[str]) -> dict[str, Any]:
    """All-pairs judging on a sample versus the blocking, with the same verdict.

    "All pairs" leaves out only the pairs that share no feature that carries a fact (no
    concept, word, value or Chinese character): the verdict never finds those the same."""
    shapes: dict[tuple[str, frozenset[str], frozenset[str]], Shape] = {}
    for text in texts:
        s = shape(text)
        if s.norm:
            shapes.setdefault((s.norm, s.values, s.status), s)
    keys = list(shapes.values())
    by_feature: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(keys):
        for f, w in s.weights.items():
            if w >= HEAVY:
                by_feature[f].append(i)
    start = time.perf_counter()
    truth: set[tuple[int, int]] = set()
    compared = 0
    for i, s in enumerate(keys):
        sharing = {j for f, w in s.weights.items() if w >= HEAVY for j in by_feature[f] if j > i}
        compared += len(sharing)
        truth.update((i, j) for j in sharing if judge(s, keys[j], THRESHOLD).same)
    all_pairs_seconds = time.perf_counter() - start
    start = time.perf_counter()
    sketches = [sketch(s.norm, s.values) for s in keys]
    proposed = set(candidate_pairs(sketches, [value_keys(s.values) for s in keys], THRESHOLD))
    blocking_seconds = time.perf_counter() - start
    return {
        "sample": len(keys),
        "pairs_compared_all": len(keys) * (len(keys) - 1) // 2,
        "pairs_sharing_a_feature": compared,
        "pairs_proposed": len(proposed),
        "duplicate_pairs": len(truth),
        "duplicate_pairs_found": len(truth & proposed),
        "recall": len(truth & proposed) / len(truth) if truth else 1.0,
        "all_pairs_seconds": all_pairs_seconds,
        "blocking_seconds": blocking_seconds,
    }


def place(ref: dict[str, Any]) -> tuple[str, int]:
    return (ref["file"], int(ref["line"]))


def pairs_of(group: Iterable[tuple[str, int]]) -> set[frozenset[tuple[str, int]]]:
    return {frozenset(p) for p in combinations(sorted(set(group)), 2)}


def quality(root: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """Planted duplicates found, near misses and planted groups wrongly merged."""
    out = subprocess.run(
        [*memcli(), "-w", str(root), "--now", NOW, "--json", "dedupe"], capture_output=True, check=True
    )
    raw_groups = json.loads(out.stdout)["groups"]
    groups = [[place(g["keep"]), *(place(d) for d in g["duplicates"])] for g in raw_groups]
    found = set().union(*(pairs_of(g) for g in groups)) if groups else set()
    planted_groups = [[place(r) for r in g] for g in manifest["exact_groups"] + manifest["paraphrase_groups"]]
    planted = set().union(*(pairs_of(g) for g in planted_groups))
    group_of = {p: n for n, g in enumerate(planted_groups) for p in g}
    near = {frozenset((place(a), place(b))) for a, b in manifest["near_miss_pairs"]}
    across = {
        pair for pair in found if all(p in group_of for p in pair) and len({group_of[p] for p in pair}) == 2
    }
    wrong = (found & near) | across
    planted_found = found & planted
    planted_places = set(group_of)
    others = [raw for raw, g in zip(raw_groups, groups, strict=True) if not planted_places & set(g)]
    noise = sum(1 for g in others if g["keep"]["tier"] == "discard")
    return {
        "planted_pairs": len(planted),
        "planted_found": len(planted_found),
        "recall": len(planted_found) / len(planted) if planted else 1.0,
        "found_pairs": len(found),
        "near_misses": len(near),
        "near_misses_merged": len(found & near),
        "merged_across_planted_groups": len(across),
        "precision_on_planted": len(planted_found) / (len(planted_found) + len(wrong)) if found else 1.0,
        "other_groups": len(others),
        "other_noise_groups": noise,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-decade", action="store_true")
    parser.add_argument("--write", type=Path, help="write the results as Markdown to this file")
    args = parser.parse_args(argv)
    names = ["year"] if args.no_decade else ["year", "decade"]

    startup, _ = measure([*memcli(), "--help"], max(args.runs, 5))
    rows: list[list[str]] = []
    results: dict[str, dict[str, Any]] = {}
    for name in names:
        root, manifest = ensure_workspace(name)
        files = note_files(root)
        texts = dedupe_texts(root)
        cat_s, _ = measure(["cat", *files], args.runs)
        base = [*memcli(), "-w", str(root), "--now", NOW, "--json"]
        list_s, list_mb = measure([*base, "list"], args.runs)
        dedupe_s, dedupe_mb = measure([*base, "dedupe"], args.runs)
        results[name] = {
            "entries": manifest["entries"],
            "files": len(files),
            "cat": cat_s,
            "list": (list_s, list_mb),
            "dedupe": (dedupe_s, dedupe_mb),
            "recall": blocking_recall(random.Random(1).sample(texts, SAMPLE)),
            "recall_enriched": blocking_recall(enriched_sample(texts, manifest, seed=1)),
            "quality": quality(root, manifest),
        }
        print(
            f"{name}: list {list_s:.2f} s {list_mb:.0f} MB, dedupe {dedupe_s:.2f} s {dedupe_mb:.0f} MB",
            flush=True,
        )

    for name in names:
        r = results[name]
        for command in ("list", "dedupe"):
            seconds, mb = r[command]
            rows.append(
                [
                    name,
                    f"{r['entries']:,}",
                    f"memcli {command}",
                    f"{seconds:.2f} s",
                    f"{mb:.0f} MB",
                    f"{seconds / r['cat']:.0f}× cat ({r['cat'] * 1000:.0f} ms)",
                ]
            )
    lines = [
        "| workspace | entries | command | median wall | peak memory | vs reading every byte |",
        "|---|---|---|---|---|---|",
        *(fmt_row(r) for r in rows),
        "",
        f"Start-up floor: `memcli --help` {startup * 1000:.0f} ms (median of {max(args.runs, 5)}).",
    ]
    if "decade" in results:
        ratio = results["decade"]["dedupe"][0] / results["year"]["dedupe"][0]
        ratio_list = results["decade"]["list"][0] / results["year"]["list"][0]
        lines.append(f"Decade/year ratio: dedupe {ratio:.1f}, list {ratio_list:.1f} (10× the entries).")
    lines += [
        "",
        "| workspace | sample | pairs if all compared | pairs the blocking proposes | duplicate pairs "
        "(all-pairs) | found by blocking | recall |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, kind in [(n, k) for n in names for k in ("recall", "recall_enriched")]:
        b = results[name][kind]
        lines.append(
            fmt_row(
                [
                    f"{name} ({'random' if kind == 'recall' else 'planted groups + near misses + random'})",
                    f"{b['sample']:,}",
                    f"{b['pairs_compared_all']:,}",
                    f"{b['pairs_proposed']:,}",
                    f"{b['duplicate_pairs']:,}",
                    f"{b['duplicate_pairs_found']:,}",
                    f"{b['recall']:.2%}",
                ]
            )
        )
    lines += [
        "",
        "| workspace | planted duplicate pairs | found | recall | near misses merged | merged across "
        "planted groups | precision on planted | other groups (of them noise) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in names:
        q = results[name]["quality"]
        lines.append(
            fmt_row(
                [
                    name,
                    f"{q['planted_pairs']:,}",
                    f"{q['planted_found']:,}",
                    f"{q['recall']:.2%}",
                    f"{q['near_misses_merged']} of {q['near_misses']}",
                    str(q["merged_across_planted_groups"]),
                    f"{q['precision_on_planted']:.2%}",
                    f"{q['other_groups']:,} ({q['other_noise_groups']:,})",
                ]
            )
        )
    report = "\n".join(lines)
    print(report)
    if args.write:
        write_block(args.write, "dedupe", report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
