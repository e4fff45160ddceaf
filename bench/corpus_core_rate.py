#!/usr/bin/env python3
"""How often the importance judgement calls a daily-note line core on real text.

Daily notes are mostly logs: a core line there is a rule, a lasting fact, a decision in
force. A cue that is too broad shows here first, as a rise of the share judged core. The
script runs the judgement (core.judgement.importance, as `memcli score` does, with the
line's section) on every list line of the daily notes in `shared/corpus/*/memory/*.md`
outside code blocks that is not a line of the gold set, and prints the share judged core.

`--save FILE` keeps the lines judged core; `--against FILE` prints the share of the saved
run beside this one and a random sample of the lines newly judged core (and of those no
longer core), to read whether they really are core.

Usage::

    python bench/corpus_core_rate.py [--corpus ../shared/corpus] [--gold ../shared/gold]
                                     [--save FILE] [--against FILE] [--sample 30] [--seed 17]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from memcli.core.entries import Heading  # noqa: E402
from memcli.core.judgement.importance import Label, judge  # noqa: E402
from memcli.core.rules import DEFAULT_RULES  # noqa: E402
from memcli.core.scoring import score_text  # noqa: E402

CORPUS = REPO.parent / "shared" / "corpus"
GOLD = REPO.parent / "shared" / "gold"
TODAY = date(2026, 10, 31)  # bench/quality.py's --now
_LIST = re.compile(r"^(\s*)(?:[-+*]|\d{1,9}[.)])[ \t]+(\[[ xX]\][ \t]*)?\S")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def list_lines(path: Path) -> Iterator[tuple[int, str, str, bool | None, tuple[Heading, ...]]]:
    """(line number, line, kind, done, section) of each list line outside code blocks."""
    section: list[Heading] = []
    fenced = False
    for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        heading = _HEADING.match(line)
        if heading is not None:
            level = len(heading[1])
            section = [h for h in section if h.level < level] + [Heading(level, heading[2])]
            continue
        m = _LIST.match(line)
        if m is None:
            continue
        box = m[2]
        kind = "task" if box else "bullet"
        done = None if not box else box.strip("[] \t").lower() == "x"
        yield n, line.strip(), kind, done, tuple(section)


def gold_texts(gold: Path) -> set[str]:
    rows = (
        json.loads(x) for x in (gold / "entries.jsonl").read_text(encoding="utf-8").splitlines() if x.strip()
    )
    return {r["text"].strip() for r in rows}


def run(corpus: Path, gold: Path) -> tuple[int, dict[str, str], Counter[str]]:
    """(lines judged, {"file:line": text} of the lines judged core, count by label)."""
    skip = gold_texts(gold)
    core: dict[str, str] = {}
    labels: Counter[str] = Counter()
    total = 0
    for path in sorted(corpus.glob("*/memory/*.md")):
        rel = str(path.relative_to(corpus))
        for n, text, kind, done, section in list_lines(path):
            if text in skip:
                continue
            total += 1
            scored = score_text(text, DEFAULT_RULES, kind=kind, today=TODAY)
            verdict = judge(text, scored, DEFAULT_RULES, kind=kind, section=section, done=done)
            labels[verdict.label.value] += 1
            if verdict.label is Label.CORE:
                core[f"{rel}:{n}"] = text
    return total, core, labels


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--gold", type=Path, default=GOLD)
    parser.add_argument("--save", type=Path, help="write the lines judged core to this JSON file")
    parser.add_argument("--against", type=Path, help="a file --save wrote: show what changed since")
    parser.add_argument("--sample", type=int, default=30, help="how many changed lines to show")
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args(argv)

    started = time.perf_counter()
    total, core, labels = run(args.corpus, args.gold)
    seconds = time.perf_counter() - started
    print(f"{total} daily-note list lines (gold lines left out), {seconds:.1f} s")
    print(f"judged core: {len(core)} ({len(core) / max(total, 1):.1%})")
    print("by label: " + ", ".join(f"{k} {v}" for k, v in labels.most_common()))
    if args.save:
        args.save.write_text(
            json.dumps({"total": total, "core": core}, ensure_ascii=False, indent=0), "utf-8"
        )
    if args.against:
        before = json.loads(args.against.read_text(encoding="utf-8"))
        old: dict[str, str] = before["core"]
        print(f"before: {len(old)} ({len(old) / max(before['total'], 1):.1%})")
        rng = random.Random(args.seed)
        for title, keys in (
            ("newly core", sorted(set(core) - set(old))),
            ("no longer core", sorted(set(old) - set(core))),
        ):
            shown = sorted(rng.sample(keys, min(args.sample, len(keys))))
            print(f"\n{title}: {len(keys)} (a sample of {len(shown)})")
            for key in shown:
                text = core.get(key) or old[key]
                print(f"  {key.split('/', 1)[0][:12]}…{key.rsplit('/', 1)[-1]}  {text[:130]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
