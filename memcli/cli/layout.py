"""Text laid out for a terminal of a given width: wrapping that counts Chinese characters as
two columns, tables that keep numbers whole, and colour as ANSI codes.

Pure functions of (data, width, colour), so every screen can be rendered at 80 and 160
columns in a test. `width=None` is a pipe: nothing is wrapped or dropped, every column is
there in full, one row to a line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

LIST_MARKER = re.compile(r"(?:[-*+]|\d+[.)])(?: \[[ xX]\])? ")

# SGR codes for the few styles memcli uses
BOLD, DIM = "1", "2"
RED, GREEN, YELLOW, BLUE, MAGENTA, CYAN = "31", "32", "33", "34", "35", "36"


def paint(text: str, style: str | None, color: bool) -> str:
    if not color or not style or not text:
        return text
    return f"\x1b[{style}m{text}\x1b[0m"


SEPARATORS = frozenset("/:-_.")
CLOSING = frozenset("，。、；：！？）」』】》〉”’")


def _wide(ch: str) -> bool:
    return unicodedata.east_asian_width(ch) in "WF"


def display_width(text: str) -> int:
    return sum(2 if _wide(ch) else 1 for ch in text)


def _tokens(text: str) -> list[str]:
    """Words, runs of spaces, and each wide (CJK) character alone: a line may break before
    or after any of them."""
    out: list[str] = []
    word: list[str] = []
    space: list[str] = []
    for ch in text:
        if ch.isspace():
            if word:
                out.append("".join(word))
                word = []
            space.append(" ")
            continue
        if space:
            out.append("".join(space))
            space = []
        if _wide(ch):
            if word:
                out.append("".join(word))
                word = []
            if ch in CLOSING and out and not out[-1].isspace():
                out[-1] += ch  # no line starts with a comma or a closing bracket
            else:
                out.append(ch)
        else:
            word.append(ch)
    if word:
        out.append("".join(word))
    return out


def _fold(token: str, width: int) -> str:
    """The first piece of a word longer than the line: up to its last separator (/ : - _ .)
    that leaves at least half a line, else as much as fits."""
    used = 0
    end = 0
    cut = 0
    for i, ch in enumerate(token):
        used += 2 if _wide(ch) else 1
        if used > width and i:
            break
        end = i + 1
        if ch in SEPARATORS:
            cut = i + 1
    return token[: cut if cut * 2 >= end else end]


def wrap(text: str, width: int, later: int | None = None) -> list[str]:
    """`text` (one line) in lines of at most `width` columns (`later` for all lines but the
    first), broken between words or between Chinese characters; a word longer than a line
    is folded. Every character but the spaces at a break is kept, in order."""
    lines: list[str] = []
    line: list[str] = []
    used = 0

    def room() -> int:
        return max(1, width if not lines or later is None else later)

    def push() -> None:
        nonlocal line, used
        lines.append("".join(line).rstrip())
        line, used = [], 0

    for token in _tokens(text):
        w = display_width(token)
        if token.isspace():
            if line and used + w <= room():
                line.append(token)
                used += w
            elif line:
                push()
            continue
        if used + w <= room():
            line.append(token)
            used += w
            continue
        if line:
            push()
        while w > room():  # a word longer than a whole line
            head = _fold(token, room())
            line = [head]
            push()
            token = token[len(head) :]
            w = display_width(token)
        line, used = [token], w
    if line or not lines:
        push()
    return lines


def hanging(text: str, width: int | None, indent: int) -> list[str]:
    """`text` in lines that fit `width` once `indent` columns are put before each (the
    caller puts them); every line of `text` keeps its own leading spaces. `width=None`: the
    lines as they are."""
    out: list[str] = []
    for raw in text.splitlines() or [""]:
        body = raw.rstrip()
        if width is None:
            out.append(body)
            continue
        stripped = body.lstrip(" ")
        own = len(body) - len(stripped)
        marker = LIST_MARKER.match(stripped)
        under = own + (len(marker.group(0)) if marker else 0)  # wrapped lines of a list item align
        pieces = wrap(stripped, max(8, width - indent - own), max(8, width - indent - under))
        out.extend((" " * own if n == 0 else " " * under) + piece for n, piece in enumerate(pieces))
    return out


# --- tables ---------------------------------------------------------------------------------

GAP = "  "


@dataclass(frozen=True, slots=True)
class Column:
    """How a column gives way on a narrow screen. Numbers and keys stay whole; text wraps
    first, then moves beneath its row (`beneath`), then columns with a `drop` rank go
    (highest first), and keys (`key_min`) wrap last of all."""

    name: str
    numeric: bool = False  # right-aligned, never wrapped
    text: bool = False  # wraps, down to `min_width`
    min_width: int = 24
    beneath: bool = False  # may be printed under its row, across the screen
    drop: int = 0  # 0: never dropped
    key_min: int = 0  # a key (a path, a session key) that may wrap down to this, last resort
    style: Callable[[str], str | None] | None = None


def as_column(column: str | Column) -> Column:
    return column if isinstance(column, Column) else Column(column)


@dataclass(frozen=True, slots=True)
class TableLayout:
    shown: tuple[int, ...]  # indices of the columns in the row
    widths: tuple[int, ...]  # their widths
    below: int | None  # index of the column printed beneath each row
    dropped: tuple[str, ...]  # names of columns left out


def _min(c: Column, natural: int, keys: bool) -> int:
    if c.text:
        return min(natural, c.min_width)
    if keys and c.key_min:
        return min(natural, c.key_min)
    return natural


def plan_table(columns: Sequence[Column], natural: Sequence[int], width: int) -> TableLayout:
    """Which columns to show at `width`, how wide, and whether one goes beneath the rows."""
    everything = tuple(range(len(columns)))
    below_candidates = [i for i, c in enumerate(columns) if c.beneath]
    below = below_candidates[-1] if below_candidates else None
    by_rank = sorted((i for i, c in enumerate(columns) if c.drop), key=lambda i: -columns[i].drop)
    attempts: list[tuple[tuple[int, ...], int | None, bool]] = [(everything, None, False)]
    if below is not None:
        attempts.append((tuple(i for i in everything if i != below), below, False))
    dropped: set[int] = set()
    for i in by_rank:
        dropped.add(i)
        kept = tuple(j for j in everything if j not in dropped and j != below)
        attempts.append((kept, below, False))
    last_shown, last_below, _ = attempts[-1]
    attempts.append((last_shown, last_below, True))
    for shown, under, keys in attempts:
        mins = [_min(columns[i], natural[i], keys) for i in shown]
        need = sum(mins) + len(GAP) * (len(shown) - 1)
        if need > width:
            continue
        widths = list(mins)
        spare = width - need
        for texts in (True, False):  # text columns get the room first, then wrapped keys
            for k, i in enumerate(shown):
                if columns[i].text is texts:
                    more = min(spare, natural[i] - widths[k])
                    widths[k] += more
                    spare -= more
        gone = tuple(columns[i].name for i in everything if i not in shown and i != under)
        return TableLayout(shown, tuple(widths), under, gone)
    shown, under, _ = attempts[-1]  # too narrow for anything: whole cells, the screen wraps
    gone = tuple(columns[i].name for i in everything if i not in shown and i != under)
    return TableLayout(shown, tuple(natural[i] for i in shown), under, gone)


def render_table(
    columns: Sequence[str | Column], rows: Sequence[Sequence[str]], width: int | None, color: bool
) -> tuple[list[str], tuple[str, ...]]:
    """The table's lines, and the names of the columns left out at this width."""
    cols = [as_column(c) for c in columns]
    natural = [display_width(c.name) for c in cols]
    for row in rows:
        for i, cell in enumerate(row):
            natural[i] = max(natural[i], display_width(cell))
    if width is None:
        layout = TableLayout(tuple(range(len(cols))), tuple(natural), None, ())
    else:
        layout = plan_table(cols, natural, width)
    lines = [row_lines([c.name for c in cols], cols, layout, width, color, header=True)[0]]
    for row in rows:
        lines.extend(row_lines(row, cols, layout, width, color))
    return lines, layout.dropped


def row_lines(
    row: Sequence[str],
    cols: Sequence[Column],
    layout: TableLayout,
    width: int | None,
    color: bool,
    header: bool = False,
) -> list[str]:
    cells: list[list[str]] = []
    for i, w in zip(layout.shown, layout.widths, strict=True):
        text = row[i]
        cells.append([text] if width is None or display_width(text) <= w else wrap(text, w))
    height = max((len(c) for c in cells), default=1)
    out: list[str] = []
    last = len(layout.shown) - 1
    for line_no in range(height):
        parts: list[str] = []
        for k, (i, w) in enumerate(zip(layout.shown, layout.widths, strict=True)):
            c = cols[i]
            piece = cells[k][line_no] if line_no < len(cells[k]) else ""
            pad = " " * max(0, w - display_width(piece))
            style = BOLD if header else (c.style(row[i]) if c.style is not None else None)
            shown = paint(piece, style, color)
            if c.numeric and not header:
                parts.append(pad + shown)
            elif k == last:
                parts.append(shown)
            else:
                parts.append(shown + pad)
        out.append(GAP.join(parts).rstrip())
    if layout.below is not None and not header and row[layout.below].strip():
        c = cols[layout.below]
        style = c.style(row[layout.below]) if c.style is not None else None
        for piece in hanging(row[layout.below], width, 4):
            out.append("    " + paint(piece, style, color))
    return out
