"""MEMORY.md's budget on request (`gc --fit`) and what gc may archive (issue 17, points 5
and 6; SPEC §7)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import NOW, Invoke, as_json

# MEMORY.md of 16 entries, bilingual, 455 characters: over a budget of 360
CORE = (
    "# MEMORY.md\n\n## Preferences\n\n"
    "- I prefer tables for comparisons, always #pin\n"
    "- 以后回复一律用中文，技术名词保留英文\n"
    "- Never push directly to main; open a pull request\n"
    "- 我习惯先写测试再写实现\n"
    "\n## Environment\n\n"
    "- The build server is ci-02.internal, port 8443\n"
    "- 数据库备份放在 /srv/backup/pg，每晚三点\n"
    "- atlas-api runs on Python 3.12 with uv\n"
    "- 前端用 pnpm，不要用 npm\n"
    "\n## Notes\n\n"
    "- looked at the dashboard\n"
    "- 看了一下日志\n"
    "- reviewed a PR\n"
    "- 跑了一遍测试\n"
    "- the standup was short\n"
    "- 和 Priya 聊了聊\n"
    "- coffee machine fixed\n"
    "- 今天下雨\n"
)


def workspace(root: Path, budget: int) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(CORE, encoding="utf-8")
    (root / "memcli.toml").write_text(
        f'timezone = "Asia/Shanghai"\ncore_max_chars = {budget}\n', encoding="utf-8"
    )
    return root


def gc(cli: Invoke, root: Path, *args: str) -> dict:  # type: ignore[type-arg]
    return as_json(cli("--json", "-w", str(root), "--now", NOW, "gc", *args))  # type: ignore[no-any-return]


def test_a_nightly_gc_warns_with_the_figures_and_demotes_nothing(cli: Invoke, tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws", 360)
    plan = gc(cli, root)
    assert [a for a in plan["actions"] if a["action"] == "demote"] == []
    (note,) = [n for n in plan["notes"] if "core_max_chars" in n]
    size = len(CORE)
    assert f"{size:,} characters, over core_max_chars (360)" in note
    assert "`memcli gc --fit` would demote" in note
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == CORE


def test_gc_fit_demotes_the_least_valuable_until_memory_md_fits(cli: Invoke, tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws", 360)
    preview = gc(cli, root, "--fit", "--dry-run")
    demoted = [a["text"] for a in preview["actions"] if a["action"] == "demote"]
    assert demoted and all("--fit" in a["reason"] for a in preview["actions"] if a["action"] == "demote")
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == CORE  # a preview
    applied = gc(cli, root, "--fit")
    assert applied["applied"]
    core = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert len(core) <= 360
    # the least valuable went first: logs of the Notes section, in both languages, before any
    # rule or environment fact; the pinned preference stays
    notes_section = CORE.split("## Notes\n\n")[1]
    assert all(text in notes_section for text in demoted)
    assert any(ord(ch) > 0x3000 for text in demoted for ch in text)  # a Chinese one too
    assert CORE.split("## Notes")[0] in core
    cold = (root / "memory" / "archive" / "core-cold.md").read_text(encoding="utf-8")
    assert all(text.lstrip("- ") in cold for text in demoted)
    assert cli("-w", str(root), "--now", NOW, "undo").exit_code == 0
    assert (root / "MEMORY.md").read_text(encoding="utf-8") == CORE


def test_gc_fit_on_a_memory_md_within_budget_does_nothing(cli: Invoke, tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws", 12_000)
    plan = gc(cli, root, "--fit", "--dry-run")
    assert [a for a in plan["actions"] if a["action"] == "demote"] == []
    assert not [n for n in plan["notes"] if "core_max_chars" in n]


# --- archive scope ---------------------------------------------------------------------------

NOTE = "# {day}\n\n- deployed atlas-api build 7 on port 8080\n- 和 Priya 对了一下 v3.1 的范围\n"


def dated_notes(root: Path) -> dict[str, str]:
    placed = {
        "memory/2026-08-03.md": "2026-08-03",
        "memory/daily/2026-08-04.md": "2026-08-04",
        "memory/projects/2026-08-05-atlas.md": "2026-08-05",
        "memory/P0/2026-08-06.md": "2026-08-06",
    }
    (root / "memory").mkdir(parents=True, exist_ok=True)
    (root / "MEMORY.md").write_text("# MEMORY.md\n", encoding="utf-8")
    for rel, day in placed.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(NOTE.format(day=day), encoding="utf-8")
    return placed


def archived(plan: dict) -> set[str]:  # type: ignore[type-arg]
    return {a["files"][0] for a in plan["actions"] if a["action"] == "archive"}


def test_only_daily_notes_are_summarised_and_archived(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    dated_notes(root)
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n', encoding="utf-8")
    plan = gc(cli, root, "--dry-run")
    assert archived(plan) == {"memory/2026-08-03.md", "memory/daily/2026-08-04.md"}
    summarised = {f for a in plan["actions"] if a["action"] == "summarize" for f in a["files"]}
    assert summarised == {"memory/2026-08-03.md", "memory/daily/2026-08-04.md"}


def test_archive_globs_names_more_notes_to_archive(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    dated_notes(root)
    (root / "memcli.toml").write_text(
        'timezone = "Asia/Shanghai"\narchive_globs = ["memory/projects/*.md"]\n', encoding="utf-8"
    )
    plan = gc(cli, root, "--dry-run")
    assert archived(plan) == {
        "memory/2026-08-03.md",
        "memory/daily/2026-08-04.md",
        "memory/projects/2026-08-05-atlas.md",
    }


def test_archive_globs_from_the_environment_and_a_wrong_type_is_refused(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    dated_notes(root)
    env = {"MEMCLI_ARCHIVE_GLOBS": "memory/P0/*.md, memory/projects/*.md"}
    result = cli("--json", "-w", str(root), "--now", NOW, "gc", "--dry-run", env=env)
    assert result.exit_code == 0, result.stderr
    assert "memory/P0/2026-08-06.md" in archived(json.loads(result.stdout))
    (root / "memcli.toml").write_text('archive_globs = "memory/*.md"\n', encoding="utf-8")
    wrong = cli("-w", str(root), "--now", NOW, "gc", "--dry-run")
    assert wrong.exit_code == 3 and "archive_globs must be a list" in wrong.stderr
