"""Promotion (core.judgement.promotion): what goes to MEMORY.md and under which heading
(SPEC §7: promote facts, not logs). English and Chinese, texts of our own."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import NOW, Invoke, as_json
from memcli.core.entries import parse
from memcli.core.judgement import promotion
from memcli.core.scoring import Reason

DAY = "2026-10-28"  # closed (before yesterday) and inside the short-term window


def workspace(root: Path, memory: str, note: str) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text(memory, encoding="utf-8")
    (root / "memory" / f"{DAY}.md").write_text(f"# {DAY}\n\n{note}", encoding="utf-8")
    return root


def promoted(cli: Invoke, root: Path) -> list[dict[str, str]]:
    report = as_json(cli("--json", "-w", str(root), "--now", NOW, "gc", "--dry-run"))
    return [a for a in report["actions"] if a["action"] == "promote"]


def sections(text: str) -> dict[str, list[str]]:
    """MEMORY.md's `##` sections and their list items."""
    out: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            out[current] = []
        elif line.startswith("- ") and current:
            out[current].append(line)
    return out


@pytest.mark.parametrize(
    ("memory", "note", "expect"),
    [
        (
            "# MEMORY.md\n\n## Preferences\n\n## Environment\n\n## Decisions\n\n## Knowledge\n",
            "- I prefer tables for comparisons.\n"
            "- The invoices live in Drive › Finance.\n"
            "- We decided to drop Python 3.9 support.\n"
            "- Lesson: the webhook signature covers the raw body.\n",
            {
                "Preferences": "- I prefer tables for comparisons.",
                "Environment": "- The invoices live in Drive › Finance.",
                "Decisions": "- We decided to drop Python 3.9 support.",
                "Knowledge": "- Lesson: the webhook signature covers the raw body.",
            },
        ),
        (
            "# 长期记忆\n\n## 偏好\n\n## 环境与工具\n\n## 决策记录\n\n## 经验教训\n",
            "- 我习惯晚上写代码，早上开会。\n"
            "- 合同模板放在共享盘的法务文件夹里。\n"
            "- 决定：客服系统换成 Zendesk。\n"
            "- 教训：批量接口一次最多传 100 条。\n",
            {
                "偏好": "- 我习惯晚上写代码，早上开会。",
                "环境与工具": "- 合同模板放在共享盘的法务文件夹里。",
                "决策记录": "- 决定：客服系统换成 Zendesk。",
                "经验教训": "- 教训：批量接口一次最多传 100 条。",
            },
        ),
    ],
)
def test_a_core_entry_goes_under_the_heading_that_fits_it(
    cli: Invoke, tmp_path: Path, memory: str, note: str, expect: dict[str, str]
) -> None:
    root = workspace(tmp_path / "ws", memory, note)
    assert len(promoted(cli, root)) == len(expect)
    applied = cli("-w", str(root), "--now", NOW, "gc", "--force")
    assert applied.exit_code == 0, applied.stderr
    found = sections((root / "MEMORY.md").read_text(encoding="utf-8"))
    for title, line in expect.items():
        assert any(item.startswith(line) for item in found[title]), (title, found)


@pytest.mark.parametrize(
    ("memory", "note", "title"),
    [
        (
            "# MEMORY.md\n\n## People\n\n- Sam is the designer\n",
            "- Lesson: retry the upload once, then alert.\n",
            "Knowledge",
        ),
        ("# 记忆\n\n## 人物\n\n- 小王是设计师\n", "- 教训：上传失败先重试一次，再报警。\n", "经验教训"),
    ],
)
def test_a_new_section_speaks_the_language_of_memory_md(
    cli: Invoke, tmp_path: Path, memory: str, note: str, title: str
) -> None:
    root = workspace(tmp_path / "ws", memory, note)
    assert cli("-w", str(root), "--now", NOW, "gc", "--force").exit_code == 0
    assert f"## {title}" in (root / "MEMORY.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "note",
    [
        "- [ ] Always tag the release\n- [ ] 以后每次发布都打标签\n",  # open to-dos
        "> Always be shipping.\n\n> 永远不要停止学习。\n",  # quotes
        "| rule | always |\n|---|---|\n| 以后 | 一律 |\n",  # a table
        "```\n# always run make first\nmake setup\n```\n",  # code
        # stamped facts that state no rule: a log of their moment
        "- **09:40** — the deploy script is in `/opt/deploy/`\n- **10:15** — 部署脚本放在 `/opt/deploy/`\n",
        "- Tomorrow: always check the logs first\n- 明天以后都先看日志\n",  # time-bounded
    ],
)
def test_logs_and_shapes_that_are_never_core_are_not_promoted(cli: Invoke, tmp_path: Path, note: str) -> None:
    root = workspace(tmp_path / "ws", "# MEMORY.md\n\n## Preferences\n", note)
    assert promoted(cli, root) == []


@pytest.mark.parametrize(
    ("text", "copy"),
    [
        (
            "- **09:40** — From now on, always deploy with the script.",
            "- From now on, always deploy with the script.",
        ),
        ("- [10:15] 以后都用脚本部署，不要手动改服务器。", "- 以后都用脚本部署，不要手动改服务器。"),
    ],
)
def test_a_stamped_standing_rule_is_promoted_without_its_stamp(
    cli: Invoke, tmp_path: Path, text: str, copy: str
) -> None:
    """The label (`--why`) and the promotion agree: a rule said at 09:40 is core, and its
    copy in MEMORY.md leaves the time of day out (core.verbatim)."""
    root = workspace(tmp_path / "ws", "# MEMORY.md\n\n## Preferences\n", f"{text}\n")
    (found,) = promoted(cli, root)
    assert found["reason"].startswith("core: standing")
    assert cli("-w", str(root), "--now", NOW, "gc", "--force").exit_code == 0
    assert copy in (root / "MEMORY.md").read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("text", ["- Always squash commits before merging.", "- 一律使用 UTC 时间。"])
def test_what_memory_md_holds_already_is_not_promoted_again(cli: Invoke, tmp_path: Path, text: str) -> None:
    root = workspace(tmp_path / "ws", f"# MEMORY.md\n\n## Preferences\n\n{text}\n", f"{text}\n")
    assert promoted(cli, root) == []


@pytest.mark.parametrize("words", ["always keep the gateway logs " * 40, "以后都要保留网关日志，" * 60])
def test_a_long_entry_is_a_report_not_a_fact(cli: Invoke, tmp_path: Path, words: str) -> None:
    root = workspace(tmp_path / "ws", "# MEMORY.md\n\n## Preferences\n", f"- {words.strip()}\n")
    assert promoted(cli, root) == []


@pytest.mark.parametrize(
    "text", ["- Remember: the NAS admin port is 5001.", "- 记住：测试环境的端口是 8443。"]
)
def test_remember_this_is_promoted_as_asked(cli: Invoke, tmp_path: Path, text: str) -> None:
    root = workspace(tmp_path / "ws", "# MEMORY.md\n\n## Preferences\n", f"{text}\n")
    found = promoted(cli, root)
    assert [a["reason"] for a in found] == ["asked to remember it"]


@pytest.mark.parametrize("text", ["- Always squash commits before merging.", "- 以后周报都用表格写。"])
def test_a_promotion_says_which_rule_decided(cli: Invoke, tmp_path: Path, text: str) -> None:
    root = workspace(tmp_path / "ws", "# MEMORY.md\n\n## Preferences\n", f"{text}\n")
    (found,) = promoted(cli, root)
    assert found["reason"].startswith("core: standing") and "score" in found["reason"]


# --- the structure of a log ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "log"),
    [
        ("- $ npm install -g pnpm", True),
        ("- `pnpm install`", True),
        ("- Gateway: ✅ running", True),
        ("- 网关：✅ 运行中", True),
        ("- **Status**: done", True),
        ("- **状态**：完成", True),
        ("- *Session ended 23:44*", True),
        ("- | a | b |", True),
        ("- Plan for today:", True),
        ("- 今日计划：", True),
        ("- Always squash commits before merging.", False),
        ("- 一律使用 UTC 时间。", False),
    ],
)
def test_is_log_knows_the_structure_of_a_record(text: str, log: bool) -> None:
    (entry,) = parse(text + "\n", "memory/2026-10-28.md").entries
    assert promotion.is_log(entry) is log


@pytest.mark.parametrize(
    ("rules", "kind"),
    [
        (("preference", "environment"), "preference"),
        (("place",), "environment"),
        (("lesson",), "knowledge"),
        (("decision", "data"), "decision"),
        (("data",), "fact"),
        (("tool use", "environment"), "environment"),  # "Redis 用于会话缓存"
        (("setting field", "data"), "environment"),  # "日损熔断：10%", "紧急停止命令：`/stop`"
        (("personal fact", "place"), "fact"),  # "外婆糖尿病，每天打胰岛素", "Jonah is allergic to peanuts"
    ],
)
def test_the_kind_of_fact_follows_the_rubric(rules: tuple[str, ...], kind: str) -> None:
    assert promotion.category(Reason(r, 1.0, "") for r in rules) == kind


def test_a_title_in_each_language() -> None:
    assert promotion.title("environment", chinese=False) == "Environment"
    assert promotion.title("environment", chinese=True) == "环境"
