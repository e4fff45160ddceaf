"""An agent that opens a note and writes a few milliseconds later loses nothing (issue 15,
point 3).

Node's `fs.appendFile` opens the file, then writes on a later turn of its event loop: when
memcli replaces the note in between, the write lands in the replaced file. memcli keeps
the replaced file linked under `.memcli/carry/` and, at the end of the run, carries what
arrived in it for as long as a process still holds it open (files.settle_carried); what
arrives later still is carried by the next run.

Appenders here open MEMORY.md and a closed note that gc (or `check --fix`) rewrites every
round, wait 0-5 ms, write one numbered line and close; one is Python, one Node (skipped
when `node` is missing). Every line must be found exactly once afterwards, without a
further memcli run. SLOW_APPENDER_RUNS sets the rounds (gc and check --fix alternate).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from conftest import NOW, SAMPLE, copy_tree
from memcli.cli.app import app
from memcli.workspace.transaction import trash_records

from .kit import STATE, report, user_bytes

ROUNDS = int(os.environ.get("SLOW_APPENDER_RUNS", "12"))
RUNNER = CliRunner()
REWRITTEN = "memory/2026-10-27.md"  # closed (four days old), inside the short-term window
TARGETS = {"MEMORY.md": "core slow", REWRITTEN: "note slow"}

PYTHON_APPENDER = r"""
import os, random, sys, time

root, stop = sys.argv[1], sys.argv[2]
targets = [(os.path.join(root, rel), tag) for rel, tag in zip(sys.argv[3::2], sys.argv[4::2])]
rng = random.Random(3)
n = 0
while not os.path.exists(stop):
    n += 1
    for path, tag in targets:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        time.sleep(rng.uniform(0, 0.005))  # open, then write a little later
        os.write(fd, f"- {tag} {n:06d} qzx\n".encode())
        os.close(fd)
    time.sleep(rng.uniform(0.001, 0.003))
print(n, flush=True)
"""

NODE_APPENDER = r"""
const fs = require("fs");
const path = require("path");
const [root, stop, ...pairs] = process.argv.slice(2);
const targets = [];
for (let i = 0; i < pairs.length; i += 2) targets.push([path.join(root, pairs[i]), pairs[i + 1]]);
let n = 0;
function line(tag) { return `- ${tag} ${String(n).padStart(6, "0")} qzx\n`; }
function write(target, tag, done) {
  if (n % 2) {  // as fs.appendFile does: open, then write on a later turn
    fs.appendFile(target, line(tag), (err) => { if (err) throw err; done(); });
    return;
  }
  fs.open(target, "a", (err, fd) => {  // open, then write 0-5 ms later
    if (err) throw err;
    setTimeout(() => fs.write(fd, line(tag), (err2) => {
      if (err2) throw err2;
      fs.close(fd, done);
    }), Math.random() * 5);
  });
}
function round() {
  if (fs.existsSync(stop)) { console.log(n); return; }
  n += 1;
  let i = 0;
  const next = () => (i < targets.length ? write(targets[i][0], targets[i++][1], next)
                                          : setTimeout(round, 1 + Math.random() * 2));
  next();
}
round();
"""


def memcli(root: Path, *args: str) -> Result:
    return RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr, result.exception)
    return result


class Appender:
    def __init__(self, argv: list[str], root: Path, stop: Path) -> None:
        self.stop_file = stop
        self.root = root
        self.proc = subprocess.Popen(
            [*argv, str(root), str(stop), *sum(TARGETS.items(), ())], stdout=subprocess.PIPE, text=True
        )

    def wait_started(self) -> None:
        deadline = time.monotonic() + 30
        while "core slow 000005" not in (self.root / "MEMORY.md").read_text(encoding="utf-8"):
            assert self.proc.poll() is None and time.monotonic() < deadline, "the appender did not start"
            time.sleep(0.01)

    def stop(self) -> int:
        self.stop_file.touch()
        out, _ = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0
        return int(out.split()[-1])


def give_work(root: Path, n: int) -> None:
    """Something for this round's run to rewrite: noise for gc to drop from the closed note
    (and a fact to promote into MEMORY.md), or a line repeated in it for check --fix."""
    with open(root / REWRITTEN, "a", encoding="utf-8") as f:
        if n % 2 == 0:
            f.write("- 好的\n")
        else:
            twice = f"- 记住：第 {n} 轮的部署脚本在 scripts/deploy-{n}.sh，先跑 lint 再部署\n"
            f.write(twice + twice)
    with open(root / "memory" / "2026-10-20.md", "a", encoding="utf-8") as f:
        f.write(f"- 记住：发布清单第 {n} 版放在 `docs/release-{n}.md`\n")


def tagged(data: bytes, tag: str) -> Counter[int]:
    found: Counter[int] = Counter()
    for line in data.decode("utf-8").splitlines():
        if line.startswith(f"- {tag} ") and line.endswith(" qzx"):
            found[int(line.split()[-2])] += 1
    return found


def run_rounds(root: Path, appender: Appender) -> tuple[int, int]:
    """ROUNDS runs of gc and check --fix, each rewriting MEMORY.md or the note; return the
    lines appended per target and the runs that replaced a target."""
    replaced = 0
    try:
        appender.wait_started()
        for n in range(ROUNDS):
            give_work(root, n)
            inodes = [os.stat(root / rel).st_ino for rel in TARGETS]
            if n % 2 == 0:
                ok(memcli(root, "gc", "--force"))
            else:
                assert memcli(root, "check", "--fix").exit_code in (0, 1)
            replaced += [os.stat(root / rel).st_ino for rel in TARGETS] != inodes
    finally:
        count = appender.stop()
    return count, replaced


def lost_and_doubled(root: Path, count: int) -> tuple[int, int]:
    """How many appended lines are nowhere, and how many more than once, wherever memory
    lives: in a file (a MEMORY.md line gc demoted is in the archive) or in the trash (gc
    merges lines this alike)."""
    assert count > 0
    places = [*user_bytes(root).values(), *(str(r["text"]).encode() + b"\n" for r in trash_records(root))]
    lost = doubled = 0
    for tag in TARGETS.values():
        seen: Counter[int] = Counter()
        for data in places:
            seen += tagged(data, tag)
        lost += sum(1 for i in range(1, count + 1) if not seen[i])
        doubled += sum(1 for i in range(1, count + 1) if seen[i] > 1)
    return lost, doubled


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = copy_tree(SAMPLE, tmp_path / "ws")
    shutil.rmtree(root / STATE, ignore_errors=True)
    with open(root / "memcli.toml", "a", encoding="utf-8") as f:
        f.write("core_max_chars = 1000000\n")  # room for every round's fact: nothing demoted
    ok(memcli(root, "gc", "--force"))  # the sample's own backlog, before the appender starts
    return root


def test_a_python_agent_writing_just_after_its_open_loses_nothing(workspace: Path, tmp_path: Path) -> None:
    appender = Appender([sys.executable, "-c", PYTHON_APPENDER], workspace, tmp_path / "stop")
    count, replaced = run_rounds(workspace, appender)
    assert replaced >= ROUNDS - 1, "every round should replace MEMORY.md or the note"
    lost, doubled = lost_and_doubled(workspace, count)
    report("slow-appender-python", runs=ROUNDS, appended=count * len(TARGETS), lost=lost, doubled=doubled)
    assert (lost, doubled) == (0, 0)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_a_node_agent_appending_as_fs_append_file_does_loses_nothing(workspace: Path, tmp_path: Path) -> None:
    script = tmp_path / "appender.js"
    script.write_text(NODE_APPENDER, encoding="utf-8")
    appender = Appender([str(shutil.which("node")), str(script)], workspace, tmp_path / "stop")
    count, replaced = run_rounds(workspace, appender)
    assert replaced >= ROUNDS - 1, "every round should replace MEMORY.md or the note"
    lost, doubled = lost_and_doubled(workspace, count)
    report("slow-appender-node", runs=ROUNDS, appended=count * len(TARGETS), lost=lost, doubled=doubled)
    assert (lost, doubled) == (0, 0)


def test_a_file_still_held_open_stays_reachable_until_the_next_run(workspace: Path) -> None:
    """A process that opened MEMORY.md before gc replaced it and writes only after gc ended
    (held open past the wait): its line is in the replaced file, kept under .memcli/carry/,
    and the next run carries it."""
    give_work(workspace, 0)
    held = open(workspace / "MEMORY.md", "ab")  # noqa: SIM115 - held across the run on purpose
    try:
        ok(memcli(workspace, "gc", "--force"))
        held.write(b"- written long after gc replaced the file qzx\n")
        held.flush()
    finally:
        held.close()
    assert b"long after" not in (workspace / "MEMORY.md").read_bytes()
    assert list((workspace / STATE / "carry").glob("*.old")), "the replaced file should be kept"
    ok(memcli(workspace, "gc", "--dry-run"))  # a preview carries nothing and writes nothing
    assert b"long after" not in (workspace / "MEMORY.md").read_bytes()
    ok(memcli(workspace, "add", "下一次运行"))
    assert (workspace / "MEMORY.md").read_bytes().count(
        b"- written long after gc replaced the file qzx\n"
    ) == 1
    assert list((workspace / STATE / "carry").iterdir()) == []
