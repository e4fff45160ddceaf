"""Round-trip guarantees of the lossless Markdown model (SPEC §2).

Two layers: every file of the shared real-world corpus must render back byte for
byte, and Hypothesis-built documents mixing the Markdown features memory files
use (CRLF, BOM, front matter, fences, tables, nested lists, comments, CJK,
emoji, ...) must satisfy the same invariants plus a few more.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import CORPUS
from memcli.core.entries import BOM, Document, parse


def _corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*") if p.is_file())


_FILES = _corpus_files()


def _content(line: str) -> str:
    """A raw line without its ending (CRLF or LF), written independently of the parser."""
    if line.endswith("\r\n"):
        return line[:-2]
    if line.endswith("\n"):
        return line[:-1]
    return line


def assert_invariants(doc: Document, text: str) -> None:
    """The structural promises every parse must keep, whatever the input."""
    assert doc.render() == text
    assert "".join(doc.lines) == text
    n = len(doc.lines)
    # Only the last line may lack a line ending, and lines split on LF only.
    for line in doc.lines[:-1]:
        assert line.endswith("\n")
        assert "\n" not in line[:-1]
    # Blocks cover every line exactly once, in order, none empty.
    if n == 0:
        assert doc.blocks == ()
    else:
        assert doc.blocks[0].start == 0
        assert doc.blocks[-1].end == n
        for before, after in zip(doc.blocks, doc.blocks[1:], strict=False):
            assert before.end == after.start
        for block in doc.blocks:
            assert block.start < block.end
    # Entries are exactly the entry blocks, in order, with 1-based inclusive lines inside the file.
    entry_blocks = [b for b in doc.blocks if b.is_entry]
    assert len(doc.entries) == len(entry_blocks)
    for entry, block in zip(doc.entries, entry_blocks, strict=True):
        assert 1 <= entry.first_line <= entry.last_line <= n
        assert (entry.first_line, entry.last_line) == (block.start + 1, block.end)
        assert entry.kind == block.kind


# --- the real-world corpus ----------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    _FILES or [pytest.param(None, id="corpus-missing")],
    ids=lambda p: p.relative_to(CORPUS).as_posix() if isinstance(p, Path) else str(p),
)
def test_corpus_file_round_trips(path: Path | None) -> None:
    if path is None:
        pytest.skip(f"corpus folder {CORPUS} is absent")
    text = path.read_bytes().decode("utf-8")
    doc = parse(text, str(path), date(2026, 1, 1))
    assert_invariants(doc, text)
    assert doc.render().encode("utf-8") == path.read_bytes()


# --- Hypothesis: documents built from the features memory files use ----------------------

WORDS = st.sampled_from(
    [
        "Prefer pnpm over npm",
        "deploy finished",
        "用户喜欢简洁的回答",
        "记住：周五发布",
        "数据库迁移完成 ✅",
        "🚀 shipped v2",
        "emoji 🧠💾 and 中文 mixed",
        "see [link](https://example.com)",
        "**07:01** — woke up",
        "2026-03-04 10:00 did x",
        "`inline code` here",
        "a * b + c - d",
        "50% done; #P1",
        "ends with hash #",
        "1:1 meeting",
        "",
    ]
)


@st.composite
def inline_text(draw: st.DrawFn) -> str:
    parts = draw(st.lists(WORDS, min_size=1, max_size=3))
    text = " ".join(p for p in parts if p) or "note"
    if draw(st.booleans()):
        text += draw(st.sampled_from(["  ", "\t", " ", "   "]))  # trailing spaces (hard break)
    return text


@st.composite
def paragraph(draw: st.DrawFn) -> list[str]:
    return draw(st.lists(inline_text(), min_size=1, max_size=3))


@st.composite
def atx_heading(draw: st.DrawFn) -> list[str]:
    level = draw(st.integers(1, 6))
    title = draw(
        st.sampled_from(["Preferences", "日志", "Upgrade (2026-04-03 23:25)", "🧠 Memory", "2026-13-01"])
    )
    closing = draw(st.sampled_from(["", " #", " ###"]))
    return [f"{'#' * level} {title}{closing}"]


@st.composite
def setext_heading(draw: st.DrawFn) -> list[str]:
    title = draw(inline_text())
    underline = draw(st.sampled_from(["===", "---", "=", "------", "===  "]))
    return [title.strip() or "Title", underline]


@st.composite
def fenced_code(draw: st.DrawFn) -> list[str]:
    char = draw(st.sampled_from(["`", "~"]))
    length = draw(st.integers(3, 5))
    info = draw(st.sampled_from(["", "python", "bash", " yaml", "md title"]))
    body = draw(
        st.lists(
            st.sampled_from(
                [
                    "- item",
                    "* star",
                    "1. one",
                    "# comment",
                    "## not a heading",
                    "",
                    "    indented",
                    "| a | b |",
                    "<!-- pin -->",
                    "---",
                    "```" if char == "~" else "~~~",
                    "print('你好')",
                    "> quote",
                ]
            ),
            max_size=5,
        )
    )
    lines = [char * length + info, *body]
    if draw(st.booleans()):  # closed; otherwise the fence runs to the end of the document
        lines.append(char * draw(st.integers(length, length + 2)))
    return lines


@st.composite
def table(draw: st.DrawFn) -> list[str]:
    cells = st.sampled_from(["名字", "值", "🚀", "a", "b c", "中文表格", "✅ done", " ", "x|y"])
    cols = draw(st.integers(1, 3))
    edge = draw(st.booleans())

    def row(values: list[str]) -> str:
        inner = " | ".join(values)
        # Without edge pipes a row needs an inner pipe to be a table row at all.
        return f"| {inner} |" if edge or cols == 1 else inner

    header = row(draw(st.lists(cells, min_size=cols, max_size=cols)))
    delim = row([draw(st.sampled_from(["---", ":---", "---:", ":-:"])) for _ in range(cols)])
    rows = [row(draw(st.lists(cells, min_size=cols, max_size=cols))) for _ in range(draw(st.integers(0, 3)))]
    return [header, delim, *rows]


@st.composite
def list_block(draw: st.DrawFn) -> list[str]:
    ordered = draw(st.booleans())
    nest = draw(st.sampled_from(["  ", "    ", "\t"]))
    lines: list[str] = []
    for k in range(draw(st.integers(1, 4))):
        marker = f"{k + 1}{draw(st.sampled_from(['.', ')']))}" if ordered else draw(st.sampled_from("-*+"))
        box = draw(st.sampled_from(["", "", "[ ] ", "[x] ", "[X] "]))
        lines.append(f"{marker} {box}{draw(inline_text())}")
        for depth in range(1, draw(st.integers(1, 3))):
            child = draw(st.sampled_from(["-", "*", "+", "1."]))
            lines.append(f"{nest * depth}{child} {draw(inline_text())}")
        extra = draw(st.sampled_from(["", "", "lazy", "indented", "marker", "fence", "blank-para", "tag"]))
        if extra == "lazy":
            lines.append(draw(inline_text()))
        elif extra == "indented":
            lines.append(nest + draw(inline_text()))
        elif extra == "marker":
            lines.append(draw(st.sampled_from(["<!-- importance: 7 -->", "  <!-- pin -->", "<!-- pin -->"])))
        elif extra == "fence":
            lines.extend([nest + "```", nest + "- in code", nest + "# in code", nest + "```"])
        elif extra == "blank-para":
            lines.extend(["", nest + draw(inline_text())])
        elif extra == "tag":
            lines.append("#P1 #atlas")
    return lines


@st.composite
def html_block(draw: st.DrawFn) -> list[str]:
    return draw(
        st.sampled_from(
            [
                ["<!-- importance: 7 -->"],
                ["<!-- pin -->"],
                ["<!--", "  a multi-line comment", "  - not a list", "-->"],
                ["<!-- unclosed comment", "still inside"],
                ["<div>", "  html 块", "</div>"],
                ["<details>", "<summary>更多</summary>", "", "body", "</details>"],
            ]
        )
    )


@st.composite
def quote(draw: st.DrawFn) -> list[str]:
    lines = [f"> {draw(inline_text())}" for _ in range(draw(st.integers(1, 3)))]
    if draw(st.booleans()):
        lines.append(draw(st.sampled_from([">", "> - quoted item", "lazy quote line", ">> nested"])))
    return lines


BLOCKS = st.one_of(
    paragraph(),
    atx_heading(),
    setext_heading(),
    fenced_code(),
    table(),
    list_block(),
    html_block(),
    quote(),
    st.just(["#P1 #atlas"]),
    st.sampled_from([["---"], ["***"], ["- - -"], ["    indented code"], ["\t# tab-indented code"]]),
)


@st.composite
def markdown_lines(draw: st.DrawFn) -> list[str]:
    """Line contents (no endings, no BOM) of a Markdown document."""
    lines: list[str] = []
    lead = draw(st.sampled_from(["none", "front_matter", "rule", "rule-then-key"]))
    if lead == "front_matter":
        lines += [
            "---",
            "title: 记忆",
            "tags: [a, b]",
            "date: 2026-03-04",
            draw(st.sampled_from(["---", "..."])),
        ]
    elif lead == "rule":
        lines += ["---", ""]
    elif lead == "rule-then-key":
        lines += ["---", "title: no closing delimiter"]
    for block in draw(st.lists(BLOCKS, max_size=8)):
        lines += block
        lines += [draw(st.sampled_from(["", "", "  ", "\t"]))] * draw(st.integers(0, 2))
    return lines


@st.composite
def markdown_documents(draw: st.DrawFn) -> str:
    """A whole document: line contents joined with LF, CRLF or both, maybe a BOM, any ending."""
    lines = draw(markdown_lines())
    style = draw(st.sampled_from(["lf", "crlf", "mixed"]))
    endings = [
        "\r\n" if style == "crlf" or (style == "mixed" and draw(st.booleans())) else "\n" for _ in lines
    ]
    text = "".join(c + e for c, e in zip(lines, endings, strict=True))
    tail = draw(st.sampled_from(["keep", "strip-final-newline", "blank-lines"]))
    if tail == "strip-final-newline":
        text = text.removesuffix("\n").removesuffix("\r")
    elif tail == "blank-lines":
        text += "\n" * draw(st.integers(1, 4))
    if draw(st.booleans()):
        text = BOM + text
    return text


FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(markdown_documents())
def test_generated_documents_round_trip(text: str) -> None:
    doc = parse(text, "gen.md", date(2026, 1, 1))
    assert_invariants(doc, text)


@FAST
@given(markdown_documents())
def test_entry_text_is_its_lines_joined_with_lf(text: str) -> None:
    doc = parse(text, "gen.md")
    contents = [_content(line) for line in doc.lines]
    if contents and contents[0].startswith(BOM):
        contents[0] = contents[0][len(BOM) :]
    for entry in doc.entries:
        assert entry.text == "\n".join(contents[entry.first_line - 1 : entry.last_line])
        assert not entry.text.startswith(BOM)


@FAST
@given(markdown_documents())
def test_parse_is_deterministic(text: str) -> None:
    first = parse(text, "same.md", date(2026, 2, 3))
    second = parse(text, "same.md", date(2026, 2, 3))
    assert first == second
    assert first.entries == second.entries


@FAST
@given(markdown_lines(), st.booleans(), st.booleans())
def test_crlf_and_lf_give_the_same_entries(lines: list[str], final_newline: bool, bom: bool) -> None:
    lf = "\n".join(lines) + ("\n" if final_newline and lines else "")
    if bom:
        lf = BOM + lf
    crlf = lf.replace("\n", "\r\n")
    a = parse(lf, "x.md", date(2026, 1, 1))
    b = parse(crlf, "x.md", date(2026, 1, 1))
    assert crlf == b.render()
    assert [(bl.kind, bl.start, bl.end, bl.heading) for bl in a.blocks] == [
        (bl.kind, bl.start, bl.end, bl.heading) for bl in b.blocks
    ]
    # Entries (ids, kinds, lines, sections, dates, markers and text) do not see the line ending.
    assert a.entries == b.entries
    if lines:
        assert b.newline == ("\r\n" if len(lines) > 1 or final_newline else "\n")
        assert a.newline == "\n"


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_arbitrary_text_round_trips(text: str) -> None:
    doc = parse(text)
    assert_invariants(doc, text)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.sampled_from(list("-*+#>|`~<!:= \t\r\x0b\x0c\u2028\u2029\u0085\ufeff1.a中🚀")),
            max_size=12,
        ),
        max_size=12,
    )
)
def test_markdown_punctuation_soup_round_trips(lines: list[str]) -> None:
    # Arbitrary Unicode rarely forms Markdown syntax; this soup of syntax characters
    # and exotic line-like separators (which must not split lines) does.
    text = "\n".join(lines)
    doc = parse(text)
    assert_invariants(doc, text)
    assert len(doc.lines) == text.count("\n") + (0 if text.endswith("\n") or not text else 1)
