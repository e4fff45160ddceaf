"""Text copied out of a note, kept as the user wrote it (SPEC §7 "Copies are verbatim").

Every copy memcli writes — a MEMORY.md promotion, a superseded or demoted entry, a digest
line, a flush item, a compaction summary — goes through this module, and only these may
change: the list marker (and checkbox) of an entry and of its nested items, indentation,
one time stamp at the very start (`**09:10** —`, `[20:35 ET]`, `2026-03-04 10:00`), and
the line breaks between an entry's lines (a digest joins them with "; "). A shortened
text ends in "…" at a word boundary; Chinese has no spaces, so there any CJK character
or punctuation is a boundary. Nothing inside a line is ever touched: no space after a
dot, no marker in the middle of a line, no half of a time stamp.

`is_faithful(copy, source)` says whether a copy obeys these rules (the tests use it).
"""

from __future__ import annotations

import re

from memcli.core.entries import BOM, parse

ELLIPSIS = "…"
JOIN = "; "

_MARKER = re.compile(r"[ \t]*(?:[-+*]|\d{1,9}[.)])(?=[ \t]|$)")
_CHECKBOX = re.compile(r"\[[ xX]\](?=[ \t]|$)")
_ITEM_KINDS = frozenset({"bullet", "task"})

# --- time stamps ------------------------------------------------------------------------

_ZONES = (
    "UTC|GMT|ET|EST|EDT|CT|CST|CDT|MT|MST|MDT|PT|PST|PDT|CET|CEST|EET|EEST|WET|WEST|BST|IST|"
    "JST|KST|HKT|SGT|AEST|AEDT|ACST|AWST|NZST|NZDT|WIB|WITA|WIT|MSK"
)
_CLOCK = r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,6})?)?(?:[ ]?[AaPp]\.?[Mm]\.?)?"
_RANGE = rf"{_CLOCK}(?:[ ]?[-–~][ ]?{_CLOCK})?"
_ZONE = rf"(?:Z|[+-]\d{{2}}:?\d{{2}}|[ ]?(?:{_ZONES})(?:[+-]\d{{1,2}}(?::?\d{{2}})?)?)"
_STAMP_CORE = re.compile(
    rf"(?P<date>\d{{4}}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01]))?"
    rf"(?(date)(?:[T ]{_RANGE})?|{_RANGE})"
    rf"{_ZONE}?(?![\w.]|:\d)"
)
_PAIRS = (
    ("**", "**"),
    ("__", "__"),
    ("*", "*"),
    ("_", "_"),
    ("`", "`"),
    ("[", "]"),
    ("(", ")"),
    ("【", "】"),
)
# what may follow a stamp before the words: a dash, bar or colon, or plain space
_SEPARATOR = re.compile(r"[ \t]*(?:[—–|｜][ \t]*|-{1,2}[ \t]+|：[ \t]*|:[ \t]+)|[ \t]+")
_CAPS_WORD = re.compile(r"[ \t]+[A-Z]{2,5}(?![\w])")  # "09:10 NPT …": a zone memcli does not know


def strip_stamp(line: str) -> str:
    """The line without the time stamp it opens with, or the line unchanged: only a whole
    stamp goes (`[20:35 ET] Preference` → `Preference`, never `ET] Preference`), and a
    date that begins a sentence stays (`2026-03-04 is the deadline`)."""
    for opening, closing in _PAIRS:
        if line.startswith(opening):
            core = _STAMP_CORE.match(line, len(opening))
            if core is None or not core.group(0) or not line.startswith(closing, core.end()):
                return line
            end = core.end() + len(closing)
            sep = _SEPARATOR.match(line, end)
            rest = line[sep.end() if sep else end :]
            return rest if rest.strip() else line
    core = _STAMP_CORE.match(line)
    if core is None or not core.group(0):
        return line
    sep = _SEPARATOR.match(line, core.end())
    if sep is None:
        return line  # "09:10开会", "2026-03-27-notes.md": no stamp of its own
    dash_or_colon = bool(line[core.end() : sep.end()].strip())
    if core.group("date") and core.end() - core.start() == 10 and not dash_or_colon:
        return line  # a bare date followed by words is what the sentence is about
    if not dash_or_colon and _CAPS_WORD.match(line, core.end()):
        return line  # an unknown zone (or a word): stripping would leave half the stamp
    rest = line[sep.end() :]
    return rest if rest.strip() else line


# --- an entry's lines -----------------------------------------------------------------


def _dedent(line: str, width: int) -> str:
    """`line` with up to `width` columns of indentation removed (a tab to the next stop of 4)."""
    body = line.lstrip(" \t")
    columns = len(line[: len(line) - len(body)].expandtabs(4))
    return " " * max(0, columns - width) + body


def _item(raw: list[str], own: bool) -> list[str]:
    """The lines of one list item: its first line without marker and checkbox, then its
    content read as Markdown (nested bullets lose their markers; text that only looks like
    a marker, as "8000. Session" continuing a sentence, stays). The number of an ordered
    item is kept unless the item is the entry itself (`own`): "2." says which step."""
    first = raw[0]
    marker = _MARKER.match(first)
    if marker is None:
        return [line.strip() for line in raw]
    after = first[marker.end() :]
    spaces = len(after) - len(after.lstrip(" "))
    width = len(first[: marker.end()].expandtabs(4)) + (spaces if 1 <= spaces <= 4 else 1)
    content = after.lstrip(" \t")
    box = _CHECKBOX.match(content)
    if box is not None:
        content = content[box.end() :].lstrip(" \t")
    shown = content.strip() if own or not first.lstrip()[0].isdigit() else first.strip()
    if len(raw) == 1:
        return [shown]
    # the first line only opens the item: a stand-in that is plain text (so that what
    # follows continues it, or not, as it does in the note) and never a marker
    stand_in = "x" if not content.strip() or _MARKER.match(content) else content
    inner = [stand_in] + [_dedent(line, width) for line in raw[1:]]
    return [shown, *_blocks(inner, skip_first=True)]


def _blocks(raw: list[str], skip_first: bool = False, top: bool = False) -> list[str]:
    """The lines of some Markdown; with `top`, its first block is the entry itself."""
    doc = parse("\n".join(raw))
    contents = [line.rstrip("\r\n") for line in doc.lines]
    out: list[str] = []
    for block in doc.blocks:
        lines = contents[block.start : block.end]
        if block.kind in _ITEM_KINDS and not (skip_first and block.start == 0):
            out += _item(lines, own=top and not any(out))
            continue
        if skip_first and block.start == 0:
            lines = lines[1:]
        out += [line.strip() for line in lines]
    return out


def lines(text: str, stamp: bool = True) -> list[str]:
    """An entry's lines as memcli copies them: no indentation, no list markers or checkbox
    (the entry's and its nested items'), no blank lines, and with `stamp` no time stamp at
    the start. Every other character is the user's, in order."""
    raw = text.removeprefix(BOM).replace("\r\n", "\n").split("\n")
    found = [line for line in _blocks(raw, top=True) if line]
    if stamp and found:
        found[0] = strip_stamp(found[0]).strip()
    return found


# --- shortening ----------------------------------------------------------------------


def is_cjk(ch: str) -> bool:
    """A character of Chinese, Japanese or Korean text, or their punctuation and full-width forms."""
    code = ord(ch)
    return (
        0x2E80 <= code <= 0x9FFF  # radicals, CJK punctuation, kana, ideographs
        or 0xAC00 <= code <= 0xD7AF  # hangul
        or 0xF900 <= code <= 0xFAFF
        or 0xFE30 <= code <= 0xFE4F
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
        or 0x20000 <= code <= 0x3FFFF
    )


_SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？；]")


def _boundaries(text: str, start: int, stop: int) -> list[int]:
    """Where a text may be cut between `start` and `stop` (or the first place after it):
    before white space, and beside any CJK character."""
    cuts: list[int] = []
    for i in range(max(1, start), len(text)):
        if i > stop and cuts:
            break
        before, after = text[i - 1], text[i]
        if (after.isspace() and not before.isspace()) or is_cjk(before) or is_cjk(after):
            cuts.append(i)
    return cuts


def _balanced(prefix: str) -> bool:
    """No code span or bold left open."""
    return prefix.count("`") % 2 == 0 and prefix.count("**") % 2 == 0


def shorten(text: str, limit: int) -> str:
    """`text`, or its beginning up to a word boundary followed by "…" (about `limit`
    characters; a word longer than that is kept whole). The last sentence end in the second
    half of the limit is preferred, then a boundary that leaves no code span or bold open."""
    if len(text) <= limit:
        return text
    room = max(1, limit - 2)
    words_from = len(text) - len(text.lstrip()) + 1  # never an empty beginning
    cuts = _boundaries(text, words_from, room)
    if not cuts:
        return text
    within = [i for i in cuts if i <= room] or [cuts[0]]
    sentences = {m.end() for m in _SENTENCE_END.finditer(text, 0, room + 1)}
    tidy = [i for i in within if _balanced(text[:i])]
    ends = [i for i in tidy if i in sentences and i >= room // 2]
    cut = (ends or tidy or within)[-1]
    if cut >= len(text.rstrip()):
        return text
    head = text[:cut].rstrip()
    return head + (ELLIPSIS if is_cjk(head[-1]) else " " + ELLIPSIS)


# --- the copies ----------------------------------------------------------------------


def one_line(text: str, limit: int | None = None, stamp: bool = True, more: bool = False) -> str:
    """An entry (or a message) on one line: its lines joined with "; ", shortened to
    `limit`; with `more` (`text` is the beginning of a longer one) it ends in "…"."""
    if limit is not None and len(text) > 4 * limit:  # a pasted log: read its first lines only
        cut = text.find("\n", 2 * limit)
        if cut > 0:
            text, more = text[:cut], True
    joined = JOIN.join(lines(text, stamp))
    short = shorten(joined, limit) if limit is not None else joined
    if more and short and not short.endswith(ELLIPSIS):
        short += ELLIPSIS if is_cjk(short[-1]) else " " + ELLIPSIS
    return short


def prose(text: str) -> tuple[str, bool]:
    """The text up to its first table (a message's words; its table's rows are data), and
    whether a table (and maybe more) follows."""
    if "|" not in text:
        return text, False
    doc = parse(text)
    table = next((b for b in doc.blocks if b.kind == "table"), None)
    if table is None:
        return text, False
    return "".join(doc.lines[: table.start]).rstrip("\r\n"), True


def bullet(text: str) -> str:
    """An entry as a top-level bullet of another file (MEMORY.md, the archive): its first
    line without marker, checkbox and time stamp, its other lines under it, each keeping
    its indentation relative to the others. Ends in LF."""
    raw = [line.rstrip() for line in text.removeprefix(BOM).replace("\r\n", "\n").split("\n")]
    while len(raw) > 1 and not raw[-1].strip():
        raw.pop()
    first = lines(raw[0])
    head = first[0] if first else raw[0].strip()
    rest = raw[1:]
    indent = min((len(line) - len(line.lstrip()) for line in rest if line.strip()), default=0)
    for shift in ("  ", "      "):  # deeper when a line would turn into a list or code of its own
        copy = "\n".join([f"- {head}"] + [shift + line[indent:] if line.strip() else "" for line in rest])
        if is_faithful(copy, text):
            return copy + "\n"
    return f"- {one_line(text)}\n"  # one line is always faithful


def _readings(source: str, stamp: bool) -> list[list[str]]:
    """The ways a copy may give `source`'s lines: its first line with or without the
    entry's marker and checkbox, and (with `stamp`) with or without its time stamp."""
    found = lines(source, stamp=False)
    if not found:
        return [found]
    head = next(line.strip() for line in source.removeprefix(BOM).split("\n") if line.strip())
    firsts = {found[0], head}
    marker = _MARKER.match(head)
    if marker is not None:
        firsts.add(head[marker.end() :].strip())  # "[ ] call Lin": the checkbox kept
    if stamp:
        firsts |= {strip_stamp(first).strip() for first in firsts}
    return [[first, *found[1:]] for first in sorted(firsts)]


def is_faithful(copy: str, source: str, stamp: bool = True) -> bool:
    """Whether `copy` carries `source` as the rules allow: the same lines (markers,
    indentation and blank lines aside; the leading time stamp kept or not), either on lines
    of their own or joined with "; ", or a beginning of them cut at a word boundary and
    ended with "…"."""
    options = _readings(source, stamp)
    if "\n" in copy.strip():
        readings = ["\n".join(lines(copy, stamp=False))]
        wanted = ["\n".join(o) for o in options]
    else:  # an item's text, or a bullet of its own ("- text"): either reading may be it
        readings = [copy.strip(), JOIN.join(lines(copy, stamp=False))]
        wanted = [JOIN.join(o) for o in options]
    return any(_carries(got, whole) for got in readings for whole in wanted)


def _carries(got: str, whole: str) -> bool:
    """`got` is `whole`, or its beginning up to a boundary followed by "…"."""
    if got == whole:
        return True
    if not got.endswith(ELLIPSIS):
        return False
    head = got[: -len(ELLIPSIS)].rstrip()
    return bool(head) and whole.startswith(head) and _at_boundary(whole, len(head))


def _at_boundary(text: str, at: int) -> bool:
    """Whether `text` may be cut before `at`: before white space or "; ", or beside CJK."""
    return at < len(text) and (
        text[at].isspace() or text.startswith(JOIN, at) or is_cjk(text[at]) or is_cjk(text[at - 1])
    )
