"""Routine (core.judgement.routine): recurring activity and status lines are events, not
facts. Learnt from recurrence across the workspace, not only from a cue list; mention
counts promote facts, never routine (SPEC §7). English and Chinese, texts of our own."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest

from conftest import Invoke, as_json
from memcli.core.analysis import Analysis, Reading, TextFacts, analyse, read_texts, standing_of
from memcli.core.entries import parse
from memcli.core.judgement import routine
from memcli.core.judgement.importance import Label, judge
from memcli.core.lifecycle import History, Plan, View, plan
from memcli.core.policy import Policy
from memcli.core.roles import MemoryFile, Role, classify
from memcli.core.rules import DEFAULT_RULES
from memcli.core.scoring import scoring_text
from memcli.core.similarity import normalise

NOW = datetime(2026, 10, 31, 9, 0)
CLI_NOW = "2026-10-31T09:00:00+08:00"
START = date(2026, 10, 10)
CORE = "# MEMORY.md\n\n## Preferences\n\n## Environment\n"


def notes(lines_by_day: dict[date, list[str]]) -> dict[str, str]:
    files = {"MEMORY.md": CORE}
    for day, lines in lines_by_day.items():
        files[f"memory/{day.isoformat()}.md"] = f"# {day.isoformat()}\n\n" + "".join(
            f"- {x}\n" for x in lines
        )
    return files


def on_days(lines: list[str], days: int, step: int = 1) -> dict[str, str]:
    """Line i (cycling) on each of `days` days, `step` days apart."""
    return notes({START + timedelta(days=i * step): [lines[i % len(lines)]] for i in range(days)})


def run(files: dict[str, str]) -> tuple[Plan, Analysis]:
    parsed = []
    for rel, text in files.items():
        f = classify(rel)
        assert isinstance(f, MemoryFile)
        parsed.append((f, parse(text, rel, f.date)))
    analysis = analyse(parsed, Policy(), DEFAULT_RULES, NOW)
    view = View(tuple(parsed), frozenset(), frozenset(files), History())
    return plan(view, analysis, Policy(), DEFAULT_RULES, NOW), analysis


def labels(analysis: Analysis) -> set[Label]:
    return {
        judge(a.entry.text, a.scored, kind=a.entry.kind, mentions=a.mentions).label
        for a in analysis.assessed
        if a.entry.file.startswith("memory/")
    }


def actions(p: Plan, kind: str) -> list[Any]:
    return [a for a in p.actions if a.action == kind]


# --- the shape of a line -------------------------------------------------------------------


def test_a_shape_is_the_line_without_its_figures() -> None:
    assert routine.shape("gateway served 41 sessions") == routine.shape("gateway served 7 sessions")
    assert routine.shape("网关会话 41 个") == routine.shape("网关会话 7 个")
    assert routine.shape("gateway served 41 sessions") != routine.shape("gateway dropped 41 sessions")


def test_learn_finds_shapes_written_on_many_days_and_keeps_facts_out() -> None:
    def signals(text: str) -> set[str]:
        return set(DEFAULT_RULES.scan(scoring_text(text)))

    def dated(text: str, days: int) -> list[tuple[str, date]]:
        return [(text, START + timedelta(days=i)) for i in range(days)]

    rows = [
        *dated("- Lisbon weather pulled into the brief", 6),
        *dated("- 天气数据拉取一次", 6),
        *dated("- Always answer in English", 6),  # a standing rule said again
        *dated("- 以后都用中文回复", 6),
        *dated("- Pulled the RSS digest", 4),  # not many days yet
    ]
    found = routine.learn(rows, normalise, signals)
    assert found == {"- Lisbon weather pulled into the brief": 6, "- 天气数据拉取一次": 6}


# --- learnt through a workspace ------------------------------------------------------------


@pytest.mark.parametrize("line", ["Lisbon weather pulled into the morning brief", "早报里的天气数据拉取一次"])
def test_the_same_line_shape_on_many_days_is_routine(line: str) -> None:
    p, analysis = run(on_days([line], 6))
    ours = [a for a in analysis.assessed if a.entry.file.startswith("memory/")]
    assert ours and all(a.scored.routine for a in ours)
    assert any(r.cue == "the same line on 6 days" for r in ours[0].scored.reasons)
    assert labels(analysis) == {Label.ROUTINE}
    assert not actions(p, "promote") and not actions(p, "merge")  # events of their days, each kept


@pytest.mark.parametrize(
    "template", ["Gateway on port 18789 served {n} sessions", "网关端口 18789，当前会话 {n} 个"]
)
def test_a_reading_that_recurs_is_routine_though_alone_it_names_a_lasting_fact(template: str) -> None:
    alone, _ = run(on_days([template.format(n=40)], 1))
    assert actions(alone, "promote")  # a port: where the gateway lives
    p, analysis = run(on_days([template.format(n=40 + i) for i in range(6)], 6))
    assert labels(analysis) == {Label.ROUTINE}
    assert not actions(p, "promote")


@pytest.mark.parametrize("line", ["Zed editor for quick edits", "快速编辑用 Zed 编辑器"])
def test_a_real_fact_said_on_three_days_is_promoted_by_its_mentions(line: str) -> None:
    alone, _ = run(on_days([line], 1))
    assert not actions(alone, "promote")  # said once, it is not core
    p, analysis = run(on_days([line], 3, step=2))
    promoted = actions(p, "promote")
    assert len(promoted) == 1 and "referenced again (3 days)" in promoted[0].reason
    assert not any(a.scored.routine for a in analysis.assessed)


@pytest.mark.parametrize("line", ["The team chat lives on Zulip", "团队聊天用的是 Zulip"])
def test_a_fact_said_on_many_days_stays_a_fact(line: str) -> None:
    p, analysis = run(on_days([line], 7))
    assert not any(a.scored.routine for a in analysis.assessed)
    assert len(actions(p, "promote")) == 1


@pytest.mark.parametrize("line", ["Heartbeat OK, nothing new", "心跳正常，无新消息"])
def test_routine_by_its_cues_is_never_promoted_by_mention_count(line: str) -> None:
    p, analysis = run(on_days([line], 4))
    assert labels(analysis) == {Label.ROUTINE}
    assert not actions(p, "promote")


def test_on_disk_routine_lines_are_neither_promoted_nor_merged_nor_dropped(
    cli: Invoke, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    files = notes(
        {
            START + timedelta(days=i): [
                f"Moltbook feed: {3 + i} posts, nothing for us",
                f"邮件检查：{i} 封，没有要处理的",
                "Lisbon weather pulled into the morning brief",
            ]
            for i in range(8)
        }
    )
    files["memory/2026-10-12.md"] += "- Zed editor for quick edits\n"
    files["memory/2026-10-14.md"] += "- Zed editor for quick edits\n"
    files["memory/2026-10-16.md"] += "- Zed editor for quick edits\n"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    report = as_json(cli("--json", "-w", str(root), "--now", CLI_NOW, "gc", "--dry-run"))
    promoted = [a["text"] for a in report["actions"] if a["action"] == "promote"]
    assert promoted == ["- Zed editor for quick edits"]
    assert not [a for a in report["actions"] if a["action"] in ("merge", "drop")]


def test_a_tool_use_or_a_setting_said_again_is_no_routine() -> None:
    days = [date(2026, 3, d) for d in range(1, 8)]
    texts = ["- Redis 用于会话缓存", "- 日损熔断：10%", "- Redis is used for session caching"]
    found = routine.learn(
        [(t, d) for t in texts for d in days],
        lambda t: t.lstrip("- ").casefold(),
        lambda t: DEFAULT_RULES.scan(scoring_text(t)).keys(),
    )
    assert found == {}


T = TypeVar("T")


def test_the_standing_lets_go_of_what_it_was_read_from() -> None:
    """`standing_of` takes what it needs from the notes and their facts, then lets go of
    them before the duplicates are looked for (list after a change holds no note then): the
    facts are freed by the time the duplicate finder first maps over texts. The Standing
    still knows which groups MEMORY.md has a member of, and what is routine."""
    files = on_days(["Checked the build: green", "Deploy of atlas-api v2.3 done, port 8080"], 12)
    files["MEMORY.md"] = "# Memory\n\n- Deploy of atlas-api v2.3 done, port 8080\n"
    parsed = []
    for rel, text in files.items():
        f = classify(rel)
        assert isinstance(f, MemoryFile)
        parsed.append((f, parse(text, rel, f.date)))
    roles = [f.role for f, doc in parsed for _ in doc.entries]

    class Facts(dict[str, TextFacts]):  # (a dict a weak reference can point at)
        pass

    facts = Facts(read_texts(parsed, DEFAULT_RULES, True))
    held = weakref.ref(facts)
    reading = Reading(list(parsed), facts)
    del facts
    freed: list[bool] = []

    def mapper(function: Callable[[str], T], texts: Sequence[str]) -> list[T]:
        freed.append(held() is None)
        return [function(t) for t in texts]

    found = standing_of(reading, Policy(), DEFAULT_RULES, mapper)
    assert freed and freed[0] and not reading.files
    in_core = {
        n
        for n, g in enumerate(found.groups)
        if any(roles[i] is Role.CORE for i in (g.keep, *(d for d, _ in g.duplicates)))
    }
    assert found.core_groups == in_core and in_core
    assert "- Checked the build: green" in found.recurring
    assert found.sizes == tuple(len(doc.entries) for _, doc in parsed)
