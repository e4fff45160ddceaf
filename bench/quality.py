#!/usr/bin/env python3
"""How good memcli's judgement is, measured on a labelled set (issue 17).

Runs memcli's own planner — the one `memcli gc` uses, in this process, on small
workspaces built in memory — on the three files of a gold folder (`../shared/gold/` by
default; the held-out twin has the same shape):

- entries.jsonl: each entry alone in a closed daily note (dated as labelled, else a
  fortnight before --now) beside an empty MEMORY.md. Predicted **core** when gc promotes
  it to MEMORY.md, **noise** when gc drops it. Prints core precision / recall / F1, the
  share of transient, routine and log entries promoted, and noise precision / recall.
- pairs.jsonl: both lines in one closed note. Predicted **duplicate** when memcli puts
  them in one duplicate group. Prints precision / recall, and false merges and misses by
  kind.
- supersede.jsonl: the old entry in MEMORY.md (first placement) or in a closed note three
  days before (second), the new entry in a closed note two days before --now. Predicted
  **supersedes** when gc's plan retires the old entry. Prints precision / recall for each
  placement.

With --bench, it also prints gc's plan on the generated bench workspaces (actions by kind,
files over the removal share, MEMORY.md's size): `bench/generate.py` makes them.

Usage::

    python bench/quality.py [--gold ../shared/gold] [--half even|odd] [--bench] [--misses N [--why]]
                            [--json FILE]

--half keeps only the rows whose id number is even (e002, p002, s002, …) or odd: develop on
one half, check on the other, so that a rule fitted to the lines it was made from shows.

CI does not run it; bench/RESULTS.md keeps its figures before and after each change.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from memcli.core.analysis import analyse  # noqa: E402
from memcli.core.entries import parse  # noqa: E402
from memcli.core.judgement.importance import judge_text  # noqa: E402
from memcli.core.lifecycle import History, Plan, View, plan  # noqa: E402
from memcli.core.policy import Policy  # noqa: E402
from memcli.core.roles import MemoryFile, classify  # noqa: E402
from memcli.core.rules import DEFAULT_RULES  # noqa: E402

GOLD = REPO.parent / "shared" / "gold"
NOW = datetime(2026, 10, 31, 9, 0)  # naive, the user's time zone, as the planner takes it
CORE_HEAD = "# MEMORY.md\n\n## Preferences\n\n## Environment\n\n## Decisions\n\n## Knowledge\n"
POLICY = Policy()


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def half(rows: list[dict[str, Any]], which: str | None) -> list[dict[str, Any]]:
    """The rows whose id number (e002 -> 2) is even or odd; all of them without `which`."""
    if which is None:
        return rows
    parity = 0 if which == "even" else 1
    return [r for r in rows if int("".join(ch for ch in r["id"] if ch.isdigit())) % 2 == parity]


def as_line(text: str) -> str:
    """An entry as a line of a note: a list item as it is; any other line (a paragraph, a
    quote, a label) as it is too, with a blank line around it so it stands alone."""
    return text.strip("\n") + "\n"


def note(day: date, lines: Iterable[str]) -> str:
    return f"# {day.isoformat()}\n\n" + "\n".join(as_line(t) for t in lines)


def workspace_plan(files: dict[str, str], now: datetime = NOW) -> tuple[Plan, Any]:
    """gc's plan for a workspace given as {path: text}, made in memory."""
    parsed: list[tuple[MemoryFile, Any]] = []
    for rel, text in files.items():
        f = classify(rel)
        assert isinstance(f, MemoryFile), rel
        parsed.append((f, parse(text, rel, f.date)))
    analysis = analyse(parsed, POLICY, DEFAULT_RULES, now)
    view = View(tuple(parsed), frozenset(), frozenset(files), History())
    return plan(view, analysis, POLICY, DEFAULT_RULES, now), analysis


def closed_day(labelled: str | None) -> date:
    """The entry's own date when it is closed (before yesterday) and recent enough not to be
    summarised away first; else a closed day inside the short-term window."""
    fallback = NOW.date() - timedelta(days=3)
    if labelled:
        day = date.fromisoformat(labelled)
        if NOW.date() - timedelta(days=POLICY.short_term_days) < day < NOW.date() - timedelta(days=1):
            return day
    return fallback


def texts_of(p: Plan, action: str) -> list[str]:
    return [a.text or "" for a in p.actions if a.action == action]


def line_in(text: str, actions: Sequence[str]) -> bool:
    """Whether an action's text is this entry (the planner copies it without its marker)."""
    core = text.strip().lstrip("-*+ ").strip()
    return any(core[:60] in a or a.strip().lstrip("-*+ ")[:60] in text for a in actions)


# --- entries ---------------------------------------------------------------------------------


@dataclass
class Scores:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def add(self, predicted: bool, actual: bool) -> None:
        if predicted and actual:
            self.tp += 1
        elif predicted:
            self.fp += 1
        elif actual:
            self.fn += 1
        else:
            self.tn += 1

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def row(self) -> str:
        counts = f"(tp {self.tp}, fp {self.fp}, fn {self.fn})"
        return f"P {self.precision:.3f}  R {self.recall:.3f}  F1 {self.f1:.3f}  {counts}"


@dataclass
class EntryReport:
    core: Scores = field(default_factory=Scores)
    noise: Scores = field(default_factory=Scores)
    promoted_by_label: Counter[str] = field(default_factory=Counter)
    by_label: Counter[str] = field(default_factory=Counter)
    misses: list[tuple[str, str, str, str]] = field(default_factory=list)  # id, label, predicted, text


def judge_entry(row: dict[str, Any]) -> str:
    """core, noise or other: what gc does with the entry alone in a closed note."""
    day = closed_day(row.get("date"))
    rel = f"memory/{day.isoformat()}.md"
    p, _ = workspace_plan({"MEMORY.md": CORE_HEAD, rel: note(day, [row["text"]])})
    if any(a.action == "promote" for a in p.actions):
        return "core"
    if any(a.action == "drop" for a in p.actions):
        return "noise"
    return "other"


def run_entries(rows: list[dict[str, Any]]) -> EntryReport:
    report = EntryReport()
    for row in rows:
        label = row["label"]
        got = judge_entry(row)
        report.by_label[label] += 1
        report.core.add(got == "core", label == "core")
        report.noise.add(got == "noise", label == "noise")
        if got == "core":
            report.promoted_by_label[label] += 1
        wrong = (got == "core") != (label == "core") or (got == "noise") != (label == "noise")
        if wrong:
            report.misses.append((row["id"], label, got, row["text"]))
    return report


# --- pairs -----------------------------------------------------------------------------------


@dataclass
class PairReport:
    scores: Scores = field(default_factory=Scores)
    false_merges: Counter[str] = field(default_factory=Counter)
    missed: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    misses: list[tuple[str, str, str, str, str]] = field(default_factory=list)


def same_group(a: str, b: str) -> bool:
    day = NOW.date() - timedelta(days=3)
    rel = f"memory/{day.isoformat()}.md"
    _, analysis = workspace_plan({"MEMORY.md": CORE_HEAD, rel: note(day, [a, b])})
    found = [x for x in analysis.assessed if x.entry.file == rel]
    if len(found) != 2:  # the two lines parsed as one entry (a paragraph): not a verdict on them
        return False
    return found[0].group is not None and found[0].group == found[1].group


def run_pairs(rows: list[dict[str, Any]]) -> PairReport:
    report = PairReport()
    for row in rows:
        actual = row["label"] == "duplicate"
        got = same_group(row["a"], row["b"])
        report.scores.add(got, actual)
        report.by_kind[row["kind"]] += 1
        if got and not actual:
            report.false_merges[row["kind"]] += 1
        if actual and not got:
            report.missed[row["kind"]] += 1
        if got != actual:
            report.misses.append((row["id"], row["kind"], "merged" if got else "missed", row["a"], row["b"]))
    return report


# --- supersede -------------------------------------------------------------------------------


@dataclass
class SupersedeReport:
    core: Scores = field(default_factory=Scores)
    note: Scores = field(default_factory=Scores)
    misses: list[tuple[str, str, str, str, str]] = field(default_factory=list)


def retires(old: str, new: str, placement: str) -> bool:
    new_day = NOW.date() - timedelta(days=2)
    files = {f"memory/{new_day.isoformat()}.md": note(new_day, [new])}
    if placement == "core":
        files["MEMORY.md"] = CORE_HEAD.replace("## Knowledge\n", "## Knowledge\n\n" + as_line(old))
    else:
        old_day = NOW.date() - timedelta(days=3)
        files["MEMORY.md"] = CORE_HEAD
        files[f"memory/{old_day.isoformat()}.md"] = note(old_day, [old])
    p, _ = workspace_plan(files)
    return line_in(old, texts_of(p, "supersede"))


def run_supersede(rows: list[dict[str, Any]]) -> SupersedeReport:
    report = SupersedeReport()
    for row in rows:
        actual = row["label"] == "supersedes"
        for placement, scores in (("core", report.core), ("note", report.note)):
            got = retires(row["old"], row["new"], placement)
            scores.add(got, actual)
            if got != actual:
                what = "retired" if got else "missed"
                report.misses.append((row["id"], placement, what, row["old"], row["new"]))
    return report


# --- gc on the bench workspaces -----------------------------------------------------------------


def bench_plans(names: Sequence[str]) -> list[str]:
    lines = []
    for name in names:
        root = HERE / "workspaces" / name
        if not root.is_dir():
            subprocess.run(
                [sys.executable, str(HERE / "generate.py"), str(root), "--preset", name], check=True
            )
        started = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "memcli", "--json", "-w", str(root), "gc", "--dry-run"],
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            lines.append(f"{name}: gc --dry-run exited {done.returncode}: {done.stderr.strip()[:200]}")
            continue
        report = json.loads(done.stdout)
        counts = ", ".join(f"{n} {k}" for k, n in sorted(report["counts"].items()) if n)
        over = len(report.get("over_share", []))
        lines.append(
            f"{name}: {counts or 'nothing to do'}; {over} file(s) over the removal share "
            f"(a plain `gc` would {'stop and ask for --force' if over else 'apply'}); "
            f"{len(report.get('notes', []))} note(s); {seconds:.1f} s"
        )
    return lines


# --- report ----------------------------------------------------------------------------------


def share(n: int, total: int) -> str:
    return f"{n}/{total} ({n / total:.1%})" if total else "0/0"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gold", type=Path, default=GOLD, help="folder of entries/pairs/supersede.jsonl")
    parser.add_argument("--bench", action="store_true", help="also gc --dry-run on bench/workspaces/year")
    parser.add_argument("--misses", type=int, default=0, help="list this many misses of each task")
    parser.add_argument("--json", type=Path, help="write the figures (and every miss) to this file")
    parser.add_argument(
        "--half", choices=("even", "odd"), help="only the rows with an even (or odd) id number"
    )
    parser.add_argument(
        "--why", action="store_true", help="with --misses: the rule that decided each entry's label"
    )
    args = parser.parse_args(argv)

    started = time.perf_counter()
    entries = run_entries(half(load(args.gold / "entries.jsonl"), args.half))
    pairs = run_pairs(half(load(args.gold / "pairs.jsonl"), args.half))
    supersede_rows = half(load(args.gold / "supersede.jsonl"), args.half)
    supersede = run_supersede(supersede_rows)
    seconds = time.perf_counter() - started

    which = f", {args.half} half" if args.half else ""
    print(f"# memcli judgement on {args.gold}{which} ({seconds:.1f} s)\n")
    print(f"entries.jsonl ({sum(entries.by_label.values())} entries)")
    print(f"  core   {entries.core.row()}")
    for label in ("transient", "routine", "log"):
        print(f"  {label} scored core: {share(entries.promoted_by_label[label], entries.by_label[label])}")
    print(f"  noise  {entries.noise.row()}")
    print(f"\npairs.jsonl ({sum(pairs.by_kind.values())} pairs)")
    print(f"  duplicate {pairs.scores.row()}")
    for kind in sorted(pairs.by_kind):
        fm, mi = pairs.false_merges[kind], pairs.missed[kind]
        print(f"  {kind:32} {pairs.by_kind[kind]:3} pairs: {fm} false merges, {mi} misses")
    print(f"\nsupersede.jsonl ({len(supersede_rows)} cases)")
    print(f"  old fact in MEMORY.md        {supersede.core.row()}")
    print(f"  old fact in an old daily note {supersede.note.row()}")
    if args.misses:
        print(f"\nmisses (first {args.misses} of each task)")
        for i, label, got, text in entries.misses[: args.misses]:
            print(f"  {i} {label:9} -> {got:5}  {text[:110]}")
            if args.why:
                print(f"{'':24}{judge_text(text).why[:100]}")  # the rule that decided the label
        for i, kind, what, a, b in pairs.misses[: args.misses]:
            print(f"  {i} {kind} {what}: {a[:60]!r} / {b[:60]!r}")
        for i, placement, what, old, new in supersede.misses[: args.misses]:
            print(f"  {i} {placement} {what}: {old[:60]!r} -> {new[:60]!r}")
    if args.bench:
        print("\ngc --dry-run on the bench workspaces")
        for line in bench_plans(["year"]):
            print(f"  {line}")
    if args.json:
        figures = {
            "entries": {
                "core": vars(entries.core),
                "noise": vars(entries.noise),
                "promoted_by_label": dict(entries.promoted_by_label),
                "by_label": dict(entries.by_label),
                "misses": entries.misses,
            },
            "pairs": {
                "scores": vars(pairs.scores),
                "false_merges": dict(pairs.false_merges),
                "missed": dict(pairs.missed),
                "misses": pairs.misses,
            },
            "supersede": {
                "core": vars(supersede.core),
                "note": vars(supersede.note),
                "misses": supersede.misses,
            },
        }
        args.json.write_text(json.dumps(figures, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
