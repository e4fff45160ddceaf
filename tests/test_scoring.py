"""Importance rules, tiers and decay (SPEC §3–§5), in Chinese and in English."""

from __future__ import annotations

import math
from datetime import date, datetime
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import NOW, Invoke, as_json
from memcli.config import load_policy
from memcli.core.decay import age_days, decay_factor, decayed_score, is_stale
from memcli.core.policy import Policy
from memcli.core.rules import DEFAULT_RULES, RuleOverride, build_rules
from memcli.core.scoring import Tier, score_text, scoring_text, tier_of

POLICY = Policy()

# (text, lowest score, highest score, tier) — each Chinese case with its English twin.
TABLE = [
    ("我是 Windows 系统，路径记得处理反斜杠", 5, 5, Tier.CORE),
    ("I use Windows, mind the backslashes in paths", 5, 5, Tier.CORE),
    ("这次的任务是把 README 从 8/10 优化到 10/10", 2, 4, Tier.TASK),
    ("this time the task is to take the README from 8/10 to 10/10", 2, 4, Tier.TASK),
    ("skill_view 的 name 参数不要带 .md 后缀", 3, 10, None),
    ("don't add the .md suffix to skill_view's name parameter", 3, 10, None),
    ("刚才的命令执行失败了，错误信息是 xxx", 0, 1, Tier.SESSION),
    ("the command I ran just now failed, the error was xxx", 0, 1, Tier.SESSION),
    ("好的，明白了", -10, -0.01, Tier.DISCARD),
    ("ok, got it", -10, -0.01, Tier.DISCARD),
    ("记住：发布前先跑测试", -10, 10, Tier.CORE),
    ("remember: run the tests before every release", -10, 10, Tier.CORE),
]


@pytest.mark.parametrize(("text", "low", "high", "tier"), TABLE, ids=[t[0] for t in TABLE])
def test_the_score_table(text: str, low: float, high: float, tier: Tier | None) -> None:
    scored = score_text(text)
    assert low <= scored.score <= high, scored
    if tier is not None:
        assert tier_of(scored, POLICY) is tier


def test_the_seed_rubric_breakdown() -> None:
    scored = score_text("I use Windows, mind the backslashes in paths")
    assert [(r.rule, r.points) for r in scored.reasons] == [("preference", 3.0), ("environment", 2.0)]


def test_an_importance_marker_overrides_the_rules() -> None:
    assert score_text("好的", importance=7).score == 7
    assert score_text("我决定以后都用 pnpm", importance=2).score == 2
    assert score_text("x", importance=9).reasons[0].rule == "importance marker"


def test_each_signal_fires_in_both_languages() -> None:
    cases = {
        "preference": ("我喜欢深色主题", "I prefer dark mode"),
        "decision": ("我们决定用 Redis", "we decided to go"),
        "urgency": ("紧急：线上挂了", "urgent: prod is down"),
        "task": ("目标是月底交付", "the goal is clear"),
        "environment": ("配置在 ~/.config/app", "runs on macOS"),
        "data": ("花了 300 元", "took 45 minutes"),
        "knowledge": ("踩坑：别在循环里 await", "TIL: rebase keeps history linear"),
    }
    for rule, (zh, en) in cases.items():
        for text in (zh, en):
            assert rule in {r.rule for r in score_text(text).reasons}, (rule, text)


def test_negated_urgency_and_decision_do_not_count() -> None:
    assert "urgency" not in {r.rule for r in score_text("non-urgent: tidy the wiki").reasons}
    assert "urgency" not in {r.rule for r in score_text("这个不重要").reasons}
    assert "decision" not in {r.rule for r in score_text("还没决定用哪个").reasons}


@pytest.mark.parametrize(
    ("text", "signal"),
    [
        ("打开前 10 个决策者链接", "decision"),
        ("17 张图快速蒸馏，提供清晰决策参考", "decision"),
        ("send the deck to the decision makers", "decision"),
        ("a decision tree for triage", "decision"),
        ("给文章补几个关键词", "urgency"),
        ("要不要升级 Node", "preference"),
    ],
)
def test_words_that_hold_a_cue_without_meaning_it(text: str, signal: str) -> None:
    assert signal not in DEFAULT_RULES.scan(scoring_text(text))


def test_the_cue_still_counts_outside_its_false_friend() -> None:
    assert "decision" in DEFAULT_RULES.scan(scoring_text("决策者开会后决策：改用 PostgreSQL"))
    assert "decision" in DEFAULT_RULES.scan(scoring_text("the decision makers made a decision: we'll use Go"))
    assert "preference" in DEFAULT_RULES.scan(scoring_text("不要用 npm"))


def test_time_span_and_past_its_date() -> None:
    long = score_text("from now on reply in Chinese")
    assert ("long-lived", 1.0) in [(r.rule, r.points) for r in long.reasons]
    short = score_text("今天先临时用一下测试账号")
    assert ("short-lived", 0.0) in [(r.rule, r.points) for r in short.reasons]
    past = score_text("评审定在 11 月 12 日", today=date(2026, 11, 20), written=date(2026, 10, 1))
    assert ("past its date", -1.0) in [(r.rule, r.points) for r in past.reasons]
    ahead = score_text("评审定在 11 月 12 日", today=date(2026, 11, 1), written=date(2026, 10, 1))
    assert "past its date" not in {r.rule for r in ahead.reasons}


def test_mentions_and_repetition() -> None:
    base = score_text("用 pnpm 安装依赖").score
    assert score_text("用 pnpm 安装依赖", mentions=2).score == base + 0.5
    assert score_text("用 pnpm 安装依赖", mentions=9).score == base + 1
    assert score_text("用 pnpm 安装依赖", repeats_core=True).score == base - 1


def test_noise_is_only_noise_when_nothing_else_is_said() -> None:
    assert score_text("好的，谢谢！👍").noise
    assert score_text("thanks!!").noise
    assert not score_text("好的，我们决定用 Redis").noise
    assert score_text("好的，我们决定用 Redis").score >= 3


def test_routine_events_are_flagged_and_never_promoted_by_mentions() -> None:
    for text in ("heartbeat OK", "checked the build, all green", "看了一下日志，没有异常"):
        scored = score_text(text)
        assert scored.routine and not scored.noise
        assert tier_of(scored, POLICY, mentions=30) is not Tier.CORE
    fact = score_text("deploys go through GitHub Actions")
    assert tier_of(fact, POLICY, mentions=3) is Tier.CORE


def test_scoring_text_drops_marker_checkbox_stamp_and_markup() -> None:
    assert scoring_text("- [ ] **09:10** — 部署 **atlas**").strip() == "部署  atlas"
    assert scoring_text("- 2026-03-04 10:00 did x").strip() == "did x"


@given(st.text(), st.sampled_from(["bullet", "task", "paragraph", "code"]))
def test_scoring_never_raises_and_stays_in_range(text: str, kind: str) -> None:
    scored = score_text(text, kind=kind, today=date(2026, 10, 31), written=date(2026, 1, 1), mentions=3)
    assert -1 <= scored.score <= 10
    assert scored.noise == (scored.score < 0)
    assert isinstance(tier_of(scored, POLICY), Tier)


def test_rules_can_be_overridden_and_extended() -> None:
    rules = build_rules(
        (
            RuleOverride("preference", points=1),
            RuleOverride("knowledge", add=("顺便一提",)),
            RuleOverride("urgency", cues=("火烧眉毛",)),
        )
    )
    assert score_text("I prefer tabs", rules).score == 1
    assert "knowledge" in {r.rule for r in score_text("顺便一提 这里很慢", rules).reasons}
    assert "urgency" not in {r.rule for r in score_text("urgent!", rules).reasons}
    assert "urgency" in {r.rule for r in score_text("火烧眉毛了", rules).reasons}
    assert DEFAULT_RULES["preference"].points == 3


def test_rules_from_memcli_toml(tmp_path: Path) -> None:
    path = tmp_path / "memcli.toml"
    path.write_text('[rules.preference]\npoints = 2\nadd = ["我倾向"]\n', encoding="utf-8")
    policy = load_policy(path, {})
    assert policy.rules == (RuleOverride("preference", 2.0, None, ("我倾向",)),)
    assert score_text("我倾向用 tabs", build_rules(policy.rules)).reasons[0].points == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[rules.vibes]\npoints = 1\n", "unknown rule signal vibes"),
        ("[rules.preference]\nweight = 1\n", "unknown key weight"),
        ("[rules.preference]\npoints = 'high'\n", "points must be a number"),
        ("[rules.preference]\nadd = 'x'\n", "add must be a list"),
    ],
)
def test_bad_rules_are_named(tmp_path: Path, text: str, message: str) -> None:
    from memcli.errors import ConfigError

    path = tmp_path / "memcli.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError, match=message):
        load_policy(path, {})


# --- decay ---------------------------------------------------------------------------------


def test_half_life() -> None:
    assert decay_factor(0, 30) == 1
    assert math.isclose(decay_factor(30, 30), 0.5)
    assert math.isclose(decay_factor(60, 30), 0.25)
    assert math.isclose(math.log(2) / 30, 0.0231, abs_tol=1e-4)


def test_decayed_score_and_staleness() -> None:
    assert math.isclose(decayed_score(6, 30, 30, evergreen=False), 3)
    assert decayed_score(6, 300, 30, evergreen=True) == 6
    assert decayed_score(-1, 30, 30, evergreen=False) == -1
    assert is_stale(decayed_score(4, 90, 30, evergreen=False), 1.0)  # 4 × 1/8 = 0.5
    assert not is_stale(decayed_score(4, 30, 30, evergreen=False), 1.0)


def test_age_uses_the_entry_time_and_never_goes_negative() -> None:
    now = datetime(2026, 10, 31, 12, 0)
    assert age_days(date(2026, 10, 30), None, now) == 1.5
    assert age_days(date(2026, 10, 30), "18:00", now) == 0.75
    assert age_days(date(2026, 11, 5), None, now) == 0
    assert age_days(None, None, now) == 0


# --- the command ---------------------------------------------------------------------------


def test_score_command_json_and_text(cli: Invoke) -> None:
    data = as_json(cli("--json", "score", "我是 Windows 系统，路径记得处理反斜杠"))
    assert data["score"] == 5 and data["tier"] == "core"
    assert [(r["rule"], r["points"], r["cue"]) for r in data["reasons"]] == [
        ("preference", 3.0, "记得"),
        ("environment", 2.0, "windows"),
    ]
    text = cli("score", "ok, got it")
    assert text.exit_code == 0 and "score -1" in text.stdout and "discard" in text.stdout
    piped = as_json(cli("score", "-", "--json", input="紧急：线上挂了\n"))
    assert piped["reasons"][0]["rule"] == "urgency"


def test_score_command_shows_the_label_and_the_new_signals(cli: Invoke) -> None:
    data = as_json(cli("--json", "score", "老刘负责机房的钥匙"))
    assert data["label"] == "core" and data["why"] == "core: where it lives (负责)"
    assert [(r["rule"], r["points"], r["cue"]) for r in data["reasons"]] == [("place", 2.0, "负责")]
    text = cli("score", "Tomorrow: call the bank")
    assert text.exit_code == 0 and "label transient: time-bounded (tomorrow)" in text.stdout


def test_score_command_uses_the_workspace_rules(cli: Invoke, ws: Path) -> None:
    (ws / "memcli.toml").write_text("[rules.preference]\npoints = 1\n", encoding="utf-8")
    data = as_json(cli("--json", "-w", str(ws), "--now", NOW, "score", "I prefer tabs"))
    assert data["score"] == 1 and data["tier"] == "session"


def test_list_sorts_by_decayed_score_and_filters_by_tier_and_staleness(cli: Invoke, sample: Path) -> None:
    base = ("--json", "-w", str(sample), "--now", NOW, "list")
    ranked = as_json(cli(*base, "--sort", "decayed", "--limit", "20"))["entries"]
    assert len(ranked) == 20
    assert [e["decayed"] for e in ranked] == sorted((e["decayed"] for e in ranked), reverse=True)
    noise = as_json(cli(*base, "--tier", "discard"))["entries"]
    assert noise and all(e["tier"] == "discard" and e["score"] < 0 for e in noise)
    assert {"- 好的", "- ok thanks", "- got it"} <= {e["text"] for e in noise}
    stale = as_json(cli(*base, "--stale"))["entries"]
    assert stale and all(e["stale"] and not e["pinned"] for e in stale)
    # A note's entry is stale when its decayed score falls below stale_below; a core
    # entry (which does not decay) when no note has mentioned it for core_unused_days.
    assert all(e["decayed"] < 1.0 for e in stale if not e["evergreen"])
    assert all(e["last_seen"] < "2026-10-01" for e in stale if e["file"] == "MEMORY.md")
    everything = as_json(cli(*base))["entries"]
    pnpm = [e for e in everything if e["text"] == "- 用户偏好用 pnpm，不要用 npm 安装依赖"]
    assert len(pnpm) == 4 and all(e["mentions"] == 4 and e["last_seen"] == "2026-10-21" for e in pnpm)
    core = [e for e in everything if e["file"] == "MEMORY.md"]
    assert core and all(e["tier"] == "core" and e["evergreen"] and e["decayed"] == e["score"] for e in core)
    # every order is the full list's, sorted (a long sorted list keeps each entry's JSON)
    assert len(everything) > 200
    by_decayed = as_json(cli(*base, "--sort", "decayed"))["entries"]
    place = lambda e: (e["file"], e["line"])  # noqa: E731
    assert sorted(by_decayed, key=place) == everything  # (the JSON's decayed is rounded)
    assert all(a["decayed"] >= b["decayed"] for a, b in pairwise(by_decayed))
    orders = {
        "score": lambda e: (-e["score"], e["file"], e["line"]),
        "date": lambda e: (e["date"] or "0000", e["time"] or "", e["file"], e["line"]),
    }
    for order, key in orders.items():
        assert as_json(cli(*base, "--sort", order))["entries"] == sorted(everything, key=key), order
    old = next(e for e in everything if e["date"] == "2026-09-01" and e["score"] > 0)
    assert old["decayed"] < old["score"]  # two months old: about a quarter is left


def test_the_rules_are_built_once_a_process_for_each_set_of_overrides() -> None:
    """A policy without overrides uses DEFAULT_RULES itself (making the rules is a tenth of
    a short run's start-up); a rules object compiles a pattern only when a text has one of
    its triggers, and finds the same cues by it, in both languages."""
    assert build_rules() is DEFAULT_RULES and build_rules(()) is DEFAULT_RULES
    override = RuleOverride("preference", points=2.0)
    assert build_rules((override,)) is build_rules([override]) is not DEFAULT_RULES
    fresh = build_rules((RuleOverride("preference", add=("zz-unused-cue",)),))
    assert fresh.compiled == {}
    patterns = sum(len(p) for p in fresh.patterns.values())
    by_pattern = {"数据库端口是 5432": ("place", "端口是 5"), "moved to 2026-03-04, 10:00": ("data", "2026")}
    for text, (signal, cue) in by_pattern.items():
        found = fresh.scan(text)
        assert found[signal] == cue and found == DEFAULT_RULES.scan(text)
    assert 0 < len(fresh.compiled) < patterns
