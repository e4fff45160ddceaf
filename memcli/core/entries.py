"""Lossless Markdown model: a file is a list of raw lines grouped into blocks.

Rendering joins the raw lines, so an unchanged document gives back the very
bytes it was parsed from (line endings, BOM, trailing blanks and all). The
block grammar follows CommonMark closely enough to find the unit of memory,
the *entry*: a top-level list item with everything nested in it, a paragraph,
or a code block, table, quote or HTML block standing on its own (SPEC §2).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

BlockKind = Literal[
    "front_matter",
    "heading",
    "blank",
    "rule",
    "bullet",
    "task",
    "paragraph",
    "code",
    "table",
    "quote",
    "html",
]
ENTRY_KINDS: frozenset[str] = frozenset({"bullet", "task", "paragraph", "code", "table", "quote", "html"})

BOM = "\ufeff"

# --- line grammar -----------------------------------------------------------

_ATX = re.compile(r" {0,3}(#{1,6})(?=[ \t]|$)(.*)$")
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_RULE = re.compile(r" {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
_SETEXT = re.compile(r" {0,3}(=+|-+)[ \t]*$")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})(.*)$")
_LIST_ITEM = re.compile(r"( {0,3})([-+*]|\d{1,9}[.)])(?=[ \t]|$)")
_CHECKBOX = re.compile(r"\[([ xX])\](?=[ \t]|$)")
_TABLE_DELIM = re.compile(r" {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_HTML_1 = re.compile(r" {0,3}<(script|pre|style|textarea)(?:[ \t>]|$)", re.IGNORECASE)
_HTML_1_END = re.compile(r"</(?:script|pre|style|textarea)>", re.IGNORECASE)
_HTML_SIMPLE_STARTS = (
    (re.compile(r" {0,3}<!--"), "-->"),
    (re.compile(r" {0,3}<\?"), "?>"),
    (re.compile(r" {0,3}<!\[CDATA\["), "]]>"),
    (re.compile(r" {0,3}<![A-Za-z]"), ">"),
)
_HTML_6 = re.compile(
    r" {0,3}</?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col"
    r"|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame"
    r"|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav"
    r"|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th"
    r"|thead|title|tr|track|ul)(?:[ \t]|/?>|$)",
    re.IGNORECASE,
)
_HTML_7 = re.compile(r" {0,3}</?[A-Za-z][A-Za-z0-9-]*(?:\s+[^<>]*)?/?>[ \t]*$")

# Characters that can begin something other than paragraph text.
_SPECIAL_FIRST = frozenset("#>-*+_=|<`~0123456789")

# --- inline markers -----------------------------------------------------------

IMPORTANCE_MARKER = re.compile(r"<!--\s*importance\s*:\s*(\d{1,2})\s*-->", re.IGNORECASE)
PIN_MARKER = re.compile(r"<!--\s*pin\s*-->|(?<![\w#/&])#pin(?![\w-])", re.IGNORECASE)
_MARKER_ONLY_LINE = re.compile(r"\s*(?:<!--\s*(?:importance\s*:\s*\d{1,2}|pin)\s*-->\s*)+$", re.IGNORECASE)

# --- dates ---------------------------------------------------------------------

_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_TIME = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?![\d:])")
_LEADING_STAMP = re.compile(
    r"[\s*_\[(【]*"
    r"(?:(\d{4})-(\d{2})-(\d{2}))?"
    r"(?:[T\s]*(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?::[0-5]\d)?(?![\d:]))?"
)


@dataclass(frozen=True, slots=True)
class Heading:
    level: int
    title: str

    def __str__(self) -> str:
        return f"{'#' * self.level} {self.title}"


@dataclass(frozen=True, slots=True)
class Block:
    """A run of whole lines, `start` inclusive to `end` exclusive (0-based)."""

    kind: BlockKind
    start: int
    end: int
    heading: Heading | None = None

    @property
    def is_entry(self) -> bool:
        return self.kind in ENTRY_KINDS


@dataclass(frozen=True, slots=True)
class Entry:
    """One unit of memory. Lines are 1-based and inclusive, as editors show them."""

    id: str
    file: str
    first_line: int
    last_line: int
    section: tuple[Heading, ...]
    date: date | None
    time: str | None
    kind: str
    text: str
    importance: int | None = None
    pinned: bool = False
    done: bool | None = None

    @property
    def section_path(self) -> str:
        return " > ".join(str(h) for h in self.section)

    @property
    def body(self) -> str:
        """The entry's words without list marker, checkbox or memcli markers."""
        return entry_body(self.text, self.kind)


@dataclass(frozen=True)
class Document:
    path: str
    lines: tuple[str, ...]
    blocks: tuple[Block, ...]
    entries: tuple[Entry, ...] = field(default=())

    def render(self) -> str:
        return "".join(self.lines)

    @property
    def has_bom(self) -> bool:
        return bool(self.lines) and self.lines[0].startswith(BOM)

    @property
    def newline(self) -> str:
        """The line ending new lines should use: the file's first one, LF when none."""
        for line in self.lines:
            if line.endswith("\r\n"):
                return "\r\n"
            if line.endswith("\n"):
                return "\n"
        return "\n"

    @property
    def ends_with_newline(self) -> bool:
        return not self.lines or self.lines[-1].endswith("\n")

    @property
    def front_matter(self) -> str | None:
        for block in self.blocks:
            if block.kind == "front_matter":
                return "".join(self.lines[block.start : block.end])
        return None


_CONFLICT_START = re.compile(r"^<{7}(?: |$)", re.MULTILINE)
_CONFLICT_MID = re.compile(r"^={7}[ \t]*$", re.MULTILINE)
_CONFLICT_END = re.compile(r"^>{7}(?: |$)", re.MULTILINE)


def conflict_marker_line(text: str) -> int | None:
    """The line of an unresolved git merge conflict (<<<<<<< … ======= … >>>>>>>), if any."""
    start = _CONFLICT_START.search(text)
    if start is None:
        return None
    mid = _CONFLICT_MID.search(text, start.end())
    if mid is None or _CONFLICT_END.search(text, mid.end()) is None:
        return None
    return text.count("\n", 0, start.start()) + 1


def split_lines(text: str) -> list[str]:
    """Split on LF only, each piece keeping its ending (CRLF stays whole)."""
    if not text:
        return []
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def line_content(line: str) -> str:
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith("\n"):
        return line[:-1]
    return line


def render(doc: Document) -> str:
    return doc.render()


# --- the block scanner -----------------------------------------------------------


def _columns(text: str) -> str:
    return text.expandtabs(4) if "\t" in text else text


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


@dataclass(slots=True)
class _Line:
    raw: str  # with tabs expanded, no line ending
    blank: bool
    indent: int
    first: str  # first non-space character, "" when blank


def _make_lines(contents: Sequence[str]) -> list[_Line]:
    out = []
    for content in contents:
        cols = _columns(content)
        stripped = cols.lstrip(" ")
        blank = not stripped.strip(" ")  # CommonMark: only spaces and tabs make a line blank
        out.append(_Line(cols, blank, len(cols) - len(stripped), "" if blank else stripped[0]))
    return out


def _is_fence_close(text: str, char: str, length: int) -> bool:
    stripped = text.strip()
    return (
        len(stripped) >= length
        and stripped[0] == char
        and stripped == char * len(stripped)
        and _indent(text) <= 3
    )


def _open_fence(text: str) -> tuple[str, int] | None:
    m = _FENCE.match(text)
    if not m:
        return None
    marks, info = m.group(1), m.group(2)
    if marks[0] == "`" and "`" in info:
        return None
    return marks[0], len(marks)


def _html_start(text: str, interrupting: bool) -> str | None:
    """The end condition of the HTML block starting here ("" = ends at a blank line)."""
    if _HTML_1.match(text):
        return "</"
    for pattern, end in _HTML_SIMPLE_STARTS:
        if pattern.match(text):
            return end
    if _HTML_6.match(text):
        return ""
    if not interrupting and _HTML_7.match(text):
        return ""
    return None


def _table_cells(text: str) -> int:
    """Number of cells in a table row: unescaped pipes split it, edge pipes are optional."""
    row = text.strip()
    row = row.removeprefix("|")
    if row.endswith("|") and not row.endswith("\\|"):
        row = row[:-1]
    return len(_CELL_SPLIT.split(row))


def _is_paragraph_text(text: str, in_paragraph: bool) -> bool:
    """True when a container's content line is paragraph text, which lazy lines may continue."""
    return not (
        _ATX.match(text) or _RULE.match(text) or _html_start(text, interrupting=in_paragraph) is not None
    )


def _list_marker(line: _Line) -> tuple[int, bool] | None:
    """Content column of a list item starting on this line, and whether it is empty."""
    if line.indent > 3 or line.first not in "-+*0123456789":
        return None
    m = _LIST_ITEM.match(line.raw)
    if not m:
        return None
    marker_end = m.end()
    rest = line.raw[marker_end:]
    if not rest.strip():
        return marker_end + 1, True
    spaces = len(rest) - len(rest.lstrip(" "))
    if spaces > 4:
        spaces = 1
    return marker_end + spaces, False


def _starts_block(line: _Line, in_paragraph: bool) -> bool:
    """True when this line would end a paragraph by starting another block."""
    if line.blank:
        return True
    if line.indent > 3 or line.first not in _SPECIAL_FIRST:
        return False
    text = line.raw
    if line.first == "#" and _ATX.match(text):
        return True
    if line.first in "-*_" and _RULE.match(text):
        return True
    if line.first in "`~" and _open_fence(text):
        return True
    if line.first == ">":
        return True
    if line.first == "<" and _html_start(text, interrupting=in_paragraph) is not None:
        return True
    marker = _list_marker(line)
    if marker is not None:
        if not in_paragraph:
            return True
        _, empty = marker
        ordered = line.first.isdigit()
        if empty:
            return False
        return not ordered or re.match(r" {0,3}1[.)]", text) is not None
    return False


class _Scanner:
    def __init__(self, contents: Sequence[str]) -> None:
        self.lines = _make_lines(contents)
        self.contents = contents
        self.n = len(contents)
        self.blocks: list[Block] = []

    def emit(self, kind: BlockKind, start: int, end: int, heading: Heading | None = None) -> None:
        self.blocks.append(Block(kind, start, end, heading))

    def scan(self) -> list[Block]:
        i = self.front_matter()
        while i < self.n:
            i = self.block_at(i)
        return self.blocks

    def front_matter(self) -> int:
        if self.n < 3 or self.lines[0].raw.rstrip() != "---":
            return 0
        if self.lines[1].blank or not re.match(r"[\w\"'.-][^:]*:(?:\s|$)", self.contents[1]):
            return 0
        for k in range(2, self.n):
            if self.lines[k].raw.rstrip() in ("---", "..."):
                self.emit("front_matter", 0, k + 1)
                return k + 1
        return 0

    def block_at(self, i: int) -> int:
        line = self.lines[i]
        if line.blank:
            j = i + 1
            while j < self.n and self.lines[j].blank:
                j += 1
            self.emit("blank", i, j)
            return j
        if line.indent >= 4:
            return self.indented_code(i)
        first = line.first
        text = line.raw
        if first in "`~":
            fence = _open_fence(text)
            if fence:
                return self.fenced_code(i, *fence)
        if first == "#":
            m = _ATX.match(text)
            if m:
                title = _ATX_CLOSE.sub("", m.group(2)).strip()
                self.emit("heading", i, i + 1, Heading(len(m.group(1)), title))
                return i + 1
        if first in "-*_" and _RULE.match(text):
            self.emit("rule", i, i + 1)
            return i + 1
        if first == "<":
            end = _html_start(text, interrupting=False)
            if end is not None:
                return self.html(i, end)
        if first == ">":
            return self.quote(i)
        if first in "-+*0123456789":
            marker = _list_marker(line)
            if marker is not None:
                return self.list_item(i, marker[0], marker[1])
        if self.table_starts(i):
            return self.table(i)
        return self.paragraph(i)

    def indented_code(self, i: int) -> int:
        last = i
        j = i + 1
        while j < self.n and (self.lines[j].blank or self.lines[j].indent >= 4):
            if not self.lines[j].blank:
                last = j
            j += 1
        self.emit("code", i, last + 1)
        return last + 1

    def fenced_code(self, i: int, char: str, length: int) -> int:
        j = i + 1
        while j < self.n:
            if _is_fence_close(self.lines[j].raw, char, length):
                self.emit("code", i, j + 1)
                return j + 1
            j += 1
        self.emit("code", i, self.n)
        return self.n

    def html(self, i: int, end: str) -> int:
        if end == "":
            j = i + 1
            while j < self.n and not self.lines[j].blank:
                j += 1
            self.emit("html", i, j)
            return j
        j = i
        while j < self.n:
            text = self.lines[j].raw
            body = text if j > i else text.lstrip()[2:]
            if (end == "</" and _HTML_1_END.search(text)) or (end != "</" and end in body):
                break
            j += 1
        end_line = min(j + 1, self.n)
        self.emit("html", i, end_line)
        return end_line

    def quote(self, i: int) -> int:
        """`>` lines, and lazy lines while a paragraph inside the quote is open."""
        paragraph_open = False
        fence: tuple[str, int] | None = None
        j = i
        while j < self.n:
            line = self.lines[j]
            if line.blank:
                break
            if line.first == ">" and line.indent <= 3:
                inner = line.raw[line.indent + 1 :].removeprefix(" ")
                if fence is not None:
                    if _is_fence_close(inner, *fence):
                        fence = None
                    paragraph_open = False
                else:
                    fence = _open_fence(inner)
                    code = not paragraph_open and _indent(inner) >= 4
                    paragraph_open = (
                        bool(inner.strip(" "))
                        and fence is None
                        and not code
                        and _is_paragraph_text(inner, paragraph_open)
                    )
            elif not paragraph_open or _starts_block(line, True):
                break
            j += 1
        self.emit("quote", i, j)
        return j

    def table_starts(self, i: int) -> bool:
        return (
            "|" in self.lines[i].raw
            and i + 1 < self.n
            and "|" in self.lines[i + 1].raw
            and self.lines[i + 1].first in "|:-"
            and _TABLE_DELIM.match(self.lines[i + 1].raw) is not None
            # GFM: no table unless the header row has as many cells as the delimiter row.
            and _table_cells(self.lines[i].raw) == _table_cells(self.lines[i + 1].raw)
        )

    def table(self, i: int) -> int:
        j = i + 2
        while j < self.n and not _starts_block(self.lines[j], False):
            j += 1
        self.emit("table", i, j)
        return j

    def paragraph(self, i: int) -> int:
        j = i + 1
        while j < self.n:
            line = self.lines[j]
            if line.blank:
                break
            if line.indent <= 3 and line.first in "=-" and _SETEXT.match(line.raw):
                title = " ".join(c.strip() for c in self.contents[i:j])
                level = 1 if line.first == "=" else 2
                self.emit("heading", i, j + 1, Heading(level, title))
                return j + 1
            if _starts_block(line, True):
                break
            if self.table_starts(j):
                break
            j += 1
        self.emit("paragraph", i, j)
        return j

    def list_item(self, i: int, width: int, empty: bool) -> int:
        """A list item runs while lines are indented to its content, or lazily continue it."""
        first_text = self.lines[i].raw[width:] if not empty else ""
        fence: tuple[str, int] | None = _open_fence(first_text) if first_text else None
        paragraph_open = bool(first_text.strip()) and fence is None and _is_paragraph_text(first_text, False)
        last = i
        j = i + 1
        while j < self.n:
            line = self.lines[j]
            if line.blank:
                if empty and j == i + 1:
                    break
                paragraph_open = False
                j += 1
                continue
            if line.indent >= width:
                inner = line.raw[width:]
                if fence is not None:
                    if _is_fence_close(inner.lstrip(" "), *fence):
                        fence = None
                else:
                    fence = _open_fence(inner.lstrip(" ")) if line.first in "`~" else None
                    # An indented code block cannot interrupt a paragraph, so 4+ columns only
                    # make code (which lazy lines never continue) when no paragraph is open.
                    code = not paragraph_open and _indent(inner) >= 4
                    paragraph_open = fence is None and not code and _is_paragraph_text(inner, paragraph_open)
                last = j
                j += 1
                continue
            lazy = (
                fence is None
                and paragraph_open
                and not self.lines[j - 1].blank
                and not _starts_block(line, True)
                and _list_marker(line) is None
            )
            if not lazy:
                break
            last = j
            j += 1
        checkbox = _CHECKBOX.match(first_text.lstrip(" ")) if first_text else None
        self.emit("task" if checkbox else "bullet", i, last + 1)
        return last + 1


def _attach_markers(blocks: list[Block], contents: Sequence[str]) -> list[Block]:
    """A marker-only comment line right under an entry belongs to that entry."""
    out: list[Block] = []
    for block in blocks:
        if (
            block.kind == "html"
            and out
            and out[-1].is_entry
            and out[-1].end == block.start
            and all(_MARKER_ONLY_LINE.match(contents[k]) for k in range(block.start, block.end))
        ):
            prev = out.pop()
            out.append(Block(prev.kind, prev.start, block.end, prev.heading))
        else:
            out.append(block)
    return out


def scan_blocks(contents: Sequence[str]) -> list[Block]:
    """Blocks covering every line exactly once, in order."""
    return _attach_markers(_Scanner(contents).scan(), contents)


# --- entries ----------------------------------------------------------------------

_MARKDOWN_LEAD = re.compile(r"\s*(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|$)(?:\[[ xX]\][ \t]*)?")


def entry_body(text: str, kind: str) -> str:
    """Words of an entry: list marker, checkbox and memcli markers removed."""
    if kind in ("bullet", "task"):
        first, _, rest = text.partition("\n")
        first = _MARKDOWN_LEAD.sub("", first, count=1)
        text = first + ("\n" + rest if rest else "")
    if "<!--" in text:
        text = IMPORTANCE_MARKER.sub("", text)
    if "#" in text or "<!--" in text:
        text = PIN_MARKER.sub("", text)
    if "\n" not in text:
        return text.strip()
    return "\n".join(stripped for line in text.split("\n") if (stripped := line.strip()))


def normalise_for_id(body: str) -> str:
    if not unicodedata.is_normalized("NFKC", body):
        body = unicodedata.normalize("NFKC", body)
    return " ".join(body.casefold().split())


def entry_id(body: str) -> str:
    return hashlib.sha1(normalise_for_id(body).encode("utf-8")).hexdigest()[:10]


def _valid_date(y: str, m: str, d: str) -> date | None:
    try:
        return date(int(y), int(m), int(d))
    except ValueError:
        return None


def leading_stamp(body: str) -> tuple[date | None, str | None]:
    """A date and/or HH:MM the entry opens with (`**07:01** —`, `2026-03-04 10:00`)."""
    m = _LEADING_STAMP.match(body)
    if not m:
        return None, None
    day = _valid_date(m.group(1), m.group(2), m.group(3)) if m.group(1) else None
    clock = f"{int(m.group(4)):02d}:{m.group(5)}" if m.group(4) else None
    return day, clock


_STAMP_TAIL = re.compile(r"[\s*_\])】]*(?:[—–|:-]+[ \t]*)?")


def strip_leading_stamp(body: str) -> str:
    """The entry's words without the timestamp it opens with (`**07:01** — deployed` → `deployed`)."""
    m = _LEADING_STAMP.match(body)
    if not m or (m.group(1) is None and m.group(4) is None):
        return body
    tail = _STAMP_TAIL.match(body, m.end())
    return body[tail.end() if tail else m.end() :]


def heading_stamp(section: Iterable[Heading]) -> tuple[date | None, str | None]:
    """The innermost date and time that the enclosing headings carry."""
    day: date | None = None
    clock: str | None = None
    for heading in reversed(tuple(section)):
        if day is None:
            for m in _ISO_DATE.finditer(heading.title):
                day = _valid_date(*m.groups())
                if day:
                    break
        if clock is None:
            t = _TIME.search(heading.title)
            if t:
                clock = f"{int(t.group(1)):02d}:{t.group(2)}"
        if day is not None:
            break
    return day, clock


_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")
_FENCE_LINE = re.compile(r"\s*(`{3,}|~{3,})")


def outside_code(text: str) -> str:
    """The entry's text without fenced code and code spans: where markers count."""
    if "`" not in text and "~~~" not in text:
        return text
    kept = []
    fence: str | None = None
    for line in text.split("\n"):
        m = _FENCE_LINE.match(line)
        if fence is None and m:
            fence = m.group(1)[0] * len(m.group(1))
            continue
        if fence is not None:
            if line.strip().startswith(fence) and not line.strip().strip(fence[0]):
                fence = None
            continue
        kept.append(_CODE_SPAN.sub("", line))
    return "\n".join(kept)


def _make_entry(
    block: Block,
    contents: Sequence[str],
    path: str,
    section: tuple[Heading, ...],
    section_stamp: tuple[date | None, str | None],
    file_date: date | None,
) -> Entry:
    raw = contents[block.start : block.end]
    text = "\n".join(raw)
    body = entry_body(text, block.kind)
    day, clock = leading_stamp(body)
    if day is None or clock is None:
        h_day, h_clock = section_stamp
        if day is None and h_day is not None:
            day = h_day
            clock = clock or h_clock
        elif clock is None and (day is None or day == h_day):
            clock = h_clock
    markers = outside_code(text) if block.kind != "code" else ""
    importance = IMPORTANCE_MARKER.search(markers) if "<!--" in markers else None
    level = int(importance.group(1)) if importance else None
    done = None
    if block.kind == "task":
        box = _CHECKBOX.search(raw[0])
        done = bool(box and box.group(1) in "xX")
    return Entry(
        id=entry_id(body),
        file=path,
        first_line=block.start + 1,
        last_line=block.end,
        section=section,
        date=day or file_date,
        time=clock,
        kind=block.kind,
        text=text,
        importance=level if level is not None and 1 <= level <= 10 else None,
        pinned=("#" in markers or "<!--" in markers) and PIN_MARKER.search(markers) is not None,
        done=done,
    )


def parse(text: str, path: str = "", file_date: date | None = None) -> Document:
    """Parse a whole file's text. `render(parse(t)) == t` for every string t."""
    lines = split_lines(text)
    contents = [line_content(line) for line in lines]
    if contents and contents[0].startswith(BOM):
        contents[0] = contents[0][1:]
    blocks = scan_blocks(contents)
    entries: list[Entry] = []
    stack: list[Heading] = []
    section: tuple[Heading, ...] = ()
    stamp: tuple[date | None, str | None] = (None, None)
    for block in blocks:
        if block.kind == "heading" and block.heading is not None:
            while stack and stack[-1].level >= block.heading.level:
                stack.pop()
            stack.append(block.heading)
            section = tuple(stack)
            stamp = heading_stamp(section)
        elif block.is_entry:
            entries.append(_make_entry(block, contents, path, section, stamp, file_date))
    return Document(path=path, lines=tuple(lines), blocks=tuple(blocks), entries=tuple(entries))
