#!/usr/bin/env python3
"""How good flush's extraction is, on labelled transcripts (issue 18, point 3).

Runs what `memcli flush` takes out of a session (memcli.core.judgement.extraction) on each
transcript of the labelled sets (`tests/data/flush/`: `dev/`, the rules were developed on
it; `heldout/`, written after them; `late/`, written last and never tuned on), and compares
it with the labels:

- an item flush would write is **right** when the message it comes from is labelled with a
  durable item whose words it holds; every other item is a false positive;
- a labelled durable item is **found** when an item of its message holds its words.

Prints precision (right / written) and recall (found / labelled) per set, per language and
overall, and the misses: what was written that should not have been (with the message's
label), and what was not written (with the reason the judgement gave for each sentence).

Usage::

    python bench/flush_quality.py [SET_DIR ...] [--misses N] [--json FILE]

`tests/test_flush_quality.py` asserts precision ≥ 0.9 and recall ≥ 0.8 on the sets (0.75
on `late/`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from memcli.core.conversation import parse_transcript  # noqa: E402
from memcli.core.judgement.extraction import extract, judge_sentence  # noqa: E402
from memcli.core.spoken import sentences, spoken, units  # noqa: E402

SETS = tuple(REPO / "tests" / "data" / "flush" / name for name in ("dev", "heldout", "late"))


def _folded(text: str) -> str:
    return " ".join(text.casefold().split())


@dataclass
class Score:
    written: int = 0
    right: int = 0
    labelled: int = 0
    found: int = 0
    wrong: list[dict[str, Any]] = field(default_factory=list)  # written, not labelled
    missed: list[dict[str, Any]] = field(default_factory=list)  # labelled, not written

    @property
    def precision(self) -> float:
        return self.right / self.written if self.written else 1.0

    @property
    def recall(self) -> float:
        return self.found / self.labelled if self.labelled else 1.0

    def add(self, other: Score) -> None:
        self.written += other.written
        self.right += other.right
        self.labelled += other.labelled
        self.found += other.found
        self.wrong += other.wrong
        self.missed += other.missed

    def line(self, name: str) -> str:
        return (
            f"{name:<28} precision {self.precision:.3f} ({self.right}/{self.written})   "
            f"recall {self.recall:.3f} ({self.found}/{self.labelled})"
        )


def score_transcript(folder: Path, labelled: dict[str, Any]) -> Score:
    """The extraction of one transcript against its labels."""
    lines = (folder / labelled["file"]).read_text(encoding="utf-8").splitlines()
    transcript = parse_transcript(lines, labelled["file"])
    labels = {m["id"]: m for m in labelled["messages"]}
    texts = {m.id: m for m in transcript.messages}
    result = extract(transcript.messages)
    out = Score()
    covered: set[tuple[str, str]] = set()
    for item in result.items:
        out.written += 1
        label = labels.get(item.source, {"kind": "?", "items": []})
        keys = [k for k in label["items"] if _folded(k) in _folded(item.text)]
        if keys:
            out.right += 1
            covered.update((item.source, k) for k in keys)
        else:
            out.wrong.append(
                {"file": labelled["file"], "id": item.source, "kind": label["kind"], "item": item.text}
            )
    for ident, label in labels.items():
        for key in label["items"]:
            out.labelled += 1
            if (ident, key) in covered:
                out.found += 1
                continue
            message = texts.get(ident)
            out.missed.append(
                {
                    "file": labelled["file"],
                    "id": ident,
                    "kind": label["kind"],
                    "item": key,
                    "why": _why(message.role, message.text) if message is not None else "not read",
                }
            )
    return out


def _why(role: str, text: str) -> str:
    body = spoken(role, text)
    if body is None:
        return "taken for machinery (no words of a person)"
    said = [f"{judge_sentence(s, role).why} <- {s[:50]!r}" for u in units(body) for s in sentences(u)]
    return "; ".join(said) if said else "no unit"


def score_set(folder: Path) -> dict[str, Score]:
    """Scores of one labelled set: overall and per language."""
    labels = json.loads((folder / "labels.json").read_text(encoding="utf-8"))
    scores: dict[str, Score] = {"all": Score()}
    for labelled in labels["transcripts"]:
        one = score_transcript(folder, labelled)
        scores["all"].add(one)
        scores.setdefault(labelled["language"], Score()).add(one)
    return scores


def report(folders: Iterable[Path], misses: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for folder in folders:
        if not (folder / "labels.json").exists():
            continue
        scores = score_set(folder)
        print(f"== {folder.name} ==")
        for name, score in scores.items():
            print(score.line(name))
        total = scores["all"]
        for row in total.wrong[:misses]:
            print(f"  written, not durable [{row['kind']}] {row['file']} {row['id']}: {row['item'][:110]!r}")
        for row in total.missed[:misses]:
            print(f"  missed [{row['kind']}] {row['file']} {row['id']}: {row['item']!r}")
            print(f"      why: {row['why'][:300]}")
        print()
        out[folder.name] = {
            name: {"precision": s.precision, "recall": s.recall, "written": s.written, "labelled": s.labelled}
            for name, s in scores.items()
        } | {"wrong": total.wrong, "missed": total.missed}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", type=Path, help="folders holding labels.json and the transcripts")
    parser.add_argument("--misses", type=int, default=50, help="misses of each kind to print")
    parser.add_argument("--json", type=Path, help="write the figures and misses to this file")
    args = parser.parse_args(argv)
    result = report(args.sets or SETS, args.misses)
    if args.json is not None:
        args.json.write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
