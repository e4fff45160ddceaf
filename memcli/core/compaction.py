"""What a compaction summary says: the session carried past the cut (SPEC §8, §9; issue 18,
point 4).

OpenClaw's compaction layout (Pi's) has eight parts; each is filled from the turns the
compaction replaces, the earlier summary merged in:

- **goal**: what the user asked for — their first request of the session (or the earlier
  summary's goal) and its latest form, when they changed it ("actually…", "改成…");
- **constraints**: preferences, rules and facts of their environment, people and projects,
  what they asked to remember (the flush's judgement: core.judgement.extraction);
- **done**: what the assistant (or the user) reports finished ("All 12 tests pass",
  "已经改好了"); an error followed by retries leaves only the fix (core.summarize.compress);
- **in_progress**: the work under way at the cut — the assistant's last stated step with no
  report of it done since, or the user's last request with no answer yet;
- **blocked**: what stops the work — a failure no success followed, "waiting for …", 卡住;
- **decisions**: decisions in force;
- **next_steps**: what is left to do — the user's open items ("还没写", "still need to",
  "tomorrow…"), the next step the assistant named, the earlier summary's not done since;
- **critical**: lessons, and what the assistant found that the work goes on from ("Found
  the problem: …", "root cause …", figures it measured).

Every item is a unit of a turn in its speaker's words (core.verbatim), said once; a turn
that holds a secret is left out and named in `withheld`. The parts share `budget` tokens,
filled in order of what matters most to go on. Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from memcli.core.conversation import Message
from memcli.core.judgement.extraction import extract
from memcli.core.judgement.held import same_wording
from memcli.core.rules import DEFAULT_RULES, Rules, compile_cues
from memcli.core.scoring import score_text, scoring_text
from memcli.core.spoken import sentences, spoken, subagent_task, units
from memcli.core.summarize import ITEM_MAX_CHARS, compress
from memcli.core.tokens import estimate_tokens
from memcli.core.verbatim import one_line
from memcli.core.withheld import holds_secret

PARTS = ("goal", "constraints", "done", "in_progress", "blocked", "decisions", "next_steps", "critical")
# The most items a part holds, and the order parts are given room in when the budget is short.
LIMITS = {
    "goal": 3,
    "constraints": 12,
    "done": 10,
    "in_progress": 3,
    "blocked": 3,
    "decisions": 10,
    "next_steps": 8,
    "critical": 8,
}
PRIORITY = ("goal", "decisions", "constraints", "blocked", "in_progress", "next_steps", "critical", "done")

_REQUEST = re.compile(
    r"^(?:@\S+\s*)*(?:(?:ok(?:ay)?|hey|hi|so|now|right|and|also|好的?|嗯|那)[\s,，.。!！]+)*"
    r"(?:can you|could you|would you|please|pls|help me|i want|i need|i'd like|let'?s|we need to|"
    r"(?:i'?m |we'?re )?(?:picking up|working on|continuing|starting on)|"
    r"帮我|请你|请帮|麻烦|我想|我要|我需要|你能不能|能不能帮|你帮我|给我)",
    re.IGNORECASE,
)
_ASKS = re.compile(r"\b(?:can you|could you|would you|help me)\b|帮我|能不能帮|你能不能", re.IGNORECASE)
_STANDING = re.compile(r"from now on|going forward|以后|今后|往后", re.IGNORECASE)
_REVISED = compile_cues((
    "actually", "instead", "change of plan", "scratch that", "on second thought", "no wait", "new plan",
    "不对", "改成", "换成", "算了", "改为", "还是改", "换个", "改一下计划", "计划有变",
))  # fmt: skip
_DONE = compile_cues((
    "done", "fixed", "deployed", "finished", "completed", "merged", "shipped", "created", "added", "opened",
    "removed", "updated", "wrote", "pushed", "set up", "is up", "pass now", "passes now", "tests pass",
    "now pass", "works now", "is staged", "reminder set", "succeeded", "successfully", "passed", "verified",
    "rendered fine", "✅",
    "完成", "已完成", "搞定", "修好", "已修复", "修复了", "部署好", "已部署", "写好", "改好",
    "已经改", "加了", "已经把", "已把", "已在", "已切", "切到", "创建了", "已创建", "已提交", "已合并",
    "成功", "通过了", "已验证",
))  # fmt: skip
_INTENT = re.compile(
    r"^(?:(?:ok(?:ay)?|sure|good point|makes sense|got it|noted|understood|right|alright|will do|"
    r"好的?|收到|明白|可以|行)[\s,，.。!！:：—-]*)*"
    r"(?:let me|i'?ll|i will|i'?m going to|now i'?ll|next i'?ll|i'?m (?:now )?(?:\w+ing)|"
    r"我(?:先|来|会|去|现在|马上|这就|再)|我[写改加看查跑试把做建开配]|接下来我|正在|先在)",
    re.IGNORECASE,
)
_NEXT = compile_cues((
    "next step", "next steps", "next,", "next i'll", "then i'll", "still need", "still needs", "not yet",
    "todo", "to do", "follow up", "follow-up", "remind me", "tomorrow", "later", "before monday",
    "接下来", "下一步", "还没", "没做完", "待办", "之前要", "明天", "下次", "回头", "稍后", "提醒我", "还要",
))  # fmt: skip
_BLOCKED = compile_cues((
    "blocked", "blocking", "waiting for", "waiting on", "stuck", "can't proceed", "cannot proceed",
    "no access", "need access", "permission denied", "no permission", "until we get",
    "卡住", "卡在", "阻塞", "等待", "在等", "没有权限", "需要权限", "无法继续", "没法继续",
))  # fmt: skip
_FOUND = compile_cues((
    "found", "root cause", "the problem", "the cause", "because", "turns out", "means", "which means",
    "发现", "原因", "根因", "问题是", "问题在", "意味着", "说明", "吻合", "原来",
))  # fmt: skip
_QUESTION = re.compile(r"[?？]\s*$")


@dataclass(frozen=True)
class Summary:
    """The parts of a compaction summary, each a list of one-line items."""

    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)
    withheld: tuple[str, ...] = ()  # "message <id>" of the turns left out for a secret

    def context(self) -> dict[str, list[str]]:
        return {name: list(self.parts.get(name, ())) for name in PARTS}


@dataclass(frozen=True, slots=True)
class _Unit:
    role: str
    text: str  # one line, in the speaker's words
    folded: str
    source: str
    order: int


def summarise(
    messages: Sequence[Message],
    previous: str | None = None,
    rules: Rules = DEFAULT_RULES,
    budget: int = 800,
) -> Summary:
    """The parts of the summary of `messages` (the turns a compaction replaces), merging
    the earlier summary `previous`."""
    withheld: list[str] = []
    earlier = previous_parts(previous)
    for name, texts in earlier.items():
        if any(holds_secret(t) for t in texts):
            withheld.append("previous summary")
            earlier[name] = [t for t in texts if not holds_secret(t)]
    said = _units(messages, withheld)
    durable = extract(messages, rules)
    withheld += durable.withheld
    new: dict[str, list[str]] = {name: [] for name in PARTS}
    known = {i.text for i in durable.items}
    task = next((t for m in messages if m.role == "user" and (t := subagent_task(m.text))), None)
    new["goal"] = _goal(said, known, task, bool(earlier["goal"]))
    for item in durable.items:
        part = {"decision": "decisions", "lesson": "critical"}.get(item.kind, "constraints")
        new[part].append(item.text)
    done_at = -1
    for u in said:
        if u.text in known:
            continue  # a constraint, decision or lesson: said above
        if u.role == "assistant" and _done(u):
            new["done"].append(u.text)
            done_at = u.order
        elif u.role == "user" and _BLOCKED.search(u.folded) and not _QUESTION.search(u.folded):
            new["blocked"].append(u.text)
        elif _NEXT.search(u.folded) and not _QUESTION.search(u.folded):
            new["next_steps"].append(u.text)
        elif u.role == "assistant" and _BLOCKED.search(u.folded):
            new["blocked"].append(u.text)
        elif u.role == "assistant" and _finding(u):
            new["critical"].append(u.text)
    new["in_progress"] = _in_progress([u for u in said if u.text not in known], done_at)
    new["blocked"] += _failing(messages, done_at, withheld)
    merged = _merge(earlier, new)
    return Summary(_fit(merged, budget), tuple(dict.fromkeys(withheld)))


def _units(messages: Sequence[Message], withheld: list[str]) -> list[_Unit]:
    """The units of the user's and the assistant's words (tool traffic and retries left
    out), in order; a turn holding a secret is named in `withheld`."""
    found: list[_Unit] = []
    for m in compress(messages):
        body = spoken(m.role, m.text)
        if body is None:
            continue
        if holds_secret(m.text):
            withheld.append(f"message {m.id}" if m.id else f"line {m.index + 1}")
            continue
        for unit in units(body):
            text = one_line(unit, ITEM_MAX_CHARS, stamp=False)
            found.append(_Unit(m.role, text, scoring_text(unit), m.id, len(found)))
    return found


def _asks(u: _Unit) -> bool:
    """A request of the user's: what they want done ("can you…", 帮我…), not an answer."""
    return (
        u.role == "user"
        and len(u.folded) > 12
        and (_REQUEST.match(u.folded) or _ASKS.search(u.folded)) is not None
    )


def _goal(said: Sequence[_Unit], durable: set[str], task: str | None, carried: bool) -> list[str]:
    """The user's first request, what the session is for (unless an earlier summary carries
    the goal; a subagent's task is its goal), and its latest form: the last request that
    changes it ("actually…", 改成…). A preference or fact they state is no request; nor is
    a question of fact or a greeting."""
    asks = [u for u in said if _asks(u) and u.text not in durable]
    first = next(
        (
            u
            for u in said
            if u.role == "user"
            and u.text not in durable
            and len(u.folded) > 12
            and (_asks(u) or not _QUESTION.search(u.folded))
            and not score_text(u.text).noise
        ),
        None,
    )
    goal = [task] if task else []
    if not carried and not goal and first is not None:
        goal.append(first.text)
    revised = [u for u in asks if u is not first and _REVISED.search(u.folded)]
    if revised:
        goal.append(revised[-1].text)
    return goal


def _done(u: _Unit) -> bool:
    """A report of work done: its first sentence has a done word and is no plan ("I'll…",
    "我先…") nor a question ("Decision 一节已经写好。要不要我…？" reports, then offers)."""
    first = next(iter(sentences(u.folded)), "")
    return not _QUESTION.search(first) and not _INTENT.match(first) and _DONE.search(first) is not None


_ACK = re.compile(r"^(?:ok(?:ay)?|sure|got it|noted|understood|好的?|收到|明白|记下了|了解)\b", re.IGNORECASE)


def _finding(u: _Unit) -> bool:
    """What the assistant found that the work goes on from: a cause, a measurement, a
    version — not a plan, an acknowledgement or a question."""
    if _INTENT.match(u.folded) or _ACK.match(u.folded) or _QUESTION.search(u.folded):
        return False
    if _FOUND.search(u.folded):
        return True
    signals = score_text(u.text).signals
    return "environment" in signals and "data" in signals


def _in_progress(said: Sequence[_Unit], done_at: int) -> list[str]:
    """The work under way at the cut: the assistant's last stated step after the last report
    of work done, else the user's last request after it."""
    for u in reversed(said):
        if u.order <= done_at:
            break
        if (
            u.role == "assistant"
            and _INTENT.match(u.folded)
            and not _QUESTION.search(u.folded)
            and not _STANDING.search(u.folded)  # "I'll reply in English from now on": a rule, no step
        ):
            return [u.text]
    for u in reversed(said):
        if u.order <= done_at:
            break
        if _asks(u):
            return [u.text]
    return []


def _failing(messages: Sequence[Message], done_at: int, withheld: list[str]) -> list[str]:
    """A tool failure at the end that nothing succeeded after: its first line."""
    for m in reversed(messages):
        if m.role == "toolResult" and not m.error:
            return []
        if m.role == "assistant" and m.text.strip() and done_at >= 0 and not m.calls:
            return []
        if m.role == "toolResult" and m.error:
            line = next((s for s in m.text.splitlines() if s.strip()), "")
            if not line or holds_secret(m.text):
                return []
            return [one_line(line, 200, stamp=False)]
    return []


# --- the earlier summary ------------------------------------------------------------------------

_HEADINGS = (
    ("in progress", "in_progress"),
    ("blocked", "blocked"),
    ("next step", "next_steps"),
    ("open item", "next_steps"),
    ("待解决", "next_steps"),
    ("done", "done"),
    ("已完成", "done"),
    ("goal", "goal"),
    ("核心目标", "goal"),
    ("constraint", "constraints"),
    ("preference", "constraints"),
    ("偏好", "constraints"),
    ("environment", "constraints"),
    ("decision", "decisions"),
    ("决策", "decisions"),
    ("critical", "critical"),
    ("context", "critical"),
    ("knowledge", "critical"),
)
_BULLET = re.compile(r"^\s*(?:[-+*]|\d{1,9}[.)])\s+(?:\[([ xX])\]\s*)?(.*\S)\s*$")


def previous_parts(summary: str | None) -> dict[str, list[str]]:
    """The bullets of an earlier summary, by part: its headings name them ("## Key
    Decisions", "### In Progress"); a checked box is done, an open one a next step."""
    parts: dict[str, list[str]] = {name: [] for name in PARTS}
    part: str | None = None
    for line in (summary or "").splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            title = stripped.lstrip("#").strip().casefold()
            part = next((p for cue, p in _HEADINGS if cue in title), None)
            continue
        if stripped.startswith("<"):
            part = None  # <read-files>: the file lists are carried by the entry's details
            continue
        bullet = _BULLET.match(line)
        if part is None or bullet is None or bullet.group(2) == "(none)":
            continue
        box = bullet.group(1)
        target = part if box is None else ("done" if box in "xX" else "next_steps")
        parts[target].append(bullet.group(2))
    return parts


def _merge(old: dict[str, list[str]], new: dict[str, list[str]]) -> dict[str, list[str]]:
    """The earlier summary's items, then the new ones; what is done now leaves the earlier
    next steps, in-progress and blocked items that name it; each item once."""
    merged: dict[str, list[str]] = {}
    for name in PARTS:
        carried = old[name]
        if name in ("next_steps", "in_progress", "blocked"):
            carried = [t for t in carried if not any(_names(d, t) for d in new["done"])]
        if name == "in_progress" and new[name]:
            carried = []  # what is under way now
        merged[name] = _once([*carried, *new[name]])
    return merged


_WORD = re.compile(r"[^\W\d_]{3,}|\d+|[\u4e00-\u9fff]{2}")


def _names(done: str, item: str) -> bool:
    """Whether a report of work done names an open item: half its words or more."""
    words = set(_WORD.findall(item.casefold()))
    return bool(words) and len(words & set(_WORD.findall(done.casefold()))) * 2 >= len(words)


def _once(texts: Iterable[str]) -> list[str]:
    kept: list[str] = []
    for text in texts:
        if not any(same_wording(text, k) for k in kept):
            kept.append(text)
    return kept


def _fit(parts: dict[str, list[str]], budget: int) -> dict[str, tuple[str, ...]]:
    """Each part within its limit (its latest items), all within `budget` tokens, room given
    in PRIORITY order; the items keep their order."""
    limited = {name: parts[name][-LIMITS[name] :] for name in PARTS}
    used = 0
    chosen: dict[str, set[int]] = {name: set() for name in PARTS}
    for name in PRIORITY:
        for n, text in enumerate(limited[name]):
            cost = estimate_tokens(text) + 2
            if used + cost <= budget:
                used += cost
                chosen[name].add(n)
    return {name: tuple(t for n, t in enumerate(limited[name]) if n in chosen[name]) for name in PARTS}
