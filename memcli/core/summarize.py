"""Extractive summaries: keep the best of a period or a session within a token budget (SPEC §8).

Entries of daily notes, or the messages of a transcript, become items of one class —
goal, preference, decision, environment, knowledge, pending, done, other — ranked by
their decayed score. Preferences and decisions come first: a summary never drops one
while it drops anything else. Noise and routine events never make it in.

Transcripts are compressed before they are ranked: a tool call and its result leave
only the conclusion the assistant drew from them, and an error followed by retries
leaves only the fix that worked (the assistant's words between the error and the retry
are dropped). What the result looks like is the template's business
(memcli.workspace.templates); this module hands it a `Digest`.

Every item is the user's text (core.verbatim): an entry or a message on one line, its
lines joined with "; ", cut at a word boundary with "…" when long; a message is read up
to its first table. A text that holds a secret (core.withheld) is never an item of a
summary: the digest names its place in `withheld` instead.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timedelta
from typing import Any

from memcli.core.analysis import Assessed
from memcli.core.conversation import READ_TOOLS, WRITE_TOOLS, Message
from memcli.core.conversation import transcript_tokens as transcript_tokens
from memcli.core.judgement import importance
from memcli.core.rules import DEFAULT_RULES, Rules, compile_cues
from memcli.core.scoring import Tier, score_text
from memcli.core.tokens import estimate_tokens, is_mostly_cjk
from memcli.core.verbatim import one_line, prose
from memcli.core.withheld import holds_secret

SUMMARY_TOKENS = 800
SESSION_MIN_TOKENS = 40
SMALLEST_ITEM = 4  # tokens: when less is left, the summary is full
MISSES_BEFORE_FULL = 200  # items in a row too long for what is left: the summary is full
ITEM_MAX_CHARS = 400  # a longer text is cut at a word boundary, ending in "…"

CLASSES = ("goal", "preference", "decision", "environment", "knowledge", "pending", "done", "other")
KEPT_FIRST = ("preference", "decision")  # never dropped while anything else is kept
HEADINGS = {
    "en": {
        "goal": "Goal",
        "preference": "Preferences",
        "decision": "Decisions",
        "environment": "Environment",
        "knowledge": "Knowledge and lessons",
        "pending": "Open items",
        "done": "Done",
        "other": "Notes",
    },
    "zh": {
        "goal": "核心目标",
        "preference": "重要的用户偏好",
        "decision": "决策",
        "environment": "环境",
        "knowledge": "学到的新知识",
        "pending": "待解决",
        "done": "已完成",
        "other": "其他",
    },
}

GOAL_CUES = (
    "目标", "帮我", "我想", "我要", "我需要", "请你", "你能不能", "能不能帮",
    "goal", "i want", "i need", "help me", "can you", "could you", "please", "let's", "lets",
)  # fmt: skip
DONE_CUES = (
    "完成", "已完成", "搞定", "修好", "已修复", "修复了", "部署好", "已部署", "写好", "改好",
    "done", "fixed", "deployed", "finished", "completed", "merged", "shipped", "works now", "passes now",
    "✅",
)  # fmt: skip
PENDING_CUES = (
    "待", "还没", "明天", "下次", "稍后", "回头", "记着", "提醒我",
    "todo", "to do", "tomorrow", "next time", "later", "pending", "follow up", "follow-up", "remind me",
    "still need", "not yet",
)  # fmt: skip
_GOAL = compile_cues(GOAL_CUES)
_DONE = compile_cues(DONE_CUES)
_PENDING = compile_cues(PENDING_CUES)


@dataclass(frozen=True, slots=True)
class Item:
    """One thing a summary may say."""

    kind: str  # one of CLASSES
    text: str  # one line
    rank: float  # decayed score: higher is kept first
    order: int  # place in the source, to print items in the order they happened
    source: str = ""  # path:line, or the message id
    full: str = ""  # the whole text the item copies from (read for secrets)

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.text)


@dataclass(frozen=True)
class Digest:
    """What a template renders: the kept items and what they came from."""

    kind: str  # weekly-digest, session-summary, compaction-summary
    period: str
    sources: tuple[str, ...]
    generated: datetime
    language: str  # "zh" or "en"
    items: tuple[Item, ...]  # kept, in source order
    tokens_in: int
    budget: int
    read_files: tuple[str, ...] = ()
    modified_files: tuple[str, ...] = ()
    previous: str | None = None  # the previous compaction's summary, merged by the template
    headings: dict[str, str] = field(default_factory=dict)
    found: dict[str, int] = field(default_factory=dict)  # items of each class before choosing
    withheld: tuple[str, ...] = ()  # places of texts left out because they hold a secret
    # a compaction summary's parts (core.compaction: goal, constraints, done, in_progress,
    # blocked, decisions, next_steps, critical); None: derived from the items' classes
    compaction: dict[str, tuple[str, ...]] | None = None

    def kept(self) -> dict[str, int]:
        return {kind: len(self.by_kind(kind)) for kind in CLASSES if self.by_kind(kind)}

    def by_kind(self, kind: str) -> list[str]:
        return [i.text for i in self.items if i.kind == kind]

    def context(self) -> dict[str, Any]:
        """The names a template sees (documented in templates/README.md)."""
        heads = {**HEADINGS["zh" if self.language == "zh" else "en"], **self.headings}
        sections = [
            {"kind": kind, "title": heads[kind], "items": self.by_kind(kind)}
            for kind in CLASSES
            if self.by_kind(kind)
        ]
        return {
            "kind": self.kind,
            "period": self.period,
            "sources": list(self.sources),
            "generated": self.generated.isoformat(timespec="seconds"),
            "language": self.language,
            "headings": heads,
            "sections": sections,
            **{kind: self.by_kind(kind) for kind in CLASSES},
            "by_kind": {kind: self.by_kind(kind) for kind in CLASSES},
            "read_files": list(self.read_files),
            "modified_files": list(self.modified_files),
            "previous": self.previous or "",
            "previous_items": [
                line.strip()[2:].strip()
                for line in (self.previous or "").splitlines()
                if line.strip().startswith(("- ", "* ")) and line.strip()[2:].strip() != "(none)"
            ],
            "tokens_in": self.tokens_in,
            "budget": self.budget,
            "compaction": self.compaction_parts(),
        }

    def compaction_parts(self) -> dict[str, list[str]]:
        """The parts of a compaction summary: as core.compaction chose them, or from the
        classes of the items (a summary of notes has no turns to read progress from)."""
        if self.compaction is not None:
            return {name: list(items) for name, items in self.compaction.items()}
        by = self.by_kind
        return {
            "goal": by("goal"),
            "constraints": by("preference") + by("environment"),
            "done": by("done"),
            "in_progress": [],
            "blocked": [],
            "decisions": by("decision"),
            "next_steps": by("pending"),
            "critical": by("knowledge") + by("other"),
        }


def front_matter(digest: Digest) -> str:
    """The front matter every summary file starts with (kind, period, sources, generated)."""
    lines = ["---", f"kind: {digest.kind}", f"period: {_yaml(digest.period)}", "sources:"]
    lines += [f"  - {_yaml(s)}" for s in digest.sources] or ["  []"]
    lines += [f"generated: {digest.generated.isoformat(timespec='seconds')}", "---", ""]
    if not digest.sources:
        lines[3] = "sources: []"
        del lines[4]
    return "\n".join(lines) + "\n"


def _yaml(text: str) -> str:
    plain = re.fullmatch(r"[A-Za-z0-9_./:@+-][A-Za-z0-9_./:@+ -]*", text) and not text.endswith(" ")
    return text if plain else '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def language_of(texts: Sequence[str]) -> str:
    return "zh" if is_mostly_cjk("".join(texts)[:4000]) else "en"


# --- notes ----------------------------------------------------------------------------------


def week_of(day: date) -> tuple[str, date]:
    """The ISO week a day belongs to ("2026-W44") and the last day (Sunday) of that week."""
    year, week, weekday = day.isocalendar()
    return f"{year}-W{week:02d}", day + timedelta(days=7 - weekday)


def week_days(period: str) -> tuple[date, date]:
    """Monday and Sunday of an ISO week written "2026-W44"."""
    m = re.fullmatch(r"(\d{4})-W(\d{2})", period)
    if m is None:
        raise ValueError(f"{period!r} is not an ISO week like 2026-W44")
    monday = date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
    return monday, monday + timedelta(days=6)


Label = Callable[[Assessed], importance.Verdict]  # an entry's importance, as a digest reads it


def digest_label(a: Assessed) -> importance.Verdict:
    """The importance label a digest files an entry by: the judgement's, with the default
    rules (a caller may remember it: see `digest_of_notes`)."""
    return importance.judge(a.entry.text, a.scored, kind=a.entry.kind, done=a.entry.done)


def classify(a: Assessed, label: Label = digest_label) -> str:
    """The class of a note's entry: tasks by their box, the rest by the scoring rules."""
    if a.entry.kind == "task":
        return "done" if a.entry.done else "pending"
    return classify_text(a.entry.text, ruled(a, label))


def ruled(a: Assessed, label: Label = digest_label) -> set[str]:
    """The scoring rules that fired on an entry, as a digest files it: only an entry the
    importance judgement holds core is a preference or a decision ("他说要先想清楚…" in a
    release note has a preference's cue, but is news of the week)."""
    rules = {r.rule for r in a.scored.reasons}
    if rules & set(KEPT_FIRST) and label(a).label is not importance.Label.CORE:
        rules -= set(KEPT_FIRST)
    return rules


def classify_text(text: str, rules: set[str], role: str = "") -> str:
    """The class of a text, from the scoring rules that fired on it and its speaker: what
    the user says will hold from now on ("以后…", "from now on…") is a preference, what
    they ask for later an open item."""
    for name in ("preference", "decision"):
        if name in rules:
            return name
    folded = text.casefold()
    if role == "user" and "long-lived" in rules:
        return "preference"
    if role == "user" and _PENDING.search(folded):
        return "pending"
    for name in ("environment", "knowledge"):
        if name in rules:
            return name
    if role == "user" and _GOAL.search(folded):
        return "goal"
    if _DONE.search(folded):
        return "done"
    if _PENDING.search(folded):
        return "pending"
    return "other"


def entry_items(entries: Sequence[Assessed], label: Label = digest_label) -> list[Item]:
    """The summarisable entries of some notes (no noise, no routine events), with their raw
    text: `written_out` gives the kept ones their one-line form (a week has thousands)."""
    return [
        Item(_ruled_kind(a, label), a.entry.text, a.decayed, n, place_of(a), a.entry.text)
        for n, a in enumerate(entries)
        if a.tier is not Tier.DISCARD and not a.scored.routine and a.entry.kind in SUMMARY_KINDS
    ]


def _ruled_kind(a: Assessed, label: Label) -> str:
    """The class the scoring rules alone give (enough to choose by); `classify` reads the
    words of only the entries kept."""
    if a.entry.kind == "task":
        return "done" if a.entry.done else "pending"
    rules = ruled(a, label)
    return next((name for name in KEPT_FIRST if name in rules), "other")


def written_out(
    items: Sequence[Item], entries: Sequence[Assessed], label: Label = digest_label
) -> list[Item]:
    """The kept items in their one-line form (the entry's words, core.verbatim) and their
    full class."""
    return [
        replace(
            i,
            kind=classify(entries[i.order], label),
            text=one_line(entries[i.order].entry.text, ITEM_MAX_CHARS),
        )
        for i in items
    ]


def place_of(a: Assessed) -> str:
    return f"{a.entry.file}:{a.entry.first_line}"


_NESTED_MARK = re.compile(r"^(?:[-+*]|\d{1,9}[.)])\s+")
SUMMARY_KINDS = frozenset({"bullet", "task", "paragraph", "quote"})  # not tables, code, headings


# --- transcripts ----------------------------------------------------------------------------


def compress(messages: Sequence[Message]) -> list[Message]:
    """The messages worth reading: user and assistant words, without the tool traffic.

    A tool call and its result are dropped: the assistant's next words are their
    conclusion. After a failed tool result, the assistant's words until its next tool
    call are retry narration ("that failed, let me try …") and are dropped too, so an
    error followed by retries leaves only the fix that worked."""
    kept: list[Message] = []
    after_error: list[Message] = []  # the assistant's words since a failed result
    failing = False
    for m in messages:
        if m.role == "toolResult":
            failing = m.error
            continue
        if m.role == "assistant" and failing:
            if m.calls:
                after_error.clear()  # it retries: what it said about the failure is moot
            elif m.text.strip():
                after_error.append(m)  # kept only if no retry follows (it gave up, and said why)
            continue
        kept.extend(after_error)
        after_error.clear()
        failing = False
        if m.text.strip():
            kept.append(m)
    return kept + after_error


_ACK = compile_cues(
    ("收到", "好的", "明白", "了解", "记下了", "ok", "okay", "got it", "sure", "noted", "will do")
)
ACK_MAX_CHARS = 30  # "收到，我把决定写进文档。" acknowledges; it decides nothing
GREETING_MAX_CHARS = 6  # "早上好" opens a session; it is not what the session is for


def _is_question(text: str) -> bool:
    return text.rstrip().endswith(("?", "？"))


# A previous summary's headings (OpenClaw's layout, the seed's, ours) -> the class of their items.
_PREVIOUS_SECTIONS = (
    ("goal", "goal"),
    ("核心目标", "goal"),
    ("constraints", "preference"),
    ("preference", "preference"),
    ("偏好", "preference"),
    ("in progress", "pending"),
    ("blocked", "pending"),
    ("next steps", "pending"),
    ("待解决", "pending"),
    ("open items", "pending"),
    ("done", "done"),
    ("已完成", "done"),
    ("decision", "decision"),
    ("决策", "decision"),
    ("environment", "environment"),
    ("环境", "environment"),
    ("knowledge", "knowledge"),
    ("学到", "knowledge"),
)
_BOX = re.compile(r"^\[([ xX])\]\s*")
PREVIOUS_RANK = 100.0  # what an earlier compaction kept stays: its turns are gone


def previous_items(summary: str | None) -> list[Item]:
    """The bullet lines of an earlier summary, each in the class its heading says, placed
    before the turns that followed it."""
    items: list[Item] = []
    kind = "other"
    for line in (summary or "").splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            title = stripped.lstrip("#").strip().casefold()
            kind = next((k for cue, k in _PREVIOUS_SECTIONS if cue in title), "other")
            continue
        bullet = _NESTED_MARK.match(stripped)
        if bullet is None:
            continue
        text = stripped[bullet.end() :].strip()
        if not text or text == "(none)":
            continue
        box = _BOX.match(text)
        item_kind = kind
        if box is not None:
            item_kind = "done" if box.group(1) in "xX" else "pending"
            text = text[box.end() :]
        items.append(Item(item_kind, text, PREVIOUS_RANK, -100_000 + len(items), "previous summary"))
    return items


def message_items(messages: Sequence[Message], rules: Rules = DEFAULT_RULES) -> list[Item]:
    """Items of a conversation, ranked by score (later turns a little higher: they are
    what the conversation came to). Tables, questions, offers, acknowledgements and
    chatter carry nothing a summary needs, unless they state a preference or decision."""
    items: list[Item] = []
    kept = compress(messages)
    first_user = next(
        (m for m in kept if m.role == "user" and len(m.text.strip()) > GREETING_MAX_CHARS), None
    )
    for n, m in enumerate(kept):
        before_table, more = prose(m.text)  # a table's rows are no sentence to quote
        body = before_table.strip()
        if not body:
            continue
        scored = score_text(body, rules)
        if scored.noise:
            continue
        signals = {r.rule for r in scored.reasons}
        kind = classify_text(body, signals, m.role)
        if m is first_user and kind in ("other", "pending"):
            kind = "goal"  # what the user asked first is what the session is for
        folded = body.casefold()
        says_something = bool(signals & {"preference", "decision", "environment", "knowledge"})
        acknowledges = _ACK.match(folded) is not None and (len(body) <= ACK_MAX_CHARS or not says_something)
        idle = _is_question(body) or (kind == "other" and scored.score <= 0)
        if acknowledges or (idle and kind not in ("goal", *KEPT_FIRST)):
            continue  # "收到，…", "BullMQ 现在最新是哪个版本？", "要不要我…？", "列吧"
        rank = scored.score + (2.0 if kind in KEPT_FIRST else 0.0) + 0.5 * n / max(1, len(kept))
        text = one_line(body, ITEM_MAX_CHARS, stamp=False, more=more)
        items.append(Item(kind, text, rank, n, m.id or f"line {m.index + 1}", m.text))
    return items


def touched_files(messages: Sequence[Message]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Files the session's tools read, and files they wrote (a written file is not listed as read)."""
    read: dict[str, None] = {}
    written: dict[str, None] = {}
    for m in messages:
        for call in m.calls:
            if call.path is None:
                continue
            name = call.name.casefold()
            if name in WRITE_TOOLS:
                written[call.path] = None
            elif name in READ_TOOLS:
                read[call.path] = None
    return tuple(p for p in read if p not in written), tuple(written)


# --- choosing -------------------------------------------------------------------------------


def _priority(kind: str) -> int:
    return 0 if kind in KEPT_FIRST else 1 if kind == "goal" else 2


def session_budget(budget: int, tokens_in: int) -> int:
    """A session summary's budget: `budget`, and at most a fifth of what it summarises
    (headings come on top; a summary as long as its conversation saves nothing)."""
    return min(budget, max(SESSION_MIN_TOKENS, tokens_in // 5))


def select(
    items: Sequence[Item], budget: int = SUMMARY_TOKENS, refuse: Callable[[Item], bool] | None = None
) -> list[Item]:
    """The items kept within `budget` tokens, in source order: preferences and decisions
    first, then the highest ranked; a text said twice is kept once. `refuse` is asked
    only about an item that would be kept (reading every entry of a year for secrets
    would cost more than the summary)."""
    ordered = sorted(items, key=lambda i: (_priority(i.kind), -i.rank, i.order))
    kept: list[Item] = []
    seen: set[str] = set()
    used = 0
    misses = 0
    for item in ordered:
        if budget - used < SMALLEST_ITEM or misses > MISSES_BEFORE_FULL:
            break  # the budget is as good as spent: nothing further down will fit
        cost = item.tokens
        if used + cost > budget:
            misses += 1
            continue
        key = " ".join(item.text.casefold().split())
        if key in seen:
            continue
        if refuse is not None and refuse(item):
            continue
        misses = 0
        seen.add(key)
        kept.append(item)
        used += cost
    return sorted(kept, key=lambda i: i.order)


def digest_of_notes(
    kind: str,
    period: str,
    entries: Sequence[Assessed],
    sources: Sequence[str],
    generated: datetime,
    budget: int = SUMMARY_TOKENS,
    language: str = "",
    count_tokens: bool = True,
    label: Label = digest_label,
) -> Digest:
    """A summary of notes' entries; `count_tokens` False leaves `tokens_in` at 0 (gc needs
    no figure for the weeks it closes). `label`: `digest_label`, or the same remembered."""
    items = entry_items(entries, label)
    withheld: list[str] = []
    refuse = _secret_filter(withheld, str)
    kept = [i for i in written_out(select(items, budget, refuse), entries, label) if not refuse(i)]
    return Digest(
        kind,
        period,
        tuple(sources),
        generated,
        language or language_of([a.entry.text for a in entries[:200]]),
        tuple(kept),
        sum(estimate_tokens(a.entry.text) for a in entries) if count_tokens else 0,
        budget,
        found=_count(items),
        withheld=tuple(withheld),
    )


def _secret_filter(withheld: list[str], place: Callable[[str], str]) -> Callable[[Item], bool]:
    """A `refuse` for `select`: True for an item whose text (or the text it copies) holds
    a secret, whose place (`place(item.source)`) it adds to `withheld`."""

    def refuse(item: Item) -> bool:
        if holds_secret(item.text, item.full):
            withheld.append(place(item.source))
            return True
        return False

    return refuse


def message_place(source: str) -> str:
    """Where a message item came from, as a note names it: "message 1a2b3c4d", "line 12"
    (a transcript without ids), "previous summary"."""
    return source if source == "previous summary" or source.startswith("line ") else f"message {source}"


def _count(items: Sequence[Item]) -> dict[str, int]:
    found: dict[str, int] = {}
    for item in items:
        found[item.kind] = found.get(item.kind, 0) + 1
    return {kind: found[kind] for kind in CLASSES if kind in found}


def digest_of_session(
    kind: str,
    period: str,
    messages: Sequence[Message],
    sources: Sequence[str],
    generated: datetime,
    budget: int = SUMMARY_TOKENS,
    language: str = "",
    previous: str | None = None,
    rules: Rules = DEFAULT_RULES,
    shrink: bool = True,
) -> Digest:
    """A summary of a conversation. With `shrink`, at most a fifth of it (`session_budget`);
    a compaction, which carries the earlier summary forward, takes the whole budget."""
    read, written = touched_files(messages)
    said = [m.text for m in messages if m.role in ("user", "assistant")]
    tokens_in = transcript_tokens(messages)
    if shrink:
        budget = session_budget(budget, tokens_in)
    earlier = previous_items(previous)
    items = message_items(messages, rules)
    if earlier:  # the session's goal is the earlier summary's, not the first turn kept after it
        goals = {i.text for i in earlier if i.kind == "goal"}
        items = [replace(i, kind="other") if i.kind == "goal" and goals else i for i in items]
    items = earlier + items
    withheld: list[str] = []
    kept = select(items, budget, _secret_filter(withheld, message_place))
    return Digest(
        kind,
        period,
        tuple(sources),
        generated,
        language or language_of(said),
        tuple(kept),
        tokens_in,
        budget,
        read,
        written,
        previous,
        found=_count(items),
        withheld=tuple(withheld),
    )


def plain_render(digest: Digest) -> str:
    """A summary without a template engine (the planner's default; tests of core use it)."""
    context = digest.context()
    lines = [f"# {digest.period}", ""]
    for section in context["sections"]:
        lines += [f"## {section['title']}", "", *(f"- {t}" for t in section["items"]), ""]
    if not context["sections"]:
        lines += ["Nothing in this period was worth keeping beyond the archived notes.", ""]
    return front_matter(digest) + "\n".join(lines)
