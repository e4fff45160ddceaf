"""What the supersede judgement reads from one entry, once (`profile`; SPEC §7).

The supersede judgement (judgement.supersede) compares a newer entry with an older one;
a `Profile` holds what it needs of each, read from its scanned text when first asked for:

- the **changes** it states by a cue (`readings`, read by judgement.changes);
- a **correction** at its start ("that's wrong: …", "correction:", "这个不对，…", "说错了");
- its **values** with their labels ("Postgres 14", "端口 7890") and its template (the text
  with the values masked), for a value said again without a cue;
- its **state**: up (working, fixed, ✅) or down (broken, blocked, ❌, 连不上), and what the
  state is said of (`state_head`: "VPN" of "❌ VPN blocked on the hotel Wi-Fi");
- whether it only adds ("also", 也), scopes an exception ("except", 除了) or keeps a value
  ("still", 仍然), and whether it records its note rather than states a fact (`is_record`).
"""

from __future__ import annotations

import re
from functools import cached_property

from memcli.core.judgement.changes import QUICK_MORE, Reading, read_changes
from memcli.core.judgement.cues import (
    ADDITIVE,
    CORRECTION,
    CORRECTION_AT_MOST,
    DIGIT,
    DOWN,
    EVENT,
    MASK,
    PARENS,
    QUICK,
    SCOPED,
    STILL,
    UP,
)
from memcli.core.judgement.kinds import FUNCTION
from memcli.core.rules import compile_cues
from memcli.core.subjects import EMPTY, VALUE, Words, canonical, stem, words_of


def may_change(scanned: str) -> bool:
    """Whether a text may say something changed at all: a cue, a correction, a state, or
    a value (a quick look before `profile`)."""
    return (
        DIGIT.search(scanned) is not None
        or QUICK.search(scanned) is not None
        or QUICK_MORE.search(scanned) is not None
        or _STATE_WORDS.search(scanned) is not None
        or CORRECTION.search(scanned, 0, CORRECTION_AT_MOST + 4) is not None
    )


def corrects(scanned: str) -> bool:
    """Whether a text opens by saying an earlier entry was wrong (not "Correction protocol:
    …", a name)."""
    head = _head(scanned)
    m = CORRECTION.search(head)
    return m is not None and not (m.group(0) == "correction" and _NAMING.match(head, m.end()))


_NAMING = re.compile(r"\s*\**\s*[a-z]")  # a word right after "correction": a compound


def _head(scanned: str) -> str:
    return scanned.lstrip(" -*>:：`\"'“")[:CORRECTION_AT_MOST]


class Profile:
    """What the supersede judgement reads from one entry: each part read from its scanned
    text (scoring_text) when first asked for, then kept (most pairs are told apart by a
    part or two)."""

    def __init__(self, scanned: str, found: tuple[Reading, ...] | None = None) -> None:
        self.scanned = scanned
        if found is not None:
            self.readings = found

    def __reduce__(self) -> tuple[type[Profile], tuple[str, tuple[Reading, ...]]]:
        """What the memo keeps of a profile: its text and its readings. Every other part is
        read again when asked for, so a profile is kept the same whichever parts this run
        happened to read (a pair judged in a worker process reads them there)."""
        return (Profile, (self.scanned, self.readings))

    @cached_property
    def readings(self) -> tuple[Reading, ...]:
        return read_changes(self.scanned)

    @cached_property
    def _body_text(self) -> str:
        return PARENS.sub(" ", self.scanned)

    @property
    def body_text(self) -> str:
        """The scanned text without remarks in brackets."""
        return self._body_text

    @cached_property
    def words(self) -> Words:
        return words_of(self.scanned)

    @cached_property
    def body(self) -> Words:
        """Without parentheses: a remark in brackets names no subject."""
        body = self._body_text
        return self.words if body == self.scanned else words_of(body)

    @cached_property
    def gives_up(self) -> Words:
        """What its own changes give up."""
        given = " ".join(r.text for r in self.readings if r.family != "switch")
        return words_of(given) if given else EMPTY

    @cached_property
    def correction(self) -> bool:
        """It opens by saying an earlier entry was wrong."""
        return corrects(self.scanned)

    @cached_property
    def template(self) -> str | None:
        """The text with its values masked, when it has values."""
        return template_of(self.scanned)

    @cached_property
    def slots(self) -> tuple[tuple[str, str, str], ...]:
        """(label, value, clause): "postgres 14", "中国元素 20%"."""
        return slots_of(self.scanned) if DIGIT.search(self.scanned) else ()

    @cached_property
    def stated(self) -> tuple[tuple[str, str, str], ...]:
        """The slots outside brackets (what a newer entry states)."""
        body = self._body_text
        return slots_of(body) if DIGIT.search(body) else ()

    @cached_property
    def state(self) -> str | None:
        """up or down."""
        return state_of(self.scanned) if _STATE_WORDS.search(self.scanned) else None

    @cached_property
    def core(self) -> Words:
        """For a state: what it is about (no state words, values or remarks)."""
        return words_of(state_core(self.scanned)) if self.state is not None else EMPTY

    @cached_property
    def additive(self) -> bool:
        return ADDITIVE.search(self.scanned) is not None

    @cached_property
    def scoped(self) -> bool:
        return SCOPED.search(self.scanned) is not None

    @cached_property
    def still(self) -> bool:
        """It says something stays as it was ("still", 仍然)."""
        return STILL.search(self.scanned) is not None

    @cached_property
    def record(self) -> bool:
        """A field of its note ("原始 Tokens: 261") or an event of its day ("~40 lines added")."""
        return is_record(self._body_text)


CLAUSE_START = re.compile(r"[,;，；。:+()（）]")
_CLAUSE_END = re.compile(r"[,;，；。+()（）]")
# the word or Chinese run right before a value, nothing but spaces, "is", "=", "是" between
_LABEL = re.compile(
    r"(?:([a-z][a-z0-9_\-./]*)|([\u2e80-\u9fff]{2,}))\s*(?:is|are|was|at|of|to|=|是|为|在)?\s*$"
)


_BARE = " `'\"“”‘’€$£¥"  # what may stand between a label and its value: spaces, quotes, a currency
_FOLLOWING = re.compile(r"\s*(?:([a-z][a-z ]*[a-z])|([\u2e80-\u9fff]{2,}))")
_NO_LABEL = frozenset("a an the by at on in to of for from until till since before after and or with".split())


def slots_of(scanned: str, after: bool = True) -> tuple[tuple[str, str, str], ...]:
    """(label, value, clause) triples: a value, the word or Chinese run right before it (and,
    with `after`, the noun it counts: "5个知识页面", "25 tests failing"), and the clause
    around it."""
    out: list[tuple[str, str, str]] = []
    for m in VALUE.finditer(scanned):
        pieces = CLAUSE_START.split(scanned[: m.start()])
        before = pieces[-1]
        if len(pieces) > 1 and not before.strip(_BARE) and scanned[: m.start()].rstrip(_BARE).endswith(":"):
            before = f"{pieces[-2]}: {before}"  # "groceries budget: €500": the label before its colon
        behind = _CLAUSE_END.split(scanned[m.end() :], maxsplit=1)[0]
        clause = f"{before}{m.group(0)}{behind}"
        value = canonical(m.group(0))
        following = _FOLLOWING.match(behind) if after else None
        if following is not None:
            words = following.group(1).split() if following.group(1) else [following.group(2)]
            for word in words[:2]:
                if word not in _NO_LABEL and word not in FUNCTION:
                    out.append((stem(word) if word.isascii() else word, value, clause))
        label = _LABEL.search(before.rstrip(_BARE).rstrip(":").rstrip(_BARE))
        if label is not None and (label.group(1) or "") not in _NO_LABEL:
            word = label.group(1) or label.group(2)
            out.append(
                (
                    stem(word) if word.isascii() else word,
                    value,
                    clause,
                )
            )
    return tuple(out)


# more words of a state than cues.UP and cues.DOWN: what cannot be reached or used
DOWN_MORE = (
    "连不上", "连不了", "打不开", "上不去", "登不上", "登不进", "进不去", "用不了", "不能用", "没法用",
    "访问不了", "无法访问", "无法连接", "连接失败", "收不到", "发不出", "卡纸", "can't connect",
    "cannot connect", "won't start", "won't load", "not loading", "times out", "timing out", "jammed",
)  # fmt: skip
UP_MORE = ("works again", "修好了", "能用了", "可以用了", "连上了", "恢复使用")
_NEGATIVE = compile_cues(DOWN + DOWN_MORE)
_POSITIVE = compile_cues(UP + UP_MORE)
_STATE_WORDS = compile_cues(UP + DOWN + DOWN_MORE + UP_MORE)
# a state that says it was down before: "works again", "is back", 已恢复
RECOVERED = re.compile(
    r"\b(?:again|back|restored|recovered|fixed|resolved|unblocked)\b|恢复|修好|修复|能用了|连上了|解决了|已解决"
)
_HEAD_CLAUSE = re.compile(
    r"[,;:，；。：]|\s[—–-]\s|\b(?:after|since|because|when|once|on|in|at|for|with|via|from)\b"
)


def has_state(scanned: str) -> bool:
    """Whether a text has a word of a state (see `state_of`)."""
    return _STATE_WORDS.search(scanned) is not None


def state_core(scanned: str) -> str:
    """What a state is about: the text without its state words, values and remarks."""
    return VALUE.sub(" ", _STATE_WORDS.sub(" ", PARENS.sub(" ", scanned)))


def state_head(scanned: str) -> str:
    """What a state is said of: the words right before its first state word, in its clause
    ("VPN" of "❌ VPN blocked on the hotel Wi-Fi", "公司 VPN" of "🔴 公司 VPN 连不上"), or after
    it when it comes first ("fixed the login page"); with only a sign (❌), its first clause."""
    text = PARENS.sub(" ", scanned)
    for m in _STATE_WORDS.finditer(text):
        if not (m.group(0)[0].isalnum() or m.group(0)[0] == "'"):
            continue  # a sign: the words say more
        before = _HEAD_CLAUSE.split(text[: m.start()])[-1]
        if words_of(state_core(before)).content:
            return state_core(before)
        return state_core(_HEAD_CLAUSE.split(text[m.end() :], maxsplit=1)[0])
    return state_core(_HEAD_CLAUSE.split(text, maxsplit=1)[0])


def state_of(scanned: str) -> str | None:
    """up (working, fixed, ✅), down (broken, blocked, ❌) or None, from the words outside
    brackets first ("not working" is down, not up)."""
    outside = PARENS.sub(" ", scanned)
    for text in (outside, scanned):
        down = _NEGATIVE.search(text) is not None
        up = _POSITIVE.search(_NEGATIVE.sub(" ", text) if down else text) is not None
        if up != down:
            return "up" if up else "down"
        if up and down:
            return None
    return None


_FIELD_COLON = re.compile(r"(?<!\d)[:：]|[:：](?!\d)")


def is_record(body: str) -> bool:
    """Whether a text records its note rather than states a fact a later value replaces: a
    field whose value is only a number, a date or a time ("压缩率：54.5%", "下次检查：22:47"),
    a label over what follows ("**6 new tests:**"), a form of fields, an italic footer, or
    an event of its day ("~40 lines added to src/index.js", "跑了 45 分钟")."""
    text = body.strip(" -*>`")
    if _STAMP.search(text):
        return True  # "【自检自愈 · 2026-04-04 23:47】", "session_start: 2026-02-11 21:51:00"
    italic = body.lstrip(" -").startswith("*") and not body.lstrip(" -").startswith("**")
    if text.endswith((":", "：")) or italic:
        return True
    colons = [m.start() for m in _FIELD_COLON.finditer(text)]
    if len(colons) >= 2:
        return True
    if colons and colons[0] <= 24:
        value = text[colons[0] + 1 :]
        if not _WORDY.search(VALUE.sub(" ", value)) or len(VALUE.findall(value)) >= 2:
            return True  # a field of numbers: "压缩率：54.5%", "产出: 3 文件 / ~24kb"
    return EVENT.search(text) is not None


_STAMP = re.compile(r"\d{4}-\d{1,2}-\d{1,2}[ t]+\d{1,2}:\d{2}")
_WORDY = re.compile(r"[a-z\u2e80-\u9fff]")


def profile(scanned: str, found: tuple[Reading, ...] | None = None) -> Profile:
    """Everything the judgement needs from an entry's scanned text (scoring_text), read as
    it is asked for; `found` are its readings, when already read."""
    return Profile(scanned, found)


def template_of(scanned: str) -> str | None:
    """The text with its values masked (remarks in brackets left out), when it has values."""
    if DIGIT.search(scanned) is None:
        return None
    body = PARENS.sub(" ", scanned) if "(" in scanned or "（" in scanned or "[" in scanned else scanned
    masked = VALUE.sub(" # ", body)
    if masked == body:
        return None
    template = " ".join(MASK.sub(" ", masked).split())
    return template if template.replace("#", "").strip() else None
