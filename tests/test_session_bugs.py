"""Regressions of the session bugs the reliability suite found (SPEC §9, §14): a linked
session store, NULs in session paths, unusable flush times, numbers a double cannot hold,
odd ids, line separators inside JSONL lines and compaction of transcripts without ids."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

import memcli.compact
from conftest import NOW, Invoke, as_json
from memcli.core.conversation import parse_transcript
from memcli.core.sessions import FIRST_MS, LAST_MS, flush_time
from memcli.errors import DataError, LockTimeout
from memcli.workspace.session_store import lock_path, render_store, store_lock, store_target, update_store
from memcli.workspace.transcripts import Verbatim, read_store, read_transcript, transcript_path

MAIN = "agent:main:main"
TRANSCRIPT = "sessions/557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl"
TODAY = "memory/2026-10-31.md"


def run(cli: Invoke, root: Path, *args: str) -> Any:
    return cli("-w", str(root), "--now", NOW, *args)


def store_of(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def edit_main(root: Path, **fields: Any) -> None:
    store = store_of(root / "sessions.json")
    store[MAIN].update(fields)
    (root / "sessions.json").write_text(json.dumps(store, indent=2), encoding="utf-8")


# --- 1. a session store that is a symlink ---------------------------------------------------


def move_store(root: Path, folder: Path) -> Path:
    """sessions.json moved to `folder` (OpenClaw's agents/main/sessions/), a link left in its place."""
    folder.mkdir(parents=True, exist_ok=True)
    real = folder / "sessions.json"
    (root / "sessions.json").rename(real)
    os.chmod(real, 0o600)
    (root / "sessions.json").symlink_to(real)
    return real


@pytest.mark.parametrize("where", ["OPENCLAW_STATE_DIR", "home", "workspace"])
def test_a_linked_store_is_written_through_its_link(
    cli: Invoke, sample: Path, tmp_path: Path, isolated_env: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    if where == "OPENCLAW_STATE_DIR":
        state = tmp_path / "state"
        monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
        folder = state / "agents" / "main" / "sessions"
    elif where == "home":  # OpenClaw's default state folder, ~/.openclaw
        folder = isolated_env / ".openclaw" / "agents" / "main" / "sessions"
    else:
        folder = sample / "stores"
    real = move_store(sample, folder)
    assert store_target(sample / "sessions.json", sample) == real.resolve()
    assert lock_path(sample / "sessions.json") == real.resolve().with_name("sessions.json.lock")
    as_json(run(cli, sample, "--json", "flush", "--force", "--session", MAIN))
    assert (sample / "sessions.json").is_symlink() and (sample / "sessions.json").resolve() == real.resolve()
    flushed = store_of(real)[MAIN]
    assert flushed["memoryFlushAt"] == 1793408400000 and flushed["memoryFlushCompactionCount"] == 2
    assert os.stat(real).st_mode & 0o777 == 0o600  # its mode kept
    as_json(
        run(cli, sample, "--json", "compact", "--force", "--keep-recent-tokens", "400", "--session", MAIN)
    )
    assert (sample / "sessions.json").is_symlink() and store_of(real)[MAIN]["compactionCount"] == 3
    assert not list(folder.glob("*.lock")) and not list(sample.glob("*.lock"))


def test_a_store_linked_anywhere_else_is_refused_with_nothing_written(
    cli: Invoke, sample: Path, tmp_path: Path
) -> None:
    real = move_store(sample, tmp_path / "elsewhere")
    before = real.read_bytes(), (sample / TRANSCRIPT).read_bytes()
    for args in (["flush", "--force", "--session", MAIN], ["compact", "--force", "--session", MAIN]):
        result = run(cli, sample, *args)
        assert result.exit_code == 3, result.stderr
        assert "sessions.json is a symlink to" in result.stderr and "outside the workspace" in result.stderr
        assert (real.read_bytes(), (sample / TRANSCRIPT).read_bytes()) == before
        assert not (sample / TODAY).exists()  # the flush did not append before the refusal
    assert (sample / "sessions.json").is_symlink()
    assert run(cli, sample, "flush", "--dry-run").exit_code == 0  # reading through it is fine


def test_the_lock_of_a_linked_store_is_openclaws_beside_the_real_file(sample: Path, tmp_path: Path) -> None:
    real = move_store(sample, sample / "stores")
    # OpenClaw holds its store's lock, beside the file it opens: memcli waits for it, then gives up
    with store_lock(real, wait=0), pytest.raises(LockTimeout, match=r"sessions\.json\.lock is held"):
        update_store(sample / "sessions.json", sample, lambda data: True, wait=0.2)
    assert not (sample / "sessions.json.lock").exists()


def test_the_transcripts_of_a_linked_store_are_found_beside_the_real_store(
    sample: Path, tmp_path: Path
) -> None:
    folder = sample / "agents" / "main" / "sessions"
    real = move_store(sample, folder)
    (sample / TRANSCRIPT).rename(folder / Path(TRANSCRIPT).name)
    entry = store_of(real)[MAIN]
    entry["sessionFile"] = str(folder / Path(TRANSCRIPT).name)  # OpenClaw writes absolute paths
    assert transcript_path(sample / "sessions.json", entry) == (folder / Path(TRANSCRIPT).name).resolve()
    del entry["sessionFile"]  # found by its sessionId too
    assert transcript_path(sample / "sessions.json", entry) == (folder / Path(TRANSCRIPT).name).resolve()
    entry["sessionFile"] = str(tmp_path / "x.jsonl")
    (tmp_path / "x.jsonl").write_text("")
    with pytest.raises(DataError, match="lies outside"):
        transcript_path(sample / "sessions.json", entry)


# --- 2. a NUL in a session path -------------------------------------------------------------


@pytest.mark.parametrize("field", ["sessionFile", "sessionId"])
def test_a_nul_in_a_session_path_is_bad_data_naming_the_session(tmp_path: Path, field: str) -> None:
    with pytest.raises(DataError) as caught:
        transcript_path(tmp_path / "sessions.json", {field: "a\x00b"}, MAIN)
    line = caught.value.one_line()
    assert MAIN in line and field in line and "NUL" in line and "\x00" not in line


# --- 3. memoryFlushAt that is no usable time ------------------------------------------------


@pytest.mark.parametrize("value", [-(10**15), 10**20, FIRST_MS - 1, LAST_MS + 1, 1.5e12, "yesterday", True])
def test_an_unusable_flush_time_counts_as_never_flushed(value: Any) -> None:
    assert flush_time({"memoryFlushAt": value}) is None


def test_flush_times_at_the_ends_of_the_range_are_used() -> None:
    for ms in (FIRST_MS, 0, 1793322749806, LAST_MS):
        moment = flush_time({"memoryFlushAt": ms})
        assert moment is not None and moment.timestamp() * 1000 == pytest.approx(ms)


@pytest.mark.parametrize("value", [-(10**15), 10**20])
def test_status_names_an_unusable_flush_time_and_flush_records_a_good_one(
    cli: Invoke, sample: Path, value: int
) -> None:
    edit_main(sample, memoryFlushAt=value, memoryFlushCompactionCount=2)
    status = run(cli, sample, "status")
    assert status.exit_code == 0, status.stderr
    assert f"sessions.json: session '{MAIN}': memoryFlushAt {value} is no time" in status.stdout
    report = as_json(run(cli, sample, "--json", "flush", "--session", MAIN))
    (main,) = report["sessions"]
    assert main["due"] and "no usable time" in main["why"] and main["recorded"]
    assert store_of(sample / "sessions.json")[MAIN]["memoryFlushAt"] == 1793408400000


# --- 4. numbers a double cannot hold --------------------------------------------------------


def test_a_huge_number_keeps_its_text_when_the_store_is_written(cli: Invoke, sample: Path) -> None:
    text = (sample / "sessions.json").read_text(encoding="utf-8")
    odd = '"costCents": 1e999, "debt": -1E+400, "ratio": NaN, "cap": Infinity, "tiny": 1e-999'
    (sample / "sessions.json").write_text(text.replace('"systemSent": true', odd), encoding="utf-8")
    as_json(run(cli, sample, "--json", "flush", "--force", "--session", MAIN))
    written = (sample / "sessions.json").read_text(encoding="utf-8")
    for part in ('"costCents": 1e999', '"debt": -1E+400', '"ratio": NaN', '"cap": Infinity'):
        assert part in written
    main = json.loads(written)[MAIN]
    assert main["costCents"] == math.inf and main["tiny"] == 0.0 and "memoryFlushAt" in main


def test_verbatim_numbers_render_as_read_and_a_computed_inf_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sessions.json"
    path.write_text('{"a": {"x": [1e999, 2.5, -1e999], "y": "\\u0000memcli-number"}}', encoding="utf-8")
    data = read_store(path, tmp_path)
    assert isinstance(data["a"]["x"][0], Verbatim) and data["a"]["x"][1] == 2.5
    assert json.loads(render_store(data)) == {
        "a": {"x": [math.inf, 2.5, -math.inf], "y": "\x00memcli-number"}
    }
    assert b"[\n      1e999,\n      2.5,\n      -1e999\n    ]" in render_store(data)
    with pytest.raises(DataError, match="not JSON"):
        render_store({"a": math.inf})


def test_a_store_nested_too_deep_is_bad_data(tmp_path: Path) -> None:
    path = tmp_path / "sessions.json"
    path.write_text('{"a": ' + "[" * 100_000 + "]" * 100_000 + "}", encoding="utf-8")
    with pytest.raises(DataError, match="nests"):
        read_store(path, tmp_path)


# --- 5. ids that are lists or objects -------------------------------------------------------


def test_list_and_object_ids_link_like_any_other_odd_id() -> None:
    entries = [
        {"type": "message", "id": ["a"], "parentId": None, "message": {"role": "user", "content": "one"}},
        {"type": "message", "id": "x", "parentId": None, "message": {"role": "user", "content": "side"}},
        {
            "type": "message",
            "id": {"k": 1},
            "parentId": ["a"],
            "message": {"role": "assistant", "content": "two"},
        },
        {"type": "message", "id": "c", "parentId": {"k": 1}, "message": {"role": "user", "content": "three"}},
    ]
    transcript = parse_transcript([json.dumps(e) for e in entries])
    assert [m.text for m in transcript.messages] == ["one", "two", "three"]
    cycle = [{"type": "message", "id": [1], "parentId": [1], "message": {"role": "user", "content": "x"}}]
    assert len(parse_transcript([json.dumps(e) for e in cycle]).messages) == 1


# --- 6. JSONL lines end at \n only ----------------------------------------------------------


def test_a_transcript_line_ends_at_newline_only(tmp_path: Path) -> None:
    texts = ["one\u2028two", "a\u2029b", "c\x85d", "e\x1cf\x1dg\x1eh", "i\x0bj\x0ck"]
    lines = [
        json.dumps({"type": "message", "message": {"role": "user", "content": t}}, ensure_ascii=False)
        for t in texts
    ]
    path = tmp_path / "t.jsonl"
    path.write_bytes(
        ("\r\n".join(lines[:3]) + "\n" + "\n".join(lines[3:])).encode("utf-8")
    )  # no final newline
    transcript = read_transcript(path, tmp_path)
    assert transcript.problems == () and [m.text for m in transcript.messages] == texts
    path.write_bytes(b'{"type":"message","message":{"role":"user","content":"x"}}\n{"broken\n')
    assert read_transcript(path, tmp_path).problems == ("t.jsonl:2: not a JSON line (skipped)",)


# --- 7. compaction of a transcript without ids ----------------------------------------------


def idless(sample: Path, turns: int = 8) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = [{"type": "session", "version": 3, "id": "s"}]
    lines += [
        {"type": "message", "message": {"role": ("user", "assistant")[i % 2], "content": f"turn {i} " * 60}}
        for i in range(turns)
    ]
    (sample / TRANSCRIPT).write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    edit_main(sample, memoryFlushCompactionCount=2)  # no flush due: only the compaction writes
    return lines


def test_compact_names_the_first_kept_entry_of_a_transcript_without_ids_by_its_place(
    cli: Invoke, sample: Path
) -> None:
    idless(sample)
    before = (sample / TRANSCRIPT).read_bytes()
    old = parse_transcript(before.decode("utf-8").split("\n"))
    report = as_json(
        run(cli, sample, "--json", "compact", "--force", "--keep-recent-tokens", "300", "--session", MAIN)
    )
    (main,) = report["sessions"]
    after = (sample / TRANSCRIPT).read_bytes()
    assert after.startswith(before)
    entry = json.loads(after[len(before) :])
    assert entry == main["compaction"] and "id" not in entry and "parentId" not in entry
    assert entry["firstKeptEntryId"] is None and entry["firstKeptEntryIndex"] == 7  # header = 0
    new = parse_transcript(after.decode("utf-8").split("\n"))
    assert new.context() == old.messages[-main["kept_messages"] :] and new.context()[0].index == 7
    assert store_of(sample / "sessions.json")[MAIN]["compactionCount"] == 3
    # a second compaction works on from there, its place counted with the first one's line
    for i in (8, 9):
        line = {
            "type": "message",
            "message": {"role": ("user", "assistant")[i % 2], "content": f"turn {i} " * 60},
        }
        with open(sample / TRANSCRIPT, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
    report = as_json(
        run(cli, sample, "--json", "compact", "--force", "--keep-recent-tokens", "300", "--session", MAIN)
    )
    (main,) = report["sessions"]
    assert main["compaction"]["firstKeptEntryIndex"] == 10 and main["summarised_messages"] == 2
    final = parse_transcript((sample / TRANSCRIPT).read_text(encoding="utf-8").split("\n"))
    assert [(m.index, m.text.split()[1]) for m in final.context()] == [(10, "8"), (11, "9")]


@pytest.mark.parametrize("first_id", ["dup", None, 6])
def test_a_first_kept_id_that_names_no_single_message_is_named_by_place(
    cli: Invoke, sample: Path, first_id: Any
) -> None:
    lines = idless(sample)
    for number, line in enumerate(lines[2:], 1):  # turn 0 has no id: the file is read in order
        line["id"] = f"{number:08x}"
    lines[3]["id"] = "dup"  # turn 2
    lines[7]["id"] = first_id  # turn 6, the first kept: an id another message holds, null, a number
    (sample / TRANSCRIPT).write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    report = as_json(
        run(cli, sample, "--json", "compact", "--force", "--keep-recent-tokens", "300", "--session", MAIN)
    )
    (main,) = report["sessions"]
    assert main["compaction"]["firstKeptEntryIndex"] == 7 and main["compaction"]["firstKeptEntryId"] is None


def test_a_transcript_changed_under_compact_is_a_conflict_that_says_what_was_written(
    cli: Invoke, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    idless(sample)
    edit_main(sample, memoryFlushCompactionCount=1)  # a flush is due and runs first
    real = memcli.compact.read_transcript
    calls: list[Path] = []

    def rewritten(path: Path, root: Path) -> Any:
        calls.append(path)
        if len(calls) == 2:  # under the transcript's lock: someone rewrote the file meanwhile
            path.write_text(path.read_text(encoding="utf-8").replace("turn 6", "turn six"), encoding="utf-8")
        return real(path, root)

    monkeypatch.setattr(memcli.compact, "read_transcript", rewritten)
    before = (sample / TRANSCRIPT).read_bytes()
    result = run(cli, sample, "compact", "--force", "--keep-recent-tokens", "300", "--session", MAIN)
    assert result.exit_code == 4, result.stderr
    assert "the compaction was not written; the due flush before it was recorded" in result.stderr
    assert b"compaction" not in (sample / TRANSCRIPT).read_bytes() and before != b""
    store = store_of(sample / "sessions.json")[MAIN]
    assert store["compactionCount"] == 2 and store["memoryFlushCompactionCount"] == 2
