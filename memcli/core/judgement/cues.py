"""The cues of a change, in English and Chinese (judgement.changes and .profiles read them).

- `PATTERNS`: the forms a change takes, each with the words it needs (its needles): from X
  to Y and X → Y; Y replaces X; X given up; switched to Y;
- `CORRECTION`: an entry that opens by saying an earlier one was wrong;
- `ADDITIVE`, `SCOPED`, `STILL`: an entry that only adds, scopes an exception, or keeps a
  value;
- `UP`, `DOWN`: the words of a state;
- `EVENT`: the words of an event of its day, which no later value replaces.
"""

from __future__ import annotations

import re

from memcli.core.rules import compile_cues

CORRECTION_AT_MOST = 24  # a correction says so at its start ("这个不对：…", "that's wrong: …")

_V = "(?:{})".format
_CHANGE_EN = _V(
    "switched|switching|switch|moved|moving|move|migrated|migrating|migrate|changed|changing|change|"
    "upgraded|upgrading|upgrade|downgraded|downgrade|bumped|bump|updated|update|reset|set|rescheduled|"
    "reschedule|postponed|postpone|pushed|slipped|delayed|delay|shifted|shift|transferred|transfer|"
    "handed over|"
    "handed off|handed|passed|converted|ported|relocated|relocate|repointed|pointed|reassigned|raised|"
    "lowered|increased|decreased|reduced|cut|went|flipped|narrowed|widened"
)
_NOW_EN = _V(
    r"now (?:uses?|using|runs? on|runs?|lives? (?:in|on|at)|goes? through|go through|points? to|hosted on|"
    r"deployed (?:on|to)|is|are)|(?:is|are) now"
)
_FROM_NOW_ON = r"from now on|going forward|henceforth"
# what the verb of a switch says its new value is: a place, a time, an owner, a version
IMPLIED = (
    (re.compile(r"mov|relocat|migrat|搬|迁|挪|移"), "#place"),
    (re.compile(r"postpon|reschedul|slipp|delay|推迟|延期|延到|提前"), "#date"),
    (re.compile(r"hand|pass|reassign|transfer|交给|转交|改由"), "#owner"),
    (re.compile(r"upgrad|downgrad|bump|升级|降级|升到"), "#version"),
)
_FROM_NOW_ON_ZH = r"以后|今后|往后|从现在起|从今以后|从今天起"
_CHANGE_ZH = _V(
    "改用|换成|换到|换用|换为|换了|迁到|迁移到|迁往|迁至|搬到|搬去|搬至|切换为|切换到|切换成|切到|改成|改为|改到|"
    "改由|改在|改走|调整到|调整为|调整成|调到|调为|升级到|升级为|升到|降级到|降到|更新到|更新为|推迟到|延期到|"
    "延到|提前到|挪到|移到|转到|转为|变成|变为|替换为|替换成|现在用|现在改用|目前用|交给|转交给"
)
_FROM_TO_ZH = _V(
    "改成|改为|换成|换到|换为|切换到|切换为|迁到|迁移到|升级到|调整到|调整为|调到|调为|改到|变成|变为|降到|降为|"
    "升到|提高到|降低到|增加到|减少到"
)
_GONE_ZH_AFTER = _V(
    "不再使用|不再用|不再|别再用|别再|不要再用|不要再|不用再|停止使用|停用|弃用|废弃|放弃|淘汰|下线"
)
_GONE_ZH_BEFORE = _V(
    "不再使用了?|不再用了?|不用了|弃用了|废弃了|下线了|停用了|淘汰了|已弃用|已废弃|已下线|已停用|已淘汰|退役了|"
    "不要了|作废了?|已作废|已经不用了"
)
_REPLACE_ZH = _V("替换|替代|取代|代替")
_GONE_EN = _V(
    "retired|deprecated|gone|dead|decommissioned|removed|dropped|sunset|shut down|turned off|disabled|"
    "abandoned|obsolete|history|no more|no longer (?:used|needed|in use|supported|maintained|running|active)"
)

# (family, pattern): named groups x (given up), y (new value), pre/mid (what changed)
_CONTRAST = (" now", "wrong", "correct", "actually")  # "Y, not X" says a change only with one of these
_LEFT = ("left", "has left", "stepped down", "resigned", "quit", "is leaving", "moved on")  # a person leaves
_LEFT_ZH = ("离职", "转岗", "调走", "辞职", "卸任", "不再负责", "退出了")
_LEFT_RE, _LEFT_ZH_RE = "|".join(_LEFT), "|".join(_LEFT_ZH)
ARROWS = ("→", "->", "=>", "⟶", "⇒")
_DROPPED = "dropped|ditched|abandoned|deprecated|retired|decommissioned|sunset|uninstalled"


def _words(alternation: str) -> tuple[str, ...]:
    """The words of a cue alternation, as needles ("no longer (?:used|…)" -> "no longer")."""
    return tuple(dict.fromkeys(w.split("(")[0].strip(" ?") for w in alternation.strip("(?:)").split("|")))


# (family, needles, pattern, also): a pattern is tried only where one of its needles (the
# words of its cue) occurs, and one of `also` when it names some
_NO_LONGER = r"(?:use[sd]?\s+|using\s+|on\s+|in\s+|at\s+|with\s+|runs?\s+on\s+|hosted\s+on\s+)?"
_ANY_MORE = r"\s+any\s?(?:more|longer)\b"
_BUT = ("more", "longer")
PATTERNS: tuple[tuple[str, frozenset[str], re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (family, frozenset(needles), re.compile(pattern), also)
    for family, needles, pattern, also in (
        # from X to Y
        ("from-to", ("from",), r"^(?P<pre>.*?)\bfrom\s+(?P<x>.+?)\s+to\s+(?P<y>.+)$", (" to ",)),
        ("from-to", ARROWS, r"^(?P<pre>.*?)(?P<x>[^,]+?)\s*(?:→|->|=>|⟶|⇒)\s*(?P<y>.+)$", ()),
        ("from-to", ("从",), rf"^(?P<pre>.*?)从(?P<x>.+?){_FROM_TO_ZH}了?(?P<y>.+)$", ()),
        ("from-to", ("由",), rf"^(?P<pre>.*?)由(?P<x>.+?){_FROM_TO_ZH}了?(?P<y>.+)$", ()),
        # Y replaces X
        ("replaced", ("replaced", "swapped"),
         r"^(?P<pre>.*?)\b(?:replaced|swapped)\s+(?P<x>.+?)\s+(?:with|by|for|out for)\s+(?P<y>.+)$", ()),
        ("replaced", ("replaced",),
         r"^(?P<x>.+?)\s+(?:was|is|has been|got|were|are|have been)\s+replaced\s+(?:with|by)\s+"
         r"(?P<y>.+)$", ()),
        ("replaced", ("replaces", "replaced", "supersedes", "superseded", "took over", "takes over"),
         r"^(?P<y>.+?)\s+(?:replaces|replaced|supersedes|superseded|took over from|takes over from)\s+"
         r"(?P<x>.+)$",
         ()),
        ("replaced", ("instead of", "rather than"),
         r"^(?P<y>.+?)\s+(?:instead of|rather than)\s+(?P<x>.+)$", ()),
        ("replaced", ("instead of",), r"^(?P<pre>.*?)\binstead of\s+(?P<x>[^,]+),\s*(?P<y>.+)$", ()),
        ("replaced", ("not",), r"^(?P<pre>.*?)\bnot\s+(?P<x>[^,]+?)\s+but\s+(?P<y>.+)$", _CONTRAST),
        ("replaced", ("not",), r"^(?P<y>.+?),\s*not\s+(?P<x>[^,]+)$", _CONTRAST),
        ("replaced", _words(_REPLACE_ZH), rf"^(?P<pre>.*?)用(?P<y>.+?){_REPLACE_ZH}了?(?P<x>.+)$", ()),
        ("replaced", _words(_REPLACE_ZH), rf"^(?P<x>.+?)(?:被|由)(?P<y>.+?){_REPLACE_ZH}了?$", ()),
        ("replaced", _words(_REPLACE_ZH), rf"^(?P<y>.+?){_REPLACE_ZH}了?(?P<x>.+)$", ()),
        ("replaced", ("而不是",), r"^(?P<y>.+?),?\s*而不是(?P<x>.+?)(?:来|去)?(?:做|用于|作为|用在|$)", ()),
        # X given up
        ("given-up", ("no longer",), rf"\bno longer\s+{_NO_LONGER}(?P<x>.+)$", ()),
        ("given-up", ("any", "anymore"),
         rf"\bnot\s+(?:on\s+|using\s+|in\s+|at\s+|with\s+)?(?P<x>.+?){_ANY_MORE}", _BUT),
        ("given-up", ("any", "anymore"),
         rf"\b(?:don't|do not|doesn't|does not|won't|never)\s+use\s+(?P<x>.+?){_ANY_MORE}", _BUT),
        ("given-up", ("using",), r"\b(?:stopped|stop|quit)\s+using\s+(?P<x>.+)$", ("stop", "quit")),
        ("given-up", _words(_DROPPED), rf"^(?P<pre>)(?:we\s+|i\s+)?(?:{_DROPPED})\s+(?P<x>.+)$", ()),
        ("given-up", _words(_GONE_EN),
         rf"^(?P<x>.+?)\s+(?:is|are|was|were|has been|have been|got|now)\s+{_GONE_EN}\b", ()),
        ("given-up", _LEFT,
         rf"^(?P<x>[a-z][a-z .'-]{{0,30}}?)\s+(?:{_LEFT_RE})\b(?!\s+(?:is|are|over|to do)\b)", ()),
        ("given-up", _LEFT_ZH, rf"^(?P<x>[^,，]{{1,12}}?)(?:{_LEFT_ZH_RE})", ()),
        ("given-up", _words(_GONE_ZH_AFTER), rf"{_GONE_ZH_AFTER}(?:使用|用|采用|依赖|走)?(?P<x>.+)$", ()),
        ("given-up", ("不再", "不用", "弃用", "废弃", "下线", "停用", "淘汰", "退役", "不要了", "作废"),
         rf"^(?P<x>.+?){_GONE_ZH_BEFORE}", ()),
        # switched to Y
        ("switch", _words(_CHANGE_EN),
         rf"^(?P<pre>.*?)\b{_CHANGE_EN}\b(?P<mid>.*?)\b(?:to|into|onto)\s+(?P<y>.+)$",
         (" to ", "into", "onto")),
        ("switch", ("now",), rf"^(?P<pre>.*?)\b{_NOW_EN}\s+(?P<y>.+)$", ()),
        ("switch", ("from now on", "going forward", "henceforth"),
         rf"\b(?:{_FROM_NOW_ON})\b,?\s*(?:we\s+|i\s+)?(?:will\s+|'ll\s+)?(?:use|run|go with)\s+(?P<y>.+?)"
         r"(?:\s+(?:for|in|on)\s+(?P<pre>.+))?$", ()),
        ("switch", _words(_FROM_NOW_ON_ZH),
         rf"(?:{_FROM_NOW_ON_ZH})[,，]?(?:统一|一律|都|全部)?(?:用|使用|改用|采用)(?P<y>.+)$", ()),
        ("switch", _words(_CHANGE_ZH), rf"^(?P<pre>.*?){_CHANGE_ZH}(?P<y>.+)$", ()),
    )
)  # fmt: skip

CORRECTION = re.compile(
    r"correction\b|corrected\b|that'?s wrong|that is wrong|that was wrong|i was wrong|wrong[:,]|scratch that|"
    r"my mistake|my bad|erratum|actually\b|更正|纠正[:：一]|勘误|说错了|记错了|搞错了|写错了|"
    r"弄错了|不对|是错的|其实是|实际上是"
)
ADDITIVE = re.compile(
    r"\b(?:also|as well|additionally|in addition|another|other)\b|另一|另外|也|此外|额外|补充|同时"
)
SCOPED = re.compile(
    r"\b(?:except|unless|only for|only in|just for|just in)\b|除了|除外|例外|仅限|仅在|只在|单独"
)
SENTENCE = re.compile(r"[;；。!?！？\n]+|\s[—–]\s|\s-\s")
STILL = re.compile(r"\b(?:still|as before|unchanged|same as)\b|仍然|仍旧|依然|依旧|照旧|还是|不变")
PARENS = re.compile(r"\([^()]*\)|（[^（）]*）|\[[^\[\]]*\]")
MASK = re.compile(r"[^\w#]+|_+")

# the words of a state: up (working, fixed, ✅) and down (broken, blocked, ❌)
UP = (
    "✅",
    "🟢",
    "operational",
    "working",
    "works",
    "functional",
    "fixed",
    "resolved",
    "restored",
    "back online",
    "online",
    "healthy",
    "recovered",
    "stable",
    "unblocked",
    "available",
    "up and running",
    "已恢复",
    "恢复正常",
    "恢复了",
    "已修复",
    "修复了",
    "已解决",
    "正常运行",
    "运行中",
    "可用",
    "在线",
)
DOWN = (
    "❌", "🔴", "⚠️", "broken", "blocked", "blocking", "down", "failing", "failed", "fails", "offline",
    "outage", "unavailable", "unreachable", "stuck", "crashed", "crashing", "not working", "doesn't work",
    "erroring", "investigating", "under investigation", "being fixed", "故障", "不可用", "挂了", "宕机",
    "阻塞", "卡住", "失败", "离线", "无法使用", "报错", "等维修", "待维修", "维修中", "排查中", "修复中",
)  # fmt: skip
POSITIVE = compile_cues(UP)
NEGATIVE = compile_cues(DOWN)
STATE_WORDS = compile_cues(UP + DOWN)


CHINESE_NEEDLES = tuple(tuple(n for n in needles if not n.isascii()) for _, needles, _, _ in PATTERNS)
# Whether a text may state a change by a cue: a needle of some pattern, as a whole word
QUICK = compile_cues({n for _, needles, _, _ in PATTERNS for n in needles})
DIGIT = re.compile(r"\d|[一二两三四五六七八九十]点")  # a value may be in it: a number, "十点"
ID_CHARS = re.compile(r"[\d\-_./]")
SHORT = 80  # characters: a short entry may restate one value of an older one ("中国元素 5%")


CHANGE_VERB = re.compile(rf"\b{_CHANGE_EN}\b|{_CHANGE_ZH}|{_FROM_TO_ZH}|→|->|=>|⟶|⇒")

# when a change takes effect: not what changes, nor from what ("从本周起改到…", "starting today")
SINCE = re.compile(
    r"从(?:本周|这周|下周|今天|明天|本月|下个?月|今年|现在|即日)起|(?:starting|effective|as of|beginning)\s+"
    r"(?:this|next|today|tomorrow|now|on)(?:\s+(?:week|month|year|sprint|monday|tuesday|wednesday|thursday|"
    r"friday))?"
)


EVENT = re.compile(
    r"\b(?:added|removed|deleted|fixed|wrote|written|ran|created|merged|sent|shipped|finished|completed|spent|"
    r"built|tested|closed|opened|released|published|reviewed|refactored|installed|uninstalled|took|did|made|"
    r"processed|insertions?|deletions?|commits?)\b|"
    r"新增|添加了|删除了|修复了|完成了|跑了|写了|加了|发了|花了|耗时|用时|提交了"
)
