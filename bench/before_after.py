"""Issue 9, point 3: the slowest path before and after, measured in one run.

The slowest command on the generated workspaces is `memcli --json list` on the decade
(every entry scored, decayed and grouped, 219,036 of them). This script checks out the
code as it was before the work on it (a git worktree of --base), and measures on the
decade, median of --runs each:

- before: the base commit's memcli;
- after, cold: today's memcli with its facts cache emptied before every run (what a first
  run, or a run after every note changed, costs);
- after, warm: today's memcli with the cache left from the run before, nothing changed
  since (a second command, or a hook run after a commit that touched no note);
- after, warm with a new note: the same after the agent wrote today's note (a nightly
  run: only the notes written since the last run are parsed and read again). Its output
  differs from the others by the new note's entries, so it is not compared.

It also checks that the first three print the same JSON. Writes bench/RESULTS-notes.md, which
bench/run appends to bench/RESULTS.md.

Usage::

    python bench/before_after.py [--base bf61964] [--runs 3] [--workspace decade]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from common import ensure_workspace  # noqa: E402
from gc_bench import next_morning  # noqa: E402

COMMANDS = (["--json", "list"], ["--json", "dedupe"], ["--json", "gc", "--dry-run"])


CANONICAL = (
    "import hashlib, json, sys; data = json.load(open(sys.argv[1], encoding='utf-8')); "
    "print(hashlib.sha256(json.dumps(data, sort_keys=True, ensure_ascii=False).encode()).hexdigest())"
)


def run(code: Path, root: Path, now: str, args: Sequence[str]) -> tuple[float, float, str]:
    """Wall seconds, peak MB and a hash of the JSON printed by one run of `code`'s memcli."""
    # the editable install's import hook would find the working tree's memcli whatever the
    # path says: drop it, then import memcli from `code`
    boot = (
        "import sys, runpy; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f)]; "
        f"sys.path.insert(0, {str(code)!r}); sys.argv[0] = 'memcli'; "
        "runpy.run_module('memcli', run_name='__main__')"
    )
    argv = [sys.executable, "-c", boot, "-w", str(root), "--now", now, *args]
    with tempfile.NamedTemporaryFile(prefix="memcli-out-", suffix=".json") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=dict(os.environ))
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        if status != 0:
            raise SystemExit(f"{' '.join(argv)} failed with {status}")
        # hashed in another process, layout aside: loading the decade's list here would swell
        # this process, and a child forked from it counts the parent's pages in its peak
        canonical = subprocess.run(
            [sys.executable, "-c", CANONICAL, out.name], capture_output=True, text=True, check=True
        )
    return seconds, usage.ru_maxrss / 1024, canonical.stdout.strip()


NEW_NOTE = """# {day}

- 09:12 Deployed notes-sync 2.4.1 to staging; the migration took 40 s
- 10:05 Lin: 周五之前把 staging 的 Redis 升级到 7.2
- [ ] Review Priya's PR on the export path
- 以后发版前先跑 `make check`，不要跳过

## Decisions

- Keep the nightly backup at 03:00, retention 30 days
"""


def write_new_note(root: Path, now: str) -> Path:
    """Today's note, as an agent writes it during the day."""
    day = now[:10]
    note = root / "memory" / f"{day}.md"
    if note.exists():
        raise SystemExit(f"{note} exists already; the new-note run would change a real note")
    note.write_text(NEW_NOTE.format(day=day), encoding="utf-8")
    return note


def clear_cache(root: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{root}/.memcli/cache.sqlite{suffix}").unlink(missing_ok=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--base", default="bf61964", help="the commit before the speed work")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workspace", default="decade", choices=("year", "decade"))
    parser.add_argument("--output", type=Path, default=HERE / "RESULTS-notes.md")
    args = parser.parse_args(argv)
    root, manifest = ensure_workspace(args.workspace)
    (root / ".memcli").mkdir(exist_ok=True)  # as after any gc: where the cache may live
    now = next_morning(manifest)
    lines = [
        "## The slowest path, before and after (issue 9, point 3)",
        "",
        f"`python bench/before_after.py --base {args.base} --runs {args.runs}` on the {args.workspace} "
        f"({manifest['entries']:,} entries), {time.strftime('%Y-%m-%d')}. Before: memcli at {args.base}. "
        "After, cold: the cache (.memcli/cache.sqlite) emptied before each run. After, warm: the "
        "cache of the run before, nothing changed since. Warm + new note: the same after today's "
        "note was written (a nightly run). Same JSON printed by before, cold and warm: see the "
        "last column.",
        "",
        "| command | before | after, cold | after, warm | warm + new note | warm speed-up "
        "| with new note | same output |",
        "|---|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory(prefix="memcli-base-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", str(base), args.base], cwd=REPO, check=True,
                       capture_output=True)  # fmt: skip
        try:
            for command in COMMANDS:
                before, cold, warm, fresh, digests = [], [], [], [], set()
                for _ in range(args.runs):
                    seconds, mb, digest = run(base, root, now, command)
                    before.append((seconds, mb))
                    digests.add(digest)
                    clear_cache(root)
                    seconds, mb, digest = run(REPO, root, now, command)
                    cold.append((seconds, mb))
                    digests.add(digest)
                    seconds, mb, digest = run(REPO, root, now, command)  # the cache from the cold run
                    warm.append((seconds, mb))
                    digests.add(digest)
                    note = write_new_note(root, now)
                    try:
                        seconds, mb, _ = run(REPO, root, now, command)
                    finally:
                        note.unlink()
                    fresh.append((seconds, mb))
                runs = (before, cold, warm, fresh)
                b, c, w, f = (statistics.median(s for s, _ in xs) for xs in runs)
                mbs = [max(m for _, m in xs) for xs in runs]
                same = "yes" if len(digests) == 1 else f"NO ({len(digests)} outputs)"
                cells = [f"{x:.2f} s ({m:.0f} MB)" for x, m in zip((b, c, w, f), mbs, strict=True)]
                lines.append(
                    f"| `memcli {' '.join(command)}` | {' | '.join(cells)} | {b / w:.2f}× | {b / f:.2f}× "
                    f"| {same} |"
                )
                print(lines[-1], flush=True)
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base)], cwd=REPO, capture_output=True)
    args.output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
