"""memcli check (SPEC §11): what it finds, its exit codes, FILES as pre-commit passes them,
read-only unless --fix, and --fix as one transaction undo reverts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FAKE_OPENAI_KEY, NOW, Invoke, tree_bytes, tree_state

OPENAI = FAKE_OPENAI_KEY


def check(cli: Invoke, root: Path, *args: str) -> tuple[int, dict[str, object]]:
    import json

    result = cli("--json", "-w", str(root), "--now", NOW, "check", *args)
    assert result.exit_code in (0, 1), (result.exit_code, result.stderr)
    return result.exit_code, json.loads(result.stdout)


def findings(report: dict[str, object], kind: str | None = None) -> list[dict[str, object]]:
    found: list[dict[str, object]] = report["findings"]  # type: ignore[assignment]
    return [f for f in found if kind is None or f["check"] == kind]


def test_the_sample_workspace_is_clean_and_untouched(cli: Invoke, sample: Path) -> None:
    before = tree_state(sample)
    code, report = check(cli, sample)
    assert code == 0 and report["ok"] is True and report["errors"] == 0
    assert "MEMORY.md" in report["files"] and "sessions.json" in report["files"]  # type: ignore[operator]
    assert tree_state(sample) == before  # read-only: not even .memcli/ is created


def test_a_secret_in_memory_fails_with_a_clear_redacted_message(cli: Invoke, ws: Path) -> None:
    with open(ws / "MEMORY.md", "a", encoding="utf-8") as f:
        f.write(f"- OpenAI key for the bot: {OPENAI}\n")
    result = cli("-w", str(ws), "--now", NOW, "check")
    assert result.exit_code == 1
    assert "MEMORY.md:7: error: OpenAI API key" in result.stdout and "[secret]" in result.stdout
    assert "rotate" in result.stdout and OPENAI not in result.stdout + result.stderr
    assert "check failed: 1 error(s)" in result.stderr
    code, report = check(cli, ws)
    assert code == 1 and [f["line"] for f in findings(report, "secret")] == [7]


def test_an_allow_marker_lets_a_line_keep_its_secret(cli: Invoke, ws: Path) -> None:
    with open(ws / "MEMORY.md", "a", encoding="utf-8") as f:
        f.write(f"- test fixture key {OPENAI} <!-- memcli: allow-secret -->\n")
    assert check(cli, ws)[0] == 0


def test_conflict_markers_broken_front_matter_and_binary_files_are_errors(cli: Invoke, ws: Path) -> None:
    memory = ws / "memory"
    (memory / "2026-10-20.md").write_text(
        "# 2026-10-20\n\n<<<<<<< HEAD\n- 周会改到周四\n=======\n- 周会改到周五\n>>>>>>> other\n",
        encoding="utf-8",
    )
    (memory / "2026-10-21.md").write_text("---\ntitle: notes\ntags: [a\n- oops\n", encoding="utf-8")
    (memory / "2026-10-22.md").write_text("---\ntitle: [unclosed\n---\n\n- x\n", encoding="utf-8")
    (memory / "2026-10-23.md").write_text("---\n\n# A rule, not front matter\n\n- ok\n", encoding="utf-8")
    (memory / "2026-10-24.md").write_bytes("# 2026-10-24\n\n- caf\xe9\n".encode("latin-1"))
    (memory / "2026-10-25.md").write_bytes(b"# x\n\x00\x01\x02")
    code, report = check(cli, ws)
    assert code == 1
    got = {(f["file"], f["check"]) for f in findings(report) if f["severity"] == "error"}
    assert got == {
        ("memory/2026-10-20.md", "conflict"),
        ("memory/2026-10-21.md", "front-matter"),
        ("memory/2026-10-22.md", "front-matter"),
        ("memory/2026-10-24.md", "file"),
        ("memory/2026-10-25.md", "file"),
    }
    conflict = findings(report, "conflict")[0]
    assert conflict["line"] == 3
    assert "line 3" in str(
        next(f for f in findings(report, "file") if "2026-10-24" in str(f["file"]))["message"]
    )


def test_a_daily_note_whose_name_is_not_a_date_is_an_error(cli: Invoke, ws: Path) -> None:
    (ws / "memory" / "2026-13-45.md").write_text("# ?\n\n- x\n", encoding="utf-8")
    code, report = check(cli, ws)
    assert code == 1 and [f["file"] for f in findings(report, "name")] == ["memory/2026-13-45.md"]


def test_memory_md_past_openclaws_cap_is_an_error_over_the_budget_a_warning(cli: Invoke, ws: Path) -> None:
    core = ws / "MEMORY.md"
    core.write_text(
        "# M\n\n" + "".join(f"- fact number {n} about the 部署流程\n" for n in range(700)), "utf-8"
    )
    code, report = check(cli, ws)
    assert code == 1
    budget = findings(report, "budget")[0]
    assert (
        budget["severity"] == "error"
        and "20,000" in str(budget["message"])
        and "tokens" in str(budget["message"])
    )
    core.write_text(
        "# M\n\n" + "".join(f"- fact number {n} about the 部署流程\n" for n in range(400)), "utf-8"
    )
    code, report = check(cli, ws)
    assert code == 0 and findings(report, "budget")[0]["severity"] == "warning"
    assert "12,000" in str(findings(report, "budget")[0]["message"])
    assert cli("-w", str(ws), "--now", NOW, "check", "--strict").exit_code == 1  # warnings fail too


def test_stale_and_contradictory_core_entries_are_warnings(cli: Invoke, ws: Path) -> None:
    with open(ws / "MEMORY.md", "a", encoding="utf-8") as f:
        f.write("- 用 npm 安装依赖\n- 不再用 npm，改用 pnpm 安装依赖\n- v3.0 release deadline 2026-09-15\n")
        f.write("- deploy on fridays is allowed\n- deploy on fridays is not allowed\n")
    code, report = check(cli, ws)
    assert code == 0
    stale = findings(report, "stale")
    assert [f["line"] for f in stale] == [9]
    contra = {
        (f["line"], str(f["message"]).split(": ")[1].split(" ")[0]) for f in findings(report, "contradiction")
    }
    assert (7, "MEMORY.md:8") in contra and (10, "MEMORY.md:11") in contra


def test_fix_removes_exact_copies_within_a_note_and_undo_restores_them(cli: Invoke, ws: Path) -> None:
    note = ws / "memory" / "2026-10-20.md"
    note.write_text(
        "# 2026-10-20\n\n- 周会改到周四上午十点\n- deploy atlas-api to staging\n- 周会改到周四上午十点。\n",
        encoding="utf-8",
    )
    today = ws / "memory" / "2026-10-31.md"
    today.write_text(
        "# 2026-10-31\n\n- ship the hotfix tonight\n- ship the hotfix tonight\n", encoding="utf-8"
    )
    original = tree_bytes(ws)
    code, report = check(cli, ws)
    dups = findings(report, "duplicate")
    assert code == 0 and {(f["file"], f["fixable"]) for f in dups} == {
        ("memory/2026-10-20.md", True),
        ("memory/2026-10-31.md", False),  # today's note: agents append to it, memcli does not rewrite it
    }
    code, report = check(cli, ws, "--fix")
    assert [f["line"] for f in report["fixed"]] == [5]  # type: ignore[union-attr]
    assert report["transaction"]
    assert (
        note.read_text(encoding="utf-8")
        == "# 2026-10-20\n\n- 周会改到周四上午十点\n- deploy atlas-api to staging\n"
    )
    assert today.read_bytes() == original["memory/2026-10-31.md"]
    assert cli("-w", str(ws), "--now", NOW, "undo").exit_code == 0
    after = {k: v for k, v in tree_bytes(ws).items() if not k.startswith(".memcli/")}
    assert after == original


def test_files_are_checked_against_their_own_workspaces(
    cli: Invoke, ws: Path, sample: Path, tmp_path: Path
) -> None:
    with open(ws / "MEMORY.md", "a", encoding="utf-8") as f:
        f.write(f"- key {OPENAI}\n")
    loose = tmp_path / "elsewhere" / "notes.md"
    loose.parent.mkdir()
    loose.write_text("- 数据库密码：Xk9#mQ2v!pL7\n", encoding="utf-8")
    code, report = check(cli, ws, str(ws / "MEMORY.md"), str(sample / "memory" / "2026-10-14.md"), str(loose))
    assert code == 1
    assert {(f["file"], f["check"]) for f in findings(report) if f["severity"] == "error"} == {
        ("MEMORY.md", "secret"),
        (str(loose), "secret"),
    }
    assert set(report["files"]) == {"MEMORY.md", "memory/2026-10-14.md", str(loose)}  # type: ignore[arg-type]


def test_files_from_a_pre_commit_run_use_paths_relative_to_the_repository(sample: Path) -> None:
    (sample / "sessions.json").write_text('{"agent:main:main": {', encoding="utf-8")
    (sample / "memcli.toml").write_text("half_life_days = -3\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMCLI_")}
    run = subprocess.run(
        [sys.executable, "-m", "memcli", "check", "MEMORY.md", "sessions.json", "memcli.toml"],
        cwd=sample,
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 1, run.stderr
    assert "sessions.json:1: error: is not valid JSON" in run.stdout
    assert "memcli.toml: error:" in run.stdout and "half_life_days" in run.stdout


@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(st.characters(blacklist_categories=("Cs",)), max_size=300))
def test_any_note_gives_a_verdict_never_a_crash(cli: Invoke, tmp_path: Path, text: str) -> None:
    root = tmp_path / "fuzz"
    (root / "memory").mkdir(parents=True, exist_ok=True)
    (root / "memory" / "2026-10-20.md").write_text(text, encoding="utf-8")
    result = cli("--json", "-w", str(root), "--now", NOW, "check")
    assert result.exit_code in (0, 1), result.stderr


def test_a_note_linked_out_of_the_workspace_is_reported_not_read(
    cli: Invoke, ws: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text(f"- {OPENAI}\n", encoding="utf-8")
    (ws / "memory" / "2026-10-20.md").symlink_to(outside)
    code, report = check(cli, ws)
    assert code == 1
    [finding] = [f for f in findings(report) if f["file"] == "memory/2026-10-20.md"]
    assert finding["check"] == "file" and "outside" in str(finding["message"])
