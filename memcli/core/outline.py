"""A parsed note in brief: what `parse` found that the text does not say by itself.

Parsing a note means finding its blocks and reading each entry (its id, date, time,
markers). The outline keeps exactly those findings — the blocks' kinds and extents, the
headings, each entry's derived fields — as plain JSON-ready lists, so that a note parsed
before can be rebuilt from its text and outline instead of parsed again. `rebuild`
refuses (returns None) an outline that does not fit the text: the caller then parses.

`rebuild(text, path, file_date, outline(parse(text, path, file_date), file_date))` equals
`parse(text, path, file_date)` for every text (tests/test_outline.py).
"""

from __future__ import annotations

from datetime import date
from typing import Any, get_args

from memcli.core.entries import (
    BOM,
    ENTRY_KINDS,
    Block,
    BlockKind,
    Document,
    Entry,
    Heading,
    line_content,
    split_lines,
)

KINDS: tuple[BlockKind, ...] = get_args(BlockKind)
_KIND_CODE = {kind: n for n, kind in enumerate(KINDS)}
_KIND_OF = dict(enumerate(KINDS))
_DONE = {None: 0, False: 1, True: 2}
_DONE_OF = {code: done for done, code in _DONE.items()}


def outline(doc: Document, file_date: date | None) -> list[Any]:
    """[path, file date ordinal (0: none), blocks]: each block [kind, end, heading level,
    heading title] and, for an entry, [.., id, date ordinal (0: none), time, importance
    (0: none), pinned, done]. An entry's date may be the file's, which is why it is kept."""
    entries = iter(doc.entries)
    blocks: list[list[Any]] = []
    for block in doc.blocks:
        row: list[Any] = [_KIND_CODE[block.kind], block.end]
        row += [block.heading.level, block.heading.title] if block.heading is not None else [0, None]
        if block.kind in ENTRY_KINDS:
            e = next(entries)
            row += [
                e.id,
                _ordinal(e.date),
                e.time,
                e.importance or 0,
                int(e.pinned),
                _DONE[e.done],
            ]
        blocks.append(row)
    return [doc.path, _ordinal(file_date), blocks]


def _ordinal(day: date | None) -> int:
    return day.toordinal() if day else 0


def rebuild(text: str, path: str, file_date: date | None, brief: Any) -> Document | None:
    """The document `parse(text, path, file_date)` gives, from its outline; None when the
    outline was made for another path or file date, or does not tile the text's lines."""
    try:
        return _rebuild(text, path, file_date, brief)
    except (TypeError, ValueError, IndexError, KeyError, OverflowError):
        return None


def _rebuild(text: str, path: str, file_date: date | None, brief: Any) -> Document | None:
    made_for, made_on, rows = brief
    if made_for != path or made_on != _ordinal(file_date):
        return None  # the entries' dates in the outline fell back to another file date
    lines = split_lines(text)
    contents = [line_content(line) for line in lines]
    if contents and contents[0].startswith(BOM):
        contents[0] = contents[0][1:]
    blocks: list[Block] = []
    entries: list[Entry] = []
    stack: list[Heading] = []
    section: tuple[Heading, ...] = ()
    start = 0
    kinds, done_of = _KIND_OF, _DONE_OF
    for row in rows:
        kind = kinds[row[0]]
        end = row[1]
        if type(end) is not int or end <= start:
            return None
        heading = Heading(row[2], row[3]) if row[2] else None
        block = Block(kind, start, end, heading)
        blocks.append(block)
        if kind == "heading" and heading is not None:
            while stack and stack[-1].level >= heading.level:
                stack.pop()
            stack.append(heading)
            section = tuple(stack)
        elif kind in ENTRY_KINDS:
            _, _, _, _, ident, ordinal, clock, importance, pinned, done = row
            entries.append(
                Entry(
                    ident,
                    path,
                    start + 1,
                    end,
                    section,
                    date.fromordinal(ordinal) if ordinal else None,
                    clock,
                    kind,
                    "\n".join(contents[start:end]),
                    importance or None,
                    bool(pinned),
                    done_of[done],
                )
            )
        start = end
    if start != len(lines):
        return None
    return Document(path=path, lines=tuple(lines), blocks=tuple(blocks), entries=tuple(entries))
