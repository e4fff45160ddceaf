"""`memcli check`: the workspace (or the files a pre-commit hook passes) read once and
judged by core.checks; `--fix` repairs the safe findings through the transaction layer.

With no files, every Markdown file memcli knows in the workspace is checked, plus
sessions.json and memcli.toml. With files, each is checked against the workspace it
belongs to (the nearest folder above it holding MEMORY.md or memory/); a file outside
any workspace still gets the checks that need no workspace (secrets, conflicts, front
matter, encoding). A path that does not exist, a folder, a FIFO, a socket or a device is
an error finding and is never opened (a FIFO would hang the hook); so are, in the whole
workspace, what layout.scan finds unusable (see layout.Unusable: a memory/ linked out of
the workspace is reported, never walked). Read-only unless `--fix`.

With `--staged` (what `memcli hook install`'s hook runs), the files are the memory files
the next commit adds or changes, and what is checked is the content staged for them (the
index), read through memcli/workspace/githooks.py, never the working tree: a secret
staged and then deleted or edited away on disk is still found. Findings name the staged
path, relative to the repository's top folder.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from memcli.cli_options import GlobalOptions
from memcli.core import checks
from memcli.core.checks import ERROR, Finding
from memcli.core.entries import Document, Entry, parse
from memcli.core.roles import MemoryFile, Role, classify
from memcli.errors import DataError, MemcliError
from memcli.runtime import Runtime, open_runtime
from memcli.workspace.files import read_loose, read_state
from memcli.workspace.layout import looks_like_workspace, not_a_file, scan
from memcli.workspace.snapshot import Parser, parse_file

if TYPE_CHECKING:
    from memcli.workspace.githooks import StagedEntry

SESSIONS = "sessions.json"
CONFIG = "memcli.toml"
# --fix rewrites memory notes only: never bootstrap files, archives or summaries
FIXABLE_ROLES = frozenset({Role.CORE, Role.DAILY, Role.DAILY_SLUG})


@dataclass
class Report:
    findings: list[Finding] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # checked, as shown
    fixed: list[Finding] = field(default_factory=list)
    tx: str | None = None  # the transaction of --fix (undo reverts it)
    notes: list[str] = field(default_factory=list)
    staged: bool = False  # the files are what the next commit holds (the index)

    @property
    def errors(self) -> int:
        return sum(f.severity == ERROR for f in self.findings)

    @property
    def warnings(self) -> int:
        return len(self.findings) - self.errors

    def to_json(self) -> dict[str, object]:
        return {
            "ok": self.errors == 0,
            "errors": self.errors,
            "warnings": self.warnings,
            "files": self.files,
            "findings": [f.to_json() for f in self.findings],
            "fixed": [f.to_json() for f in self.fixed],
            "transaction": self.tx,
            "staged": self.staged,
        }


@dataclass
class Checked:
    """One Markdown file of a workspace, read and parsed."""

    file: MemoryFile
    text: str
    doc: Document


def workspace_of(path: Path) -> Path | None:
    """The nearest folder at or above the file's folder that looks like a workspace."""
    folder = path.parent
    for candidate in (folder, *folder.parents):
        if looks_like_workspace(candidate):
            return candidate
    return None


def check_workspace(options: GlobalOptions, fix: bool = False) -> Report:
    """Every Markdown file memcli knows in the workspace, sessions.json and memcli.toml."""
    from memcli.workspace.cache import outline_parser  # imported here: not for the hook's few files
    from memcli.workspace.layout import discover

    report = Report()
    root = discover(options.workspace, os.environ, Path.cwd(), Path.home())
    run = checked_runtime(options, root, report)
    layout = scan(run.root, lenient=True)
    report.findings += [checks.bad_name(b.rel, b.reason) for b in layout.bad_names]
    report.files += [b.rel for b in layout.bad_names]
    report.findings += [checks.unusable(u.rel, u.problem, u.hint) for u in layout.unusable]
    report.files += [u.rel for u in layout.unusable]
    with outline_parser(run.root, run.policy.rules) as parser:
        read = [_read(run, f, report, parser) for f in layout.files]
    checked = [c for c in read if c is not None]
    report.findings += _judge(run, checked)
    for name in (SESSIONS, CONFIG):
        if (run.root / name).is_file():
            report.files.append(name)
            report.findings += _other(run.root / name, name)
    if fix:
        _fix(run, checked, report)
    return report


def check_files(paths: Sequence[Path], options: GlobalOptions, fix: bool = False) -> Report:
    """The files as a pre-commit hook passes them, each against its own workspace."""
    report = Report()
    by_root: dict[Path, list[Path]] = {}
    named = Path(options.workspace).resolve() if options.workspace else None
    for path in paths:
        problem = _not_a_file(path)
        if problem is not None:  # never opened: a FIFO would hang the hook
            report.files.append(str(path))
            report.findings.append(problem)
            continue
        root = named if named and _inside(path.resolve(), named) else workspace_of(path.resolve())
        if root is None:
            report.files.append(str(path))
            report.findings += _loose(path, str(path))
            continue
        by_root.setdefault(root, []).append(path.resolve())
    for root, files in sorted(by_root.items()):
        run = checked_runtime(options, root, report)
        checked: list[Checked] = []
        for path in files:
            rel = path.relative_to(root).as_posix()
            verdict = classify(rel) if rel.lower().endswith(".md") and not rel.startswith(".") else None
            if isinstance(verdict, MemoryFile):
                one = _read(run, verdict, report)  # lists the file
                if one is not None:
                    checked.append(one)
                continue
            report.files.append(rel)
            if path.name in (SESSIONS, CONFIG) and path.parent == root:
                report.findings += _other(path, rel)
                continue
            if verdict is not None:  # a BadName
                report.findings.append(checks.bad_name(rel, verdict.reason))
            report.findings += _loose(path, rel)
        report.findings += _judge(run, checked)
        if fix:
            _fix(run, checked, report)
    return report


def check_staged(options: GlobalOptions) -> Report:
    """The memory files the next commit adds or changes, as they are staged (the index, not
    the working tree), each against the workspace its path lies in (on disk, inside the
    repository); a file in no workspace gets the checks that need none. Findings name the
    staged path (relative to the repository's top folder)."""
    from memcli.core.automation import GIT_PATHSPECS
    from memcli.core.policy import Policy
    from memcli.workspace.githooks import (
        SYMLINK_MODE,
        repository_top,
        staged_contents,
        staged_entries,
        staged_sizes,
    )

    report = Report(staged=True)
    named = Path(options.workspace).expanduser().resolve() if options.workspace else None
    top = repository_top(named or Path.cwd())
    by_root: dict[Path | None, list[StagedEntry]] = {}
    for entry in staged_entries(top, GIT_PATHSPECS):
        if not entry.is_file:  # a link commits its target's name; a submodule, a commit id
            what = "a symbolic link" if entry.mode == SYMLINK_MODE else f"mode {entry.mode}"
            report.notes.append(f"{entry.path} is staged as {what}: nothing of it to check")
            continue
        path = top / entry.path
        root = named if named and _inside(path, named) else workspace_of(path)
        by_root.setdefault(root if root is not None and _inside(root, top) else None, []).append(entry)
    runs = {root: checked_runtime(options, root, report) for root in by_root if root is not None}
    caps = {root: runs[root].policy.max_file_bytes if root else Policy().max_file_bytes for root in by_root}
    sizes = staged_sizes(top, [e.blob for group in by_root.values() for e in group])
    contents = staged_contents(
        top, [e.blob for root, group in by_root.items() for e in group if sizes[e.blob] <= caps[root]]
    )
    for root, group in sorted(by_root.items(), key=lambda item: str(item[0] or "")):
        shown: dict[str, str] = {}  # workspace-relative name → staged path
        findings: list[Finding] = []
        checked: list[Checked] = []
        for entry in group:
            rel = (top / entry.path).relative_to(root).as_posix() if root else entry.path
            shown[rel] = entry.path
            report.files.append(entry.path)
            data = contents.get(entry.blob)
            if data is None:
                why = f"is {sizes[entry.blob]:,} bytes staged, over the limit of {caps[root]:,} for one note"
                findings.append(checks.not_text(rel, why))
                continue
            text = _decoded(data, rel, findings)
            if text is not None:
                checked += _staged_text(root, rel, text, findings)
        if root is not None:
            findings += _judge(runs[root], checked)
        report.findings += [replace(f, file=shown.get(f.file, f.file)) for f in findings]
    return report


def _staged_text(root: Path | None, rel: str, text: str, findings: list[Finding]) -> list[Checked]:
    """One staged file's text judged as `check_files` judges the file on disk; a memory note
    is returned parsed for the checks that read entries."""
    if root is None:
        findings += _loose_text(rel, text)
        return []
    verdict = classify(rel) if rel.lower().endswith(".md") and not rel.startswith(".") else None
    if isinstance(verdict, MemoryFile):
        note = verdict
        one = _examined(note, text, findings, lambda: parse(text, note.rel, note.date))
        return [one] if one is not None else []
    name = rel.rsplit("/", 1)[-1]
    if rel in (SESSIONS, CONFIG):
        findings += _other_text(
            name, rel, text, _loose_text(rel, text), lambda: _load_config_text(text, name)
        )
        return []
    if verdict is not None:  # a BadName
        findings.append(checks.bad_name(rel, verdict.reason))
    findings += _loose_text(rel, text)
    return []


def _not_a_file(path: Path) -> Finding | None:
    """Why a path given to check is no file to read: it does not exist (a hook passes
    only the files a commit adds or changes), it is a folder, a FIFO, a socket or a
    device. One stat, and nothing is opened."""
    name = str(path)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if path.is_symlink():
            return checks.unusable(
                name, f"is a dangling symlink (to {os.readlink(path)})", "remove or fix the link"
            )
        return checks.unusable(name, "does not exist", "name an existing file (or run `memcli check` alone)")
    except OSError as exc:
        return checks.unusable(name, f"cannot be read: {exc.strerror}", "make it readable")
    if stat.S_ISDIR(st.st_mode):
        return checks.unusable(
            name,
            "is a folder, not a file",
            "name the files to check, or run `memcli check` alone for the workspace",
        )
    if not stat.S_ISREG(st.st_mode):
        u = not_a_file(name, st, path.is_symlink())
        return checks.unusable(name, u.problem, u.hint)
    return None


def checked_runtime(options: GlobalOptions, root: Path, report: Report) -> Runtime:
    """The workspace's runtime; with a memcli.toml that does not load, the defaults (the
    broken file is reported as an error when it is checked)."""
    try:
        return open_runtime(options, root=root)
    except DataError:
        from memcli.clock import parse_now
        from memcli.core.policy import Policy

        report.notes.append("memcli.toml does not load: checked with the default settings")
        return Runtime(root, Policy(), parse_now(options.now, None), None)


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _read(run: Runtime, file: MemoryFile, report: Report, parser: Parser = parse_file) -> Checked | None:
    """The file's text, or a finding saying why it is not text (reported here)."""
    report.files.append(file.rel)
    try:  # through the I/O layer: inside the workspace (bootstrap files may link out), size-capped
        state = read_state(
            run.root / file.rel, run.root, run.policy.max_file_bytes, file.role is Role.BOOTSTRAP
        )
    except DataError as exc:
        report.findings.append(checks.not_text(file.rel, exc.one_line()))
        return None
    text = _decoded(state.data, file.rel, report.findings)
    if text is None:
        return None
    return _examined(file, text, report.findings, lambda: parser(file, state, text))


def _examined(
    file: MemoryFile, text: str, findings: list[Finding], document: Callable[[], Document]
) -> Checked | None:
    """A memory file's text judged alone (secrets, front matter, conflict markers), and
    parsed for the checks that read entries unless a conflict leaves it half of each side."""
    findings += checks.secrets(file.rel, text)
    findings += checks.front_matter(file.rel, text)
    conflicts = checks.conflict_markers(file.rel, text)
    findings += conflicts
    if conflicts:
        return None  # its entries would be half of each side
    return Checked(file, text, document())


def _text(path: Path, rel: str, findings: list[Finding]) -> str | None:
    """A file outside any workspace (or memcli's own config and store), read as it is."""
    try:
        data = read_loose(path)
    except OSError as exc:
        findings.append(checks.not_text(rel, f"cannot be read: {exc.strerror or exc}"))
        return None
    return _decoded(data, rel, findings)


def _decoded(data: bytes, rel: str, findings: list[Finding]) -> str | None:
    if b"\x00" in data:
        findings.append(checks.not_text(rel, "looks binary (it holds NUL bytes)"))
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        findings.append(checks.not_text(rel, f"invalid UTF-8 at byte {exc.start} (line {line})"))
        return None


def _loose(path: Path, rel: str) -> list[Finding]:
    """The checks that need no workspace."""
    return _read_loose(path, rel)[0]


def _read_loose(path: Path, rel: str) -> tuple[list[Finding], str | None]:
    """The workspace-free checks' findings, and the file's text when it is text."""
    findings: list[Finding] = []
    text = _text(path, rel, findings)
    if text is not None:
        findings += _loose_text(rel, text)
    return findings, text


def _loose_text(rel: str, text: str) -> list[Finding]:
    findings = checks.secrets(rel, text) + checks.conflict_markers(rel, text)
    if rel.lower().endswith(".md"):
        findings += checks.front_matter(rel, text)
    return findings


def _other(path: Path, rel: str) -> list[Finding]:
    """sessions.json must be a JSON object; memcli.toml must load."""
    findings, text = _read_loose(path, rel)
    return _other_text(path.name, rel, text, findings, lambda: _load_config(path))


def _load_config(path: Path) -> None:
    from memcli.config import load_policy

    load_policy(path, {})


def _load_config_text(text: str, name: str) -> None:
    from memcli.config import values_from_toml
    from memcli.core.policy import Policy

    Policy(**values_from_toml(text.removeprefix("\ufeff"), name))


def _other_text(
    name: str, rel: str, text: str | None, findings: list[Finding], load_config: Callable[[], None]
) -> list[Finding]:
    if text is None or any(f.check == "file" for f in findings):
        return findings
    if name == SESSIONS:
        restore = "restore it from git or a backup"
        from memcli.workspace.transcripts import lone_surrogates

        lone = next(lone_surrogates(text), None)
        try:
            data = json.loads(text)
        except ValueError as exc:
            line = getattr(exc, "lineno", None)
            findings.append(Finding(ERROR, "sessions", rel, line, f"is not valid JSON: {exc}", restore))
        except RecursionError:
            findings.append(
                Finding(ERROR, "sessions", rel, 1, "nests its JSON too deeply to be read", restore)
            )
        else:
            if not isinstance(data, dict):
                findings.append(Finding(ERROR, "sessions", rel, 1, "is not a JSON object of keys", restore))
            elif lone is not None:
                line = text.count("\n", 0, lone.start()) + 1
                why = f"holds a lone UTF-16 surrogate ({lone.group()}, half a character)"
                findings.append(
                    Finding(ERROR, "sessions", rel, line, why, "remove it, or complete the character")
                )
    else:
        try:
            load_config()
        except MemcliError as exc:
            findings.append(Finding(ERROR, "config", rel, None, exc.message, exc.hint or ""))
    return findings


def _judge(run: Runtime, checked: Sequence[Checked]) -> list[Finding]:
    """The checks that read entries: duplicates within a file; MEMORY.md's budget, stale
    entries and contradictions."""
    findings: list[Finding] = []
    rules = run.rules
    for c in checked:
        if c.file.role is Role.CORE:
            findings += checks.core_budget(c.file.rel, c.text, run.policy.core_max_chars)
            entries = list(c.doc.entries)
            findings += checks.stale(entries, rules, run.today)
            findings += checks.contradictions(entries, rules)
        findings += checks.duplicates(c.doc.entries, fixable=_can_fix(run, c.file))
    return findings


def _can_fix(run: Runtime, file: MemoryFile) -> bool:
    """--fix rewrites memory notes, never today's or yesterday's (agents append to them)."""
    if file.role not in FIXABLE_ROLES:
        return False
    days = {(run.today - timedelta(days=n)).isoformat() for n in range(max(1, run.policy.open_days))}
    return file.date is None or file.date.isoformat() not in days


def _fix(run: Runtime, checked: Sequence[Checked], report: Report) -> None:
    """Remove exact duplicates within a file (never from an open note), as one transaction
    that `memcli undo` reverts; the removed copies go to the trash."""
    from memcli.core.edit import edit_document
    from memcli.core.lifecycle import Event, FileWrite, Plan, Trashed
    from memcli.workspace.lock import WorkspaceLock
    from memcli.workspace.transaction import apply_plan, recover

    fixable = {(f.file, f.line): f for f in report.findings if f.fixable}
    if not fixable:
        return
    writes: list[FileWrite] = []
    trash: list[Trashed] = []
    events: list[Event] = []
    fixed: list[Finding] = []
    reason = "an exact copy of an earlier entry of the same file (check --fix)"
    for c in checked:
        gone: list[Entry] = [e for e in c.doc.entries if (c.file.rel, e.first_line) in fixable]
        if not gone:
            continue
        writes.append(FileWrite(c.file.rel, c.text, edit_document(c.doc, remove=gone)))
        for e in gone:
            source = f"{c.file.rel}:{e.first_line}"
            trash.append(Trashed(e.id, e.text, source, reason, "drop"))
            events.append(Event("drop", e.id, e.text, source, None, reason))
            fixed.append(fixable[(c.file.rel, e.first_line)])
    if not writes:
        return
    with WorkspaceLock(run.root, "check --fix", run.policy.lock_timeout_seconds):
        recover(run.root, run.now)
        plan = Plan(tuple(), tuple(writes), tuple(trash), tuple(events), (), ())
        report.tx = apply_plan(run.root, plan, "check", run.now, run.policy.max_file_bytes).tx
    report.fixed = fixed
    report.findings = [f for f in report.findings if f not in fixed]
