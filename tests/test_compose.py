"""Appending to a note (core.compose.separator_before): the new text stands on its own."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memcli.core.compose import separator_before
from memcli.core.entries import parse

LINES = st.sampled_from(
    [
        "# 2026-10-31",
        "",
        "- 周会改到周四",
        "  - nested",
        "a paragraph line",
        "```",
        "code",
        "<!--",
        "-->",
        "## Notes",
        "1. step",
        "> quote",
        "| a | b |",
        "- [ ] task",
    ]
)
BLOCKS = st.sampled_from(
    [
        "- hello\n",
        "## Flushed from agent:main:main (09:12)\n\n- 以后用 pnpm\n- decided: Postgres 16\n",
        "## Flushed from agent:main:telegram (09:13)\n- one\n",
        "a new paragraph\n",
    ]
)


def test_a_flushed_block_goes_after_a_note_that_already_has_one() -> None:
    note = "# 2026-10-31\n\n## Flushed from a (09:00)\n\n- first\n- second\n"
    block = "## Flushed from b (09:05)\n\n- third\n- fourth\n"
    sep = separator_before(note, block)
    assert sep is not None
    assert [e.text for e in parse(note + sep + block).entries][-2:] == ["- third", "- fourth"]


def test_no_separator_helps_inside_an_open_fence() -> None:
    assert separator_before("# x\n\n```\ncode\n", "- item\n") is None


@given(st.lists(LINES, max_size=12), BLOCKS)
def test_the_separator_found_keeps_the_note_and_the_new_entries_apart(lines: list[str], block: str) -> None:
    note = "\n".join(lines) + ("\n" if lines else "")
    sep = separator_before(note, block)
    if sep is None:
        return
    before = parse(note).entries
    after = parse(note + sep + block).entries
    alone = parse(block).entries
    assert [e.text for e in after[: len(before)]] == [e.text for e in before]
    assert [e.text for e in after[len(before) :]] == [e.text for e in alone]
