"""core.outline: a note rebuilt from its text and outline is the note parsed, and an outline
that does not fit its text is refused (the cache then parses)."""

from __future__ import annotations

import json
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_roundtrip import markdown_documents

from conftest import CORPUS, SAMPLE
from memcli.core.entries import Document, parse
from memcli.core.outline import outline, rebuild

FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
DAY = date(2026, 3, 4)


def through_json(doc: Document, day: date | None) -> object:
    """The outline as the cache stores it and gives it back."""
    return json.loads(json.dumps(outline(doc, day), ensure_ascii=False))


def assert_rebuilds(text: str, path: str, day: date | None) -> None:
    parsed = parse(text, path, day)
    rebuilt = rebuild(text, path, day, through_json(parsed, day))
    assert rebuilt == parsed
    assert rebuilt is not None and rebuilt.entries == parsed.entries and rebuilt.render() == text


@FAST
@given(markdown_documents(), st.sampled_from([None, DAY]))
def test_generated_documents_rebuild_to_what_parse_gives(text: str, day: date | None) -> None:
    assert_rebuilds(text, "memory/2026-03-04.md", day)


@FAST
@given(st.text(), st.sampled_from([None, DAY]))
def test_any_text_rebuilds_to_what_parse_gives(text: str, day: date | None) -> None:
    assert_rebuilds(text, "MEMORY.md", day)


def test_every_corpus_and_sample_file_rebuilds() -> None:
    files = [p for root in (CORPUS, SAMPLE) for p in sorted(root.rglob("*.md")) if p.is_file()]
    assert len(files) > 50
    for p in files:
        assert_rebuilds(p.read_text(encoding="utf-8", errors="surrogatepass"), p.name, DAY)


def test_what_parsing_found_in_each_entry_survives() -> None:
    text = (
        "# 2026-02-01 周会\n\n"
        "- [x] 部署完成 <!-- importance: 8 -->\n"
        "- [ ] **09:30** — call Priya #pin\n"
        "  - nested detail\n\n"
        "## Notes 14:05\n\n"
        "A paragraph\nover two lines.\n\n"
        "```sh\nmake\n```\n"
    )
    parsed = parse(text, "memory/2026-02-03.md", date(2026, 2, 3))
    kinds = {e.kind for e in parsed.entries}
    assert {"task", "paragraph", "code"} <= kinds
    assert any(e.importance == 8 for e in parsed.entries) and any(e.pinned for e in parsed.entries)
    assert {e.done for e in parsed.entries} >= {True, False, None}
    assert any(e.time == "09:30" for e in parsed.entries) and any(e.time == "14:05" for e in parsed.entries)
    assert rebuild(text, parsed.path, date(2026, 2, 3), through_json(parsed, date(2026, 2, 3))) == parsed


def test_an_outline_made_for_another_path_is_refused() -> None:
    text = "- one\n- two\n"
    brief = through_json(parse(text, "memory/2026-01-01.md", date(2026, 1, 1)), date(2026, 1, 1))
    assert rebuild(text, "memory/2026-01-02.md", date(2026, 1, 2), brief) is None


@pytest.mark.parametrize("other", [None, date(2026, 3, 5)])
def test_an_outline_made_for_another_file_date_is_refused(other: date | None) -> None:
    """Entries without a date of their own take the file's: an outline made when the file
    had another date (a memcli that dates names otherwise) would carry the old dates."""
    text = "- deployed the thing\n"
    brief = through_json(parse(text, "memory/2026-03-04.md", DAY), DAY)
    assert rebuild(text, "memory/2026-03-04.md", other, brief) is None
    assert rebuild(text, "memory/2026-03-04.md", DAY, brief) == parse(text, "memory/2026-03-04.md", DAY)


@pytest.mark.parametrize(
    "other",
    [
        "- one\n- two\n- three\n",  # more lines than the outline covers
        "- one\n",  # fewer
        "",
    ],
)
def test_an_outline_that_does_not_tile_the_text_is_refused(other: str) -> None:
    brief = through_json(parse("- one\n- two\n", "MEMORY.md"), None)
    assert rebuild(other, "MEMORY.md", None, brief) is None


@pytest.mark.parametrize(
    "brief",
    [
        None,
        [],
        ["MEMORY.md"],
        ["MEMORY.md", [[4, 1, 0, None, "abc", 0, None, 0, 0, 0]]],  # schema 2: no file date
        ["MEMORY.md", 0, [[4, 1, 0, None]]],  # a bullet block without its entry fields
        ["MEMORY.md", 0, [[99, 1, 0, None]]],  # no such kind
        ["MEMORY.md", 0, [[-1, 1, 0, None]]],
        ["MEMORY.md", 0, [[2, 0, 0, None]]],  # an empty block
        ["MEMORY.md", 0, [[2, "1", 0, None]]],
        ["MEMORY.md", 0, [[4, 1, 0, None, "abc", -5, None, 0, 0, 0]]],  # no such day
        ["MEMORY.md", 0, [[4, 1, 0, None, "abc", 0, None, 0, 0, 7]]],  # no such done state
        ["MEMORY.md", 0, [[4, 1, 0, None, "abc", 0, None, 0, 0, -1]]],
        {"path": "MEMORY.md"},
    ],
)
def test_a_malformed_outline_is_refused_not_raised(brief: object) -> None:
    assert rebuild("- one\n", "MEMORY.md", None, brief) is None


def test_sample_workspace_notes_keep_their_dates_through_the_outline() -> None:
    note = next(p for p in sorted((SAMPLE / "memory").glob("2026-*.md")))
    day = date.fromisoformat(note.stem)
    text = note.read_text(encoding="utf-8")
    parsed = parse(text, f"memory/{note.name}", day)
    assert parsed.entries and all(e.date is not None for e in parsed.entries)
    assert rebuild(text, f"memory/{note.name}", day, through_json(parsed, day)) == parsed
