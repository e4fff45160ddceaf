"""Workspace discovery, file roles and daily-note names (SPEC §1)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memcli.core.roles import BadName, MemoryFile, Role, classify, name_date
from memcli.errors import UsageError
from memcli.workspace.layout import discover, scan


@pytest.mark.parametrize(
    ("rel", "role", "day"),
    [
        ("MEMORY.md", Role.CORE, None),
        ("memory.md", Role.CORE, None),
        ("AGENTS.md", Role.BOOTSTRAP, None),
        ("SOUL.md", Role.BOOTSTRAP, None),
        ("USER.md", Role.BOOTSTRAP, None),
        ("README.md", Role.OTHER, None),
        ("memory/2026-03-04.md", Role.DAILY, date(2026, 3, 4)),
        ("memory/diary/2026-03-24.md", Role.DAILY, date(2026, 3, 24)),
        ("memory/2026-03-24-compressed.md", Role.DAILY_SLUG, date(2026, 3, 24)),
        ("memory/2026-04-03-2315-progress.md", Role.DAILY_SLUG, date(2026, 4, 3)),
        ("memory/2026-02-15_AGNI_CONTEXT_SYNC.md", Role.DAILY_SLUG, date(2026, 2, 15)),
        ("memory/summaries/2026-W44.md", Role.SUMMARY, None),
        ("memory/archive/2026/03/2026-03-04.md", Role.ARCHIVE, date(2026, 3, 4)),
        ("memory/PITFALLS.md", Role.OTHER, None),
        ("memory/auto-execution-log-20260327.md", Role.OTHER, None),
    ],
)
def test_roles_and_dates_from_names(rel: str, role: Role, day: date | None) -> None:
    verdict = classify(rel)
    assert isinstance(verdict, MemoryFile)
    assert (verdict.role, verdict.date) == (role, day)


@pytest.mark.parametrize(
    ("stem", "reason"),
    [
        ("2026-13-01", "not a real date"),
        ("2026-02-30", "not a real date"),
        ("260131", "two-digit year"),
        ("20260131", "without dashes"),
        ("2026-03-04T10:00", "timestamp"),
        ("2026-03-04T10-00-00Z", "timestamp"),
        ("2026-03-04 1030", "timestamp"),
        ("2026-03-04_10-30", "timestamp"),
        ("1711929600", "epoch"),
        ("2026_03_04", "'_' or '.'"),
        ("2026.03.04", "'_' or '.'"),
        ("2026-3-4", "leading zeros"),
    ],
)
def test_bad_daily_note_names_are_reported_with_a_reason(stem: str, reason: str) -> None:
    verdict = classify(f"memory/{stem}.md")
    assert isinstance(verdict, BadName)
    assert reason in verdict.reason
    assert name_date(stem)[0] is None


def test_evergreen_and_memory_membership() -> None:
    core = classify("MEMORY.md")
    undated = classify("memory/PITFALLS.md")
    daily = classify("memory/2026-03-04.md")
    soul = classify("SOUL.md")
    readme = classify("README.md")
    assert isinstance(core, MemoryFile) and core.evergreen and core.is_memory
    assert isinstance(undated, MemoryFile) and undated.evergreen and undated.is_memory
    assert isinstance(daily, MemoryFile) and not daily.evergreen and daily.is_memory
    assert isinstance(soul, MemoryFile) and not soul.is_memory
    assert isinstance(readme, MemoryFile) and not readme.is_memory


def test_scan_classifies_skips_hidden_and_collects_temp_files(tmp_path: Path) -> None:
    root = tmp_path
    (root / "memory" / ".dreams").mkdir(parents=True)
    (root / "memory" / "summaries").mkdir()
    (root / "MEMORY.md").write_text("# M\n")
    (root / "SOUL.md").write_text("# S\n")
    (root / "memory" / "2026-10-01.md").write_text("- a\n")
    (root / "memory" / "2026-13-01.md").write_text("- b\n")
    (root / "memory" / "notes.json").write_text("{}")
    (root / "memory" / ".dreams" / "x.md").write_text("- hidden\n")
    (root / "memory" / "summaries" / "2026-W40.md").write_text("- s\n")
    (root / "memory" / ".2026-10-01.md.99999.ab12cd34.memcli-tmp").write_text("partial")
    layout = scan(root)
    assert [(f.rel, f.role.value) for f in layout.files] == [
        ("MEMORY.md", "core"),
        ("SOUL.md", "bootstrap"),
        ("memory/2026-10-01.md", "daily"),
        ("memory/summaries/2026-W40.md", "summary"),
    ]
    assert [b.rel for b in layout.bad_names] == ["memory/2026-13-01.md"]
    assert layout.temp_files == ("memory/.2026-10-01.md.99999.ab12cd34.memcli-tmp",)


def make_ws(path: Path) -> Path:
    (path / "memory").mkdir(parents=True)
    return path


def test_discovery_order(tmp_path: Path) -> None:
    explicit = make_ws(tmp_path / "explicit")
    from_env = make_ws(tmp_path / "env")
    cwd = make_ws(tmp_path / "cwd")
    home = tmp_path / "home"
    state = tmp_path / "state"
    make_ws(state / "workspace")
    make_ws(home / ".openclaw" / "workspace")
    env = {"MEMCLI_WORKSPACE": str(from_env), "OPENCLAW_STATE_DIR": str(state)}

    assert discover(str(explicit), env, cwd, home) == explicit.resolve()
    assert discover(None, env, cwd, home) == from_env.resolve()
    assert discover(None, {"OPENCLAW_STATE_DIR": str(state)}, cwd, home) == cwd.resolve()
    plain = tmp_path / "plain"
    plain.mkdir()
    assert discover(None, {"OPENCLAW_STATE_DIR": str(state)}, plain, home) == (state / "workspace").resolve()
    assert discover(None, {}, plain, home) == (home / ".openclaw" / "workspace").resolve()


def test_discovery_failures_are_usage_errors_with_a_hint(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(UsageError, match="no workspace found") as info:
        discover(None, {}, plain, tmp_path / "nohome")
    assert info.value.hint and "memcli init" in info.value.hint
    with pytest.raises(UsageError, match="is not a folder"):
        discover(str(tmp_path / "missing"), {}, plain, tmp_path)
    with pytest.raises(UsageError, match="MEMCLI_WORKSPACE"):
        discover(None, {"MEMCLI_WORKSPACE": str(tmp_path / "missing")}, plain, tmp_path)
