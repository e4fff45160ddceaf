"""memcli compact (SPEC §9): the cut, the compaction entry, OpenClaw's context rebuild."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conftest import NOW, Invoke, as_json
from memcli.core.conversation import parse_transcript
from memcli.core.sessions import cut_index

MAIN = "agent:main:main"
TRANSCRIPT = "sessions/557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl"


def compact(cli: Invoke, root: Path, *args: str) -> dict[str, object]:
    return as_json(cli("--json", "-w", str(root), "--now", NOW, "compact", *args))  # type: ignore[no-any-return]


def test_compact_appends_a_compaction_entry_that_rebuilds_to_exactly_the_kept_turns(
    cli: Invoke, sample: Path
) -> None:
    path = sample / TRANSCRIPT
    before = path.read_bytes()
    old = parse_transcript(before.decode("utf-8").splitlines())
    context_before = old.context()
    store_before = json.loads((sample / "sessions.json").read_text(encoding="utf-8"))[MAIN]
    report = compact(cli, sample, "--session", MAIN, "--keep-recent-tokens", "400")
    (main,) = report["sessions"]  # type: ignore[misc]
    assert main["due"] and main["flushed"]["recorded"]  # a due flush ran first
    after = path.read_bytes()
    assert after.startswith(before)  # appended, never rewritten
    (line,) = after[len(before) :].decode("utf-8").splitlines()
    entry = json.loads(line)
    assert entry["type"] == "compaction" and re.fullmatch(r"[0-9a-f]{8}", entry["id"])
    assert entry["id"] not in {e.get("id") for e in old.entries}
    assert entry["parentId"] == old.leaf_id
    assert re.fullmatch(r"2026-10-31T01:00:00\.000Z", entry["timestamp"])
    assert entry["summary"].startswith("## Goal") and "## Key Decisions" in entry["summary"]
    assert entry["tokensBefore"] == main["tokens_before"] and entry["tokensBefore"] > 0
    assert set(entry["details"]) == {"readFiles", "modifiedFiles"}
    # OpenClaw rebuilds the context as the summary, then the entries from firstKeptEntryId
    new = parse_transcript(after.decode("utf-8").splitlines())
    kept = new.context()
    assert kept == context_before[len(context_before) - main["kept_messages"] :]
    assert kept[0].id == entry["firstKeptEntryId"] and kept[0].role != "toolResult"
    assert main["summarised_messages"] + main["kept_messages"] == len(context_before)
    store = json.loads((sample / "sessions.json").read_text(encoding="utf-8"))[MAIN]
    assert store["compactionCount"] == store_before["compactionCount"] + 1
    assert store["totalTokens"] == main["tokens_after"] < main["tokens_before"]
    assert store["memoryFlushCompactionCount"] == store_before["compactionCount"]


def test_a_second_compaction_merges_the_first_summary(cli: Invoke, sample: Path) -> None:
    compact(cli, sample, "--session", MAIN, "--keep-recent-tokens", "400")
    report = compact(cli, sample, "--session", MAIN, "--keep-recent-tokens", "100", "--force")
    (main,) = report["sessions"]  # type: ignore[misc]
    assert main["due"] and main["compaction"]
    lines = (sample / TRANSCRIPT).read_text(encoding="utf-8").splitlines()
    entries = [json.loads(x) for x in lines]
    first, second = [e for e in entries if e.get("type") == "compaction"][-2:]
    assert second["parentId"] == first["id"]
    assert "## Critical Context" in second["summary"]


def test_not_due_and_dry_run_write_nothing(cli: Invoke, sample: Path) -> None:
    before = {p: p.read_bytes() for p in sample.rglob("*") if p.is_file()}
    report = compact(cli, sample, "--dry-run", "--keep-recent-tokens", "400")
    by = {s["session"]: s for s in report["sessions"]}  # type: ignore[attr-defined]
    assert by[MAIN]["due"] and by[MAIN]["compaction"]["firstKeptEntryId"]
    assert not by["agent:main:telegram:direct:5550123"]["due"]
    assert {p: p.read_bytes() for p in sample.rglob("*") if p.is_file()} == before


HOLDER = """
import json, os, sys, time
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_EXCL)
os.write(fd, json.dumps({"pid": os.getpid(), "createdAt": int(time.time() * 1000)}).encode())
os.close(fd)
print("held", flush=True)
time.sleep(30)
"""


def test_a_held_transcript_lock_stops_compaction_with_the_transcript_untouched(
    cli: Invoke, sample: Path
) -> None:
    (sample / "memcli.toml").write_text('timezone = "Asia/Shanghai"\nlock_timeout_seconds = 0.5\n')
    path = sample / TRANSCRIPT
    before = path.read_bytes()
    lock = path.with_name(path.name + ".lock")
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        result = cli(
            "-w", str(sample), "--now", NOW, "compact", "--session", MAIN, "--keep-recent-tokens", "400"
        )
        assert result.exit_code == 4 and ".jsonl.lock" in result.stderr
        assert path.read_bytes() == before
        store = json.loads((sample / "sessions.json").read_text(encoding="utf-8"))[MAIN]
        assert store["compactionCount"] == 2
    finally:
        holder.kill()
        holder.wait()


@given(
    st.lists(
        st.tuples(st.integers(1, 500), st.sampled_from(["user", "assistant", "toolResult"])), max_size=40
    ),
    st.integers(1, 3000),
)
def test_the_cut_keeps_recent_turns_and_never_strands_a_tool_result(
    turns: list[tuple[int, str]], keep: int
) -> None:
    costs = [c for c, _ in turns]
    roles = [r for _, r in turns]
    cut = cut_index(costs, roles, keep)
    assert 0 <= cut <= len(turns)
    if turns:
        assert cut < len(turns)  # the last message always stays
    if cut > 0:
        assert roles[cut] != "toolResult"
    # only when every message after the call is one of its results may the tail pass the budget
    with_its_call = all(r == "toolResult" for r in roles[cut + 1 :]) and sum(costs[cut:]) > keep
    if turns and not with_its_call:
        # within the budget (or only the last message)...
        assert sum(costs[cut:]) <= keep or cut == len(turns) - 1
        # ...and no longer tail that starts where a cut may be would have fitted
        for start in range(cut):
            if start == 0 or roles[start] != "toolResult":
                assert sum(costs[start:]) > keep


def test_the_compaction_summary_carries_the_earlier_one_forward(cli: Invoke, sample: Path) -> None:
    compact(cli, sample, "--session", MAIN, "--keep-recent-tokens", "400")
    entry = json.loads((sample / TRANSCRIPT).read_text(encoding="utf-8").splitlines()[-1])
    summary = entry["summary"]
    goal = summary.split("## Goal\n", 1)[1].split("\n## ", 1)[0]
    assert "Finish the job queue design doc" in goal  # the earlier summary's goal, not a later question
    decisions = summary.split("## Key Decisions\n", 1)[1].split("\n## ", 1)[0]
    assert "定了：we will use Redis for the job queue" in decisions
    done = summary.split("### Done\n", 1)[1].split("\n### ", 1)[0]
    assert "Compared Redis + BullMQ with RabbitMQ in a table." in done  # "[x] …" of the earlier one


def test_previous_items_take_the_class_of_their_heading() -> None:
    from memcli.core.summarize import previous_items

    items = previous_items(
        "## Goal\n1. Ship v3.1\n## Constraints & Preferences\n- pnpm only\n## Progress\n"
        "### Done\n- [x] draft\n"
        "- [ ] review\n### Blocked\n- (none)\n## Key Decisions\n- Redis\n## Next Steps\n- prototype\n"
        "## Critical Context\n- port 6379\n"
    )
    assert [(i.kind, i.text) for i in items] == [
        ("goal", "Ship v3.1"),
        ("preference", "pnpm only"),
        ("done", "draft"),
        ("pending", "review"),
        ("decision", "Redis"),
        ("pending", "prototype"),
        ("other", "port 6379"),
    ]
