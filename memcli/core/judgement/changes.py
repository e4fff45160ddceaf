"""What an entry says changed: the changes it states by a cue, read from its text (SPEC §7).

The supersede judgement (judgement.supersede) compares a newer entry with an older one;
this module reads the **changes** one entry states by a cue (`read_changes`, kept in its
profile, judgement.profiles): a switch or a move ("switched to Y", "moved the blog to Y",
改用, 换成, 迁到, 切换为), a replacement ("replaced X with Y", "X → Y", "from X to Y", 从 X 换到
Y, "Y instead of X"), something given up ("no longer X", "not X anymore", "X is retired",
不再用 X, X 不用了), each with what is given up, the new value and what changed. Beside the
cues' forms (cues.PATTERNS), this module's `MORE_PATTERNS`: a habit or a thing given up ("he
quit coffee", "doesn't drink cola anymore", 戒了咖啡, 不喝咖啡了, "Hugo 那套不再维护", "…; APA
is out" beside another change), the subject itself swapped ("switched GPs: now seeing Dr.
Okafor", 换了个牙医，现在是李医生), a new owner ("Priya owns billing now", 社保现在由小刘负责),
"new X: Y" for what one thing has one of ("New repo path: /x", 新仓库路径：/x) and more Chinese
verbs (上限提到 650 元, 日志改写到 X); what changed is read without who did it
("医生把…降压药换成了…"), when ("今年车险", "从下学期起") or a label ("决策：…"), what is given
up without "the old" and a head naming nothing ("the old cron job": cron, said to be the old
one); a value in backticks reads as written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from memcli.core.judgement.cues import (
    ARROWS,
    CHANGE_VERB,
    CHINESE_NEEDLES,
    PARENS,
    PATTERNS,
    QUICK,
    SENTENCE,
    SINCE,
)
from memcli.core.rules import compile_cues
from memcli.core.subjects import Words, ids_of, merged, words_of

# --- more forms of a change (issue 17), beside the cues' PATTERNS ----------------------------
# (family, needles, pattern, also, mark): as in cues.PATTERNS; `mark` says more of it:
# "itself" (the subject itself was swapped: "switched GPs: now …", 换了车险), "companion" (a
# change only beside another one: "APA is out" after "switched citations to Chicago").
_ACTOR = r"(?:[a-z][a-z .'-]{0,30}?|[\u4e00-\u9fff]{1,6}?)"
_V = "(?:{})".format
_CHANGE_ZH_MORE = _V(
    "提高到|提高至|提升到|增加到|增至|上调到|上调至|下调到|下调至|调高到|调低到|减少到|降低到|降至|缩短到|延长到|放宽到|"
    "收紧到|改写到|改写进|改存到|改存在|改放到|改放在|改发到|改装到|改挂到|改接到|改去|改找|改交给|改买|改报|改读|改吃|"
    "改喝|改看|改约|改上|改住|迁去|迁往|转去|转入|转投"
)
# verbs of a change that are other words too ("会上提到 Redis", "添加到 posts 目录"): only
# before a number ("上限提到 650 元", "涨到 360 元")
_CHANGE_ZH_NUMBER = _V("提到|涨到|加到|减到|降到|跌到|升到")
_OWN_EN = (
    "owns|maintains|leads|handles|manages|is in charge of|is responsible for|took over|has taken over|"
    "takes over"
)
_GIVE_UP_EN = "quit|quitted|gave up|given up|giving up|stopped|has stopped|cut out"
_GIVE_UP_ZH_VERBS = tuple("喝 吃 抽 去 坐 开 玩 看 住 打 踢 弹 练 骑 跑 追 订 听".split())
_FOR_GOOD = r"(?:\s+(?:entirely|completely|altogether|for good|cold turkey|for now|too|as well))*"
# what one thing has one of, that a "new" one replaces ("new repo path", 新仓库路径)
_ONE_OF_EN = (
    "path|location|address|url|link|port|host|owner|lead|contact|maintainer|manager|time|schedule|slot|date|"
    "deadline|plan|budget|price|rate|limit|email|phone|number|password|home|office|provider|vendor|doctor|gp|"
    "dentist|landlord|bank|account|editor|default"
)
_ONE_OF_ZH = (
    "路径|地址|位置|目录|链接|网址|端口|负责人|对接人|联系人|时间|日期|截止日期|计划|预算|价格|费率|上限|邮箱|电话|号码|"
    "手机号|密码|住址|办公室|供应商|服务商|医生|房东|银行|账户|账号|编辑器|默认"
)
_A_PATH = r"(?:[a-z]:[\\/]|~[\\/]|%[a-z_]+%|\.{1,2}/|/[\w.~-])"
MORE_PATTERNS: tuple[tuple[str, frozenset[str], re.Pattern[str], tuple[str, ...], str], ...] = tuple(
    (family, frozenset(needles), re.compile(pattern), also, mark)
    for family, needles, pattern, also, mark in (
        # X given up: "he quit coffee", "gave up the gym", 戒了咖啡, 不喝咖啡了, Hugo 那套不再维护
        ("given-up", ("quit", "quitted", "gave up", "given up", "giving up", "stopped", "cut out"),
         rf"^(?P<pre>{_ACTOR})\s*\b(?:{_GIVE_UP_EN})\s+(?:using\s+|drinking\s+|eating\s+|going\s+to\s+)?"
         rf"(?P<x>[^,;]+?){_FOR_GOOD}$", (), ""),
        ("given-up", ("any", "anymore"),
         r"\b(?:don't|do not|doesn't|does not|won't|never|can't|cannot)\s+(?P<x>.+?)"
         r"\s+any\s?(?:more|longer)\b",
         ("more", "longer"), ""),
        ("given-up", ("戒了", "戒掉"), r"戒(?:掉了|掉|了)(?P<x>[^，,。;；]+?)了?$", (), ""),
        ("given-up", ("戒了", "戒掉"), r"^(?P<x>.+?)(?:已经|早就|也)?戒(?:掉了|掉|了)", (), ""),
        ("given-up", tuple("不" + v for v in _GIVE_UP_ZH_VERBS),
         rf"(?:已经|早就|再也)?不(?:再)?(?:{'|'.join(_GIVE_UP_ZH_VERBS)})(?P<x>[^，,。;；]+?)了", (), ""),
        ("given-up", ("不再维护", "不再更新", "不再支持", "不维护", "停止维护", "停更", "没人维护"),
         r"^(?P<x>.+?)(?:那套|这套|那个|这个|那边)?(?:已经)?(?:不再|不|停止|停|没人)(?:维护|更新|支持|更)了?",
         (), ""),
        ("given-up", ("out",), r"^(?P<x>[^,;]+?)\s+(?:is|are)\s+(?:now\s+)?out\s*$", (), "companion"),
        ("given-up", ("出局", "下掉", "撤掉", "拿掉"), r"^(?P<x>.+?)(?:也)?(?:出局|下掉|撤掉|拿掉)了?$", (),
         "companion"),
        # the subject itself swapped: "switched GPs: now seeing Dr. Okafor", 换了车险，现在是人保
        ("switch", ("switched", "changed", "swapped"),
         r"^(?P<pre>.*?)\b(?:switched|changed|swapped)\s+(?:the\s+|my\s+|our\s+|his\s+|her\s+|their\s+)?"
         r"(?!(?:to|into|onto|from|over)\b)(?P<mid>[a-z][a-z .'-]{0,30}?)"
         r"(?:\s*:\s+(?:now\s+)?|\s*(?:,|\s[—–-])\s*(?:and\s+)?now\s+)"
         r"(?:seeing|using|with|at|on|in|going to|it's|it is|is|are|the new one is)?\s*(?P<y>[^,;]+)$",
         (), "itself"),
        ("switch", ("换了",),
         r"^(?P<pre>.*?)换了(?:个|家|一家|一个|新的?)?(?P<mid>[^，,：:。]{1,8})(?:[：:]|[，,]\s*(?:现在|目前|改))\s*"
         r"(?:是|用|在|找|去|走)?(?P<y>[^，,。]+)$", (), "itself"),
        # a new owner: "Priya owns billing now", 社保现在由小刘负责, 小刘接手了社保
        ("switch", ("owns", "maintains", "leads", "handles", "manages", "in charge", "responsible",
                    "took over", "taken over", "takes over"),
         rf"^(?P<y>[a-z][a-z .'-]{{0,30}}?)\s+(?:now\s+)?(?:{_OWN_EN})\s+(?P<pre>.+?)(?:\s+now)?$",
         ("now", "took over", "taken over", "takes over"), ""),
        ("switch", ("由",),
         r"^(?P<pre>[^，,。]+?)(?:现在|目前|今后|以后|已经|已|改|转)+由(?P<y>[^，,。]+?)(?:来)?(?:负责|管理|管|接手|对接|处理|维护|打理)",
         (), ""),
        ("switch", ("接手", "接管"),
         r"^(?P<y>[^，,。]{1,8}?)(?:已经)?接(?:手|管)了?(?P<pre>[^，,。]+)$", (), ""),
        # new X: Y ("New repo path: /x", 新仓库路径：/x, "the new on-call is Omar")
        # (only of an attribute one thing has one of: "new test file: x" adds a file, replaces none)
        ("switch", ("new",),
         rf"^(?:the\s+|our\s+|my\s+|his\s+|her\s+)?new\s+(?P<pre>(?:[a-z][^:]{{0,40}}?\s)?(?:{_ONE_OF_EN}))"
         r"\s*(?::|\s+is\s+|\s+are\s+)\s*(?P<y>.+)$", (), ""),
        ("switch", ("新",),
         rf"^新(?:的)?(?P<pre>[^：:，,。]{{0,10}}?(?:{_ONE_OF_ZH}))(?:[：:]|是|为|在)\s*(?P<y>.+)$",
         (), ""),
        # (or of anything, when the new one is a path: "new config file: ~/.config/app.toml")
        ("switch", ("new",),
         rf"^(?:the\s+|our\s+|my\s+)?new\s+(?P<pre>[a-z][^:]{{0,40}}?)\s*(?::|\s+is\s+)\s*"
         rf"(?P<y>{_A_PATH}.*)$", (), ""),
        ("switch", ("新",),
         rf"^新(?:的)?(?P<pre>[^：:，,。]{{1,10}}?)(?:[：:]|是|为|在)\s*(?P<y>{_A_PATH}.*)$", (), ""),
        # more Chinese verbs of a change: 上限提到 650 元, 日志改写到 X, 改找小刘
        ("switch", _CHANGE_ZH_MORE[3:-1].split("|"), rf"^(?P<pre>.*?){_CHANGE_ZH_MORE}(?P<y>.+)$", (), ""),
        ("switch", _CHANGE_ZH_NUMBER[3:-1].split("|"),
         rf"^(?P<pre>.*?)(?<![添增追]){_CHANGE_ZH_NUMBER}(?P<y>\s*[\d一二两三四五六七八九十].*)$", (), ""),
    )
)  # fmt: skip
_MORE_ZH_NEEDLES = tuple(
    tuple(n for n in needles if not n.isascii()) for _, needles, _, _, _ in MORE_PATTERNS
)
QUICK_MORE = compile_cues(n for _, needles, _, _, _ in MORE_PATTERNS for n in needles)
# when a change takes effect, in more words than cues.SINCE: "从下学期起", "从 10 月开始"
_SINCE_MORE = re.compile(r"从[^，,。从到]{1,8}?(?:起|开始)(?:[,，]\s*)?")
# a time a subject is said at, not a part of it ("今年车险换到人保")
_WHEN_ZH = re.compile(
    r"^(?:今年|去年|明年|前年|本学期|下学期|上学期|这学期|最近|刚刚|刚才|上个?月|下个?月|这个?月|本月|年初|年底|月初|月底|"
    r"今天|昨天|本周|这周|上周|下周|已经|现在|目前)+"
)
_PARTICLE = re.compile(r"(?:up|down|back|out|over|forward|ahead|along|away|off)?")
# a cue inside a longer word, just before the new value ("转换为": convert; "兑换成": exchange)
_EMBEDDED = re.compile(r"(?:转换|转化|变换|兑换|交换)(?:为|成|到)?\s*$")
_PUSHED = re.compile(
    r"\bpush(?:ed|ing)?\b.*?\bto\s+(?:https?:|git@|origin\b|upstream\b|main\b|master\b|"
    r"the (?:repo|remote|branch)\b|"
    r"github|gitlab|gitee|bitbucket)"
)
# who does it, before 把 ("医生把妈妈的降压药换成了…": the drug changed, not the doctor)
_AGENT = re.compile(r"^[^，,。]*?(?:把|将)(?=[^，,。]{2})")
# what is given up, said as the old one ("the old Task Scheduler entry", 原来的 X)
_OLD_MARK = re.compile(
    r"^(?:the\s+|our\s+|my\s+)?(?:old|previous|former|legacy)\s+|^(?:旧的?|原来的?|之前的?|以前的?|老的)"
)
# a head that names no thing of its own ("the old cron *job*", "Hugo *那套*")
_GENERIC_HEAD = re.compile(
    r"\s+(?:entry|entries|job|jobs|setup|set-up|config|configuration|one|ones|thing|approach|setting|settings|"
    r"solution|option)$|(?:那套|这套|那个|这个|那边|方案|那种|这种)$"
)
# a verb before what is given up in Chinese ("不再喝咖啡": 咖啡)
_ZH_VERB_FIRST = re.compile(
    r"^(?:喝|吃|抽|去|坐|开|玩|看|听|住|买|走|打|踢|弹|练|骑|跑|追|订)(?=[\u4e00-\u9fffa-z]{2})"
)
# why or since when it was given up, which is no part of it ("stopped running after the injury")
_REASON = re.compile(r"\s+(?:after|because|since|due to|following|when|as|so|until)\b.*$")
# a given-up "thing" that is only a verb ("不再维护" names no thing)
_VERB_ONLY_ZH = frozenset("维护 更新 支持 使用 需要 负责 提供 运行 生效 适用 考虑 处理".split())


@dataclass(frozen=True, slots=True)
class Reading:
    """One change a newer entry states."""

    family: str  # from-to, replaced, given-up, switch
    given_up: Words  # what it gives up ("X" of "from X to Y"), when it says
    value: Words  # the new value ("Y"), when it says
    subject: Words  # what changed ("the blog" of "moved the blog to Y"), when it says
    text: str  # the words of what is given up, or of the new value
    clause: Words  # the clause that says it: what changed, from what, to what
    ids: frozenset[str]  # identifiers the entry names besides the new value (atlas-api, v2)
    verb: str  # the words of its cue
    topic: str = ""  # the words of what changed, as written
    itself: bool = False  # the subject itself was swapped ("switched GPs: now …", 换了车险)
    old: bool = False  # what is given up is said to be the old one ("the old cron job")
    companion: bool = False  # a change only beside another one ("…; APA is out")


def _clip(text: str, first: bool) -> str:
    """The part of a captured phrase inside its clause: up to its first comma when it
    follows the cue, after its last one when it comes before."""
    parts = re.split(r"[,，、]", text)
    return (parts[0] if first else parts[-1]).strip()


_CODE = re.compile(r"`([^`\n]*)`")


def _code_as_words(text: str) -> str:
    """Code spans as single words: a command (`alembic upgrade head`) says no change; a span
    of one word (a value, a path, a name: `25432`, `/Users/lin/atlas`) is read as written."""
    return _CODE.sub(lambda m: _code_word(m.group(1)), text)


def _code_word(code: str) -> str:
    if _PLAIN_CODE.fullmatch(code.strip()):
        return f" {code.strip()} "
    return " _" + code.replace(" ", "_") + "_ "


_PLAIN_CODE = re.compile(r"[\w.:/\\~%@+-]+")  # a value, a path, a name; not a call ("update()")


def read_changes(scanned: str) -> tuple[Reading, ...]:
    """The changes an entry's scanned text states by a cue (none without one)."""
    if not QUICK.search(scanned) and not QUICK_MORE.search(scanned):
        return ()
    return readings(_SINCE_MORE.sub(" ", SINCE.sub(" ", PARENS.sub(" ", _code_as_words(scanned)))))


def _alike(x: Words, y: Words, sentence: str, labelled: bool) -> bool:
    """Whether "X → Y" reads as a change: one arrow, and a value for a value, a thing for a
    thing of its kind, a short value for another under a label ("cadence: monthly →
    weekly"), or a change said in words."""
    if sum(sentence.count(a) for a in ARROWS) != 1:
        return False
    if x.values and y.values:
        return True
    if labelled and x.units() <= 4 and y.units() <= 4:
        return True
    return (
        bool(x.kinds & y.kinds)
        or CHANGE_VERB.search(sentence.replace("→", " ").replace("->", " ")) is not None
    )


def readings(scanned: str) -> tuple[Reading, ...]:
    """The changes a text states, sentence by sentence. What is given up takes the subject
    of the sentence's other change when it has none of its own ("数据库改用 PostgreSQL，不再用
    MySQL": MySQL as the database, not every mention of MySQL)."""
    found: list[Reading] = []
    for sentence in SENTENCE.split(scanned):
        mine = len(found)
        sentence = sentence.strip(" :：*`")
        if not sentence:
            continue
        present = {m.group(0) for m in QUICK.finditer(sentence)}
        present.update(m.group(0) for m in QUICK_MORE.finditer(sentence))
        if not present:
            continue
        ids: frozenset[str] | None = None
        for family, needles, pattern, also, mark, chinese in _ALL_PATTERNS:
            cue = needles & present
            if chinese:
                cue |= {n for n in chinese if n in sentence}
            if not cue:
                continue
            if also and not any(a in sentence for a in also):
                continue
            if (m := pattern.search(sentence)) is None:
                continue
            if family == "switch" and _EMBEDDED.search(sentence, 0, m.start("y")):
                continue  # "文件转换为 Markdown": to convert, not to change to
            if family == "switch" and _PUSHED.search(sentence):
                continue  # "pushed to https://github.com/…": a push, not a move
            arrow = any(a in sentence for a in ARROWS)
            if family == "from-to" and not (arrow or CHANGE_VERB.search(sentence.replace("→", " "))):
                continue  # "from 9:00 to 17:00", "away from Monday to Friday": a range, no change
            groups = m.groupdict()
            end = len(sentence)
            x = _clip(groups.get("x") or "", first=m.end("x") == end) if "x" in groups else ""
            label, colon, rest = x.rpartition(":")
            labelled = bool(colon and label.strip()) and family == "from-to"
            if labelled:  # "release cadence: monthly → weekly"
                groups["pre"], x = label, rest.strip()
            x, old = _given_up_text(x)
            if family == "given-up" and x in _VERB_ONLY_ZH:
                continue  # "不再维护" alone: what is no longer maintained comes before it
            y = _clip(groups.get("y") or "", first=m.end("y") == end) if "y" in groups else ""
            mid = groups.get("mid") or ""
            if _PARTICLE.fullmatch(mid.strip()):
                mid = ""  # "rent went *up* to €1,350": the rent
            before = mid if words_of(mid).content else groups.get("pre") or ""  # "relocated *the office* to"
            subject = _clip(before, first="pre" in groups and m.end("pre") == end and m.start("pre") > 0)
            label, colon, said = subject.rpartition(":")
            if colon and family == "switch":  # "决策：全部迁移到…": what follows a label is what changed
                subject = said if said.strip() else label
            subject = _WHEN_ZH.sub("", _AGENT.sub("", subject.strip()))  # "今年车险": the car insurance
            if mark == "itself" and subject.isascii():
                subject = re.sub(r"(?<=[a-z]{2})s$", "", subject)  # "switched GPs": one GP for another
            given_up, value = words_of(x), words_of(y)
            if given_up.blank and value.blank:
                continue
            if arrow and family == "from-to" and not _alike(given_up, value, sentence, labelled):
                continue  # "学习 → 融合 → 执行", "invalid regex → returns []": a pipeline, a result
            if ids is None:
                ids = ids_of(scanned)
            # (the new value's own identifiers are no other project when it ends the sentence, or
            # when it replaces what is said to be the old one: "launchd agent `x` replaces the old …")
            trailing = value.ids if ("y" in groups and m.end("y") == end) or old else frozenset()
            named = ids - given_up.ids - trailing
            about = words_of(subject)
            clause = merged(about, given_up, value)
            verb = " ".join(sorted(cue))
            found.append(
                Reading(
                    family, given_up, value, about, x or y, clause, named, verb, subject,
                    itself=mark == "itself", old=old, companion=mark == "companion",
                )
            )  # fmt: skip
            if family != "given-up":
                break  # one change per sentence, the most telling form first
        named_one = next((r for r in found[mine:] if not r.subject.empty), None)
        if named_one is not None:
            found[mine:] = [
                r if not r.subject.empty else replace(r, subject=named_one.subject, topic=named_one.topic)
                for r in found[mine:]
            ]
    if all(r.companion for r in found):
        return ()  # "the new release is out": no change beside it, so nothing given up
    return tuple(found)


def _given_up_text(x: str) -> tuple[str, bool]:
    """What is given up, without what only says it is the old one ("the old Task Scheduler
    entry": Task Scheduler, said to be the old one), a head naming nothing of its own ("cron
    job", "Hugo 那套") or a Chinese verb before it ("喝咖啡": 咖啡)."""
    x = x.strip()
    old = _OLD_MARK.search(x)
    if old is not None:
        x = x[old.end() :].strip()
    if x.isascii():
        x = _REASON.sub("", x)
    head = _GENERIC_HEAD.search(x)
    if head is not None and words_of(x[: head.start()]).content:
        x = x[: head.start()].strip()
    if not x.isascii():
        x = _ZH_VERB_FIRST.sub("", x)
    return x, old is not None


# the cues' patterns and this module's, in the order they are tried: the changes that say
# what they give up first, then the switches (one change per sentence)
_MORE = list(zip(MORE_PATTERNS, _MORE_ZH_NEEDLES, strict=True))
_ALL_PATTERNS = (
    [
        (f, n, p, a, "", zh)
        for (f, n, p, a), zh in zip(PATTERNS, CHINESE_NEEDLES, strict=True)
        if f != "switch"
    ]
    + [(f, n, p, a, k, zh) for (f, n, p, a, k), zh in _MORE if f != "switch"]
    + [
        (f, n, p, a, k, zh) for (f, n, p, a, k), zh in _MORE if f == "switch" and k == "itself"
    ]  # ("换了个牙医：…")
    + [
        (f, n, p, a, "", zh)
        for (f, n, p, a), zh in zip(PATTERNS, CHINESE_NEEDLES, strict=True)
        if f == "switch"
    ]
    + [(f, n, p, a, k, zh) for (f, n, p, a, k), zh in _MORE if f == "switch" and k != "itself"]
)
