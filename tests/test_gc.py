"""gc: the plan, its protective rules, the transaction, undo, restore, purge and show."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from conftest import NOW, REPO, Invoke, as_json, copy_tree, corpus_workspaces, tree_bytes, tree_state

GOLDEN = REPO / "tests" / "data" / "gc_sample_plan.json"
LEDGER_KEYS = {"tx", "time", "action", "id", "text_hash", "from", "to", "reason"}


def live(root: Path) -> dict[str, bytes]:
    """Every file but memcli's own state."""
    return {k: v for k, v in tree_bytes(root).items() if not k.startswith(".memcli/")}


def gc(cli: Invoke, root: Path, *args: str, now: str = NOW) -> dict[str, object]:
    return as_json(cli("--json", "-w", str(root), "--now", now, "gc", *args))  # type: ignore[no-any-return]


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# --- the sample workspace ------------------------------------------------------------------


def test_the_golden_plan_for_the_sample_workspace(cli: Invoke, sample: Path) -> None:
    plan = gc(cli, sample, "--dry-run")
    # each action's `entry` (SPEC §13) is the entry as `list` shows it: checked in
    # tests/test_json_contract.py, left out of the golden
    actions = [{k: v for k, v in a.items() if k != "entry"} for a in plan["actions"]]  # type: ignore[attr-defined]
    got = {"actions": actions, "counts": plan["counts"], "notes": plan["notes"]}
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    assert got == json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_the_sample_plan_reads_right(cli: Invoke, sample: Path) -> None:
    actions = gc(cli, sample, "--dry-run")["actions"]
    assert isinstance(actions, list)
    by = {(a["action"], a.get("from")): a for a in actions}
    windows = by[("supersede", "MEMORY.md:17")]
    assert windows["by"] == "memory/2026-10-19.md:5" and windows["to"] == "memory/archive/superseded.md"
    assert ("promote", "memory/2026-10-19.md:5") in by  # the Mac takes the place of Windows in MEMORY.md
    assert by[("merge", "memory/2026-10-21.md:5")]["into"] == "MEMORY.md"  # pnpm, a fourth copy
    assert {a["from"] for a in actions if a["action"] == "drop"} == {
        "memory/2026-10-21.md:8",
        "memory/2026-10-27.md:8",
    }
    promoted = {a["text"] for a in actions if a["action"] == "promote"}
    assert "- 记住：发布前先跑测试" in promoted and "- remember: never force-push to main" in promoted
    assert not any("heartbeat" in t or "checked the build" in t for t in promoted)
    for a in actions:
        assert set(a) >= {"action", "reason"} and a["reason"]
        assert (
            not (a.get("from") or "").startswith(("memory/2026-10-30", "memory/2026-10-31"))
            or a["action"] == "promote"
        )


def test_apply_then_nothing_left_to_do_then_undo_restores_every_byte(cli: Invoke, sample: Path) -> None:
    before = live(sample)
    first = gc(cli, sample)
    assert first["applied"] is True and first["counts"]
    assert (sample / "memory" / "summaries" / "2026-W40.md").is_file()
    assert (sample / "memory" / "archive" / "2026" / "09" / "2026-09-01.md").read_bytes() == before[
        "memory/2026-09-01.md"
    ]
    second = gc(cli, sample, "--dry-run")
    assert second["actions"] == []
    undone = as_json(cli("--json", "-w", str(sample), "--now", NOW, "undo"))
    assert undone["conflicts"] == [] and undone["transaction"] == first["transaction"]
    assert live(sample) == before
    assert not (sample / "memory" / "archive").exists() and not (sample / "memory" / "summaries").exists()


def test_open_notes_are_never_rewritten(cli: Invoke, sample: Path) -> None:
    write(sample, "memory/2026-10-31.md", "# 2026-10-31\n\n- 好的\n- 用户偏好用 pnpm，不要用 npm 安装依赖\n")
    open_notes = {
        k: v for k, v in live(sample).items() if k in ("memory/2026-10-30.md", "memory/2026-10-31.md")
    }
    gc(cli, sample)
    assert {k: v for k, v in live(sample).items() if k in open_notes} == open_notes


def test_dry_run_and_diff_write_nothing(cli: Invoke, sample: Path) -> None:
    before = tree_state(sample)
    result = cli("-w", str(sample), "--now", NOW, "gc", "--dry-run", "--diff")
    assert result.exit_code == 0
    assert "rename from memory/2026-09-01.md" in result.stdout
    assert "--- a/MEMORY.md" in result.stdout and "+++ b/memory/summaries/2026-W36.md" in result.stdout
    assert "-- Lin uses Windows 11; mind the backslashes in paths" in result.stdout
    table = cli("-w", str(sample), "--now", NOW, "gc", "--dry-run")
    first, action = table.stdout.splitlines()[:2]  # grouped by action: "merge (9)", then one a line
    assert re.fullmatch(r"[a-z]+ \(\d+\)", first) and action.split()[0] == first.split()[0]
    assert tree_state(sample) == before
    assert not (sample / ".memcli").exists()


def test_every_change_is_in_the_ledger(cli: Invoke, sample: Path) -> None:
    plan = gc(cli, sample)
    lines = [json.loads(x) for x in (sample / ".memcli" / "ledger.jsonl").read_text().splitlines()]
    assert all(set(e) >= LEDGER_KEYS for e in lines)
    logged = {(e["action"], e["from"]) for e in lines}
    for a in plan["actions"]:  # type: ignore[union-attr]
        if a["action"] in ("merge", "drop", "promote", "supersede", "demote"):
            assert (a["action"], a["from"]) in logged
    assert any(e["action"] == "recorded" for e in lines)  # the first run starts each core entry's clock


# --- protective rules -------------------------------------------------------------------------


def test_a_plan_removing_too_much_of_a_note_needs_force(cli: Invoke, ws: Path) -> None:
    write(
        ws,
        "memory/2026-10-27.md",
        "# 2026-10-27\n\n- 好的\n- ok thanks\n- got it\n- deployed atlas-api v2.3.1\n",
    )
    before = tree_state(ws)
    refused = cli("-w", str(ws), "--now", NOW, "gc")
    assert refused.exit_code == 4
    assert "memory/2026-10-27.md (3 of 4)" in refused.stderr and "--force" in refused.stderr
    assert tree_state(ws) == {k: v for k, v in tree_state(ws).items()} and live(ws) == {
        k: v[0] for k, v in before.items() if not k.startswith(".memcli/")
    }
    forced = gc(cli, ws, "--force")
    assert forced["counts"] == {"drop": 4}  # type: ignore[comparison-overlap]  # one more in 2026-10-29
    assert (ws / "memory" / "2026-10-27.md").read_text() == "# 2026-10-27\n\n- deployed atlas-api v2.3.1\n"


def test_facts_not_logs_are_promoted(cli: Invoke, ws: Path) -> None:
    write(
        ws,
        "memory/2026-10-27.md",
        "# 2026-10-27\n\n"
        "- **09:00** — 紧急：决定把 Redis 升级到 7.2，端口 6380\n"
        "- $ npm install --global pnpm@9.1.0 # 紧急，决定了\n"
        "- **状态**: 决定\n"
        "\n```bash\n# 紧急：我们决定用 redis 7.2\nredis-server --port 6380\n```\n\n"
        "- 紧急：我们决定以后 Redis 都用 7.2 版本，端口 6380\n"
        "- 紧急：等待 Lin 决策，方案 A 用 Redis 7.2 / 方案 B 用 Valkey 8\n"
        "- urgent: we decided to pin Redis 7.2 for now, port 6380\n"
        "- **v2.1 目标：**\n"
        "- 紧急：我们决定缓存也用 Redis 7.2，端口 6381\n**下一步：**\n",
    )
    promoted = [a for a in gc(cli, ws, "--dry-run")["actions"] if a["action"] == "promote"]  # type: ignore[union-attr]
    assert [a["text"] for a in promoted] == ["- 紧急：我们决定以后 Redis 都用 7.2 版本，端口 6380"]


@pytest.mark.parametrize(
    ("memory", "expect"),
    [
        (
            "# M\n\n## 偏好\n\n- 回答要短\n\n## 环境\n\n- macOS\n",
            "## 偏好\n\n- 回答要短\n- 我喜欢用 Vim 写代码，不要用 Emacs\n",
        ),
        (
            "# M\n\n## Tools\n\n- git\n\n## Preferences\n",
            "## Preferences\n\n- 我喜欢用 Vim 写代码，不要用 Emacs\n",
        ),
        (
            "# M\n\n## Projects\n\n- atlas\n",
            "## Projects\n\n- atlas\n\n## Preferences\n\n- 我喜欢用 Vim 写代码，不要用 Emacs\n",
        ),
    ],
)
def test_a_promotion_lands_under_the_heading_that_fits(
    cli: Invoke, tmp_path: Path, memory: str, expect: str
) -> None:
    root = tmp_path / "w"
    write(root, "MEMORY.md", memory)
    write(root, "memory/2026-10-28.md", "# 2026-10-28\n\n- 我喜欢用 Vim 写代码，不要用 Emacs\n")
    gc(cli, root)
    assert expect in (root / "MEMORY.md").read_text()


def test_first_run_demotes_nothing_then_unused_entries_go_cold_and_come_back(cli: Invoke, ws: Path) -> None:
    first = gc(cli, ws)
    assert "demote" not in first["counts"]  # type: ignore[operator]
    later = "2026-12-15T09:00:00+08:00"  # 45 days on, nothing mentioned MEMORY.md
    second = gc(cli, ws, now=later)
    demoted = [a for a in second["actions"] if a["action"] == "demote"]  # type: ignore[union-attr]
    assert [a["text"] for a in demoted] == ["- 我喜欢用 pnpm，不要用 npm"]  # the #pin entry stays
    cold = (ws / "memory" / "archive" / "core-cold.md").read_text()
    assert "我喜欢用 pnpm，不要用 npm <!-- memcli: demoted 2026-12-15" in cold
    assert "pnpm" not in (ws / "MEMORY.md").read_text() and "#pin" in (ws / "MEMORY.md").read_text()
    write(ws, "memory/2026-12-20.md", "# 2026-12-20\n\n- 我喜欢用 pnpm，不要用 npm\n")
    third = gc(cli, ws, now="2026-12-23T09:00:00+08:00")
    back = [a for a in third["actions"] if a["action"] == "promote"]  # type: ignore[union-attr]
    assert back and "after its demotion on 2026-12-15" in back[0]["reason"]
    assert "- 我喜欢用 pnpm，不要用 npm\n" in (ws / "MEMORY.md").read_text()
    assert "pnpm" not in (ws / "memory" / "archive" / "core-cold.md").read_text()


def test_a_mention_keeps_a_core_entry_warm(cli: Invoke, ws: Path) -> None:
    gc(cli, ws)
    write(ws, "memory/2026-12-01.md", "# 2026-12-01\n\n- 我喜欢用 pnpm，不要用 npm\n")
    later = gc(cli, ws, now="2026-12-15T09:00:00+08:00")
    assert not [a for a in later["actions"] if a["action"] == "demote"]  # type: ignore[union-attr]


def test_the_budget_demotes_the_least_recently_used_first(cli: Invoke, ws: Path) -> None:
    gc(cli, ws)  # first run: every core entry recorded today
    write(ws, "memcli.toml", "core_max_chars = 110\n")
    write(ws, "memory/2026-11-10.md", "# 2026-11-10\n\n- 我们决定数据库改用 PostgreSQL 16，端口 5433\n")
    plan = gc(cli, ws, now="2026-11-12T09:00:00+08:00")
    actions = plan["actions"]
    demote = [a for a in actions if a["action"] == "demote"]  # type: ignore[union-attr]
    assert demote and "making room for memory/2026-11-10.md:3" in demote[0]["reason"]
    assert any(a["action"] == "promote" for a in actions)  # type: ignore[union-attr]
    assert len((ws / "MEMORY.md").read_text()) <= 110


def test_an_older_fact_does_not_push_out_entries_used_since(cli: Invoke, ws: Path) -> None:
    gc(cli, ws)  # first run: every core entry recorded on 2026-10-31
    write(ws, "memcli.toml", "core_max_chars = 110\n")
    # a note from before that day, filed late: what it says is older than MEMORY.md's use
    write(ws, "memory/2026-10-25.md", "# 2026-10-25\n\n- 我们决定数据库改用 PostgreSQL 16，端口 5433\n")
    plan = gc(cli, ws, "--dry-run", now="2026-11-12T09:00:00+08:00")
    assert not [a for a in plan["actions"] if a["action"] in ("demote", "promote")]  # type: ignore[union-attr]
    assert any("every entry it could demote was used more recently" in n for n in plan["notes"])  # type: ignore[union-attr]


def test_a_full_memory_on_the_first_run_gives_one_note_not_one_per_entry(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "w"
    write(root, "MEMORY.md", "# M\n\n- " + "x" * 200 + "\n")
    write(root, "memcli.toml", "core_max_chars = 100\n")
    facts = [f"- remember: server {n} listens on port {5000 + n}" for n in range(6)]
    write(root, "memory/2026-10-20.md", "# 2026-10-20\n\n" + "\n".join(facts) + "\n")
    plan = gc(cli, root, "--dry-run")
    notes = [n for n in plan["notes"] if n.startswith("no room")]  # type: ignore[union-attr]
    assert len(notes) == 1
    assert "and 3 more: over 100 characters, and the first run demotes nothing" in notes[0]
    assert "promote" not in plan["counts"]  # type: ignore[operator]


def test_merge_leaves_labels_same_day_copies_and_bare_topics_in_their_notes(
    cli: Invoke, tmp_path: Path
) -> None:
    root = tmp_path / "w"
    body = (
        "**Rationale:**\n\n- the deploy script retries three times before giving up\n\n"
        "- ✅ staging deployed\n- 监控告警\n"
    )
    write(root, "memory/2026-10-26.md", "# 2026-10-26\n\n" + body)
    write(root, "memory/2026-10-26-compressed.md", "# 2026-10-26 (compressed)\n\n" + body)
    write(root, "memory/2026-10-28.md", "# 2026-10-28\n\n" + body)
    plan = gc(cli, root, "--dry-run")
    merged = [(a["from"], a["text"]) for a in plan["actions"] if a["action"] == "merge"]  # type: ignore[union-attr]
    # only the retry fact written again two days later folds into its first copy
    assert merged == [("memory/2026-10-28.md:5", "- the deploy script retries three times before giving up")]


def test_supersede_and_correction(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "w"
    write(root, "MEMORY.md", "# M\n\n## Environment\n\n- 数据库用 MySQL 8\n- Redis 跑在 6379 端口\n")
    write(root, "memory/2026-10-26.md", "# 2026-10-26\n\n- the API rate limit is 1000 req/min\n")
    write(root, "memory/2026-10-27.md", "# 2026-10-27\n\n- 数据库改用 PostgreSQL 16，不再用 MySQL\n")
    write(
        root,
        "memory/2026-10-28.md",
        "# 2026-10-28\n\n- that's wrong: the API rate limit is 100 req/min, not 1000\n",
    )
    plan = gc(cli, root)
    retired = {a["from"]: a for a in plan["actions"] if a["action"] == "supersede"}  # type: ignore[union-attr]
    assert set(retired) == {"MEMORY.md:5", "memory/2026-10-26.md:3"}
    assert retired["MEMORY.md:5"]["by"] == "memory/2026-10-27.md:3"
    assert retired["memory/2026-10-26.md:3"]["reason"] == "corrected by memory/2026-10-28.md:3"
    memory = (root / "MEMORY.md").read_text()
    assert "MySQL 8" not in memory and "数据库改用 PostgreSQL 16，不再用 MySQL" in memory and "6379" in memory
    superseded = (root / "memory" / "archive" / "superseded.md").read_text()
    assert "- 数据库用 MySQL 8 <!-- memcli: superseded 2026-10-31 by memory/2026-10-27.md:3" in superseded


# --- restore, purge, show -------------------------------------------------------------------


def test_restore_brings_back_a_dropped_entry_and_undo_takes_it_again(cli: Invoke, ws: Path) -> None:
    gc(cli, ws)
    assert "好的" not in (ws / "memory" / "2026-10-29.md").read_text()
    restored = as_json(cli("--json", "-w", str(ws), "--now", NOW, "restore", "好的"))
    assert restored["restored"]["to"] == "memory/2026-10-29.md"
    assert (ws / "memory" / "2026-10-29.md").read_text().endswith("- 好的\n")
    again = cli("-w", str(ws), "--now", NOW, "restore", "好的")
    assert again.exit_code == 3 and "no dropped or archived entry" in again.stderr
    assert cli("-w", str(ws), "--now", NOW, "undo").exit_code == 0
    assert "好的" not in (ws / "memory" / "2026-10-29.md").read_text()


def test_restore_returns_a_superseded_core_entry_to_memory(cli: Invoke, sample: Path) -> None:
    gc(cli, sample)
    # (the note line "Lin uses Windows 11, paths need backslashes" is superseded too: name the one)
    data = as_json(cli("--json", "-w", str(sample), "--now", NOW, "restore", "mind the backslashes"))
    assert data["restored"]["to"] == "MEMORY.md"
    memory = (sample / "MEMORY.md").read_text()
    assert memory.endswith("- Lin uses Windows 11; mind the backslashes in paths\n")
    assert "mind the backslashes" not in (sample / "memory" / "archive" / "superseded.md").read_text()


def test_show_tells_an_entrys_history(cli: Invoke, sample: Path) -> None:
    plan = gc(cli, sample)
    promoted = next(a for a in plan["actions"] if a["action"] == "promote")  # type: ignore[union-attr]
    shown = as_json(cli("--json", "-w", str(sample), "show", promoted["id"]))
    assert [e["action"] for e in shown["events"]][:1] == ["promote"]
    assert shown["events"][0]["from"] == promoted["from"]
    text = cli("-w", str(sample), "show", "nothing-like-this")
    assert text.exit_code == 0 and "no history" in text.stderr


def test_purge_deletes_only_trash_and_old_undo_data(cli: Invoke, ws: Path) -> None:
    gc(cli, ws)
    trash = list((ws / ".memcli" / "trash").iterdir())
    assert trash
    kept = as_json(cli("--json", "-w", str(ws), "--now", NOW, "purge", "--older-than", "30"))
    assert kept["trash"] == [] and kept["journals"] == []
    future = "2027-03-01T09:00:00+08:00"
    gone = as_json(cli("--json", "-w", str(ws), "--now", future, "purge", "--older-than", "30"))
    assert len(gone["trash"]) == len(trash) and len(gone["journals"]) == 1
    assert not list((ws / ".memcli" / "trash").iterdir())
    assert (ws / ".memcli" / "ledger.jsonl").is_file() and (ws / "MEMORY.md").is_file()
    nothing = cli("-w", str(ws), "--now", future, "undo")
    assert nothing.exit_code == 0 and "nothing to undo" in nothing.stderr


def test_undo_refuses_when_a_file_changed_since(cli: Invoke, ws: Path) -> None:
    gc(cli, ws)
    note = ws / "memory" / "2026-10-29.md"
    note.write_text(note.read_text().replace("deployed", "DEPLOYED"))
    refused = cli("-w", str(ws), "--now", NOW, "undo")
    assert refused.exit_code == 4 and "memory/2026-10-29.md" in refused.stderr and "--force" in refused.stderr
    forced = as_json(cli("--json", "-w", str(ws), "--now", NOW, "undo", "--force"))
    assert "memory/2026-10-29.md" in forced["restored"]
    assert "- 好的" in note.read_text()


def test_undo_keeps_lines_appended_after_gc(cli: Invoke, ws: Path) -> None:
    before = live(ws)
    gc(cli, ws)
    with (ws / "MEMORY.md").open("a", encoding="utf-8") as f:
        f.write("- appended by the agent\n")
    assert cli("-w", str(ws), "--now", NOW, "undo").exit_code == 0
    assert (ws / "MEMORY.md").read_bytes() == before["MEMORY.md"] + b"- appended by the agent\n"


# --- real workspaces -------------------------------------------------------------------------


@pytest.mark.parametrize("workspace", corpus_workspaces(), ids=lambda p: p.name)
def test_gc_applies_on_each_corpus_workspace_and_undo_restores_it(
    cli: Invoke, workspace: Path, tmp_path: Path
) -> None:
    root = copy_tree(workspace, tmp_path / workspace.name)
    before = live(root)
    now = "2026-06-01T09:00:00+00:00"
    plan = gc(cli, root, "--force", now=now)
    assert plan["applied"] is True
    print(workspace.name, plan["counts"])
    assert gc(cli, root, "--dry-run", now=now)["actions"] == []
    assert cli("-w", str(root), "--now", now, "undo").exit_code == 0
    assert live(root) == before


def test_a_gc_that_changes_nothing_records_no_transaction(cli: Invoke, sample: Path) -> None:
    first = as_json(cli("--json", "-w", str(sample), "--now", NOW, "gc", "--force"))
    assert first["applied"] is True
    journals = sample / ".memcli" / "journal"
    made = sorted(journals.iterdir())
    before = tree_bytes(sample)
    again = cli("-w", str(sample), "--now", NOW, "gc")
    assert again.exit_code == 0 and "nothing to do" in again.stderr and "applied" not in again.stderr
    assert sorted(journals.iterdir()) == made
    after = tree_bytes(sample)
    changed = {rel for rel in after.keys() | before.keys() if after.get(rel) != before.get(rel)}
    assert changed <= {".memcli/ledger.jsonl", ".memcli/cache.sqlite", ".memcli/cache.sqlite-wal"}
    # undo reverts the gc that changed something, and says which
    undone = as_json(cli("--json", "-w", str(sample), "--now", NOW, "undo"))
    assert undone["transaction"] == first["transaction"] and undone["command"] == "gc"
    assert undone["time"].startswith("2026-10-31T09:00") and undone["restored"]
    said = cli("-w", str(sample), "--now", NOW, "undo")
    assert said.exit_code == 0 and "nothing to undo" in said.stderr


def test_undo_says_what_it_reverted(cli: Invoke, sample: Path) -> None:
    assert cli("-w", str(sample), "--now", NOW, "gc", "--force").exit_code == 0
    result = cli("-w", str(sample), "--now", NOW, "undo")
    assert result.exit_code == 0
    assert "undid `memcli gc` of 2026-10-31T09:00" in result.stderr and "file(s)" in result.stderr
