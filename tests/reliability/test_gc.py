"""Reliability of `memcli gc` (SPEC §7, §14): nothing is lost, undo is exact, a kill at
any instant is survivable, and lines an agent appends while gc runs are kept.

1. A property over generated workspaces: gc keeps every entry (noise and merged copies
   in the trash), never rewrites the open notes, and undo gives back every byte; and a
   second gc right after the first has nothing to do.
2. Crash safety: gc is killed (SIGKILL) at the atomic-write seams and at random times;
   no entry may be lost, the next gc rolls the interrupted transaction back, and undo
   then reproduces the original bytes. CRASH_RUNS sets the number of killed runs.
3. A concurrent appender: an agent appends to yesterday's note and to MEMORY.md every
   20-50 ms while gc (and undo) rewrite the workspace; no appended line may be lost.

Each bug these found has a deterministic reproduction below, named after what it checks.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from conftest import NOW, SAMPLE, copy_tree, tree_bytes
from memcli.cli.app import app
from memcli.core.entries import parse
from memcli.core.roles import TEMP_SUFFIX
from memcli.core.similarity import normalise
from memcli.workspace import transaction
from memcli.workspace.transaction import PREPARED, journals, trash_records

from .kit import BackgroundWriter

CRASH_RUNS = int(os.environ.get("CRASH_RUNS", "50"))
NOW_DT = datetime.fromisoformat(NOW)
TODAY = date(2026, 10, 31)  # NOW in the workspaces' time zone (Asia/Shanghai)
YESTERDAY = TODAY - timedelta(days=1)
CONFIG = 'timezone = "Asia/Shanghai"\n'
RUNNER = CliRunner()
STATE = ".memcli/"


def memcli(root: Path, *args: str) -> Result:
    return RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr, result.exception)
    return result


# --- what a workspace holds ---------------------------------------------------------------


def user_bytes(root: Path) -> dict[str, bytes]:
    """Every file outside memcli's own state folder, with its bytes; memcli's temp files
    (left by a kill, removed by the next run: see `temp_files`) do not count."""
    return {
        rel: data
        for rel, data in tree_bytes(root).items()
        if not rel.startswith(STATE) and not rel.endswith(TEMP_SUFFIX)
    }


def temp_files(root: Path) -> list[str]:
    return sorted(rel for rel in tree_bytes(root) if not rel.startswith(STATE) and rel.endswith(TEMP_SUFFIX))


def live_entries(root: Path) -> Counter[str]:
    """Normalised text of every entry in a real Markdown file: notes, MEMORY.md, summaries,
    archived notes, core-cold.md, superseded.md. Nothing under .memcli/ counts (journal
    blobs are not a place an entry lives), nor memcli's temp files."""
    found: Counter[str] = Counter()
    for rel, data in user_bytes(root).items():
        if rel.endswith(".md"):
            for entry in parse(data.decode("utf-8"), rel).entries:
                key = normalise(entry.text)
                if key:
                    found[key] += 1
    return found


def trashed(root: Path) -> Counter[str]:
    return Counter(key for r in trash_records(root) if (key := normalise(str(r.get("text", "")))))


def lost_entries(original: Counter[str], root: Path) -> list[str]:
    """Entries of the original workspace that exist neither in a file nor in the trash
    (as many times as the original held them)."""
    now = live_entries(root) + trashed(root)
    return sorted(key for key, n in original.items() if now[key] < n)


def prepared_journals(root: Path) -> list[str]:
    return [j.tx for j in journals(root) if j.state == PREPARED]


def undo_all(root: Path) -> int:
    """Undo every applied transaction, newest first; return how many were undone."""
    for n in range(10):
        result = ok(memcli(root, "undo"))
        if "nothing to undo" in result.stderr:
            return n
    raise AssertionError("undo never ran out of transactions")


# --- generated workspaces -------------------------------------------------------------------

NOISE = ("好的", "ok thanks", "明白了，谢谢", "got it", "收到", "thanks")
ROUTINE = ("heartbeat OK", "checked the build", "看了一下日志")
REMEMBER = ("记住：发布前先跑测试", "remember: never force-push to main", "记下来：周五下午不安排发布")
FACTS = (
    "用户偏好用 pnpm，不要用 npm 安装依赖",
    "用户偏好用 pnpm，不要用 npm 来安装依赖",  # a paraphrase
    "I prefer port 8080 for the local dev server",
    "I prefer port 8080 for the local development server",  # a paraphrase
    "We decided to use Redis + BullMQ for the job queue",
    "决定：报表导出改成异步任务，超时 30 秒",
    "deployed atlas-api on port 8080",
    "TIL: containers default to UTC, set timeZone explicitly",
    "Priya 负责 v3.1 的设计评审",
    "The staging deploy runs on GitHub Actions every night",
    "The staging deploy runs on GitHub Actions each night",  # a paraphrase
    "数据库用的是 MySQL 8",
    "CI runs on Jenkins at ci.atlas.example.com",
    "用 Node 跑内部脚本",
)
CHANGES = (
    "数据库改用 PostgreSQL 16，不再用 MySQL",
    "We no longer use Jenkins; CI moved to GitHub Actions",
    "改用 Bun 跑内部脚本，不再用 Node",
)
TASKS = ("[ ] 写 v3.1 的发布说明", "[x] fix the flaky upload test", "[ ] review PR 42 with Priya")
NESTED = ("Toolchain for notes-sync:\n  - Go 1.22\n  - WebDAV on the NAS",)
PARAGRAPHS = ("Talked with Marco about the Redis memory limit; he will raise it to 2 GB.",)
POOL = NOISE + ROUTINE + REMEMBER + FACTS + CHANGES + TASKS + NESTED + PARAGRAPHS
NOISE_KEYS = frozenset(normalise(f"- {text}") for text in NOISE)
CORE_SECTIONS = {
    "## Preferences": (
        "Lin 喜欢简洁的回答：先给结论，再给细节",
        "Prefers TypeScript over plain JavaScript for anything new",
        "用户偏好用 pnpm，不要用 npm 安装依赖",
    ),
    "## Environment / 环境": (
        "Lin uses Windows 11; mind the backslashes in paths",
        "用 Node 跑内部脚本，版本 20 LTS",
        "Editor: VS Code with the ESLint and Prettier extensions",
    ),
    "## Decisions": (
        "We decided to keep atlas-api a modular monolith",
        "Feature flags live in `config/flags.yaml`, not in environment variables",
    ),
    "## 经验教训": (
        "踩坑：Windows 上 Git 默认 `core.autocrlf=true`，会把 shell 脚本改成 CRLF",
        "lesson: run `pnpm install --frozen-lockfile` in CI",
    ),
}


@dataclass(frozen=True)
class Note:
    items: tuple[tuple[str, str | None], ...]  # (pool text, timestamp or None)
    heading: str | None
    crlf: bool
    final_newline: bool


@dataclass(frozen=True)
class Spec:
    core: tuple[tuple[str, tuple[str, ...]], ...]
    core_crlf: bool
    notes: tuple[tuple[int, Note], ...]  # (days before TODAY, note)


def render_note(day: date, note: Note) -> str:
    lines = [f"# {day.isoformat()}", ""]
    if note.heading:
        lines += [note.heading, ""]
    for text, stamp in note.items:
        if text in PARAGRAPHS:
            lines += ["", text, ""]
        elif text.startswith("["):
            lines.append(f"- {text}")
        else:
            lines.append(f"- **{stamp}** — {text}" if stamp else f"- {text}")
    return finish("\n".join(lines), note.crlf, note.final_newline)


def finish(text: str, crlf: bool, final_newline: bool) -> str:
    text = re.sub(r"\n{3,}", "\n\n", text).rstrip("\n") + ("\n" if final_newline else "")
    return text.replace("\n", "\r\n") if crlf else text


def render_core(spec: Spec) -> str:
    parts = ["# MEMORY.md", "", "Long-lived facts about Lin and the Atlas project.", ""]
    for heading, bullets in spec.core:
        parts += [heading, "", *(f"- {b}" for b in bullets), ""]
    return finish("\n".join(parts), spec.core_crlf, True)


def build(root: Path, spec: Spec) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text(CONFIG, encoding="utf-8")
    (root / "MEMORY.md").write_bytes(render_core(spec).encode("utf-8"))
    for back, note in spec.notes:
        day = TODAY - timedelta(days=back)
        (root / "memory" / f"{day.isoformat()}.md").write_bytes(render_note(day, note).encode("utf-8"))
    return root


STAMPS = st.sampled_from([None, None, "09:10", "14:05", "22:30"])
NOTES = st.builds(
    Note,
    items=st.lists(st.tuples(st.sampled_from(POOL), STAMPS), min_size=1, max_size=7).map(tuple),
    heading=st.sampled_from([None, "## 会话", "## Notes"]),
    crlf=st.booleans(),
    final_newline=st.booleans(),
)
SPECS = st.builds(
    Spec,
    core=st.lists(
        st.sampled_from(sorted(CORE_SECTIONS)).flatmap(
            lambda h: st.tuples(
                st.just(h),
                st.lists(st.sampled_from(CORE_SECTIONS[h]), min_size=1, max_size=3, unique=True).map(tuple),
            )
        ),
        min_size=1,
        max_size=4,
        unique_by=lambda s: s[0],
    ).map(tuple),
    core_crlf=st.booleans(),
    notes=st.tuples(
        st.dictionaries(st.integers(2, 40), NOTES, min_size=4, max_size=23),  # closed notes
        st.dictionaries(st.sampled_from([0, 1]), NOTES, min_size=1, max_size=2),  # today, yesterday
    ).map(lambda pair: tuple(sorted({**pair[0], **pair[1]}.items()))),
)
EXAMPLE = itertools.count()


# --- 1. the property ------------------------------------------------------------------------


@dataclass
class FirstRun:
    before: dict[str, bytes]
    entries: Counter[str]
    open_notes: dict[str, os.stat_result]
    report: dict[str, Any]


def first_gc(root: Path) -> FirstRun:
    """gc on a fresh workspace; when it refuses (max_removal_share), check that it wrote
    nothing and run it again with --force."""
    before = user_bytes(root)
    entries = live_entries(root)
    open_notes = {
        rel: os.stat(root / rel) for rel in (f"memory/{TODAY}.md", f"memory/{YESTERDAY}.md") if rel in before
    }
    assert open_notes
    result = memcli(root, "--json", "gc")
    if result.exit_code == 4:
        assert "--force" in result.stderr
        assert user_bytes(root) == before
        result = memcli(root, "--json", "gc", "--force")
    return FirstRun(before, entries, open_notes, json.loads(ok(result).stdout))


@contextlib.contextmanager
def fresh_workspace(tmp_path: Path, spec: Spec) -> Iterator[Path]:
    root = build(tmp_path / f"ws-{next(EXAMPLE)}", spec)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


PROPERTY = settings(
    max_examples=int(os.environ.get("GC_EXAMPLES", "25")),
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@PROPERTY
@given(spec=SPECS)
def test_gc_keeps_every_entry_and_undo_restores_every_byte(tmp_path: Path, spec: Spec) -> None:
    with fresh_workspace(tmp_path, spec) as root:
        run = first_gc(root)
        actions = run.report["actions"]

        # (a) every entry is still somewhere: in a real file, or (noise, merged copies) in the trash
        assert lost_entries(run.entries, root) == []
        live = live_entries(root)
        merged = {normalise(r["text"]) for r in trash_records(root) if r["action"] == "merge"}
        for key in run.entries:
            if key not in NOISE_KEYS:
                assert live[key] or key in merged, f"{key!r} is in no file and was not merged"

        # (b) each dropped and each merged entry is in the trash, with its text and place
        removed = Counter(
            (a["action"], a["from"], a["text"]) for a in actions if a["action"] in ("drop", "merge")
        )
        assert Counter((r["action"], r["from"], r["text"]) for r in trash_records(root)) == removed
        for a in actions:
            if a["action"] == "drop":
                assert normalise(a["text"]) in NOISE_KEYS, f"not noise, yet dropped: {a}"

        # (d) today's and yesterday's notes are not rewritten: same bytes, inode and mtime
        for rel, was in run.open_notes.items():
            now = os.stat(root / rel)
            assert (root / rel).read_bytes() == run.before[rel], rel
            assert (now.st_ino, now.st_mtime_ns) == (was.st_ino, was.st_mtime_ns), rel

        # (c) undo restores every file byte for byte (and removes the files gc created)
        if run.report["applied"]:
            ok(memcli(root, "undo"))
        assert user_bytes(root) == run.before


@PROPERTY
@given(spec=SPECS)
def test_a_second_gc_right_after_the_first_has_nothing_to_do(tmp_path: Path, spec: Spec) -> None:
    with fresh_workspace(tmp_path, spec) as root:
        first_gc(root)
        again = json.loads(ok(memcli(root, "--json", "gc", "--dry-run")).stdout)
        assert again["actions"] == [], again["actions"]


def gc_twice(root: Path) -> list[dict[str, Any]]:
    """Apply gc, then return what a second gc would do."""
    ok(memcli(root, "gc", "--force"))
    return list(json.loads(ok(memcli(root, "--json", "gc", "--dry-run")).stdout)["actions"])


def workspace(root: Path, core: str, notes: dict[str, str]) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text(CONFIG, encoding="utf-8")
    (root / "MEMORY.md").write_text(f"# MEMORY.md\n\n{core}", encoding="utf-8")
    for day, body in notes.items():
        (root / "memory" / f"{day}.md").write_text(f"# {day}\n\n{body}", encoding="utf-8")
    return root


def test_gc_promotes_a_remembered_line_only_once(tmp_path: Path) -> None:
    root = workspace(
        tmp_path / "ws",
        "## Decisions\n\n- We decided to keep atlas-api a modular monolith\n",
        {"2026-10-31": "- 记下来：周五下午不安排发布\n"},
    )
    for _ in range(3):
        ok(memcli(root, "gc"))
    core = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert core.count("记下来：周五下午不安排发布") == 1, core


def test_gc_keeps_a_promoted_change_of_mind_in_memory(tmp_path: Path) -> None:
    root = workspace(
        tmp_path / "ws",
        "## Decisions\n\n- We decided to keep atlas-api a modular monolith\n",
        {
            "2026-10-31": "- The staging deploy runs on GitHub Actions every night\n"
            "- 改用 Bun 跑内部脚本，不再用 Node\n"
        },
    )
    ok(memcli(root, "gc"))
    assert "改用 Bun 跑内部脚本" in (root / "MEMORY.md").read_text(encoding="utf-8")
    ok(memcli(root, "gc"))  # the line it was copied from is no newer news than the copy
    assert "改用 Bun 跑内部脚本" in (root / "MEMORY.md").read_text(encoding="utf-8")


def test_gc_supersedes_again_once_superseded_md_exists(tmp_path: Path) -> None:
    root = workspace(
        tmp_path / "ws",
        "## Environment\n\n- 用 Node 跑内部脚本，版本 20 LTS\n- 数据库用的是 MySQL 8\n",
        {
            "2026-10-27": "- 改用 Bun 跑内部脚本，不再用 Node\n- deployed atlas-api on port 8080\n"
            "- reviewed PR 42 with Priya\n- fixed the login redirect bug\n"
        },
    )
    ok(memcli(root, "gc"))
    assert (root / "memory/archive/superseded.md").exists()
    (root / "memory/2026-10-28.md").write_text(
        "# 2026-10-28\n\n- 数据库改用 PostgreSQL 16，不再用 MySQL\n- deployed atlas-web on port 3000\n",
        encoding="utf-8",
    )
    result = memcli(root, "gc")
    assert result.exit_code == 0, result.stderr


def test_gc_archives_a_finished_task_note_in_the_run_that_drops_its_noise(tmp_path: Path) -> None:
    root = workspace(
        tmp_path / "ws",
        "## Decisions\n\n- We decided to keep atlas-api a modular monolith\n",
        {"2026-10-26": "- 好的\n- 好的\n- [x] fix the flaky upload test\n", "2026-10-31": "- heartbeat OK\n"},
    )
    assert gc_twice(root) == []


def test_gc_archives_a_task_note_in_the_run_that_promotes_its_fact(tmp_path: Path) -> None:
    root = workspace(
        tmp_path / "ws",
        "## Decisions\n\n- We decided to keep atlas-api a modular monolith\n",
        {
            "2026-10-26": "- heartbeat OK\n- 记住：发布前先跑测试\n- [x] fix the flaky upload test\n",
            "2026-10-31": "- heartbeat OK\n",
        },
    )
    assert gc_twice(root) == []
    assert "记住：发布前先跑测试" in (root / "MEMORY.md").read_text(encoding="utf-8")
    assert (root / "memory/archive/2026/10/2026-10-26.md").read_text(encoding="utf-8") == (
        "# 2026-10-26\n\n- heartbeat OK\n- [x] fix the flaky upload test\n"
    )
    ok(memcli(root, "undo"))
    assert (root / "memory/2026-10-26.md").exists()
    assert not (root / "memory/archive/2026").exists()


def test_gc_does_not_promote_what_a_newer_entry_replaced(tmp_path: Path) -> None:
    root = workspace(
        tmp_path / "ws",
        "## Decisions\n\n- We decided to keep atlas-api a modular monolith\n",
        {
            "2026-10-26": "- 数据库用的是 MySQL 8\n",
            "2026-10-27": "- 数据库用的是 MySQL 8\n",
            "2026-10-30": "- 数据库用的是 MySQL 8\n",
            "2026-10-31": "- 数据库改用 PostgreSQL 16，不再用 MySQL\n",
        },
    )
    assert gc_twice(root) == []
    assert "MySQL 8" not in (root / "MEMORY.md").read_text(encoding="utf-8")


def test_gc_keeps_a_promoted_fact_said_again_after_an_older_change(tmp_path: Path) -> None:
    root = workspace(
        tmp_path / "ws",
        "## Decisions\n\n- We decided to keep atlas-api a modular monolith\n",
        {
            "2026-10-26": "- **09:10** — 数据库改用 PostgreSQL 16，不再用 MySQL\n",
            "2026-10-27": "- 数据库用的是 MySQL 8\n",
            "2026-10-28": "- 数据库用的是 MySQL 8\n",
            "2026-10-29": "- 数据库用的是 MySQL 8\n",
        },
    )
    assert gc_twice(root) == []
    assert "数据库用的是 MySQL 8" in (root / "MEMORY.md").read_text(encoding="utf-8")


def test_gc_promotes_in_the_run_that_archives_the_twin(tmp_path: Path) -> None:
    root = workspace(
        tmp_path / "ws",
        "## Preferences\n\n- Lin 喜欢简洁的回答：先给结论，再给细节\n",
        {
            "2026-09-30": "- **09:10** — I prefer port 8080 for the local development server\n",
            "2026-10-31": "- I prefer port 8080 for the local development server\n",
        },
    )
    assert gc_twice(root) == []


# --- 2. crash safety ------------------------------------------------------------------------

KILLER = r"""
import os, signal, sys
from memcli.workspace import files

seam, k = sys.argv[1], int(sys.argv[2])
calls = 0


def hit(*_):
    global calls
    calls += 1
    if calls == k:
        os.kill(os.getpid(), signal.SIGKILL)


setattr(files, seam, hit)
from memcli.cli.app import app

try:
    app(sys.argv[3:], prog_name="memcli")
finally:
    sys.stderr.write(f"\nSEAM-CALLS {calls}\n")
"""

# A fixed workspace with what the sample lacks: CRLF and no final newline, exact copies and
# paraphrases, change cues, and closed notes inside the short-term window that end in noise
# (2026-10-26 loses only its last line). gc on it needs --force (max_removal_share).
CRASH_SPEC = Spec(
    core=tuple((h, CORE_SECTIONS[h]) for h in sorted(CORE_SECTIONS)),
    core_crlf=False,
    notes=(
        (0, Note((("deployed atlas-api on port 8080", "08:40"), ("ok thanks", None)), None, False, True)),
        (1, Note((("deployed atlas-web on port 3000", None), ("好的", None)), "## 会话", True, False)),
        (
            3,
            Note(
                tuple(
                    (t, None)
                    for t in (
                        "改用 Bun 跑内部脚本，不再用 Node",
                        "用户偏好用 pnpm，不要用 npm 来安装依赖",
                        "We decided to use Redis + BullMQ for the job queue",
                        "heartbeat OK",
                        "[x] fix the flaky upload test",
                        "Priya 负责 v3.1 的设计评审",
                        "好的",
                    )
                ),
                None,
                False,
                True,
            ),
        ),
        (
            4,
            Note(
                tuple(
                    (t, None)
                    for t in (
                        "remember: never force-push to main",
                        "The staging deploy runs on GitHub Actions every night",
                        "Toolchain for notes-sync:\n  - Go 1.22\n  - WebDAV on the NAS",
                        "checked the build",
                        "got it",
                    )
                ),
                "## Notes",
                True,
                False,
            ),
        ),
        (
            5,
            Note(
                (
                    ("fixed the login redirect bug in atlas-web", "11:20"),
                    ("reviewed PR 42 with Priya", None),
                    ("Priya 下周请假，v3.1 评审改到 11 月 12 日", None),
                    ("ok thanks", None),
                ),
                None,
                False,
                True,
            ),
        ),
        (
            6,
            Note(
                (
                    ("The staging deploy runs on GitHub Actions each night", "10:15"),
                    ("I prefer port 8080 for the local dev server", None),
                    ("[ ] review PR 42 with Priya", None),
                    ("TIL: containers default to UTC, set timeZone explicitly", None),
                ),
                None,
                False,
                True,
            ),
        ),
        *(
            (
                back,
                Note(
                    (
                        ("记住：发布前先跑测试", None),
                        ("数据库用的是 MySQL 8", "09:30"),
                        ("Talked with Marco about the Redis memory limit; he will raise it to 2 GB.", None),
                        ("I prefer port 8080 for the local development server", None),
                        ("看了一下日志", None),
                        ("收到", None),
                    ),
                    None,
                    back % 2 == 0,
                    back % 3 != 0,
                ),
            )
            for back in (12, 15, 19, 26)
        ),
        (
            20,
            Note(
                (
                    ("数据库改用 PostgreSQL 16，不再用 MySQL", None),
                    ("CI runs on Jenkins at ci.atlas.example.com", None),
                ),
                None,
                False,
                True,
            ),
        ),
    ),
)


@dataclass
class Pristine:
    """A workspace before any gc, and what is known about its gc."""

    root: Path
    bytes: dict[str, bytes]
    entries: Counter[str]
    seam_calls: dict[str, int]  # how often gc passes each seam
    write_seconds: float  # from taking the lock to the end of gc


def seam_run(root: Path, seam: str, k: int) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, "-c", KILLER, seam, str(k), "-w", str(root), "--now", NOW, "-q", "gc", "--force"]
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def lock_to_exit_seconds(root: Path) -> tuple[int, float]:
    """Run `python -m memcli gc`; return its exit code and the time from its lock to its end."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "memcli", "-w", str(root), "--now", NOW, "-q", "gc", "--force"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    locked = wait_for_lock(root, proc)
    rc = proc.wait(timeout=60)
    return rc, time.monotonic() - locked


def wait_for_lock(root: Path, proc: subprocess.Popen[bytes]) -> float:
    lock = root / ".memcli" / "lock"
    deadline = time.monotonic() + 30
    while not lock.exists() and proc.poll() is None:
        assert time.monotonic() < deadline, "gc never took the workspace lock"
        time.sleep(0.0005)
    return time.monotonic()


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Pristine]:
    base = tmp_path_factory.mktemp("pristine")
    made = {
        "sample": copy_tree(SAMPLE, base / "sample"),
        "generated": build(base / "generated", CRASH_SPEC),
    }
    out = {}
    for name, root in made.items():
        calls = {}
        for seam in ("before_replace", "after_replace"):
            trial = copy_tree(root, base / f"{name}-{seam}")
            proc = seam_run(trial, seam, 0)
            assert proc.returncode == 0, proc.stderr
            calls[seam] = int(re.findall(r"SEAM-CALLS (\d+)", proc.stderr)[-1])
            assert user_bytes(trial) != user_bytes(root), f"gc changed nothing in {name}: no crash to test"
        rc, seconds = lock_to_exit_seconds(copy_tree(root, base / f"{name}-timed"))
        assert rc == 0
        out[name] = Pristine(root, user_bytes(root), live_entries(root), calls, seconds)
    return out


@dataclass(frozen=True)
class Crash:
    workspace: str
    how: str  # "before_replace", "after_replace" (kill on the k-th call) or "time"
    k: int
    delay: float  # seconds after gc took the lock ("time")

    def __str__(self) -> str:
        at = f"{self.delay * 1000:.0f} ms after the lock" if self.how == "time" else f"call {self.k}"
        return f"{self.workspace}: SIGKILL at {self.how} {at}"


def crash_for(run: int, p: dict[str, Pristine]) -> Crash:
    rng = random.Random(f"memcli-crash-{run}")
    workspace = "generated" if run % 3 == 2 else "sample"
    how = ("before_replace", "after_replace", "time")[rng.randrange(3)]
    if how == "time":
        # The issue asks for 0-300 ms. From the process start that would always land in
        # interpreter start-up, before gc writes a byte; counted from the lock it covers
        # planning and writing.
        limit = min(0.3, p[workspace].write_seconds)
        return Crash(workspace, how, 0, rng.uniform(0, limit))
    return Crash(workspace, how, rng.randint(1, p[workspace].seam_calls[how]), 0.0)


def kill_gc(root: Path, crash: Crash) -> None:
    """Run gc in a subprocess and SIGKILL it as `crash` says; it must die by the kill."""
    if crash.how != "time":
        proc = seam_run(root, crash.how, crash.k)
        assert proc.returncode == -signal.SIGKILL, (crash, proc.returncode, proc.stderr)
        return
    delay = crash.delay
    for _ in range(8):
        before = user_bytes(root)
        popen = subprocess.Popen(
            [sys.executable, "-m", "memcli", "-w", str(root), "--now", NOW, "-q", "gc", "--force"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        locked = wait_for_lock(root, popen)
        time.sleep(max(0.0, delay - (time.monotonic() - locked)))
        popen.send_signal(signal.SIGKILL)
        rc = popen.wait(timeout=60)
        if rc == -signal.SIGKILL:
            return
        # gc finished before the kill (a slow moment of the machine): start again earlier
        assert rc == 0, popen.stderr.read() if popen.stderr else rc
        ok(memcli(root, "undo"))
        assert user_bytes(root) == before
        shutil.rmtree(root / ".memcli")
        delay /= 2
    raise AssertionError(f"{crash}: gc always finished before the kill")


@pytest.mark.parametrize("run", range(CRASH_RUNS))
def test_gc_killed_at_any_instant_loses_nothing(
    run: int, pristine: dict[str, Pristine], tmp_path: Path
) -> None:
    crash = crash_for(run, pristine)
    p = pristine[crash.workspace]
    root = copy_tree(p.root, tmp_path / "ws")

    kill_gc(root, crash)
    assert lost_entries(p.entries, root) == [], crash

    # the next gc rolls the interrupted transaction back, then does its work
    ok(memcli(root, "gc", "--force"))
    assert prepared_journals(root) == [], crash
    assert temp_files(root) == [], crash
    assert lost_entries(p.entries, root) == [], crash

    # undoing what was applied (that run, and the killed one if it had finished) gives back
    # the original bytes: a rollback restores every file it touched
    assert undo_all(root) >= 1
    now = user_bytes(root)
    assert sorted(now) == sorted(p.bytes), crash
    assert [rel for rel in now if now[rel] != p.bytes[rel]] == [], crash


# --- kills at the worst moments, one deterministic reproduction each ----------------------


def small_workspace(root: Path) -> Path:
    """A closed note (inside the short-term window, so not archived) that ends in noise."""
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text(CONFIG, encoding="utf-8")
    (root / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## Preferences\n\n- I prefer dark mode\n", encoding="utf-8"
    )
    (root / "memory" / "2026-10-27.md").write_text(
        "# 2026-10-27\n\n- deployed atlas-api on port 8080\n- fixed the login redirect bug\n"
        "- reviewed PR 42 with Priya\n- 好的\n",
        encoding="utf-8",
    )
    return root


def seam_calls_of(root: Path, tmp: Path, seam: str) -> int:
    trial = copy_tree(root, tmp)
    proc = seam_run(trial, seam, 0)
    return int(re.findall(r"SEAM-CALLS (\d+)", proc.stderr)[-1])


def test_a_kill_before_the_journal_is_saved_leaves_gc_working(tmp_path: Path) -> None:
    root = small_workspace(tmp_path / "ws")
    original = user_bytes(root)
    proc = seam_run(root, "before_replace", 1)  # the first rename gc makes: journal.json
    assert proc.returncode == -signal.SIGKILL
    assert user_bytes(root) == original  # nothing was written: the kill itself is harmless
    result = memcli(root, "gc")
    assert result.exit_code == 0, result.stderr
    ok(memcli(root, "undo"))
    assert user_bytes(root) == original


def test_a_kill_before_the_final_journal_rename_leaves_gc_working(tmp_path: Path) -> None:
    root = small_workspace(tmp_path / "ws")
    original = user_bytes(root)
    last = seam_calls_of(root, tmp_path / "count", "before_replace")  # journal.json -> applied
    assert seam_run(root, "before_replace", last).returncode == -signal.SIGKILL
    result = memcli(root, "gc")
    assert result.exit_code == 0, result.stderr
    undo_all(root)
    assert user_bytes(root) == original


def test_rollback_of_an_unwritten_note_gives_back_its_bytes(tmp_path: Path) -> None:
    root = small_workspace(tmp_path / "ws")
    original = user_bytes(root)
    plan = json.loads(ok(memcli(root, "--json", "gc", "--dry-run")).stdout)
    assert [a["action"] for a in plan["actions"]] == ["drop"]  # drops the last line, "- 好的"
    # call 1 renames journal.json, call 2 the trash file; the note is not yet rewritten
    assert seam_run(root, "before_replace", 2).returncode == -signal.SIGKILL
    assert user_bytes(root) == original
    assert transaction.recover(root, NOW_DT)
    assert user_bytes(root) == original


def test_a_kill_before_a_note_is_renamed_leaves_gc_working(tmp_path: Path) -> None:
    root = small_workspace(tmp_path / "ws")
    original = user_bytes(root)
    # call 1 journal.json, 2 the trash, 3 the note (its old inode is linked in .memcli/carry)
    assert seam_run(root, "before_replace", 3).returncode == -signal.SIGKILL
    assert user_bytes(root) == original
    result = memcli(root, "gc", "--force")
    assert result.exit_code == 0, result.stderr
    undo_all(root)
    assert user_bytes(root) == original


def test_undo_keeps_a_line_appended_while_it_reverts(sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ok(memcli(sample, "gc"))
    line = b"- appended by the agent while undo ran\n"
    real_read_state = transaction.read_state
    appended = []

    def agent_appends_first(path: Path, *args: Any, **kwargs: Any) -> Any:
        # revert() has already read MEMORY.md (to check it only grew); the agent appends
        # now, before revert reads it again for the rewrite: a real append, at a real time
        if path.name == "MEMORY.md" and not appended:
            with open(path, "ab") as f:
                f.write(line)
            appended.append(path)
        return real_read_state(path, *args, **kwargs)

    monkeypatch.setattr(transaction, "read_state", agent_appends_first)
    ok(memcli(sample, "undo"))
    assert appended
    assert line in (sample / "MEMORY.md").read_bytes()


# --- 3. a concurrent appender ---------------------------------------------------------------

APPENDER = r"""
import os, random, sys, time

root, stop = sys.argv[1], sys.argv[2]
targets = [(os.path.join(root, rel), tag) for rel, tag in zip(sys.argv[3::2], sys.argv[4::2])]
rng = random.Random(7)
n = 0
while not os.path.exists(stop):
    n += 1
    for path, tag in targets:
        with open(path, "a", encoding="utf-8") as f:  # as an agent does: open, append, close
            f.write(f"- {tag} {n:06d} qzx\n")
    time.sleep(rng.uniform(0.02, 0.05))
print(n, flush=True)
"""
TARGETS = {f"memory/{YESTERDAY}.md": "yesterday append", "MEMORY.md": "core append"}


def start_appender(root: Path, tmp: Path) -> BackgroundWriter:
    """A separate process that appends a numbered line to each target every 20-50 ms: each
    gc meets dozens of appends. (Every 2-5 ms, the files grew by 250 lines a second, and a
    slow machine's gc read more and was slower still: 160 s a test, twice what it took on
    an idle one.)"""
    return BackgroundWriter(
        root, tmp / "stop-appending", APPENDER, *(x for pair in TARGETS.items() for x in pair)
    )


def numbers(text: str, tag: str) -> Counter[int]:
    return Counter(int(n) for n in re.findall(rf"^- {tag} (\d{{6}}) qzx\b", text, re.MULTILINE))


def gaps(root: Path, rel: str, tag: str) -> list[int]:
    """Appended lines missing from `rel` below the highest one it holds (a loss in the file)."""
    seen = numbers((root / rel).read_text(encoding="utf-8"), tag)
    return [n for n in range(1, max(seen, default=0)) if not seen[n]]


def check_appended(root: Path, count: int) -> None:
    """Every appended line exactly once: in the file it was appended to, or (MEMORY.md lines
    gc demoted to make room within the budget) exactly once elsewhere."""
    assert count > 0
    everywhere: Counter[int] = Counter()
    for rel, data in user_bytes(root).items():
        if rel.endswith(".md") and rel != "MEMORY.md":
            everywhere += numbers(data.decode("utf-8"), "core append")
    for rel, tag in TARGETS.items():
        here = numbers((root / rel).read_text(encoding="utf-8"), tag)
        assert [n for n, c in here.items() if c > 1] == [], f"lines repeated in {rel}"
        if rel == "MEMORY.md":
            assert [n for n in range(1, count + 1) if here[n] + everywhere[n] != 1] == [], "lost or doubled"
        else:
            assert [n for n in range(1, count + 1) if not here[n]] == [], f"lines lost from {rel}"


def fresh_note(root: Path, n: int) -> None:
    """Work for the next gc: a finished week long ago, with a fact to promote and noise."""
    day = date(2025, 11, 3) + timedelta(weeks=n)
    (root / "memory" / f"{day}.md").write_text(
        f"# {day}\n\n- 记住：第 {n} 轮发布的检查清单在 `docs/release-{n}.md`\n"
        f"- deployed atlas-api build {n} on port 8080\n- reviewed PR {100 + n} with Priya\n- 好的\n",
        encoding="utf-8",
    )


def test_lines_appended_while_gc_runs_are_never_lost(sample: Path, tmp_path: Path) -> None:
    """30 applied gc runs, each given fresh work (a finished week with a line to remember),
    each rewriting MEMORY.md, while an agent appends to yesterday's note and MEMORY.md.

    Yesterday's note is open: its lines must all be there, once. MEMORY.md's budget is
    raised so that every round's fact has room: the facts are older than MEMORY.md's
    entries, and an older fact never pushes out an entry in use. A line appended to
    MEMORY.md must be there once (or, were it demoted, once in the archive), never lost or
    doubled. (The agent appends a line every 20-50 ms for as long as the rounds take; the
    budget is far above what that comes to.)"""
    assert (sample / f"memory/{YESTERDAY}.md").exists()
    with open(sample / "memcli.toml", "a", encoding="utf-8") as f:
        f.write("core_max_chars = 100000000\n")
    appender = start_appender(sample, tmp_path)
    rounds, rewrote_core = 30, 0
    try:
        appender.wait_started()
        for n in range(rounds):
            if n:
                fresh_note(sample, n)
            inode = os.stat(sample / "MEMORY.md").st_ino
            report = json.loads(ok(memcli(sample, "--json", "gc", "--force")).stdout)
            assert report["applied"], f"round {n}: gc had nothing to do"
            rewrote_core += os.stat(sample / "MEMORY.md").st_ino != inode
            assert gaps(sample, f"memory/{YESTERDAY}.md", "yesterday append") == [], f"round {n}"
    finally:
        count = appender.stop()
    assert rewrote_core >= rounds - 2, "gc should rewrite MEMORY.md in (almost) every round"
    check_appended(sample, count)
    print(f"\n{count} lines appended to each of {', '.join(TARGETS)}; none lost")


def test_lines_appended_while_gc_and_undo_alternate_are_never_lost(sample: Path, tmp_path: Path) -> None:
    """20 applied gc runs on the sample, each undone, while an agent appends: both gc and
    undo rewrite MEMORY.md (undo puts back its bytes and carries what was appended since).
    No line may be lost by either."""
    appender = start_appender(sample, tmp_path)
    try:
        appender.wait_started()
        for n in range(20):
            inode = os.stat(sample / "MEMORY.md").st_ino
            report = json.loads(ok(memcli(sample, "--json", "gc")).stdout)
            assert report["applied"], f"round {n}: gc had nothing to do"
            assert os.stat(sample / "MEMORY.md").st_ino != inode, f"round {n}: MEMORY.md not rewritten"
            for rel, tag in TARGETS.items():
                assert gaps(sample, rel, tag) == [], f"round {n}: gc lost lines appended to {rel}"
            ok(memcli(sample, "undo"))
            for rel, tag in TARGETS.items():
                assert gaps(sample, rel, tag) == [], f"round {n}: undo lost lines appended to {rel}"
    finally:
        count = appender.stop()
    check_appended(sample, count)
    print(f"\n{count} lines appended to each of {', '.join(TARGETS)}; none lost")
