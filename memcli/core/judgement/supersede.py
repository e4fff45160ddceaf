"""Does a newer entry replace an older fact, and why? (SPEC §7, issue 17)

A newer entry retires an older one when it gives up what the older one states:

- a **cue** says so: a switch or a move ("switched to Y", "moved the blog to Y", 改用,
  换成, 迁到, 切换为), a replacement ("replaced X with Y", "X → Y", "from X to Y", 从 X
  换到 Y), something given up ("no longer X", "not X anymore", "X is retired", 不再用 X,
  X 不用了), or a correction at its start ("that's wrong: …", "这个不对，…");
- or, without a cue, the **same subject gets a new value** ("连续51天" → "连续54天",
  "Postgres 14" → "Postgres 16"), or a **state ends** ("exec BROKEN" → "All tools
  functional"; "VPN works again after …" for "❌ VPN blocked on the hotel Wi-Fi").

The newer entry may name the subject otherwise than the older one: a longer form whose
head only names the attribute that changed ("Backup window moved to 01:30" for "The NAS
backup runs at 02:00", "定投日改成…", "降压药换成…" for "…吃氨氯地平降压"); an owner, a place,
a tool or a path by its kind ("Priya owns billing now" for "Billing service owner: Jonas";
"They moved to Porto" for "They live in Lisbon"; "博客迁到 Astro" for "博客用 Hugo 搭的"; a
path with the same last parts, whatever either calls it); a new value sharing its head
with the old one ("飞书审批" for "邮件审批"); or the subject itself swapped, said of an older
entry that opens with it ("Switched GPs: now seeing Dr. Okafor" for "GP is Dr. Chen").

Precision comes first. What a switch is about (its subject) must be what the older entry
is about, and the older entry must state something the newer one drops; what is given up
("no longer X") must be what the older entry states, and a number or a common word alone
is no subject. An entry that only adds ("also", 也), restates, or scopes an exception to
another thing retires nothing; nor does a move that keeps the old value ("Moved to a bigger
flat in Lisbon" keeps "Lives in Lisbon"), and a label over a list ("**版本对比**:") states
no fact to retire. One newer entry retiring more than `AT_MOST` facts is a
misreading: the planner reports it and applies none.

This module gives the verdict: `judge` (by a cue, `judge_reading`; without one,
`judge_value`, `judge_state`, `judge_opposite`) and `judge_correction`. What it reads of
each entry is its profile (judgement.profiles, with its changes: judgement.changes); what
the older entry states, judgement.stated; whether a change is about what the older entry is
about and gives a new value of it, judgement.same_subject.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memcli.core.judgement.changes import Reading
from memcli.core.judgement.cues import IMPLIED
from memcli.core.judgement.profiles import RECOVERED, Profile, state_head
from memcli.core.judgement.same_subject import (
    IMPLIED_MORE,
    alone,
    id_swapped,
    kept,
    leads,
    moved_away,
    names_a_kind,
    one_name,
    only_about,
    platformed,
    same_attribute,
    same_head,
    subject_in,
    typed,
)
from memcli.core.judgement.stated import (
    given_up,
    holds,
    in_context,
    is_subject,
    mostly,
    negated,
    overlap,
    said_of,
    says,
    valued,
)
from memcli.core.rules import compile_cues
from memcli.core.subjects import NAME_UNITS, Words, coverage, covers, words_of

AT_MOST = 3  # facts one newer entry may retire
CUELESS = frozenset({"value", "state"})  # verdicts without a cue: a value said again, a state
GENERIC = frozenset(
    "failure error test check status job service tool task issue problem 问题 任务 服务".split()
)


@dataclass(frozen=True, slots=True)
class Verdict:
    """Why a newer entry replaces an older one."""

    family: str  # correction, from-to, replaced, given-up, switch, value, state
    given_up: str  # what the older entry stated that no longer holds
    subject: str  # what both are about, when it says

    def reason(self, by: str) -> str:
        """The plan's reason for retiring the older entry."""
        about = f" about {self.subject}" if self.subject else ""
        if self.family == "correction":
            return f"corrected by {by}"
        if self.family == "value":
            return f"replaced: {by} says it again with a new value ('{self.given_up}' no longer holds)"
        if self.family == "state":
            return f"replaced: {by} says {self.subject or 'it'} is no longer {self.given_up}"
        return f"replaced: {by} gives up '{self.given_up}'{about} ({self.family})"


def _short(text: str, most: int = 60) -> str:
    return text if len(text) <= most else text[: most - 1].rsplit(" ", 1)[0] + "…"


def path_tail(path: str) -> tuple[str, ...]:
    """The last two parts of a path ("lin", "atlas" of "c:/users/lin/atlas")."""
    return tuple(path.rstrip("/").split("/")[-2:])


def _path_moved(old: Profile, r: Reading) -> Verdict | None:
    """A new path for what the older entry says is at another one, whatever either calls it
    ("新仓库路径：/Users/lin/atlas" for "Atlas repo: C:\\Users\\lin\\atlas"): both end in the same
    two parts, and the older entry does not name the new one."""
    mine = [n for n in r.value.names if "#path" in r.value.words and "/" in n and n in _paths(r.value)]
    for path in mine:
        tail = path_tail(path)
        if len(tail) < 2 or path in old.words.words:
            continue
        for theirs in _paths(old.words):
            if theirs != path and path_tail(theirs) == tail:
                return Verdict("switch", theirs, "/".join(tail))
    return None


def _paths(w: Words) -> list[str]:
    """The paths among the names (see subjects.words_of): those with a slash that are not a
    plain compound of words ("users/lin/atlas" is a part of "/users/lin/atlas")."""
    return [n for n in w.names if n[:1] in "/~%." or n[1:3] == ":/"]


def judge_reading(old: Profile, new: Profile, r: Reading) -> Verdict | None:
    """Whether one change `new` states replaces `old`."""
    if not r.ids <= old.words.words:
        return None  # another project, host or version than the older entry's
    if r.family in ("from-to", "replaced", "given-up"):
        if not holds(old.words, r.given_up) or holds(old.gives_up, r.given_up):
            return None  # the older entry does not state it, or gives it up too ("not email")
        if negated(old.scanned, r.given_up):
            return None  # it says so itself: "never email", "不用 X"
        if not (r.given_up.kinds or r.given_up.ids or r.old) and not (
            in_context(old, new, r.given_up)
            or alone(old, new, r)
            or (r.family != "given-up" and mostly(old, r.given_up))  # "from X to Y": X named as the old
        ):
            return None  # a plain word: the older entry must say it of what the newer one is about
        if not is_subject(r.given_up) and not valued(old, r.given_up.values, r.subject):
            return None  # a number is given up: the older entry must say it of what changed
        if not r.subject.values <= old.words.values:
            return None  # "release 2.5" is another release than 2.4
        if not r.subject.empty and not said_of(old, r.given_up, r.subject):
            return None  # it must say it of what changed, in one clause: "数据库用 MySQL 8"
        if holds(old.words, r.value) and not old.gives_up.blank and holds(old.gives_up, r.value):
            return None  # the same change, said again
        return Verdict(r.family, r.text, r.topic)
    # a switch: what changed must be what the older entry is about, and it must state a
    # value the newer one drops (a value the newer entry says "still" holds is not dropped)
    if new.additive or new.scoped or (new.still and not given_up(old.words, new.words)):
        return None
    if r.subject.empty:
        kinds = r.value.kinds & old.words.kinds
        if kinds and not kept(old, r, kinds):
            subject = " or ".join(sorted(k[1:] for k in kinds))
        elif moved_away(old, r):
            subject = r.topic
        else:
            return None
    else:
        found = subject_in(old, r)
        if found is None:
            return _path_moved(old, r)
        subject, r = r.topic, replace(r, subject=found)
    if says(old, r.value):
        return None  # it says the new value already
    if r.value.values and not same_attribute(old, r):
        return None
    if r.value.kinds and not r.value.values:
        if kept(old, r, r.value.kinds):
            return None  # the same city, tool or model as before: no new one
        if not (names_a_kind(old, r.value.kinds, r.subject) or same_head(old, r, r.subject)):
            return None  # a new tool, place or model, and the older entry names none of its kind
    attributes = {w for w in r.value.words if w[0] == "#"}
    attributes = attributes or {a for verb, a in IMPLIED + IMPLIED_MORE if verb.search(r.verb)}
    if not (r.value.values or r.value.kinds) and not (
        names_a_kind(old, frozenset(attributes), r.subject)
        or id_swapped(old, r)
        or (attributes == {"#place"} and platformed(old, new, r, r.subject))
        or (r.subject.empty and moved_away(old, r))
        or (
            not attributes
            and (
                (one_name(r) and only_about(old, new, r.subject))
                or same_head(old, r, r.subject)
                or ((r.itself or one_name(r)) and leads(old, new, r.subject) and not typed(old, r.subject))
            )
        )
    ):
        return None  # a new something: the older entry must say the same of it, and little else
    lost = given_up(old.body, r.clause)
    return Verdict("switch", _short(lost), subject) if lost else None


def judge(old: Profile, new: Profile, same_day: bool = False, evergreen: bool = False) -> Verdict | None:
    """Whether `new` (written later) replaces `old`, and why; None when it does not.
    `same_day`: both are notes of one day (a value said twice that day is no change);
    `evergreen`: both are in MEMORY.md (only an explicit cue tells which is newer)."""
    if _label(old):
        return None  # a label over a list ("**Until exec restored:**"): its facts are the items'
    named = [r.given_up for r in new.readings if r.family != "switch" and not r.given_up.blank]
    for r in new.readings:
        if r.family == "switch" and named and not any(_names(old.words, x) for x in named):
            continue  # "改用 Bun，不再用 Node": what it gives up is Node; pnpm is not retired by Bun
        verdict = judge_reading(old, new, r)
        if verdict is not None:
            return verdict
    if evergreen or same_day or new.additive or new.scoped:
        return None
    if new.readings:  # a change the newer entry states is judged by what it states, and a
        verdict = judge_state(old, new) if _recovered(old, new) else None  # state it says is back
        # ("VPN works again after switching …")
    else:
        verdict = judge_value(old, new) or judge_state(old, new) or judge_opposite(old, new)
    if verdict is None or not given_up(old.words, new.words):
        return None  # (nothing given up: the newer entry holds all of the older one, and adds)
    return verdict


def _names(old: Words, given_up: Words) -> bool:
    """Whether the older entry names something the newer one says it gives up (a word, a
    value, a Chinese pair of it: "发送到邮箱" for "不再发邮箱")."""
    return bool(given_up.values & old.values) or coverage(given_up, old)[0] > 0


def _label(p: Profile) -> bool:
    """Whether an entry is a label over what follows ("**版本对比**:", "Until exec restored:")."""
    return p.scanned.rstrip(" *`").endswith((":", "："))


def judge_correction(old: Profile, new: Profile) -> int:
    """How strongly a correction at the start of `new` points at `old`: the number of
    content words and Chinese pairs they share (0: not at all)."""
    if not new.correction or new.additive:
        return 0
    shared = new.body.content & old.body.content
    denied = holds(old.words, new.gives_up)  # "…is 100 req/min, not 1000"
    if len(shared) < 2 or not (given_up(old.body, new.words) or denied):
        return 0
    return len(shared)


def judge_value(old: Profile, new: Profile) -> Verdict | None:
    """The same subject with a new value, no cue needed: one template, other numbers
    ("连续51天零回滚率" → "连续54天零回滚率"), or one label with another value
    ("Postgres 14" → "Postgres 16") while the rest of the newer entry is about the same."""
    if old.record or new.record:
        return None  # a field of a note, an event of a day: no fact a later value replaces
    if new.template is not None and new.template == old.template:
        if new.words.values != old.words.values and new.body.units() >= 2:
            return Verdict("value", " ".join(sorted(old.words.values - new.words.values)), "")
        return None
    if not new.body.ids <= old.words.words or any(n not in old.words.words for n in new.body.names):
        return None  # every name the newer entry gives must be the older one's
    about_it: bool | None = None  # whether the newer entry is about what the older one says
    for label, value, clause in old.slots:
        if value in new.words.values:
            continue
        for theirs, number, _ in new.stated:
            if number == value or number in old.words.values or not overlap(label, theirs):
                continue
            # the newer entry is about what the older one says, and says all of what the old
            # value was said of ("中国元素 20%"; not "core append 12" for "yesterday append 13")
            if about_it is None:
                about_it = covers(old.words, new.body, share=0.75)
            if not about_it:
                return None
            if covers(new.words, words_of(clause), share=0.8):
                return Verdict("value", f"{label} {value}", label)
    return None


# opposite values of one attribute (a preference turned round: long answers -> short ones)
OPPOSITES = (
    ("long", "short"), ("detailed", "brief"), ("detailed", "short"), ("verbose", "concise"),
    ("verbose", "terse"), ("formal", "casual"), ("enabled", "disabled"), ("public", "private"),
    ("dark", "light"), ("morning", "evening"),
    ("详细", "简短"), ("详细", "简洁"), ("长篇", "简短"), ("冗长", "简洁"), ("正式", "随意"),
    ("开启", "关闭"), ("打开", "关闭"), ("启用", "禁用"), ("公开", "私有"), ("上午", "下午"),
    ("早上", "晚上"),
)  # fmt: skip
_OPPOSITE_WORDS = compile_cues(w for pair in OPPOSITES for w in pair)
_NOW = re.compile(r"\b(?:now|from now on|going forward|actually|instead|anymore)\b|以后|今后|现在|其实|往后")


def judge_opposite(old: Profile, new: Profile) -> Verdict | None:
    """A value turned into its opposite, said as what holds now ("Actually the user wants
    short answers now" after "The user prefers long, detailed answers"; "以后回答简短点")."""
    if old.record or new.record or not _NOW.search(new.scanned):
        return None
    for a, b in OPPOSITES:
        for this, that in ((a, b), (b, a)):
            if _has(old.scanned, this) and _has(new.scanned, that) and not _has(new.scanned, this):
                shared = (old.body.content & new.body.content) - GENERIC
                if is_subject(words_of(" ".join(shared))) or any(len(w) > 2 for w in shared):
                    return Verdict("value", this, " ".join(sorted(shared))[:40])
    return None


def may_oppose(scanned: str) -> bool:
    """Whether a text may turn a value into its opposite (see `judge_opposite`)."""
    return _NOW.search(scanned) is not None and _OPPOSITE_WORDS.search(scanned) is not None


def _has(text: str, word: str) -> bool:
    return re.search(rf"(?<![a-z]){word}(?![a-z])", text) is not None if word.isascii() else word in text


def judge_state(old: Profile, new: Profile) -> Verdict | None:
    """A state that ended: what the older entry says is up (down) is now down (up)."""
    if old.state is None or new.state is None or old.state == new.state or old.core.empty:
        return None
    if _label(old) or _label(new):
        return None  # a label over a list: its state is the items'
    if not is_subject(old.core) or not (old.core.content - GENERIC):
        return None  # "0 failures", "all checks": no component
    got, total = coverage(old.core, new.body)
    if total and got == total and old.core.content & new.body.content and old.core.ids <= new.body.words:
        mine, theirs = coverage(new.core, old.core)
        if mine < theirs and old.core.units() > 2 * NAME_UNITS:
            return None  # the newer one is about more than what the older one names alone
    elif not _recovered(old, new):
        return None
    named = old.core.names or old.core.runs
    return Verdict("state", "working" if old.state == "up" else "broken", " ".join(named[:3]))


def _recovered(old: Profile, new: Profile) -> bool:
    """Whether the newer entry says that what the older one says is down works again ("VPN
    works again after …" for "❌ VPN blocked on the hotel Wi-Fi", "VPN 已恢复正常" for "🔴 公司
    VPN 连不上"): what it says is up, the older entry says is down, and it names every name of
    what the older entry says is down, and at least half of it."""
    if old.state != "down" or new.state != "up" or not RECOVERED.search(new.scanned):
        return False
    mine, theirs = words_of(state_head(new.scanned)), words_of(state_head(old.scanned))
    if not mine.content or not theirs.content or not is_subject(mine):
        return False
    got, total = coverage(mine, old.core)
    if got < total:
        return False  # the newer entry is about another thing ("prod DB back up" for "staging DB down")
    got, total = coverage(theirs, new.body)
    first = words_of(theirs.names[0]) if theirs.names else words_of(theirs.runs[0][:2])
    # (every identifier, the first word, and half of what the older entry says is down)
    return theirs.ids <= new.body.words and coverage(first, new.body)[0] > 0 and 2 * got >= total
