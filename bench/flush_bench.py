"""Issue 18, point 5: `memcli flush` with nothing due on a real-sized OpenClaw store.

Generates (bench/generate_sessions.py) OpenClaw's default layout with a `sessions.json` of
60 sessions and 4 MB and some 11 MB of transcripts, in which no session is due, and
measures, median of --runs runs each, in the same run:

- floors: `python -c pass` (the interpreter's start-up), `cat` of the store, and
  `memcli --help` (memcli's own start-up);
- `memcli flush` and `memcli status` on the store (found through --state-dir, as a
  default install finds it through ~/.openclaw);
- with --before REF: the same flush by the code of commit REF (`git archive`, run from a
  temporary folder; nothing in the work tree changes), on the store without its one
  restored-backup path, on which that code stopped with exit 3.

It checks that the flush wrote nothing (every file's bytes and times the same). Target:
flush ≤ 0.5 s.

    python bench/flush_bench.py [--runs 5] [--before HEAD] [--write bench/README.md]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from common import fmt_row, machine, write_block  # noqa: E402
from generate_sessions import generate  # noqa: E402

NOW = "2026-10-31T09:00:00+08:00"
TARGET = 0.5


def run_once(argv: Sequence[str], env: dict[str, str] | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, check=False)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({proc.returncode}): {proc.stderr.decode()[-600:]}")
    return seconds


def median(argv: Sequence[str], runs: int, env: dict[str, str] | None = None) -> float:
    run_once(argv, env)  # warm the page cache and Python's bytecode cache
    return statistics.median(run_once(argv, env) for _ in range(runs))


def digest(root: Path) -> str:
    """Every file's path, bytes, mode and modification time."""
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in sorted(os.walk(root)):
        dirnames.sort()
        for name in sorted(filenames):
            path = Path(dirpath) / name
            st = path.lstat()
            h.update(f"{path.relative_to(root)} {st.st_mode} {st.st_mtime_ns}\n".encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def old_code(ref: str, into: Path) -> Path:
    """The memcli package of commit `ref`, unpacked under `into` (git archive: read only)."""
    archive = into / "memcli.tar"
    with open(archive, "wb") as f:
        subprocess.run(["git", "-C", str(REPO), "archive", ref, "memcli"], stdout=f, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into / "code", filter="data")
    return into / "code"


def boot(code: Path) -> list[str]:
    """A Python command that runs the memcli in `code` (the editable install's import hook,
    which would find the work tree's memcli, is dropped first)."""
    script = (
        "import sys, runpy; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)]; "
        f"sys.path.insert(0, {str(code)!r}); sys.argv[0] = 'memcli'; "
        "runpy.run_module('memcli', run_name='__main__')"
    )
    return [sys.executable, "-c", script]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sessions", type=int, default=60)
    parser.add_argument("--store-mb", type=float, default=4.0)
    parser.add_argument("--before", metavar="REF", help="also time the flush of this commit's code")
    parser.add_argument("--write", type=Path, help="write the results into this Markdown file")
    args = parser.parse_args()
    if args.runs < 3:
        raise SystemExit("--runs must be at least 3 (a median of fewer says little)")
    memcli = [sys.executable, "-m", "memcli"]
    rows: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="memcli-flush-bench-") as scratch:
        base = Path(scratch)
        made = generate(base / "store", args.sessions, args.store_mb)
        state, workspace, store = Path(made["state"]), Path(made["workspace"]), made["store"]
        where = ["-w", str(workspace), "--state-dir", str(state), "--now", NOW]
        floors = {
            "python -c pass": median([sys.executable, "-c", "pass"], args.runs),
            "cat sessions.json": median(["cat", store], args.runs),
            "memcli --help": median([*memcli, "--help"], args.runs),
        }
        before = digest(base / "store")
        flush = median([*memcli, *where, "flush"], args.runs)
        if digest(base / "store") != before:
            raise SystemExit("memcli flush changed the store or the workspace with nothing due")
        status = median([*memcli, *where, "--json", "status"], args.runs)
        old: float | None = None
        if args.before:
            portable = generate(base / "portable", args.sessions, args.store_mb, portable=True)
            env = {**os.environ, "OPENCLAW_STATE_DIR": portable["state"]}
            code = old_code(args.before, base)
            argv = [*boot(code), "-w", portable["workspace"], "--now", NOW, "flush"]
            old = median(argv, args.runs, env)
    size = f"{made['sessions']} sessions, {made['store_bytes'] / 1e6:.1f} MB store"
    size += f" + {made['transcript_bytes'] / 1e6:.1f} MB of transcripts"
    for name, seconds in floors.items():
        rows.append([name, "floor", f"{seconds * 1000:.0f} ms", ""])
    verdict = "within" if flush <= TARGET else "OVER"
    python = floors["python -c pass"]
    rows.append(
        ["memcli flush (nothing due)", size, f"{flush * 1000:.0f} ms", f"{flush / python:.1f}× python"]
    )
    rows.append(["memcli --json status", size, f"{status * 1000:.0f} ms", f"{status / python:.1f}× python"])
    if old is not None:
        rows.append(
            [
                f"memcli flush at {args.before} (before)",
                size,
                f"{old * 1000:.0f} ms",
                f"{old / flush:.1f}× after",
            ]
        )
    table = "\n".join(
        [fmt_row(["command", "input", f"median of {args.runs}", "ratio"]), fmt_row(["---"] * 4)]
        + [fmt_row(r) for r in rows]
    )
    report = f"{table}\n\nTarget: flush with nothing due ≤ {TARGET} s: {verdict} ({flush:.2f} s)."
    print(f"Measured on {machine()}.\n\n{report}")
    if args.write:
        write_block(args.write, "flush", report)
    if flush > TARGET:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
