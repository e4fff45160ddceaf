"""Summaries of a period of notes or of a session (SPEC §8): choose, render, write.

core.summarize chooses what a summary says; workspace.templates lays it out; this module
reads what they need, runs an outside summariser when one is named (falling back to the
extractive summary when it fails; output that is not UTF-8 text, or carries conflict
markers, is refused, exit 3), and writes the file as an undoable transaction.

A secret never leaves its note: core.summarize leaves out every entry or message that
holds one (`Summary.withheld` names their places), and a summary that would still
carry one — a template, or the outside summariser, printing it — is not written.
"""

from __future__ import annotations

import contextlib
import re
import subprocess
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path

from memcli.core.analysis import analyse
from memcli.core.compaction import summarise
from memcli.core.entries import conflict_marker_line
from memcli.core.judgement.candidates import superseded_among
from memcli.core.lifecycle import Event, FileWrite, Plan
from memcli.core.roles import SUMMARIES_DIR, MemoryFile, Role
from memcli.core.scoring import scoring_text
from memcli.core.summarize import (
    Digest,
    digest_of_notes,
    digest_of_session,
    front_matter,
    week_days,
    week_of,
)
from memcli.core.tokens import estimate_tokens
from memcli.core.withheld import holds_secret
from memcli.errors import DataError, UsageError
from memcli.runtime import Runtime
from memcli.workspace.files import read_state
from memcli.workspace.lock import WorkspaceLock
from memcli.workspace.snapshot import take_snapshot
from memcli.workspace.templates import NAMES, find_template, render_digest, render_template
from memcli.workspace.transaction import apply_plan, recover
from memcli.workspace.transcripts import find_session, read_transcript

PROMPT_TEMPLATE = "summary-prompt"
NOTE_ROLES = frozenset({Role.DAILY, Role.DAILY_SLUG, Role.ARCHIVE})  # archived notes are summarised too


@dataclass(frozen=True)
class Summary:
    digest: Digest
    template: Path
    text: str  # front matter and body
    summarizer: str  # "extractive" or "command"
    warnings: tuple[str, ...] = ()

    @property
    def withheld(self) -> tuple[str, ...]:
        """Places of the entries or messages left out because they hold a secret."""
        return self.digest.withheld

    @property
    def tokens_out(self) -> int:
        return estimate_tokens(self.text.split("\n---\n", 1)[-1])

    @property
    def rel(self) -> str:
        safe = re.sub(r"[^\w.-]+", "-", self.digest.period).strip("-") or "summary"
        return f"{SUMMARIES_DIR}/{safe}.md"


def _period(
    today: date, since: date | None, until: date | None, period: str | None
) -> tuple[str, date, date]:
    if period is not None:
        try:
            start, end = week_days(period)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        return period, start, end
    if since is None and until is None:
        week, _ = week_of(today - timedelta(days=7))  # the last finished week
        start, end = week_days(week)
        return week, start, end
    start = since or date.min
    end = until or today
    if end < start:
        raise UsageError(f"--until {end} is before --since {start}")
    label = f"{since or 'start'}..{end}"
    return label, start, end


def _kind(template: str | None, default: str) -> str:
    return template if template in NAMES else default


def summarize_notes(
    run: Runtime,
    since: date | None,
    until: date | None,
    period: str | None,
    template: str | None,
    budget: int,
    command: str,
) -> Summary:
    """The daily notes of a period (archived ones too), summarised."""
    label, start, end = _period(run.today, since, until, period)

    def wanted(f: MemoryFile) -> bool:
        dated = f.role in NOTE_ROLES and f.date is not None and start <= f.date <= end
        return dated or f.role is Role.CORE

    snap = take_snapshot(run.root, run.policy.max_file_bytes, select=wanted)
    files = tuple((p.file, p.doc) for p in snap.files)
    analysis = analyse(files, run.policy, run.rules, run.now_local)
    notes = [a for a in analysis.assessed if a.role is not Role.CORE]
    sources = sorted({a.entry.file for a in notes})
    stale = superseded_among([scoring_text(a.entry.text) for a in notes], [a.entry.date for a in notes])
    notes = [a for i, a in enumerate(notes) if i not in stale]  # a replaced fact is not summarised as current
    if not sources:
        raise DataError(
            f"no daily notes between {start} and {end}", "name another --period or --since/--until"
        )
    name = template or "weekly-digest"
    digest = digest_of_notes(
        _kind(template, "weekly-digest"),
        label,
        notes,
        sources,
        run.now_local,
        budget,
        run.policy.summary_language,
    )
    return _finish(run, digest, name, command)


def summarize_session(
    run: Runtime, key: str, store: Path | None, template: str | None, budget: int, command: str
) -> Summary:
    """One session's transcript, every turn of it, summarised."""
    session = find_session(run.root, key, store)
    if session.transcript is None:
        raise DataError(f"session {key!r} has no transcript file", "nothing to summarise")
    transcript = read_transcript(session.transcript, run.root)
    source = str(session.transcript)
    with contextlib.suppress(ValueError):
        source = session.transcript.relative_to(run.root.resolve()).as_posix()
    digest = digest_of_session(
        _kind(template, "session-summary"),
        key,
        transcript.messages,
        [source],
        run.now_local,
        budget,
        run.policy.summary_language,
        None,  # every turn is read, those before a compaction too: its summary adds nothing
        run.rules,
    )
    if template == "compaction-summary":  # its parts read the turns as a compaction does
        parts = summarise(transcript.messages, None, run.rules, budget)
        digest = replace(digest, compaction=parts.parts, withheld=digest.withheld + parts.withheld)
    digest = replace(digest, withheld=tuple(f"{source} {place}" for place in dict.fromkeys(digest.withheld)))
    summary = _finish(run, digest, template or "session-summary", command)
    return replace(summary, warnings=summary.warnings + transcript.problems)


def _finish(run: Runtime, digest: Digest, name: str, command: str) -> Summary:
    path = find_template(name, run.root, run.policy.templates_dir)
    limit = run.policy.max_file_bytes  # a longer summary could not be read back
    extractive = render_digest(digest, path, limit)
    if holds_secret(extractive):
        raise DataError(
            f"the summary would carry a secret: template {path.name} printed one; nothing was written",
            "print only the summary's items in the template",
        )
    if not command:
        return Summary(digest, path, extractive, "extractive")
    prompt = render_template(
        find_template(PROMPT_TEMPLATE, run.root, run.policy.templates_dir), digest.context(), limit
    )
    body, problem = run_summarizer(command, prompt, run.policy.summarizer_timeout_seconds)
    if body is not None and holds_secret(body):
        body, problem = None, "--summarizer-cmd printed a secret"
    if body is None:
        return Summary(digest, path, extractive, "extractive", (f"{problem}; used the extractive summary",))
    return Summary(digest, path, front_matter(digest) + body.rstrip("\n") + "\n", "command")


def run_summarizer(command: str, prompt: str, timeout: float) -> tuple[str | None, str]:
    """The command's output for `prompt` on its stdin, or None and why it gave none (it
    failed: the extractive summary is used). Output that is not text (not UTF-8, or with
    a NUL byte, which no note may hold) or that carries merge-conflict markers (every
    command would refuse the summary) is DataError: it did not fail, it gave bad data."""
    try:
        done = subprocess.run(
            command,
            shell=True,
            input=prompt.encode("utf-8", "replace"),
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None, f"--summarizer-cmd did not finish within {timeout:g} s"
    except OSError as exc:
        return None, f"--summarizer-cmd could not run ({exc.strerror})"
    if done.returncode != 0:
        tail = " ".join(done.stderr.decode("utf-8", "replace").split())[-200:]
        return None, f"--summarizer-cmd exited with {done.returncode}" + (f": {tail}" if tail else "")
    text = summarizer_text(done.stdout)
    if not text.strip():
        return None, "--summarizer-cmd printed nothing"
    return text, ""


def summarizer_text(data: bytes) -> str:
    """The summariser's output as text; DataError (exit 3, nothing written) when it is not."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise DataError(
            f"--summarizer-cmd printed output that is not UTF-8 (byte {exc.start}, line {line}); "
            "nothing was written",
            "make the command print UTF-8 text, or leave --summarizer-cmd out for the extractive summary",
        ) from None
    nul = text.find("\x00")
    if nul >= 0:
        raise DataError(
            f"--summarizer-cmd printed a NUL byte (character {nul}), which no note may hold; "
            "nothing was written",
            "make the command print plain text, or leave --summarizer-cmd out for the extractive summary",
        )
    text = text.replace("\r\n", "\n").replace("\r", "\n")  # as a text-mode pipe reads it
    marker = conflict_marker_line(text)
    if marker is not None:
        raise DataError(
            f"--summarizer-cmd printed a merge-conflict marker (line {marker} of its output), which "
            "would make the summary unreadable; nothing was written",
            "make the command print the summary only, or leave --summarizer-cmd out",
        )
    return text


def write_summary(run: Runtime, summary: Summary, out_path: str | None) -> tuple[str, str]:
    """Write the summary inside the workspace as one transaction; return its path and id.
    A summary over max_file_bytes is refused: every later command would refuse the file."""
    rel = summary.rel
    if out_path is not None:
        target = Path(out_path).expanduser()
        target = target if target.is_absolute() else Path.cwd() / target
        try:
            rel = target.resolve().relative_to(run.root.resolve()).as_posix()
        except ValueError:
            raise UsageError(
                f"--output {out_path} is outside the workspace", "use --output - and redirect it"
            ) from None
    size = len(summary.text.encode("utf-8"))
    if size > run.policy.max_file_bytes:
        raise DataError(
            f"the summary for {rel} is {size:,} bytes, over max_file_bytes ({run.policy.max_file_bytes:,}); "
            "nothing was written",
            "shorten the template's output or --budget, or raise max_file_bytes",
        )
    with WorkspaceLock(run.root, "summarize", run.policy.lock_timeout_seconds):
        recover(run.root, run.now)
        path = run.root / rel
        before = None
        if path.exists():
            before = read_state(path, run.root, run.policy.max_file_bytes).data.decode("utf-8", "replace")
        if before == summary.text:
            raise DataError(f"{rel} already holds this summary", "nothing was written")
        event = Event("summarize", "-", summary.digest.period, ", ".join(summary.digest.sources)[:500], rel)
        plan = Plan((), (FileWrite(rel, before, summary.text),), (), (event,), (), ())
        outcome = apply_plan(run.root, plan, "summarize", run.now, run.policy.max_file_bytes)
    return rel, outcome.tx
