"""The benchmark generator stays usable: a small workspace, its manifest, and memcli on it."""

from __future__ import annotations

import sys
from datetime import date
from pathlib import Path

from conftest import NOW, REPO, Invoke, as_json

sys.path.insert(0, str(REPO / "bench"))

import generate


def test_a_generated_workspace_matches_its_manifest_and_dedupes(cli: Invoke, tmp_path: Path) -> None:
    out = tmp_path / "ws"
    manifest = generate.generate(out, 40, 30, 7, date(2026, 1, 1), verify=True)
    again = generate.generate(tmp_path / "again", 40, 30, 7, date(2026, 1, 1))
    assert again["entries"] == manifest["entries"]  # reproducible
    listed = as_json(cli("--json", "-w", str(out), "--now", NOW, "list"))["entries"]
    assert len(listed) == manifest["entries"]
    groups = as_json(cli("--json", "-w", str(out), "--now", NOW, "dedupe"))["groups"]
    together = {
        frozenset({(g["keep"]["file"], g["keep"]["line"]), (d["file"], d["line"])})
        for g in groups
        for d in g["duplicates"]
    }
    for a, b in manifest["near_miss_pairs"]:
        assert frozenset({(a["file"], a["line"]), (b["file"], b["line"])}) not in together
    exact = [g for g in manifest["exact_groups"] if len(g) >= 2]
    assert exact
    for group in exact:
        first = (group[0]["file"], group[0]["line"])
        for other in group[1:]:
            pair = frozenset({first, (other["file"], other["line"])})
            assert any(
                pair
                <= {
                    (g["keep"]["file"], g["keep"]["line"]),
                    *((d["file"], d["line"]) for d in g["duplicates"]),
                }
                for g in groups
            )


def test_the_gc_benchmark_applies_and_undoes_on_a_small_workspace(tmp_path: Path) -> None:
    import gc_bench

    out = tmp_path / "ws"
    manifest = generate.generate(out, 20, 20, 3, date(2026, 1, 1))
    now = gc_bench.next_morning(manifest)
    assert now == "2026-01-21T09:00:00+08:00"
    counts = gc_bench.plan_counts(out, now)
    assert counts.get("archive", 0) > 0 and counts.get("summarize", 0) > 0
    before = gc_bench.tree_digest(out)
    result = gc_bench.apply_and_undo(out, now, runs=1)
    assert result["restored"] is True and result["apply"] > 0
    assert gc_bench.tree_digest(out) == before  # the benchmark works on copies
