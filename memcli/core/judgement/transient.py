"""Transient: what makes a line true for a while only (rules 3 and 6 of
core.judgement.importance).

- `bounded` (rule 3): an open to-do, a time word that bounds the line ("tomorrow", "for
  now", 暂时, 先…再说, "before the design review"), a date that has passed — not a time word
  a rule governs: a wait it forbids, a deadline that recurs, a period that comes back, the
  length of a standing window or of a job, a scope that starts then ("from today on"), nor a
  cue only inside a code span, a path or a file name;
- `unresolved` (rule 6): a state expected to change — waiting, blocked, failing, 待…, a
  warning mark — unless the line reports it fixed, the trouble is a rule's condition, a
  document's or a channel's name, what a tool is for, or a setting's name.
"""

from __future__ import annotations

import re

from memcli.core.judgement import facts
from memcli.core.judgement.facts import Cues
from memcli.core.judgement.shapes import FIELD_KINDS, field_of
from memcli.core.rules import REMINDERS
from memcli.core.scoring import Reason, mask_code

FIELD_KINDS_SET = frozenset(FIELD_KINDS)
_REMINDERS = frozenset(REMINDERS)
_WARNED = ("⚠", "⏳", "🔴", "🟡")


def bounded(cue: Cues, kind: str, done: bool | None) -> Reason | None:
    """Why a line is true for a while only: an open to-do, a time word that bounds it
    ("tomorrow", "for now", 暂时, 先…再说 — not "from today on"), a date that has passed."""
    if kind == "task" and done is False:
        return Reason("open to-do", 0.0, "[ ]")
    bounded = _outside_code(cue, cue.of("short_lived"))
    if bounded is not None and not _from_then_on(cue, bounded.cue):
        signals = cue.scored.signals
        if facts.CLOCK.search(bounded.cue) and not signals.isdisjoint(("schedule", "long_lived")):
            pass  # 每天 9 点前, 周五五点前…长期执行: a time of every day, a recurring deadline
        elif bounded.cue in _REMINDERS and "long_lived" in signals:
            pass  # "always remember to run the linter": a standing reminder
        elif _recurring(cue.t, bounded.cue, signals):
            pass  # 节假日期间不要…, 周末一般…: a period that comes back, not this one
        elif _UNTIL_EVENT.search(bounded.cue) and not signals.isdisjoint(("schedule", "long_lived")):
            pass  # 每次出差之前…, "always read the agenda before the meeting": a gate that recurs
        elif _forbidden(cue.t, bounded.cue):
            pass  # 不要等待批量提交, "never wait for CI": the rule forbids the wait
        elif _WINDOW.search(cue.t) and _LENGTH.fullmatch(bounded.cue):
            pass  # 19:00-07:00（12 小时）: the length of a standing window, not an estimate
        elif _LENGTH.fullmatch(bounded.cue) and (_lasts(cue.t, bounded.cue) or "lesson" in signals):
            pass  # "a cold build takes ~12 minutes", 教训：重建约 40 分钟: how long it takes
        else:
            return bounded
    return next((r for r in cue.scored.reasons if r.rule == "past its date"), None)


# What a prohibition ends with when the time word after it is what it forbids.
_PROHIBITION = re.compile(r"(?:不要|别|勿|不必|无需|不用|don't|do not|never|no need to|stop)\s*$")
_UNTIL_EVENT = re.compile(r"前$|^before\b")
_WINDOW = re.compile(r"\d{1,2}:\d{2}\s*[-–~至到]\s*\d{1,2}:\d{2}")
_LENGTH = re.compile(r"[(（~约]\s*\d+(?:\.\d+)?\s*(?:分钟|小时|min(?:utes?)?|hours?|hrs?|h)\s*[)）]?")


# What a length follows when it says how long something takes, not a to-do's estimate.
_LASTS = re.compile(
    r"(?:\b(?:takes?|lasts?|needs?|requires?|runs? for|is|are|every|each)|需要|要|耗时|用时|持续|大约|大概|"
    r"每|每隔)\s*$"
)


def _lasts(t: str, length: str) -> bool:
    """Whether a length ("~12 minutes", "约 40 分钟") is how long something takes."""
    at = t.find(length)
    return at > 0 and _LASTS.search(t, max(0, at - 12), at) is not None


def _outside_code(cue: Cues, found: Reason | None) -> Reason | None:
    """A cue found in the line, unless it was found only inside a code span, a path or a
    file name (`today.md`, `2026-10-03-ablation.ipynb`): then the first outside them."""
    if found is None:
        return None
    masked = mask_code(cue.t)
    if masked == cue.t or masked.find(found.cue) >= 0:
        return found
    again = cue.rules.scan(masked).get("short_lived")
    return Reason(found.rule, 0.0, again) if again is not None else None


# Time words that name a period which comes back (周末, 月底, …期间) when the line says so.
_RECURRING_TIMES = frozenset({"周末", "月底", "期间"})
_RECURRING_PERIOD = re.compile(
    r"(?:节假日|节日|假期|假日|周末|夜间|深夜|值班|上班|工作|午休|考试|会议|开会|高峰|大促|促销|直播|上课)$"
)
_EVERY = re.compile(r"(?:每|每个|每逢|逢)\s*$")


def _recurring(t: str, moment: str, signals: frozenset[str]) -> bool:
    """Whether a time word names a period that comes back: a holiday's or a meeting's
    (节假日期间, 开会期间), every one (每个月底), or one the line calls usual (周末一般…)."""
    if moment not in _RECURRING_TIMES:
        return False
    at = t.find(moment)
    before = t[max(0, at - 6) : at]
    if moment == "期间" and _RECURRING_PERIOD.search(before):
        return True
    return _EVERY.search(before) is not None or not signals.isdisjoint(
        ("convention", "schedule", "long_lived")
    )


def _forbidden(t: str, moment: str) -> bool:
    """Whether the time word is what a prohibition just before it forbids ("不要等待…")."""
    at = t.find(moment)
    return at > 0 and _PROHIBITION.search(t, max(0, at - 12), at) is not None


def _from_then_on(cue: Cues, moment: str) -> bool:
    """Whether the time word is where a standing scope starts ("from today on")."""
    scope = cue.of("long_lived")
    return scope is not None and moment in scope.cue


# What a trouble word names when a document or a channel follows it: 故障排查手册, "bug tracker".
_TROUBLE_DOCUMENT = re.compile(
    r"\s*(?:排查|处理|恢复|应急|响应|上报|反馈|跟踪|复盘)?\s*(?:手册|文档|流程|指南|预案|清单|模板|规范|群|频道|"
    r"(?:runbook|playbook|guide|doc|template|checklist|handbook|tracker|board|channel|report form)"
    r"s?(?![a-z]))"
)


def unresolved(t: str, cue: Cues) -> Reason | None:
    """A state expected to change: waiting, blocked, failing, 待…, a warning mark — unless
    the line reports it fixed first ("Fixed the flaky test", "修复了登录页的问题"). A warning
    mark over a limit or a lesson ("⚠️ Unsloth requires an NVIDIA GPU") warns for good."""
    head = t.lstrip()
    unresolved = cue.of("unresolved")
    if unresolved is None:
        if head.startswith(_WARNED) and cue.first(("constraint", "lesson")) is None:
            return Reason("unresolved", 0.0, head[:1])
        return None
    done = cue.of("done")
    if done is not None and done.cue and 0 <= t.find(done.cue) < t.find(unresolved.cue):
        return None
    at = t.find(unresolved.cue)
    if at >= 0 and _TROUBLE_DOCUMENT.match(t, at + len(unresolved.cue)):
        return None  # 故障排查手册放在 wiki, "the bug tracker is Linear": a document's or a channel's name
    condition = cue.of("convention")
    if condition is not None and unresolved.cue in condition.cue:
        return None  # 通知失效 = 当前对话汇报, 一旦失败就回滚: the failure is the rule's condition
    if _IF_TROUBLE.search(t):
        return None  # 遇到问题先查日志, "any issues, ask Priya": trouble as the rule's condition
    use = cue.of("tooling")
    if use is not None and use.cue and 0 <= t.find(use.cue) < t.find(unresolved.cue):
        return None  # Sentry 用于前端报错收集: what the tool is for
    field = field_of(t)
    if (
        field is not None
        and unresolved.cue in field[0]
        and not FIELD_KINDS_SET.isdisjoint(cue.rules.scan_label(field[0] + ":"))
    ):
        return None  # "Session timeout: 15 min", "超时：30 秒": a setting's name
    return unresolved


# Trouble named as the condition of what to do: "遇到问题先…", "有问题找…", "for any issues, ask …".
_IF_TROUBLE = re.compile(
    r"(?:遇到|如遇|若有|如有|凡有|有|出现|出了?)(?:任何|什么)?(?:问题|故障|异常|报错|bug)(?:时|的话)?[，,]?\s*"
    r"(?:先|就|请|都|直接|一律)?\s*(?:找|问|联系|查|看|上报|报给|提交|反馈|@)|"
    r"\b(?:for|with|on)\s+(?:any\s+)?(?:[\w-]+\s+)?(?:issues|problems|bugs|errors|questions)\s*,?\s*"
    r"(?:ask|ping|contact|email|call|see|go to|talk to|reach out to|check)\b"
)
