"""A write that fails in the middle of a transaction, as on a full disk (issue 9).

No file system is mocked. memcli runs as a real process whose file-size limit
(RLIMIT_FSIZE, set with SIGXFSZ ignored) makes a real write() past N bytes fail with EFBIG;
N is chosen from the sizes a reference run wrote, so that the failure falls on a chosen
write of the transaction: the journal's copies of the old and new bytes, its record, the
trash, or the ledger. (A rewritten note cannot be the first write to fail this way: its
journal copy, of the same size, is written before it. A real full disk can fail there, and
the tmpfs test at the end does that when a small tmpfs can be mounted.)

Each time: exit 3 with one line and no traceback; every user file is byte for byte its old
or its new version (never torn, never a temp file left beside it); no entry is lost; and
after the limit is lifted the next run recovers: no temp file, no prepared journal, the
same files as an undisturbed run, and `memcli undo` gives back the original bytes.
"""

from __future__ import annotations

import contextlib
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import NOW, SAMPLE, copy_tree, tree_bytes
from memcli.core.entries import parse
from memcli.core.roles import TEMP_SUFFIX
from memcli.core.similarity import normalise
from memcli.workspace.transaction import PREPARED, ROLLED_BACK, journals, trash_records

STATE = ".memcli/"
TODAY_NOTE = "memory/2026-10-31.md"  # NOW in the sample's time zone
MAIN = "agent:main:main"


def limited(size: int | None) -> Callable[[], None] | None:
    """preexec_fn: writes past `size` bytes fail with EFBIG instead of killing the process."""
    if size is None:
        return None

    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))

    return apply


def memcli(root: Path, *args: str, fsize: int | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # no .pyc writes under the limit
    return subprocess.run(
        [sys.executable, "-m", "memcli", "-w", str(root), "--now", NOW, *args],
        capture_output=True,
        text=True,
        env=env,
        preexec_fn=limited(fsize),
        timeout=120,
    )


def ok(done: subprocess.CompletedProcess[str]) -> subprocess.CompletedProcess[str]:
    assert done.returncode == 0, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    return done


def refused(done: subprocess.CompletedProcess[str]) -> str:
    """Exit 3 and one line on stderr, no traceback: the line."""
    assert done.returncode == 3, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memcli: error: "), done.stderr
    return lines[0]


def user_bytes(root: Path) -> dict[str, bytes]:
    return {k: v for k, v in tree_bytes(root).items() if not k.startswith(STATE)}


def temp_files(root: Path) -> list[str]:
    return sorted(k for k in tree_bytes(root) if k.endswith(TEMP_SUFFIX))


def prepared(root: Path) -> list[str]:
    return [j.tx for j in journals(root) if j.state == PREPARED]


def entries_of(files: dict[str, bytes]) -> Counter[str]:
    """Normalised entries of every Markdown file."""
    found: Counter[str] = Counter()
    for rel, data in files.items():
        if rel.endswith(".md"):
            found.update(k for e in parse(data.decode("utf-8"), rel).entries if (k := normalise(e.text)))
    return found


def trashed(root: Path) -> Counter[str]:
    return Counter(k for r in trash_records(root) if (k := normalise(str(r.get("text", "")))))


def assert_old_or_new(root: Path, before: dict[str, bytes], after: dict[str, bytes]) -> dict[str, bytes]:
    """Every user file is its old or its new version; no temp file beside them; no entry lost."""
    now = user_bytes(root)
    for rel in set(now) | set(before):
        assert now.get(rel) in (before.get(rel), after.get(rel)), rel
    assert temp_files(root) == []
    lost = entries_of(before) - (entries_of(now) + trashed(root))
    assert not lost, lost
    return now


def assert_recovered(
    root: Path, before: dict[str, bytes], after: dict[str, bytes], recovery: subprocess.CompletedProcess[str]
) -> None:
    """The limit lifted, the next run ends where an undisturbed run ends, leaving nothing behind;
    and `undo` then gives back the original bytes."""
    ok(recovery)
    assert user_bytes(root) == after
    assert temp_files(root) == [] and prepared(root) == []
    carry = root / STATE / "carry"
    assert not carry.is_dir() or list(carry.iterdir()) == []
    ok(memcli(root, "undo"))
    assert user_bytes(root) == before


# --- gc -------------------------------------------------------------------------------------


def noisy_workspace(root: Path) -> Path:
    """A closed note of pleasantries: gc drops them into a trash file larger than its journal."""
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n')
    (root / "MEMORY.md").write_text("# MEMORY.md\n\n## Preferences\n\n- I prefer vim\n")
    thanks = [
        "好的",
        "thanks",
        "ok",
        "got it",
        "明白了",
        "谢谢",
        "收到",
        "noted, thanks",
        "好的好的",
        "OK thanks",
    ]
    lines = ["# 2026-10-27", "", "- deployed atlas-api v2.3 on port 8080", "- the staging db is db-2:5433"]
    lines += [f"- {thanks[i % len(thanks)]}" for i in range(60)]
    (root / "memory" / "2026-10-27.md").write_text("\n".join(lines) + "\n")
    return root


WORKSPACES: dict[str, Callable[[Path], Path]] = {
    "sample": lambda root: copy_tree(SAMPLE, root),
    "noisy": noisy_workspace,
}


@dataclass(frozen=True)
class Reference:
    """An undisturbed `gc --force` of a workspace: the files before and after, and the sizes of
    what it wrote, in the order it wrote them."""

    before: dict[str, bytes]
    after: dict[str, bytes]
    copies: int  # the largest journal copy (before-N / after-N)
    record: int  # journal.json
    trash: int
    ledger: int
    ledger_lines: tuple[int, ...]  # where each ledger line ends

    def limit(self, phase: str) -> int:
        """A file-size limit that makes the first failing write one of `phase`."""
        ledger = self.ledger_lines
        if phase.startswith("spread-"):  # k/6 of the way from nothing to the whole ledger
            return max(1, self.ledger * int(phase.removeprefix("spread-")) // 6)
        bounds = {
            "journal-copies": (1, self.copies),
            "journal-record": (self.copies, self.record),
            "trash": (max(self.copies, self.record), self.trash),
            "ledger": (max(self.copies, self.record, self.trash), self.ledger),
        }
        low, high = bounds[phase]
        assert low < high, f"no size fails on the {phase} first ({low} >= {high}): the workspace changed?"
        middle = (low + high) // 2
        if phase == "ledger":  # in the middle of a line, not at its end
            middle = next((end - 7 for end in ledger if low < end - 7 < high), middle)
        return middle


def reference_of(root: Path) -> Reference:
    before = user_bytes(root)
    ok(memcli(root, "gc", "--force"))
    state = root / STATE
    (journal,) = (state / "journal").iterdir()
    copies = max(p.stat().st_size for p in journal.iterdir() if p.name != "journal.json")
    trash = sum(p.stat().st_size for p in (state / "trash").glob("*")) if (state / "trash").is_dir() else 0
    ledger = (state / "ledger.jsonl").read_bytes()
    ends = tuple(i + 1 for i, byte in enumerate(ledger) if byte == ord("\n"))
    return Reference(
        before, user_bytes(root), copies, (journal / "journal.json").stat().st_size, trash, len(ledger), ends
    )


@pytest.fixture(scope="module")
def references(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Reference]:
    return {
        name: reference_of(build(tmp_path_factory.mktemp(name) / "ws")) for name, build in WORKSPACES.items()
    }


PHASES = [
    ("sample", "journal-copies"),
    ("sample", "journal-record"),
    ("sample", "ledger"),
    ("noisy", "journal-copies"),
    ("noisy", "trash"),
    ("noisy", "ledger"),
    *(("sample", f"spread-{k}") for k in (1, 3, 5)),  # and sizes across the whole range
]


@pytest.mark.parametrize(("workspace", "phase"), PHASES, ids=[f"{w}-{p}" for w, p in PHASES])
def test_gc_failing_mid_transaction_keeps_every_byte_and_recovers(
    references: dict[str, Reference], tmp_path: Path, workspace: str, phase: str
) -> None:
    ref = references[workspace]
    root = WORKSPACES[workspace](tmp_path / "ws")
    limit = ref.limit(phase)
    refused(memcli(root, "gc", "--force", fsize=limit))
    now = assert_old_or_new(root, ref.before, ref.after)
    # journal copies fail before anything else; trash and ledger are rolled back before it exits
    if phase.startswith("journal") or phase in ("trash", "ledger"):
        assert now == ref.before and prepared(root) == []
    else:  # rolled back at once, or (when putting a file back hits the limit too) by the next run
        assert len(prepared(root)) <= 1
        assert prepared(root) or now == ref.before
    rolled_back = bool(prepared(root))
    recovery = memcli(root, "gc", "--force")
    assert ("rolled back transaction" in recovery.stderr) == rolled_back
    assert_recovered(root, ref.before, ref.after, recovery)


def test_undo_after_a_failed_gc_rolls_it_back(references: dict[str, Reference], tmp_path: Path) -> None:
    # The next writing run of any kind recovers: here `undo`, which rolls the interrupted gc
    # back, then finds no applied transaction to undo.
    ref = references["sample"]
    root = WORKSPACES["sample"](tmp_path / "ws")
    refused(memcli(root, "gc", "--force", fsize=ref.limit("ledger")))
    assert user_bytes(root) == ref.before and prepared(root) == []  # rolled back before it exited
    assert "nothing to undo" in ok(memcli(root, "undo")).stderr
    assert user_bytes(root) == ref.before and prepared(root) == [] and temp_files(root) == []


def test_a_ledger_write_cut_short_leaves_every_ledger_line_readable(
    references: dict[str, Reference], tmp_path: Path
) -> None:
    # the ledger is appended all or nothing: a write cut short is taken back, and the
    # transaction whose events it held is rolled back before memcli exits
    ref = references["sample"]
    root = WORKSPACES["sample"](tmp_path / "ws")
    ledger = root / STATE / "ledger.jsonl"
    refused(memcli(root, "gc", "--force", fsize=ref.limit("ledger")))
    failed = [j.tx for j in journals(root) if j.state == ROLLED_BACK]
    assert len(failed) == 1 and prepared(root) == []
    events = [json.loads(line) for line in ledger.read_text(encoding="utf-8").splitlines()]
    assert not [e for e in events if e["tx"] == failed[0] and e["action"] != "rolled_back"]
    with open(ledger, "ab") as f:  # a line a killed run left half written
        f.write(b'{"tx": "20261031T090000-dead", "action": "pro')
    ok(memcli(root, "gc", "--force"))
    lines = ledger.read_text(encoding="utf-8").splitlines()
    assert lines[-1].startswith("{") and all(json.loads(line) for line in lines if "-dead" not in line)


def test_a_full_disk_error_names_the_file(references: dict[str, Reference], tmp_path: Path) -> None:
    root = WORKSPACES["sample"](tmp_path / "ws")
    line = refused(memcli(root, "gc", "--force", fsize=references["sample"].limit("journal-copies")))
    assert ".memcli/journal/" in line or "memory/" in line or "MEMORY.md" in line, line


def test_a_gc_that_exits_3_has_written_nothing(tmp_path: Path) -> None:
    root = copy_tree(SAMPLE, tmp_path / "ws")
    (root / "MEMORY.md").chmod(0o444)
    before = user_bytes(root)
    line = refused(memcli(root, "gc"))
    assert "MEMORY.md is read-only" in line
    assert user_bytes(root) == before


# --- flush and summarize ----------------------------------------------------------------------


@dataclass(frozen=True)
class FlushReference:
    before: dict[str, bytes]
    after: dict[str, bytes]
    note: int
    store: int


@pytest.fixture(scope="module")
def flush_reference(tmp_path_factory: pytest.TempPathFactory) -> FlushReference:
    root = copy_tree(SAMPLE, tmp_path_factory.mktemp("flush") / "ws")
    before = user_bytes(root)
    ok(memcli(root, "flush"))
    after = user_bytes(root)
    return FlushReference(before, after, len(after[TODAY_NOTE]), len(after["sessions.json"]))


@pytest.mark.parametrize("phase", ["note", "store"])
def test_flush_failing_midway_appends_once_and_records_on_the_next_run(
    flush_reference: FlushReference, tmp_path: Path, phase: str
) -> None:
    ref = flush_reference
    assert ref.note < ref.store, "the note is written first, then the store: sizes must tell them apart"
    root = copy_tree(SAMPLE, tmp_path / "ws")
    limit = ref.note // 2 if phase == "note" else (ref.note + ref.store) // 2
    refused(memcli(root, "flush", fsize=limit))
    now = assert_old_or_new(root, ref.before, ref.after)
    assert now["sessions.json"] == ref.before["sessions.json"]  # not recorded: the session stays due
    assert (TODAY_NOTE in now) == (phase == "store")
    assert not (root / "sessions.json.lock").exists()
    ok(memcli(root, "flush"))  # what the note holds now is not appended again
    assert user_bytes(root) == ref.after
    assert temp_files(root) == []


@pytest.fixture(scope="module")
def summary_reference(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Reference]:
    """The sample after one gc (a ledger of some size), then an undisturbed summarize."""
    base = copy_tree(SAMPLE, tmp_path_factory.mktemp("summary") / "base")
    ok(memcli(base, "gc"))
    root = copy_tree(base, tmp_path_factory.mktemp("summary-ref") / "ws")
    before = user_bytes(root)
    ledger_before = (root / STATE / "ledger.jsonl").stat().st_size
    ok(memcli(root, "summarize"))
    (journal,) = [j for j in journals(root) if j.data["command"] == "summarize"]
    copies = max(p.stat().st_size for p in journal.folder.iterdir() if p.name != "journal.json")
    record = (journal.folder / "journal.json").stat().st_size
    ledger = (root / STATE / "ledger.jsonl").stat().st_size
    assert ledger_before > max(copies, record)
    return base, Reference(before, user_bytes(root), copies, record, 0, ledger, ())


@pytest.mark.parametrize("phase", ["journal-copies", "ledger"])
def test_summarize_failing_midway_leaves_no_partial_summary(
    summary_reference: tuple[Path, Reference], tmp_path: Path, phase: str
) -> None:
    base, ref = summary_reference
    root = copy_tree(base, tmp_path / "ws")
    refused(memcli(root, "summarize", fsize=ref.limit(phase)))
    assert assert_old_or_new(root, ref.before, ref.after) == ref.before  # the ledger's failure rolled back
    assert prepared(root) == []
    recovery = memcli(root, "summarize")
    assert "rolled back" not in recovery.stderr
    assert_recovered(root, ref.before, ref.after, recovery)


# --- a real full disk: a small tmpfs ------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 2 MiB tmpfs (root only, and only where mounting is allowed; skipped otherwise)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=2m,mode=0755", "tmpfs", str(mount)],
            capture_output=True,
            text=True,
        )
    except OSError as exc:  # no mount command at all
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def free_bytes(folder: Path) -> int:
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize


@contextlib.contextmanager
def filled(folder: Path, leave: int) -> Iterator[None]:
    """Fill the disk but `leave` bytes; empty it again afterwards."""
    filler = folder / "filler"
    with open(filler, "wb") as f:
        f.write(b"\0" * max(0, free_bytes(folder) - leave))
    try:
        yield
    finally:
        filler.unlink()


def test_gc_on_a_full_disk_keeps_every_entry_and_recovers(
    references: dict[str, Reference], small_disk: Path, tmp_path: Path
) -> None:
    ref = references["sample"]
    warm = copy_tree(SAMPLE, tmp_path / "warm")
    (warm / STATE).mkdir()  # a workspace in use: memcli's folder there, its cache built
    ok(memcli(warm, "gc", "--dry-run"))
    # how much room an undisturbed gc takes on this disk
    probe = copy_tree(warm, small_disk / "probe")
    room = free_bytes(small_disk)
    ok(memcli(probe, "gc", "--force"))
    pages = (room - free_bytes(small_disk)) // 4096
    shutil.rmtree(probe)
    assert pages > 10
    # From almost enough room down to none, until the disk fills before any user file is
    # written: on the way it fills at the ledger, and among the user files.
    outcomes: Counter[str] = Counter()
    for leave in range(pages - 1, -1, -3):
        root = copy_tree(warm, small_disk / "ws")
        with filled(small_disk, leave * 4096):
            done = memcli(root, "gc", "--force")
            if done.returncode == 0:
                assert user_bytes(root) == ref.after
                outcomes["fitted"] += 1
            else:
                refused(done)
                now = assert_old_or_new(root, ref.before, ref.after)
                outcomes["before" if now == ref.before else "after" if now == ref.after else "mixed"] += 1
        recovery = memcli(root, "gc", "--force")
        if done.returncode == 0:  # a second gc right after the first: nothing left to do
            ok(recovery)
            assert user_bytes(root) == ref.after
        else:
            assert_recovered(root, ref.before, ref.after, recovery)
        shutil.rmtree(root)
        if outcomes["before"]:
            break
    # a failed run rolls back what it wrote; only when the full disk refuses that too is the
    # workspace left mixed (old and new files) for the next run to roll back
    assert outcomes["before"], outcomes
