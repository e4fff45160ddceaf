"""Edits that touch only the lines of the entries they change (SPEC §2).

A document is edited by removing whole entries and inserting new lines before a
line index; every other line keeps its bytes, line ending included.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memcli.core.entries import Document, Entry, Heading, line_content
from memcli.core.verbatim import bullet


@dataclass(frozen=True, slots=True)
class Insert:
    before: int  # 0-based line index; len(lines) appends at the end
    text: str  # lines ending in LF; converted to the document's line ending


def _blank(line: str) -> bool:
    return not line_content(line).strip(" \t")


def removal_span(doc: Document, entry: Entry) -> tuple[int, int]:
    """The 0-based line span an entry's removal takes: its lines, and one blank line after
    it when blank lines surround it (so removals do not pile blank lines up)."""
    start, end = entry.first_line - 1, entry.last_line
    lines = doc.lines
    before_blank = start == 0 or _blank(lines[start - 1])
    if before_blank and end < len(lines) and _blank(lines[end]):
        end += 1
    return start, end


def edit_document(doc: Document, remove: Iterable[Entry] = (), insert: Sequence[Insert] = ()) -> str:
    """The document's text with entries removed and lines inserted."""
    newline = doc.newline
    lines = list(doc.lines)
    dropped = [False] * len(lines)
    for entry in remove:
        start, end = removal_span(doc, entry)
        for i in range(start, end):
            dropped[i] = True
    additions: dict[int, list[str]] = {}
    for ins in insert:
        text = ins.text if ins.text.endswith("\n") else ins.text + "\n"
        additions.setdefault(ins.before, []).append(text.replace("\n", newline))
    out: list[str] = []
    for i, line in enumerate(lines):
        if i in additions:
            _ensure_line_end(out, newline)
            out.extend(additions[i])
        if not dropped[i]:
            out.append(line)
    if len(lines) in additions:
        _ensure_line_end(out, newline)
        out.extend(additions[len(lines)])
    return "".join(out)


def _ensure_line_end(out: list[str], newline: str) -> None:
    if out and not out[-1].endswith("\n"):
        out[-1] += newline


def append_block(text: str, block: str) -> str:
    """`block` added at the end of `text`, separated by a blank line, in its line endings."""
    newline = "\r\n" if "\r\n" in text[: text.find("\n") + 1 or None] else "\n"
    if text and not text.endswith("\n"):
        text += newline
    if text and not text.endswith(newline * 2) and text.strip():
        text += newline
    return text + block.replace("\n", newline)


def promoted_text(entry: Entry) -> str:
    """An entry as a MEMORY.md bullet, in the user's words (core.verbatim): no time stamp,
    checkbox or marker of its day, nested lines kept under it."""
    return bullet(entry.text)


# --- sections -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Section:
    heading: Heading
    line: int  # 0-based line of the heading
    end: int  # 0-based line where the section ends (next heading of its level or higher)


def sections(doc: Document) -> list[Section]:
    heads = [(b.start, b.heading) for b in doc.blocks if b.kind == "heading" and b.heading is not None]
    out = []
    for k, (line, heading) in enumerate(heads):
        end = next((ln for ln, h in heads[k + 1 :] if h.level <= heading.level), len(doc.lines))
        out.append(Section(heading, line, end))
    return out


def insertion_into(doc: Document, section: Section, bullet: str) -> Insert:
    """Where a new bullet goes in a section: after its last line, in the same list when the
    section ends with one, else after a blank line."""
    lines = doc.lines
    last = section.end - 1
    while last > section.line and _blank(lines[last]):
        last -= 1
    block = next((b for b in doc.blocks if b.start <= last < b.end), None)
    in_list = block is not None and block.kind in ("bullet", "task") and last > section.line
    return Insert(last + 1, bullet if in_list else "\n" + bullet)


def new_section(doc: Document, title: str, bullet: str) -> Insert:
    """A section of its own at the end of the document."""
    lead = "" if not doc.lines else "\n"
    return Insert(len(doc.lines), f"{lead}## {title}\n\n{bullet}")
