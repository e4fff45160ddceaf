"""Idle CPU of a running `memcli watch`: with nothing changing it must sleep, not poll.

Starts `memcli watch` on a private copy of sample-workspace/ (or the workspace named),
lets its first pass settle, then reads the CPU time the kernel charged to the process
(/proc/<pid>/task/*/schedstat, in ns, every thread) and its threads' context switches (wake-ups)
over the measured interval, and stops it with SIGTERM. Linux only (inotify, /proc).

    python bench/watch_idle.py                 # 30 s
    python bench/watch_idle.py --seconds 60 --workspace ~/.openclaw/workspace
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLE = HERE.parent / "sample-workspace"


def cpu_seconds(pid: int) -> float:
    """CPU seconds of the process, every thread: nanoseconds on a CPU from each thread's
    /proc/<pid>/task/<tid>/schedstat when the kernel keeps them, else user + system time
    from /proc/<pid>/stat (clock ticks, 10 ms)."""
    stats = list(Path(f"/proc/{pid}/task").glob("*/schedstat"))
    try:
        if stats:
            return sum(int(p.read_text().split()[0]) for p in stats) / 1e9
    except (OSError, ValueError, IndexError):
        pass
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wakeups(pid: int) -> int:
    """Context switches of every thread: each sleep that ends is one."""
    total = 0
    for status in Path(f"/proc/{pid}/task").glob("*/status"):
        try:
            for line in status.read_text().splitlines():
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
        except OSError:  # a thread that ended meanwhile
            continue
    return total


def measure(workspace: Path, seconds: float, settle: float) -> dict[str, float]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMCLI_") and k != "OPENCLAW_STATE_DIR"}
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "memcli", "-w", str(workspace), "watch"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        if "watching" not in first:
            err = proc.stderr.read() if proc.stderr else ""
            raise SystemExit(f"memcli watch did not start: {first}{err}")
        time.sleep(settle)
        startup = cpu_seconds(proc.pid)
        threads = len(list(Path(f"/proc/{proc.pid}/task").iterdir()))
        cpu0, woke0, t0 = cpu_seconds(proc.pid), wakeups(proc.pid), time.monotonic()
        time.sleep(seconds)
        cpu1, woke1, t1 = cpu_seconds(proc.pid), wakeups(proc.pid), time.monotonic()
        stop = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=10)
        stopped = time.monotonic() - stop
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if code != 0:
        raise SystemExit(f"memcli watch exited {code} on SIGTERM")
    elapsed = t1 - t0
    return {
        "seconds": elapsed,
        "cpu": cpu1 - cpu0,
        "share": (cpu1 - cpu0) / elapsed,
        "wakeups": (woke1 - woke0) / elapsed,
        "threads": threads,
        "startup_cpu": startup,
        "startup_wall": t0 - started,
        "stop_wall": stopped,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="idle interval measured")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds left to the first pass")
    parser.add_argument("--workspace", type=Path, help="watch this workspace (default: a copy of the sample)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workspace = args.workspace
        if workspace is None:
            workspace = Path(tmp) / "sample"
            shutil.copytree(SAMPLE, workspace)
        r = measure(workspace, args.seconds, args.settle)
    print(
        f"memcli watch, idle {r['seconds']:.1f} s: {r['cpu'] * 1000:.1f} ms of CPU "
        f"({100 * r['share']:.3f}% of one core), {r['wakeups']:.1f} wake-ups/s "
        f"over {r['threads']:.0f} threads; start-up and first pass {r['startup_cpu']:.2f} CPU s; "
        f"SIGTERM to exit {r['stop_wall'] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
