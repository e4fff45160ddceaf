"""Bounded rendering for real (issue 15, point 9): a summary template is the user's code, and
the ~2 s bound on a render holds for the whole render, a single filter included, on wall
time and on memory; a rendered summary that carries merge-conflict markers is bad output,
never written.

Before: `{{ ('ab'*10**6)|wordwrap(1) }}` rendered for about a minute and
`{{ 'x'|center(10**9) }}` for half of one (the step checks only run between steps), and a
template whose text held <<<<<<< … >>>>>>> was written as a summary that every later
command then refused (exit 3). Each run here is a real `python -m memcli` process with a
time-out, on a copy of the sample workspace with a fixed --now; its peak memory (the
render worker's included) is measured too.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import NOW, tree_bytes
from memcli.errors import DataError
from memcli.workspace import templates
from memcli.workspace.templates import render_template

TIMEOUT = 30  # seconds: a run past it is the unbounded render this file is about
BOUND = templates.RENDER_SECONDS + templates.KILL_GRACE
MEMORY_MIB = templates.MAX_RENDER_MEMORY >> 20
FOR_EVER = {
    "wordwrap": "# {{ period }}\n\n{{ ('ab' * 10**6)|wordwrap(1) }}\n",
    "center": "# {{ period }}\n\n{{ 'x'|center(10**9) }}\n",
}
CONFLICTED = (
    "# {{ period }}\n\n"
    "<<<<<<< HEAD\n"
    "{% for section in sections %}## {{ section.title }}\n{% endfor %}"
    "=======\n"
    "- the other side\n"
    ">>>>>>> their-branch\n"
)


# memcli run by a small Python that then prints the peak resident memory (KiB on Linux) of
# the largest process it waited for, memcli's render workers included (memcli reaps them)
PEAK = (
    "import resource, subprocess, sys\n"
    "code = subprocess.run(sys.argv[1:]).returncode\n"
    "sys.stderr.write(f'\\nPEAK {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}\\n')\n"
    "sys.exit(code)\n"
)


@dataclass(frozen=True)
class Run:
    returncode: int
    stderr: str
    seconds: float
    peak_mib: float


def memcli(root: Path, *args: str) -> Run:
    started = time.monotonic()
    try:
        run = subprocess.run(
            [
                sys.executable,
                "-c",
                PEAK,
                sys.executable,
                "-m",
                "memcli",
                "-w",
                str(root),
                "--now",
                NOW,
                *args,
            ],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"memcli {' '.join(args)} was still rendering after {TIMEOUT} s")
    took = time.monotonic() - started
    stderr, _, peak = run.stderr.rpartition("\nPEAK ")
    return Run(run.returncode, stderr, took, int(peak) / 1024)


def refused_naming_the_template(run: Run, template: Path) -> str:
    assert run.returncode == 3, (run.returncode, run.stderr[-2000:])
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memcli: error: "), run.stderr
    assert str(template) in lines[0], lines[0]
    return lines[0]


def with_template(root: Path, source: str) -> Path:
    """The workspace's own weekly-digest (summarize and gc's weekly summaries use it)."""
    folder = root / "templates"
    folder.mkdir(exist_ok=True)
    path = folder / "weekly-digest.md.j2"
    path.write_text(source, encoding="utf-8")
    return path


def notes(root: Path) -> dict[str, bytes]:
    return {k: v for k, v in tree_bytes(root).items() if not k.startswith(".memcli/")}


@pytest.mark.parametrize("command", [["summarize"], ["gc", "--force"]], ids=lambda c: c[0])
@pytest.mark.parametrize("kind", FOR_EVER, ids=str)
def test_a_single_filter_cannot_run_past_the_render_bound(
    sample: Path, kind: str, command: list[str]
) -> None:
    template = with_template(sample, FOR_EVER[kind])
    before = notes(sample)
    run = memcli(sample, *command)
    line = refused_naming_the_template(run, template)
    assert "(the limit" in line or "out of memory" in line, line
    assert run.seconds < BOUND + 8, run.seconds  # the bound, plus starting Python and reading the notes
    if sys.platform.startswith("linux"):  # where RLIMIT_AS holds and ru_maxrss is in KiB
        assert run.peak_mib < MEMORY_MIB + 256, run.peak_mib  # the bound, plus memcli's own
    assert notes(sample) == before


def test_a_summary_with_conflict_markers_is_not_written_and_later_commands_still_work(sample: Path) -> None:
    template = with_template(sample, CONFLICTED)
    before = notes(sample)
    run = memcli(sample, "summarize")
    line = refused_naming_the_template(run, template)
    assert "merge-conflict marker" in line, line
    gc = memcli(sample, "gc", "--force")  # gc writes weekly summaries with the same template
    refused_naming_the_template(gc, template)
    assert notes(sample) == before
    assert not list((sample / "memory" / "summaries").glob("*.md"))
    for args in (["status"], ["list"], ["check"]):
        later = memcli(sample, *args)
        assert later.returncode == 0, (args, later.returncode, later.stderr)


def test_a_render_on_another_thread_is_stopped_on_time_too(tmp_path: Path) -> None:
    # the watch daemon renders on its own threads, where no SIGALRM can be used
    path = tmp_path / "slow.md.j2"
    path.write_text(FOR_EVER["wordwrap"], encoding="utf-8")
    errors: list[BaseException] = []

    def work() -> None:
        try:
            render_template(path, {"period": "2026-W43"})
        except DataError as exc:
            errors.append(exc)

    started = time.monotonic()
    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    worker.join(TIMEOUT)
    assert not worker.is_alive(), f"still rendering after {TIMEOUT} s"
    assert time.monotonic() - started < BOUND + 5
    assert len(errors) == 1 and str(path) in errors[0].one_line()
