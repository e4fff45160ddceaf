"""What the benchmark scripts share: the generated workspaces, timing a command, and
writing a block of results into bench/README.md."""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

WORKSPACES = HERE / "workspaces"
NOW = "2026-06-01T09:00:00+08:00"
PRESETS = {"year": 365, "decade": 3650}


def ensure_workspace(name: str) -> tuple[Path, dict[str, Any]]:
    """The generated workspace `name` (made on first use) and its manifest."""
    out = WORKSPACES / name
    manifest_file = generate.manifest_path(out)
    if not (out / "memory").is_dir() or not manifest_file.is_file():
        WORKSPACES.mkdir(exist_ok=True)
        generate.generate(out, PRESETS[name], 60, 1, date(2016, 1, 1), force=True)
    return out, json.loads(manifest_file.read_text(encoding="utf-8"))


def memcli() -> list[str]:
    return [sys.executable, "-m", "memcli"]


def run_once(argv: Sequence[str]) -> tuple[float, float]:
    """Wall seconds and peak resident MB of one run of a command, output discarded."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr.read().decode() if proc.stderr else ''}")
    return seconds, usage.ru_maxrss / 1024


def measure(argv: Sequence[str], runs: int) -> tuple[float, float]:
    """Median wall seconds and peak resident MB of a command over `runs` runs."""
    results = [run_once(argv) for _ in range(runs)]
    return statistics.median(t for t, _ in results), max(m for _, m in results)


def note_files(root: Path) -> list[str]:
    return [str(p) for p in sorted(root.rglob("*.md"))]


def fmt_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def machine() -> str:
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"


def write_block(path: Path, name: str, report: str) -> None:
    """Put `report` between the `<!-- name:start -->` and `<!-- name:end -->` marks of `path`
    (appended when the marks are missing)."""
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\nMeasured {time.strftime('%Y-%m-%d')} on {machine()}.\n\n{report}\n{end}"
    if start in text and end in text:
        text = text[: text.index(start)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(text, encoding="utf-8")
