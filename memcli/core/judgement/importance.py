"""What an entry is worth keeping as: core, log, transient, routine or noise (SPEC §3–§4).

The score (core.scoring) is the transparent rubric: points per signal. The label reads
that rubric and the entry's shape, in this order, and says which rule decided:

1. noise — the rubric found nothing but a pleasantry, a blank or a sign-off;
2. never core, whatever its cues — chat envelopes and metadata, OpenClaw dreaming
   candidates, headings and fragments, quoted or pasted text, commands and code, status
   lists ("Gateway: ✅ 运行中"): a log of the day (core.judgement.shapes). A command
   inside a standing rule ("never run `terraform apply` without …") is the rule's. Asked
   only of what the rules below would call core: the others keep their label;
3. transient — bounded in time ("tomorrow", "right now", "this month", 明天, 暂时, 本月,
   先…再说), until something is done or an event ("在新 SSD 换好之前", "before the design
   review"), past its date, or an open to-do. Not a time word a rule governs: a wait it
   forbids ("不要等待…", "don't wait for CI"), a deadline that recurs or is said to stand
   ("每周五五点前…长期执行", "每次出差之前"), a period that comes back (节假日期间, 周末一般…),
   the length of a standing window ("19:00-07:00（12 小时）") or of a job ("a cold build takes
   ~12 minutes"); nor a cue inside a word that means something else (临时文件, "先说结论，再说
   过程") or inside a code span, a path or a file name (`today.md`, `2026-10-03-x.ipynb`)
   (core.judgement.transient);
4. core — "remember this", a standing preference or instruction (always / never /
   don't / 以后 / 一律 / 必须 …, and mild ones: "I prefer tables", 我习惯…; a bare imperative
   after a fact: "Discord works. Use it."; a standing judgement: "X is the right default",
   越简单越好, "A overrides B"), a decision in force (also told as its outcome: "moved to top
   priority", "promoted to primary", 改为…, "now enabled"; a priority order "A > B > C"), a
   lesson (also told as a fact: "… is benign", "(was backwards)", 应为…, "X matters — …").
   Not a decision announced with nothing decided ("评审时间定了"), a choice still to make
   ("选择一个项目"), a change made and undone ("误改成了 1000，已经改回 100"), "never"/"always"
   telling what happened ("were never tested"), nor a lesson that is a state so far ("还是不
   支持", "still doesn't support");
5. routine — a recurring status or activity line with nothing new, by its cues or learnt
   from its recurrence across the workspace (core.judgement.routine); not a line that
   sets something up where it stays ("heartbeat" in the name of a job it created);
6. transient — a state expected to change: waiting, blocked, failing, 待…, 排查中 —
   unless the line reports it fixed ("Fixed the flaky test"), or the failure is a rule's
   condition ("通知失效 = 当前对话汇报", "遇到问题先找…"), or the trouble word names a document
   or a topic (故障排查手册, 相关问题); a warning mark over a limit warns for good ("⚠️ X
   requires a GPU") (core.judgement.transient);
7. core — a lasting fact: something set up with a lasting path, port or version; and,
   unless the line reports work done or a day's date ("fixed", "34→39 tests", 已完成):
   a convention (also "X = Y" for a situation and what to do, "所有 X → Y"), a constraint
   ("requires …", "only loads in …", 需配置…, 二次确认), where something lives or who owns
   it or what role someone has, whom to go to or where things are sent ("代码评审找 Marco",
   "feedback goes to #design"), what stays true of family and the people who look after them
   (妈妈高血压, "Dr. Chen is his GP", "X is allergic to Y"), a device with its model ("主路由是
   小米 AX9000"), the standard a thing follows ("Citations use APA 7"), what a tool is used for
   (用于, "使用 X 做 Y"), a labelled
   setting ("时区: Asia/Shanghai", "日损熔断：10%", "紧急停止命令：`/stop`", "访问地址: https://…"),
   a tool or service with its host, port or version, a rule named and spelled out, a
   standing schedule (also a day of the year or month: 车险每年 3 月到期, 每月 15 号扣款), a fact
   said on `promote_mentions` days (core.judgement.facts). A percentage that is the value of
   such a rule or setting is no reading of the day, a report's label ("**Status:** …") over a
   value that reports nothing only files it, and a report's noun naming a thing ("status
   page", 反馈渠道) reports nothing;
8. log — everything else: what happened, progress, results.

A line that opens with a time of day ("**09:15** —", "[20:35]") is core only by a standing
rule, preference, convention or decision (then MEMORY.md gets it without its stamp,
core.verbatim); anything else it says records its moment: a log.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from memcli.core.entries import Heading, leading_stamp
from memcli.core.judgement import facts, transient
from memcli.core.judgement.facts import Cues
from memcli.core.judgement.shapes import FIELD, FIELD_KINDS, field_of, label_signals, never_core
from memcli.core.policy import Policy
from memcli.core.rules import DEFAULT_RULES, Rules
from memcli.core.scoring import Reason, Scored, score_text, scoring_text


class Label(StrEnum):
    CORE = "core"
    LOG = "log"
    TRANSIENT = "transient"
    ROUTINE = "routine"
    NOISE = "noise"


@dataclass(frozen=True, slots=True)
class Verdict:
    label: Label
    reasons: tuple[Reason, ...]  # what decided the label (points 0: the score has its own)

    def __reduce__(self) -> tuple[type[Verdict], tuple[Label, tuple[Reason, ...]]]:
        return (Verdict, (self.label, self.reasons))  # (loaded twice as fast: see Reason)

    @property
    def core(self) -> bool:
        return self.label is Label.CORE

    @property
    def why(self) -> str:
        """One line: the label and the rules that decided it."""
        said = "; ".join(f"{r.rule} ({r.cue})" if r.cue else r.rule for r in self.reasons)
        return f"{self.label.value}: {said}" if said else self.label.value


# Signals that make a line a standing instruction on their own: a preference, a decision,
# a lesson, a standing scope (always / never / 以后 / 必须).
STANDING = ("preference", "decision", "lesson", "long_lived")
# Signals a line needs to be core at all; a line without them is labelled by time and state.
CORE_EVIDENCE = frozenset((*FIELD_KINDS, "remember", "setup"))

# Decision words that score (SPEC §3) but say no decision in force by themselves: a choice
# to make ("选择一个重点项目", "Decide on Codex"), a record ("Recorded decision in …").
_WEAK_DECISIONS = frozenset({"选择", "decide", "decision", "instead", "selected", "picked", "approved"})
_NARRATED = re.compile(r"\b(?:never|always)\s+(?!need)[a-z]+ed\b")
_TICKED = ("✅", "✔", "☑")
_FIELD_LINE = re.compile(r"\s*[^:：\n]{1,24}[:：]\s*\S")
FORM_FIELDS = 2


def judge(
    text: str,
    scored: Scored,
    rules: Rules = DEFAULT_RULES,
    policy: Policy | None = None,
    *,
    kind: str = "bullet",
    section: Sequence[Heading] = (),
    mentions: int = 1,
    done: bool | None = None,
    t: str | None = None,
) -> Verdict:
    """The label of one entry from its text and its score, by the module's rules in their
    order. `t` is the text as the rules read it (`scoring_text`), when the caller has it."""
    policy = policy or _POLICY
    if scored.noise:  # 1
        return Verdict(Label.NOISE, scored.reasons)
    if scored.explicit:
        label = Label.CORE if scored.score >= policy.promote_score else Label.LOG
        return Verdict(label, scored.reasons)
    t = scoring_text(text) if t is None else t
    first, _, rest = t.strip().partition("\n")
    if rest.strip() and not scored.remember:
        # An entry is what its first line says; the lines under it elaborate (or list).
        lines = [first, *rest.split("\n")]
        if any(line.rstrip(" *_").endswith((":", "：")) for line in lines):
            return Verdict(Label.LOG, (Reason("heading", 0.0, first[:16]),))  # a label opens a list
        if sum(1 for line in lines if _FIELD_LINE.match(line)) >= FORM_FIELDS:
            return Verdict(Label.LOG, (Reason("form", 0.0, first[:16]),))  # 负责：… 状态：… 优先级：…
        said = score_text(first, rules, kind=kind, mentions=mentions)
        found = judge(
            first, said, rules, policy, kind=kind, section=section, mentions=mentions, done=done, t=first
        )
        return _stamped(found, text)
    cue = Cues(scored, rules, t)
    standing = _standing(cue, t)
    verdict = _label(text, t, cue, standing, rules, policy, kind=kind, mentions=mentions, done=done)
    if verdict.core:  # 2, asked only of what the other rules would keep
        never = never_core(text, t, kind, section, standing.cue if standing else None, rules, scored.signals)
        if never is not None:
            return Verdict(Label.LOG, (never,))
    return _stamped(verdict, text)


# What a line stamped with the time of day may still be: a rule, a preference, a decision
# said at that time ("**09:15** — From now on, always answer in English."). MEMORY.md gets
# it without its stamp (core.verbatim); any other stamped line records its moment.
_STAMP_KEEPS = frozenset(
    {
        "standing preference", "standing", "decision", "remember this", "convention", "rule",
        "preference field", "decision field", "rule field", "convention field",
    }
)  # fmt: skip


def _stamped(verdict: Verdict, text: str) -> Verdict:
    """A core verdict, unless the line opens with a time of day and is no standing rule,
    preference or decision: then a log of that moment (`**14:05** — The NAS is at …`)."""
    if not verdict.core or not verdict.reasons or verdict.reasons[0].rule in _STAMP_KEEPS:
        return verdict
    clock = leading_stamp(_LEAD.sub("", text.lstrip(), count=1))[1]
    if clock is None:
        return verdict
    return Verdict(Label.LOG, (Reason("time-stamped", 0.0, clock),))


def _label(
    text: str,
    t: str,
    cue: Cues,
    standing: Reason | None,
    rules: Rules,
    policy: Policy,
    *,
    kind: str,
    mentions: int,
    done: bool | None,
) -> Verdict:
    """Rules 3–8 of the module, in their order."""
    scored = cue.scored
    bounded = transient.bounded(cue, kind, done)  # 3
    if bounded is not None:
        return Verdict(Label.TRANSIENT, (bounded,))
    if scored.remember:  # 4
        return Verdict(Label.CORE, (cue.of("remember") or Reason("remember this", 0.0, ""),))
    if standing is not None:
        return Verdict(Label.CORE, (standing,))
    set_up = facts.set_up(text, t, cue)
    if scored.routine and set_up is None and not facts.named_setting(t, cue, rules):  # 5
        why = next((r for r in scored.reasons if r.rule == "routine event"), None)
        return Verdict(Label.ROUTINE, (why or Reason("routine event", 0.0, ""),))
    unresolved = transient.unresolved(t, cue)  # 6
    if unresolved is not None:
        return Verdict(Label.TRANSIENT, (unresolved,))
    head = t.lstrip()
    lasting = set_up or facts.lasting(text, t, cue, rules, policy, mentions)  # 7
    reported = _reported(t, cue, rules) or facts.dated(t)
    if (
        reported is None
        and lasting is not None
        and (lasting.rule == "environment" or lasting.cue.startswith(("≥", "≤")))
        and head.startswith(_TICKED)
    ):
        reported = Reason("done", 0.0, head[:1])  # "✅ 发布 v0.4.2", "✅ returns ≥ 4 hits": a check passed
    if reported is not None and lasting is not None and _threshold(t, reported, lasting):
        reported = None  # 日损熔断：10%, 所有盈利途径 → 100% 授权: the rule's figure, not a reading
    if reported is not None and lasting is not None and _named_by_report_word(t, reported, lasting, rules):
        reported = None  # "the status page is at …", 反馈渠道是…: a report's noun naming a thing
    if lasting is not None and (reported is None or lasting.rule == "set up to last"):
        return Verdict(Label.CORE, (lasting,))
    if reported is None and (head.startswith(_TICKED) or (kind == "task" and done)):  # 8
        reported = Reason("done", 0.0, "✅" if head.startswith(_TICKED) else "[x]")
    return Verdict(Label.LOG, (reported,) if reported is not None else ())


def _standing(cue: Cues, t: str) -> Reason | None:
    """The standing cue of a line, if any. A decision announced with nothing decided in it
    ("v3.1 的设计评审时间定了") is a headline; "never"/"always" before a past tense ("never
    synced back", "always failed") tells what happened: neither is a standing rule."""
    standing = cue.first(STANDING)
    if standing is None or not standing.cue:
        return standing
    if standing.rule == "decision" and standing.cue in _WEAK_DECISIONS:
        standing = cue.first(name for name in STANDING if name != "decision")  # "选择一个项目", "Decide on X"
        if standing is None:
            return None
    others = cue.first(name for name in STANDING if name != standing.rule and name != "decision")
    announced = standing.rule == "decision" and " " not in standing.cue  # not "moved to top priority"
    if announced and t.rstrip(" 。.!！~～").endswith(standing.cue) and others is None:
        return None
    if standing.cue in ("never", "always") and _NARRATED.search(t) and others is None:
        return None
    if standing.rule == "lesson" and _STILL_NOT.search(t) and others is None:
        return None  # 手机端还是不支持, "Safari still doesn't support it": a status so far, not a lesson
    if standing.rule == "decision" and _UNDONE.search(t) and others is None:
        return None  # 误改成了 1000，已经改回 100: a change made and undone, an incident
    return standing


# A state so far, expected to change: "still not supported", 还是不支持, 仍不可用.
_STILL_NOT = re.compile(
    r"\bstill\s+(?:not|doesn't|does not|don't|do not|isn't|is not|aren't|can't|cannot|won't|no)\b|"
    r"(?:还是|仍然|依然|仍旧|仍|还)(?!不要|别|不用|不必)\s*(?:不|没|无法|未)"
)
# A change undone, or made by mistake: an incident of its day, whatever it changed.
_UNDONE = re.compile(
    r"改回|改了回来|恢复成|恢复为|回滚到|回退到|误改|误删|误操作|误设|不小心|"
    r"\b(?:reverted|rolled (?:it )?back|changed (?:it |them )?back|set (?:it |them )?back|put (?:it )?back|"
    r"undid|"
    r"undone|by mistake|accidentally|mistakenly)\b"
)


_PAST = re.compile(r"[了已]|ed$")
_RULE_FIGURES = frozenset({"convention", "constraint"})
_PERCENT = r"[~约≈]?\s*\d+(?:\.\d+)?\s*%"
_LIMIT_PERCENT = re.compile(
    r"(?:[≤≥<>→]|->|=>|超过|低于|高于|不超过|不低于|至少|最多|达到|above|below|over|under|at most|at least|"
    r"exceeds?|more than|less than|(?:上限|下限|阈值|限额|limit|cap|threshold|max|min)\s*[:：]?)"
    rf"\s*{_PERCENT}"
)
_VALUE_PERCENT = re.compile(rf"[≤≥<>]?\s*{_PERCENT}")


def _threshold(t: str, reported: Reason, lasting: Reason) -> bool:
    """Whether the figure that reads as a result ("10%") is what a rule or a setting sets:
    the value of a labelled setting ("日损熔断：10%"), a limit a rule draws ("所有盈利途径 →
    100% 授权", "超过 80% 就告警") — not a reading beside it ("coverage: 36% (requires …)")."""
    if not reported.cue.endswith("%"):
        return False
    if lasting.rule.endswith(" field"):
        field = field_of(t)
        return field is not None and _VALUE_PERCENT.match(field[1]) is not None
    return lasting.rule in _RULE_FIGURES and _LIMIT_PERCENT.search(t) is not None


def _reported(t: str, cue: Cues, rules: Rules) -> Reason | None:
    """The cue that makes a line a report of work done, if any. A report's label over a
    value that reports nothing ("**Status:** Credentials stored in `~/…`") only files it."""
    done = cue.of("done")
    if done is None:
        return None
    field = field_of(t)
    if (
        field is not None
        and "done" in label_signals(field[0], rules)
        and (facts.setting_value(field[1]) or "done" not in rules.scan(field[1]))
    ):
        return None
    rule = cue.of("convention")
    if rule is not None and done.cue and done.cue in rule.cue:
        return None  # 通知失效 = 当前对话汇报, 测试通过就合并: the rule's condition or action
    use = cue.of("tooling")
    if use is not None and use.cue and 0 <= t.find(use.cue) < t.find(done.cue) and not _PAST.search(done.cue):
        return None  # 备用机专门用于压测: what the thing is for, not work done (not 测试了: it was)
    return done


# Report words that are also nouns: in "status page", "summary email", 反馈渠道, 代码评审找 X they
# name a thing or a practice, and say nothing done unless another cue does.
_REPORT_NOUNS = frozenset(
    {
        "metric", "metrics", "result", "results", "status", "summary", "progress", "feedback", "finding",
        "findings", "benchmark", "stats", "coverage", "accuracy", "recommendation", "反馈", "总结", "进度",
        "产出", "成果", "评审", "讨论", "覆盖率", "准确率", "通过率", "状态", "评价", "汇报",
    }
)  # fmt: skip


def _named_by_report_word(t: str, reported: Reason, lasting: Reason, rules: Rules) -> bool:
    """Whether the only report cue of a line is a noun naming what a fact of where, who or
    when is about ("Feedback goes to #design", 代码评审找 Marco, "The summary email goes out
    every Friday at 5pm") — no cue else says something was done."""
    if reported.cue not in _REPORT_NOUNS or lasting.rule not in _NAMED_FACTS:
        return False
    return "done" not in rules.scan(t.replace(reported.cue, " " * len(reported.cue)))


_NAMED_FACTS = frozenset({"where it lives", "personal fact", "tool use", "schedule"})


def may_be_core(scored: Scored, text: str) -> bool:
    """A quick look: False when `judge` cannot call the entry core (no cue that could make
    it so, no label a setting could hang on), so a caller may spare itself the judgement."""
    if scored.noise:
        return False
    return (
        scored.explicit
        or scored.remember
        or not CORE_EVIDENCE.isdisjoint(scored.signals)
        or FIELD.match(_LEAD.sub("", text.lstrip(), count=1)) is not None
    )


_POLICY = Policy()

_LEAD = re.compile(r"\s*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]*)?(?:\*\*|__)?")


def judge_text(
    text: str,
    rules: Rules = DEFAULT_RULES,
    policy: Policy | None = None,
    *,
    kind: str = "bullet",
    today: date | None = None,
) -> Verdict:
    """The label of a text on its own (`memcli score`, tests)."""
    scored = score_text(text, rules, kind=kind, today=today)
    return judge(text, scored, rules, policy, kind=kind)
