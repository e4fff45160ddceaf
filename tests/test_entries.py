"""Hand-written cases for the entry model (SPEC §2): what an entry is, where it
starts and ends, and the fields memcli reads from it.

Line numbers in `Entry` are 1-based and inclusive; `Block` ranges are 0-based,
end exclusive.
"""

from __future__ import annotations

from datetime import date

import pytest

from memcli.core.entries import Document, Entry, Heading, parse

FILE_DATE = date(2026, 1, 2)


def doc_of(text: str, path: str = "memory/2026-01-02.md") -> Document:
    return parse(text, path, FILE_DATE)


def entries_of(text: str, path: str = "memory/2026-01-02.md") -> list[Entry]:
    return list(doc_of(text, path).entries)


def spans(text: str) -> list[tuple[str, int, int]]:
    """(kind, first_line, last_line) of every entry."""
    return [(e.kind, e.first_line, e.last_line) for e in entries_of(text)]


def blocks(text: str) -> list[tuple[str, int, int]]:
    return [(b.kind, b.start, b.end) for b in doc_of(text).blocks]


def only(text: str) -> Entry:
    found = entries_of(text)
    assert len(found) == 1, found
    return found[0]


# --- list items ------------------------------------------------------------------------


def test_nested_items_with_two_space_indent_are_one_entry() -> None:
    text = "- parent\n  - child\n    - grandchild\n- sibling\n"
    assert spans(text) == [("bullet", 1, 3), ("bullet", 4, 4)]
    assert entries_of(text)[0].text == "- parent\n  - child\n    - grandchild"


def test_nested_items_with_four_space_indent_are_one_entry() -> None:
    text = "- parent\n    - child\n        - grandchild\n- sibling\n"
    assert spans(text) == [("bullet", 1, 3), ("bullet", 4, 4)]


def test_tab_indented_child_belongs_to_its_parent() -> None:
    assert spans("- parent\n\t- child\n- sibling\n") == [("bullet", 1, 2), ("bullet", 3, 3)]


def test_mixed_bullet_characters_are_separate_entries() -> None:
    assert spans("* star\n+ plus\n- dash\n") == [("bullet", 1, 1), ("bullet", 2, 2), ("bullet", 3, 3)]


def test_lazy_continuation_line_joins_the_item() -> None:
    text = "- first line\nlazy continuation\n- next\n"
    assert spans(text) == [("bullet", 1, 2), ("bullet", 3, 3)]
    assert entries_of(text)[0].body == "first line\nlazy continuation"


def test_lazy_continuation_of_a_nested_item_joins_the_top_level_entry() -> None:
    assert spans("- a\n  - b\nlazy\n- c\n") == [("bullet", 1, 3), ("bullet", 4, 4)]


def test_ordered_items_are_separate_entries() -> None:
    # Regression: `2.` after `1.` must start a new item, not lazily continue the first.
    assert spans("1. one\n2. two\n3. three\n") == [("bullet", 1, 1), ("bullet", 2, 2), ("bullet", 3, 3)]
    assert spans("1) one\n2) two\n") == [("bullet", 1, 1), ("bullet", 2, 2)]


def test_ordered_item_continuation_is_indented_to_its_content() -> None:
    text = "1. one\n   more of one\n2. two\n10. ten\n    more of ten\n"
    assert spans(text) == [("bullet", 1, 2), ("bullet", 3, 3), ("bullet", 4, 5)]


def test_child_indented_less_than_the_content_column_is_a_new_item() -> None:
    # `1. ` puts the content at column 3; a `-` at column 2 starts a new list (CommonMark).
    assert spans("1. one\n  - not a child\n") == [("bullet", 1, 1), ("bullet", 2, 2)]


def test_item_continues_over_a_blank_line_when_indented() -> None:
    text = "- a\n\n  second paragraph of a\n- b\n"
    assert spans(text) == [("bullet", 1, 3), ("bullet", 4, 4)]
    assert blocks(text) == [("bullet", 0, 3), ("bullet", 3, 4)]


def test_unindented_text_after_a_blank_line_ends_the_item() -> None:
    text = "- a\n\nnot in the item\n"
    assert spans(text) == [("bullet", 1, 1), ("paragraph", 3, 3)]
    # Trailing blank lines never belong to an entry.
    assert blocks(text) == [("bullet", 0, 1), ("blank", 1, 2), ("paragraph", 2, 3)]


def test_item_opening_with_a_heading_is_not_lazily_continued() -> None:
    # A lazy line only continues a paragraph; `- # h` holds a heading (CommonMark).
    assert spans("- # heading in item\ntext\n") == [("bullet", 1, 1), ("paragraph", 2, 2)]


def test_indented_code_inside_an_item_is_not_lazily_continued() -> None:
    assert spans("- a\n\n      code in a\ntext\n") == [("bullet", 1, 3), ("paragraph", 4, 4)]


def test_empty_item_then_indented_content() -> None:
    text = "-\n  content of the empty-marker item\n"
    assert spans(text) == [("bullet", 1, 2)]
    assert only(text).body == "content of the empty-marker item"
    # An item may begin with at most one blank line (CommonMark).
    assert spans("-\n\n  foo\n") == [("bullet", 1, 1), ("paragraph", 3, 3)]


def test_thematic_break_after_an_item_is_a_rule() -> None:
    text = "- a\n---\n* * *\n"
    assert spans(text) == [("bullet", 1, 1)]
    assert blocks(text) == [("bullet", 0, 1), ("rule", 1, 2), ("rule", 2, 3)]


# --- paragraphs ----------------------------------------------------------------------------


def test_paragraph_right_before_a_list_is_its_own_entry() -> None:
    assert spans("Intro line\n- item\n- item two\n") == [
        ("paragraph", 1, 1),
        ("bullet", 2, 2),
        ("bullet", 3, 3),
    ]


def test_consecutive_text_lines_form_one_paragraph() -> None:
    text = "用户喜欢简洁的回答\nPrefers short answers 🚀\nthird line\n\nanother paragraph\n"
    assert spans(text) == [("paragraph", 1, 3), ("paragraph", 5, 5)]
    assert entries_of(text)[0].text == "用户喜欢简洁的回答\nPrefers short answers 🚀\nthird line"


def test_only_ordered_item_one_interrupts_a_paragraph() -> None:
    # CommonMark: `2.` cannot interrupt a paragraph, `1.` and bullets can.
    assert spans("text\n2. not an item\n") == [("paragraph", 1, 2)]
    assert spans("text\n1. an item\n") == [("paragraph", 1, 1), ("bullet", 2, 2)]


def test_line_of_full_width_spaces_is_not_blank() -> None:
    # CommonMark: only spaces and tabs make a blank line; U+3000 is paragraph text.
    assert spans("第一行\n\u3000\u3000\n第二行\n") == [("paragraph", 1, 3)]
    assert spans("a\n \t \nb\n") == [("paragraph", 1, 1), ("paragraph", 3, 3)]


def test_indented_code_block_is_one_entry() -> None:
    text = "    code\n    more\n\npara\n"
    assert spans(text) == [("code", 1, 2), ("paragraph", 4, 4)]


# --- fences ----------------------------------------------------------------------------------


def test_top_level_fence_is_one_code_entry_and_hides_its_markup() -> None:
    text = "```bash\n- item\n# comment\n1. one\n```\n- after\n"
    doc = doc_of(text)
    assert spans(text) == [("code", 1, 5), ("bullet", 6, 6)]
    assert [b.kind for b in doc.blocks] == ["code", "bullet"]
    assert not any(b.kind == "heading" for b in doc.blocks)
    assert doc.entries[1].section == ()


def test_tilde_fence_is_closed_only_by_tildes() -> None:
    text = "~~~\n```\n- item\n~~~\npara\n"
    assert spans(text) == [("code", 1, 4), ("paragraph", 5, 5)]


def test_closing_fence_must_be_at_least_as_long() -> None:
    assert spans("````\n```\n# not closed\n````\nafter\n") == [("code", 1, 4), ("paragraph", 5, 5)]


def test_unclosed_fence_runs_to_the_end_of_the_file() -> None:
    text = "intro\n\n```\n- item\n# heading?\n\n\n"
    assert spans(text) == [("paragraph", 1, 1), ("code", 3, 7)]
    assert not any(b.kind == "heading" for b in doc_of(text).blocks)


def test_fence_inside_a_list_item_stays_in_the_item() -> None:
    text = "- item\n  ```\n  - not an item\n  # not a heading\n\n  more code\n  ```\n- next\n"
    assert spans(text) == [("bullet", 1, 7), ("bullet", 8, 8)]
    assert not any(b.kind == "heading" for b in doc_of(text).blocks)


def test_unindented_fence_after_an_item_ends_the_item() -> None:
    assert spans("- item\n```\ncode\n```\n") == [("bullet", 1, 1), ("code", 2, 4)]


# --- headings -------------------------------------------------------------------------------


def test_tag_line_is_a_paragraph_not_a_heading() -> None:
    text = "#P1 #atlas\n# Title\n"
    doc = doc_of(text)
    assert [(b.kind, b.heading) for b in doc.blocks] == [
        ("paragraph", None),
        ("heading", Heading(1, "Title")),
    ]
    assert spans(text) == [("paragraph", 1, 1)]


def test_atx_heading_closing_hashes_are_dropped() -> None:
    doc = doc_of("## Tools ##\n- x\n")
    assert doc.blocks[0].heading == Heading(2, "Tools")
    assert doc.entries[0].section_path == "## Tools"


def test_setext_headings() -> None:
    text = "Title\n===\n- a\n\nSub title\n---\n- b\n"
    doc = doc_of(text)
    assert [(b.kind, b.start, b.end, b.heading) for b in doc.blocks if b.kind == "heading"] == [
        ("heading", 0, 2, Heading(1, "Title")),
        ("heading", 4, 6, Heading(2, "Sub title")),
    ]
    assert [(e.first_line, e.section_path) for e in doc.entries] == [
        (3, "# Title"),
        (7, "# Title > ## Sub title"),
    ]


def test_multi_line_setext_heading_joins_its_lines() -> None:
    doc = doc_of("Long\ntitle\n===\n")
    assert len(doc.blocks) == 1
    assert doc.blocks[0].heading == Heading(1, "Long title")
    assert doc.entries == ()


def test_dashes_under_a_lazy_item_line_are_a_rule_not_a_setext_underline() -> None:
    text = "- x\nlazy\n---\n"
    assert blocks(text) == [("bullet", 0, 2), ("rule", 2, 3)]


def test_heading_interrupts_a_paragraph() -> None:
    assert blocks("text\n# H\n") == [("paragraph", 0, 1), ("heading", 1, 2)]


# --- tables ------------------------------------------------------------------------------


def test_table_is_one_entry() -> None:
    text = "| 名字 | 值 |\n|:---|---:|\n| 🚀 | 中文 |\n| a | b |\n\nafter\n"
    assert spans(text) == [("table", 1, 4), ("paragraph", 6, 6)]


def test_table_right_after_a_paragraph_line_starts_its_own_block() -> None:
    text = "Results:\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert spans(text) == [("paragraph", 1, 1), ("table", 2, 4)]


def test_table_without_edge_pipes() -> None:
    assert spans("a | b\n--|--\n1 | 2\n") == [("table", 1, 3)]


def test_header_and_delimiter_cell_counts_must_match() -> None:
    # GFM: a delimiter row with a different number of cells makes no table.
    assert spans("| a | b |\n|---|\n") == [("paragraph", 1, 2)]
    assert spans("| a \\| b |\n|---|\n") == [("table", 1, 2)]


def test_table_ends_at_a_blank_line_or_another_block() -> None:
    text = "| a |\n| - |\n| 1 |\n# H\n- x\n"
    assert blocks(text) == [("table", 0, 3), ("heading", 3, 4), ("bullet", 4, 5)]


# --- block quotes --------------------------------------------------------------------------------


def test_quote_is_one_entry_and_takes_lazy_lines() -> None:
    assert spans("> quoted\n> still quoted\nlazy line\n\n> another quote\n") == [
        ("quote", 1, 3),
        ("quote", 5, 5),
    ]


def test_quote_ends_where_a_block_starts() -> None:
    assert spans("> quoted\n- item\n") == [("quote", 1, 1), ("bullet", 2, 2)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # An empty quote line closes the paragraph inside the quote.
        ("> a\n>\ntext\n", [("quote", 1, 2), ("paragraph", 3, 3)]),
        ("> # heading\ntext\n", [("quote", 1, 1), ("paragraph", 2, 2)]),
        ("> ```\n> code\ntext\n", [("quote", 1, 2), ("paragraph", 3, 3)]),
    ],
)
def test_quote_takes_no_lazy_line_when_no_paragraph_is_open(
    text: str, expected: list[tuple[str, int, int]]
) -> None:
    assert spans(text) == expected


# --- front matter and rules ------------------------------------------------------------------


def test_front_matter_is_a_block_but_not_an_entry() -> None:
    text = "---\ntitle: x\ntags: [a, b]\n---\n- fact\n"
    doc = doc_of(text)
    assert blocks(text) == [("front_matter", 0, 4), ("bullet", 4, 5)]
    assert spans(text) == [("bullet", 5, 5)]
    assert doc.front_matter == "---\ntitle: x\ntags: [a, b]\n---\n"


def test_front_matter_may_close_with_dots_and_keeps_crlf() -> None:
    doc = doc_of("---\r\ntitle: x\r\n...\r\nbody\r\n")
    assert doc.front_matter == "---\r\ntitle: x\r\n...\r\n"
    assert [(e.kind, e.first_line) for e in doc.entries] == [("paragraph", 4)]


def test_leading_rule_followed_by_a_blank_line_is_a_rule() -> None:
    text = "---\n\ntitle: x\n---\n"
    doc = doc_of(text)
    assert doc.front_matter is None
    # `title: x` + `---` is then a setext heading (CommonMark).
    assert [(b.kind, b.start, b.end) for b in doc.blocks] == [
        ("rule", 0, 1),
        ("blank", 1, 2),
        ("heading", 2, 4),
    ]
    assert doc.entries == ()


def test_unclosed_front_matter_is_not_front_matter() -> None:
    doc = doc_of("---\ntitle: x\nbody\n")
    assert doc.front_matter is None
    assert [(b.kind, b.start, b.end) for b in doc.blocks] == [("rule", 0, 1), ("paragraph", 1, 3)]


def test_front_matter_after_a_bom() -> None:
    doc = doc_of("\ufeff---\ntitle: x\n---\n")
    assert doc.has_bom
    assert doc.front_matter == "\ufeff---\ntitle: x\n---\n"


# --- HTML and markers -----------------------------------------------------------------------


def test_html_comment_block_is_an_html_entry() -> None:
    text = "<!--\nnotes for later\n- not a list\n-->\n- real item\n"
    assert spans(text) == [("html", 1, 4), ("bullet", 5, 5)]


def test_importance_marker_line_under_a_bullet_attaches_to_it() -> None:
    text = "- deploy key lives in vault\n<!-- importance: 8 -->\n- other\n"
    found = entries_of(text)
    assert [(e.kind, e.first_line, e.last_line, e.importance) for e in found] == [
        ("bullet", 1, 2, 8),
        ("bullet", 3, 3, None),
    ]
    assert found[0].body == "deploy key lives in vault"


def test_indented_marker_line_is_part_of_the_item() -> None:
    entry = only("- fact\n  <!-- importance: 8 --> <!-- pin -->\n")
    assert (entry.first_line, entry.last_line, entry.importance, entry.pinned) == (1, 2, 8, True)


def test_marker_line_after_a_paragraph_attaches_to_it() -> None:
    entry = only("para\n<!-- importance: 3 -->\n")
    assert (entry.kind, entry.first_line, entry.last_line, entry.importance) == ("paragraph", 1, 2, 3)


def test_marker_line_after_a_blank_line_stands_alone() -> None:
    assert [(e.kind, e.first_line, e.importance) for e in entries_of("- a\n\n<!-- importance: 8 -->\n")] == [
        ("bullet", 1, None),
        ("html", 3, 8),
    ]


def test_inline_importance_marker() -> None:
    entry = only("- [x] shipped <!-- importance: 9 --> #pin\n")
    assert (entry.kind, entry.importance, entry.pinned, entry.done) == ("task", 9, True, True)
    assert entry.body == "shipped"


def test_item_opening_with_an_html_comment_is_not_lazily_continued() -> None:
    # `- <!-- pin -->` holds an HTML block, which lazy lines never continue (CommonMark).
    assert spans("- <!-- pin -->\ntext\n") == [("bullet", 1, 1), ("paragraph", 2, 2)]


@pytest.mark.parametrize(
    ("text", "pinned"),
    [
        ("- keep this #pin\n", True),
        ("- #pin keep this\n", True),
        ("- keep this <!-- pin -->\n", True),
        ("- keep this <!--pin-->\n", True),
        ("- keep this #PIN\n", True),
        ("- keep this #pinned\n", False),
        ("- keep this #pin-later\n", False),
        ("- see issue/#pin\n", False),
        ("- keep this\n", False),
    ],
)
def test_pin_markers(text: str, pinned: bool) -> None:
    assert only(text).pinned is pinned


def test_pin_marker_line_under_a_bullet_pins_it() -> None:
    entry = only("- fact\n<!-- pin -->\n")
    assert (entry.last_line, entry.pinned, entry.body) == (2, True, "fact")


@pytest.mark.parametrize(
    ("text", "kind", "done"),
    [
        ("- [x] done\n", "task", True),
        ("- [X] done\n", "task", True),
        ("- [ ] todo\n", "task", False),
        ("1. [ ] ordered todo\n", "task", False),
        ("* [x] star done\n", "task", True),
        ("- plain\n", "bullet", None),
        ("- [link] not a box\n", "bullet", None),
        ("- [x]done\n", "bullet", None),
    ],
)
def test_checkboxes(text: str, kind: str, done: bool | None) -> None:
    entry = only(text)
    assert (entry.kind, entry.done) == (kind, done)


def test_checkbox_in_a_child_does_not_make_the_parent_a_task() -> None:
    entry = only("- parent\n  - [x] child\n")
    assert (entry.kind, entry.done) == ("bullet", None)


# --- dates and times -------------------------------------------------------------------------


def test_file_date_is_the_default() -> None:
    entry = only("- a fact\n")
    assert (entry.date, entry.time) == (FILE_DATE, None)
    assert parse("- a fact\n").entries[0].date is None


def test_bold_leading_time() -> None:
    entry = only("- **07:01** — woke up\n")
    assert (entry.date, entry.time) == (FILE_DATE, "07:01")


def test_single_digit_hour_is_padded() -> None:
    assert only("- 7:05 early start\n").time == "07:05"


def test_leading_iso_date_and_time() -> None:
    entry = only("- 2026-03-04 10:00 did x\n")
    assert (entry.date, entry.time) == (date(2026, 3, 4), "10:00")


def test_leading_iso_timestamp_with_t_and_seconds() -> None:
    entry = only("- 2026-03-04T10:00:59Z did x\n")
    assert (entry.date, entry.time) == (date(2026, 3, 4), "10:00")


def test_leading_date_in_a_paragraph() -> None:
    entry = only("2026-03-04 wrote the plan\n")
    assert (entry.kind, entry.date, entry.time) == ("paragraph", date(2026, 3, 4), None)


def test_time_later_in_the_text_is_not_a_stamp() -> None:
    assert only("- meeting moved to 14:30\n").time is None


def test_heading_date_and_time_date_the_entries_under_it() -> None:
    text = "## Upgrade (2026-04-03 23:25)\n- ran migrations\n- **23:40** checked\n\n## Later\n- other\n"
    found = entries_of(text)
    assert [(e.date, e.time) for e in found] == [
        (date(2026, 4, 3), "23:25"),
        (date(2026, 4, 3), "23:40"),
        (FILE_DATE, None),
    ]


def test_outer_heading_date_reaches_nested_sections() -> None:
    entry = only("# Log 2026-04-03\n## Notes\n- x\n")
    assert (entry.date, entry.time, entry.section_path) == (
        date(2026, 4, 3),
        None,
        "# Log 2026-04-03 > ## Notes",
    )


def test_entry_date_beats_heading_date() -> None:
    found = entries_of("## 2026-04-03\n- 2026-05-05 moved\n- stays\n")
    assert [e.date for e in found] == [date(2026, 5, 5), date(2026, 4, 3)]


@pytest.mark.parametrize(
    "text", ["- 2026-13-01 bad month\n", "- 2026-02-30 bad day\n", "## 2026-13-01\n- x\n"]
)
def test_invalid_dates_are_ignored(text: str) -> None:
    entry = only(text)
    assert (entry.date, entry.time) == (FILE_DATE, None)


def test_invalid_date_keeps_its_valid_time() -> None:
    entry = only("- 2026-13-01 10:00 x\n")
    assert (entry.date, entry.time) == (FILE_DATE, "10:00")


def test_invalid_entry_date_falls_back_to_the_heading_date() -> None:
    entry = only("## 2026-04-03\n- 2026-13-01 typo\n")
    assert entry.date == date(2026, 4, 3)


# --- sections ---------------------------------------------------------------------------------


def test_section_path_pushes_and_pops() -> None:
    text = "# A\n- a\n## B\n### C\n- c\n## D\n- d\n# E\n- e\n"
    found = entries_of(text)
    assert [e.section_path for e in found] == ["# A", "# A > ## B > ### C", "# A > ## D", "# E"]
    assert found[2].section == (Heading(1, "A"), Heading(2, "D"))


def test_section_path_format_and_skipped_levels() -> None:
    found = entries_of("# A\n### Deep\n- x\n## B\n- y\n")
    assert [e.section_path for e in found] == ["# A > ### Deep", "# A > ## B"]


def test_entries_before_any_heading_have_an_empty_section() -> None:
    entry = only("- x\n# A\n")
    assert (entry.section, entry.section_path) == ((), "")


def test_heading_inside_a_list_item_is_not_a_section() -> None:
    found = entries_of("- item\n  # inner\n- next\n")
    assert [(e.first_line, e.last_line, e.section) for e in found] == [(1, 2, ()), (3, 3, ())]


# --- ids --------------------------------------------------------------------------------------


def test_same_text_in_two_files_has_the_same_id() -> None:
    a = only("- Prefers pnpm\n")
    b = entries_of("# Tools\n\n- Prefers pnpm\n", "MEMORY.md")[0]
    assert a.file != b.file
    assert a.id == b.id
    assert len(a.id) == 10
    assert all(c in "0123456789abcdef" for c in a.id)


def test_different_text_has_a_different_id() -> None:
    assert only("- Prefers pnpm\n").id != only("- Prefers npm\n").id


def test_toggled_checkbox_keeps_the_id() -> None:
    assert only("- [ ] ship it\n").id == only("- [x] ship it\n").id


def test_id_ignores_line_endings_and_trailing_spaces() -> None:
    lf = entries_of("- a fact\n  more\n")[0]
    crlf = entries_of("- a fact  \r\n  more\t\r\n")[0]
    assert lf.id == crlf.id


def test_id_ignores_marker_kind_markers_case_and_width() -> None:
    base = only("- Prefers pnpm\n").id
    assert only("* Prefers pnpm\n").id == base
    assert only("1. Prefers pnpm\n").id == base
    assert only("- Prefers pnpm <!-- importance: 8 --> #pin\n").id == base
    assert only("- prefers   PNPM\n").id == base
    assert only("- Ｐrefers pnpm\n").id == base  # NFKC folds the full-width letter


def test_id_of_a_paragraph_equals_the_same_words_in_a_bullet() -> None:
    # Ids hash the body, so the same words as a paragraph or as a bullet collide on purpose.
    assert only("Prefers pnpm\n").id == only("- Prefers pnpm\n").id


# --- body -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "body"),
    [
        ("- plain\n", "plain"),
        ("* star\n", "star"),
        ("12. twelfth\n", "twelfth"),
        ("- [ ] todo\n", "todo"),
        ("- [x] done <!-- importance: 7 -->\n", "done"),
        ("- fact #pin\n", "fact"),
        ("- fact\n<!-- pin -->\n", "fact"),
        ("- parent  \n  - child\n", "parent\n- child"),
        ("- **07:01** — woke\n", "**07:01** — woke"),
        ("#P1 #atlas\n", "#P1 #atlas"),
        ("| a |\n| - |\n", "| a |\n| - |"),
    ],
)
def test_body_strips_marker_checkbox_and_memcli_markers(text: str, body: str) -> None:
    assert only(text).body == body


# --- document properties -------------------------------------------------------------------------


def test_document_properties_lf() -> None:
    doc = doc_of("# T\n- a\n")
    assert (doc.newline, doc.has_bom, doc.ends_with_newline, doc.front_matter) == ("\n", False, True, None)
    assert doc.lines == ("# T\n", "- a\n")


def test_document_properties_crlf_bom_no_final_newline() -> None:
    text = "\ufeff# T\r\n\r\n- a\r\n- b"
    doc = doc_of(text)
    assert (doc.newline, doc.has_bom, doc.ends_with_newline) == ("\r\n", True, False)
    assert doc.render() == text
    found = doc.entries
    assert [(e.first_line, e.text, e.section_path) for e in found] == [(3, "- a", "# T"), (4, "- b", "# T")]


def test_newline_is_the_first_line_ending_in_a_mixed_file() -> None:
    assert doc_of("a\nb\r\n").newline == "\n"
    assert doc_of("a\r\nb\n").newline == "\r\n"


def test_newline_defaults_to_lf() -> None:
    assert doc_of("single line").newline == "\n"
    assert doc_of("").newline == "\n"


def test_empty_document() -> None:
    doc = doc_of("")
    assert (doc.lines, doc.blocks, doc.entries) == ((), (), ())
    # An empty file counts as ending with a newline: nothing needs adding before appending.
    assert doc.ends_with_newline is True
    assert doc.has_bom is False
    assert doc.render() == ""


def test_bom_is_not_part_of_the_first_entry() -> None:
    doc = doc_of("\ufeff- first\n")
    assert doc.has_bom
    assert doc.entries[0].text == "- first"
    assert doc.entries[0].id == only("- first\n").id


def test_lines_split_on_lf_only() -> None:
    doc = doc_of("a\rb\u2028c\x0bd\n- e\n")
    assert doc.lines == ("a\rb\u2028c\x0bd\n", "- e\n")
    assert [(e.kind, e.first_line) for e in doc.entries] == [("paragraph", 1), ("bullet", 2)]


def test_trailing_blank_lines_are_a_blank_block() -> None:
    text = "- a\n\n\n\n"
    doc = doc_of(text)
    assert blocks(text) == [("bullet", 0, 1), ("blank", 1, 4)]
    assert doc.render() == text


def test_entry_fields_are_filled() -> None:
    entry = entries_of("## Prefs\n- [ ] 用 pnpm <!-- importance: 6 -->\n", "MEMORY.md")[0]
    assert entry == Entry(
        id=entry.id,
        file="MEMORY.md",
        first_line=2,
        last_line=2,
        section=(Heading(2, "Prefs"),),
        date=FILE_DATE,
        time=None,
        kind="task",
        text="- [ ] 用 pnpm <!-- importance: 6 -->",
        importance=6,
        pinned=False,
        done=False,
    )
    assert entry.body == "用 pnpm"


def test_markers_inside_code_do_not_count_and_importance_must_be_1_to_10() -> None:
    doc = parse(
        "- a `#pin` in code\n- b #pin\n- c <!-- importance: 99 -->\n- d <!-- importance: 7 -->\n"
        "- e\n  ```\n  #pin <!-- importance: 9 -->\n  ```\n"
    )
    assert [(e.pinned, e.importance) for e in doc.entries] == [
        (False, None),
        (True, None),
        (False, None),
        (False, 7),
        (False, None),
    ]
