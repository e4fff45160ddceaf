"""What `memcli check` finds in one file or one workspace (SPEC §11), pure.

Errors stop a commit: a secret, a merge conflict marker, front matter that does not
parse, a file that is not UTF-8 text (or no file at all: a FIFO, socket or device named
like a note, a folder named like one, memory/ linked out of the workspace, a path that
does not exist), a daily note whose name is not a date, and a MEMORY.md longer than
OpenClaw ever loads. Warnings only inform: a MEMORY.md over
memcli's budget, the same entry twice, an entry in MEMORY.md whose date has passed, and
two entries of MEMORY.md that contradict each other. Each finding says how to fix it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from memcli.core.entries import Entry, conflict_marker_line
from memcli.core.judgement.logs import is_log
from memcli.core.rules import Rules
from memcli.core.scoring import score_text, scoring_text
from memcli.core.secrets import find_secrets
from memcli.core.similarity import normalise, polarity
from memcli.core.subjects import retired_object, subject_tokens
from memcli.core.tokens import estimate_tokens

ERROR = "error"
WARNING = "warning"
OPENCLAW_MAX_CHARS = 20_000  # OpenClaw cuts a bootstrap file here (bootstrapMaxChars)
DUPLICATE_MIN_WIDTH = 12  # shorter entries ("- ok", "好的收到") repeat by nature; a CJK character counts 2


@dataclass(frozen=True, slots=True)
class Finding:
    severity: str  # error | warning
    check: str  # secret, conflict, front-matter, file, name, budget, duplicate, stale, contradiction, …
    file: str
    line: int | None
    message: str
    hint: str = ""
    fixable: bool = False  # `check --fix` can repair it safely

    def to_json(self) -> dict[str, object]:
        return {
            "severity": self.severity,
            "check": self.check,
            "file": self.file,
            "line": self.line,
            "message": self.message,
            "hint": self.hint,
            "fixable": self.fixable,
        }

    def where(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


def secrets(rel: str, text: str) -> list[Finding]:
    return [
        Finding(
            ERROR,
            "secret",
            rel,
            s.line,
            f"{s.label} ({s.excerpt})",
            "take it out and rotate it; a line that must keep it can carry <!-- memcli: allow-secret -->",
        )
        for s in find_secrets(text)
    ]


def conflict_markers(rel: str, text: str) -> list[Finding]:
    """A merge left <<<<<<< … ======= … >>>>>>> behind."""
    line = conflict_marker_line(text)
    if line is None:
        return []
    return [
        Finding(
            ERROR,
            "conflict",
            rel,
            line,
            "unresolved merge conflict (<<<<<<< … >>>>>>>)",
            "resolve the conflict: keep the lines you want, delete the markers",
        )
    ]


_KEY_LINE = re.compile(r"[\w\"'.-][^:]*:(?:\s|$)")


def front_matter(rel: str, text: str) -> list[Finding]:
    """YAML front matter that is never closed or does not parse to a mapping. As for the
    parser, a first line of --- opens front matter only when a `key:` line follows (a ---
    before a blank line or a heading is a thematic break)."""
    lines = text.removeprefix("\ufeff").splitlines()
    if len(lines) < 2 or lines[0].rstrip() != "---" or not _KEY_LINE.match(lines[1]):
        return []
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() in ("---", "...")), None)
    if end is None:
        return [
            Finding(
                ERROR,
                "front-matter",
                rel,
                1,
                "front matter opened with --- is never closed",
                "end it with a line of --- (or remove the opening ---)",
            )
        ]
    import yaml  # type: ignore[import-untyped]

    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 1
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        message = f"front matter is not valid YAML: {problem}"
        return [Finding(ERROR, "front-matter", rel, line, message, "fix the YAML between the --- lines")]
    if data is not None and not isinstance(data, dict):
        return [
            Finding(
                ERROR,
                "front-matter",
                rel,
                1,
                "front matter is not a mapping of keys to values",
                "write it as `key: value` lines",
            )
        ]
    return []


def core_budget(rel: str, text: str, max_chars: int) -> list[Finding]:
    """MEMORY.md against OpenClaw's cap (error: the rest is never loaded) and memcli's
    budget (warning)."""
    chars = len(text)
    size = f"{rel} holds {chars:,} characters (~{estimate_tokens(text):,} tokens)"
    if chars > OPENCLAW_MAX_CHARS:
        return [
            Finding(
                ERROR,
                "budget",
                rel,
                None,
                f"{size}: past the {OPENCLAW_MAX_CHARS:,} OpenClaw loads of a bootstrap file "
                "(bootstrapMaxChars); the rest is silently cut",
                "run `memcli gc` to demote and archive, or move detail into memory/ notes",
                fixable=False,
            )
        ]
    if chars > max_chars:
        return [
            Finding(
                WARNING,
                "budget",
                rel,
                None,
                f"{size}: over memcli's budget of {max_chars:,} (core_max_chars; OpenClaw caps "
                f"bootstrap files at 12,000-{OPENCLAW_MAX_CHARS:,})",
                "run `memcli gc`, which demotes what was not used lately",
            )
        ]
    return []


def duplicates(entries: Iterable[Entry], fixable: bool = True) -> list[Finding]:
    """Entries that say the same thing as an earlier one, word for word once markup,
    punctuation and case are set aside (near-duplicates are `memcli dedupe`'s; status
    lines, labels and commands repeat by nature and are left out). `fixable`:
    whether --fix may remove a copy from this file."""
    first: dict[tuple[str, bool | None], Entry] = {}
    found = []
    for entry in entries:
        if is_log(entry):
            continue  # "- Gateway: ✅ 运行中" at 09:00 and again at 15:00 is a log, not a repeat
        words = normalise(entry.text)
        if sum(2 if ch >= "\u2e80" else 1 for ch in words) < DUPLICATE_MIN_WIDTH:
            continue
        key = (words, entry.done)  # an open task and the same task done are two states
        original = first.setdefault(key, entry)
        if original is entry:
            continue
        same_file = fixable and original.file == entry.file
        found.append(
            Finding(
                WARNING,
                "duplicate",
                entry.file,
                entry.first_line,
                f"says again what {original.file}:{original.first_line} says",
                "`memcli check --fix` removes it (undo brings it back)" if same_file else "remove one copy",
                fixable=same_file,
            )
        )
    return found


def stale(entries: Iterable[Entry], rules: Rules, today: date) -> list[Finding]:
    """Entries of MEMORY.md about a date that has passed (a deadline, a meeting)."""
    found = []
    for entry in entries:
        scored = score_text(entry.text, rules, kind=entry.kind, today=today, written=entry.date)
        reason = next((r for r in scored.reasons if r.rule == "past its date"), None)
        if reason is not None:
            found.append(
                Finding(
                    WARNING,
                    "stale",
                    entry.file,
                    entry.first_line,
                    f"is about a date that has passed ({reason.cue!r})",
                    "update or remove it; `memcli gc` retires what is no longer used",
                )
            )
    return found


def contradictions(entries: Sequence[Entry], rules: Rules) -> list[Finding]:
    """Pairs of MEMORY.md entries that cannot both hold: one says the other's subject
    changed ("no longer npm", "不再用 MySQL"), or they say the same thing, one of them
    negated ("用 pnpm" / "不要用 pnpm")."""
    found = []
    subjects = [subject_tokens(e.text) for e in entries]
    reported: set[tuple[int, int]] = set()
    for n, entry in enumerate(entries):
        scanned = scoring_text(entry.text)
        cue = rules.scan(scanned).get("retired")
        if cue is None:
            continue
        retired = retired_object(scanned, cue)
        if not retired:
            continue
        for o, other in enumerate(entries):
            if o == n or not retired <= subjects[o] or not (subjects[n] - retired) & subjects[o]:
                continue
            reported.add((min(n, o), max(n, o)))
            found.append(_contradiction(other, entry, f"says '{cue} {' '.join(sorted(retired))}'"))
    negated = [polarity(e.text) for e in entries]
    for n in range(len(entries)):
        for o in range(n + 1, len(entries)):
            if negated[n] == negated[o] or (n, o) in reported:
                continue
            common = subjects[n] & subjects[o]
            if len(common) >= 2 and common == subjects[n] == subjects[o]:
                found.append(_contradiction(entries[n], entries[o], "says the opposite"))
    return found


def _contradiction(older: Entry, newer: Entry, why: str) -> Finding:
    return Finding(
        WARNING,
        "contradiction",
        older.file,
        older.first_line,
        f"may no longer hold: {newer.file}:{newer.first_line} {why}",
        "keep the one that is true; `memcli gc` retires the replaced one",
    )


def bad_name(rel: str, reason: str) -> Finding:
    return Finding(ERROR, "name", rel, None, reason, "rename it memory/YYYY-MM-DD.md or YYYY-MM-DD-<slug>.md")


def not_text(rel: str, reason: str) -> Finding:
    return Finding(ERROR, "file", rel, None, reason, "make it a UTF-8 text file inside the workspace")


def unusable(rel: str, problem: str, hint: str) -> Finding:
    """A path memcli would read but never opens: missing, a folder, a FIFO, socket or device,
    a folder linked out of the workspace (see workspace.layout.Unusable)."""
    return Finding(ERROR, "file", rel, None, problem, hint)


def summary(findings: Sequence[Finding]) -> tuple[int, int]:
    errors = sum(f.severity == ERROR for f in findings)
    return errors, len(findings) - errors
