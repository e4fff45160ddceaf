"""How much `memcli summarize --session` shrinks a transcript, and what it keeps.

For each transcript of sample-workspace and for a generated 20-turn conversation
(tests/conversation.py: tool calls with long results, an error and two retries,
three preferences and three decisions): tokens in (every message as the model reads
it, tool traffic included), tokens out (the summary's body), the reduction, and how
many of the conversation's preferences and decisions the summary kept.

Usage::

    python bench/summarize_bench.py [--write bench/README.md]

Target (issue 5): at least 70% fewer tokens, every preference and decision kept.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(REPO / "tests"))

from common import memcli, write_block  # noqa: E402
from conversation import DECISIONS, PREFERENCES, jsonl, twenty_turns  # noqa: E402

NOW = "2026-10-31T09:00:00+08:00"


def summarize(root: Path, key: str) -> dict[str, Any]:
    argv = [*memcli(), "-w", str(root), "--now", NOW, "--json", "summarize", "--session", key, "-o", "-"]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", type=Path, help="write the table into this Markdown file")
    args = parser.parse_args(argv)
    rows = [
        "| transcript | tokens in | tokens out | fewer | preferences and decisions kept |",
        "|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        shutil.copytree(REPO / "sample-workspace", root)
        (root / "sessions" / "conv-20.jsonl").write_text(jsonl(twenty_turns()), encoding="utf-8")
        store = json.loads((root / "sessions.json").read_text(encoding="utf-8"))
        store["bench:conv-20"] = {"sessionId": "conv-20", "sessionFile": "sessions/conv-20.jsonl"}
        (root / "sessions.json").write_text(json.dumps(store, indent=2), encoding="utf-8")
        for key, entry in store.items():
            if not (root / str(entry.get("sessionFile", "-"))).is_file():
                continue
            report = summarize(root, key)
            tokens_in, tokens_out = int(report["tokens_in"]), int(report["tokens_out"])
            found, got = report["found"], report["kept"]
            classes = ("preference", "decision")
            kept = f"{sum(got.get(c, 0) for c in classes)} of {sum(found.get(c, 0) for c in classes)}"
            if key == "bench:conv-20":  # the planted ones, by their words
                wanted = (*PREFERENCES, *DECISIONS)
                kept += f" (planted: {sum(w in str(report['text']) for w in wanted)} of {len(wanted)})"
            rows.append(
                f"| {key} | {tokens_in:,} | {tokens_out:,} | {1 - tokens_out / tokens_in:.0%} | {kept} |"
            )
    table = "\n".join(rows)
    print(table)
    if args.write:
        write_block(args.write, "summarize", table + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
