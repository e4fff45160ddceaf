"""`memcli list --json` streams its entries (issue 20, point 3): the same bytes as the whole
document dumped at once, with each entry's JSON made only when its chunk is written; and the
long-notes workspace of the bench generator keeps its shape."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from conftest import NOW, REPO, Invoke, as_json
from memcli.cli import output

sys.path.insert(0, str(REPO / "bench"))

import generate


def _items(n: int) -> list[dict[str, Any]]:
    return [
        {"id": f"e{i}", "text": f'第 {i} 条 "entry"\n- nested', "score": i / 3, "date": None}
        for i in range(n)
    ]


@pytest.mark.parametrize(
    "n", [0, 1, output.BIG_LIST, output.BIG_LIST + 1, output.CHUNK_LINES, output.CHUNK_LINES + 1, 4500]
)
def test_a_streamed_list_is_byte_identical_to_the_whole_document(n: int) -> None:
    items = _items(n)
    whole = "".join(output.json_chunks({"entries": items}))
    streamed = "".join(output.json_list_chunks("entries", list(range(n)), lambda i: items[i]))
    assert streamed == whole
    assert json.loads(streamed) == {"entries": items}


@pytest.mark.parametrize(
    "n", [0, 1, output.BIG_LIST, output.BIG_LIST + 1, output.CHUNK_LINES, output.CHUNK_LINES + 1, 4500]
)
def test_items_that_come_one_by_one_stream_the_same_bytes(n: int) -> None:
    items = _items(n)
    whole = "".join(output.json_chunks({"entries": items}))
    taken: list[int] = []

    def one_by_one() -> Any:
        for i in range(n):
            taken.append(i)
            yield i

    chunks = output.json_stream_chunks("entries", one_by_one(), lambda i: items[i])
    first = next(chunks)
    assert len(taken) <= output.BIG_LIST + 1  # a long list is not read whole before it is written
    assert first + "".join(chunks) == whole
    # a sorted list keeps each item's JSON, not the item: the same bytes from those
    encoded = (output.compact(item) for item in items)
    assert "".join(output.json_stream_chunks("entries", encoded, str, encoded=True)) == whole


def test_a_streamed_list_makes_each_item_only_when_its_chunk_is_written() -> None:
    made: list[int] = []

    def to_json(i: int) -> dict[str, int]:
        made.append(i)
        return {"i": i}

    n = 3 * output.CHUNK_LINES
    chunks = output.json_list_chunks("entries", list(range(n)), to_json)
    seen = ""
    while len(made) < output.CHUNK_LINES:
        seen += next(chunks)
    assert len(made) == output.CHUNK_LINES  # one chunk made, the rest not yet
    seen += "".join(chunks)
    assert len(made) == n
    assert [e["i"] for e in json.loads(seen)["entries"]] == list(range(n))


def test_list_json_on_the_sample_workspace_keeps_its_shape(cli: Invoke, sample: Path) -> None:
    result = cli("--json", "-w", str(sample), "--now", NOW, "list")
    entries = as_json(result)["entries"]
    assert len(entries) > output.BIG_LIST  # the streamed path
    assert result.stdout.startswith('{\n  "entries": [\n    {"id": ')
    assert result.stdout.endswith("}\n  ]\n}\n")
    assert all("\n" not in line[4:] for line in result.stdout.splitlines()[2:-2])


def test_the_long_notes_workspace_has_long_notes_and_is_reproducible(tmp_path: Path) -> None:
    manifest = generate.generate_long(tmp_path / "long", days=3, seed=5, verify=True)
    again = generate.generate_long(tmp_path / "again", days=3, seed=5)
    assert again == manifest
    notes = sorted((tmp_path / "long" / "memory").glob("*.md"))
    assert len(notes) == 3
    for note in notes:
        text = note.read_text(encoding="utf-8")
        assert note.read_bytes() == (tmp_path / "again" / "memory" / note.name).read_bytes()
        lines = text.split("\n")
        assert generate.LONG_LINES[0] <= len(lines) <= generate.LONG_LINES[1] + 200
        assert "```python" in text or "```text" in text or "```bash" in text
        assert any(line.startswith("|---") for line in lines)
        deepest = max(len(line) - len(line.lstrip(" ")) for line in lines if line.lstrip().startswith("- "))
        assert deepest >= 6  # a bullet three levels down at least
        assert any("\u4e00" <= ch <= "\u9fff" for ch in text) and "the " in text
    assert manifest["exact_groups"] and all(len(g) >= 2 for g in manifest["exact_groups"])
