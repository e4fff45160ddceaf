"""Whether a change is about what an older entry is about, and gives a new value of what
it says of it (asked by judgement.supersede).

A newer entry may name the subject otherwise than the older one. `subject_in` finds it as
the older entry names it, with or without a head that only names the attribute changed
(`subject_core`: "Backup window moved to 01:30" for "The NAS backup runs at 02:00");
`leads` says the older entry opens with it ("GP is Dr. Chen"), `only_about` that it says
little else, `typed` that it says a value of a known attribute (a place, a time, an owner).
A new value replaces the older one's when it is of the same attribute (`same_attribute`:
"MySQL 5.7" for "MySQL 8.0"), of a kind the older entry names (`names_a_kind`; not `kept`:
"Moved to a bigger flat in Lisbon" keeps "Lives in Lisbon"), shares a head with it
(`same_head`: "飞书审批" for "邮件审批"), is another identifier of its shape (`id_swapped`),
what the subject is built with or runs on (`platformed`: "博客迁到 Astro" for "博客用 Hugo
搭的"), or where a person said by a pronoun lives (`moved_away`). `alone` says a newer entry
says nothing but that a thing is given up ("He quit coffee").
"""

from __future__ import annotations

import re

from memcli.core.judgement.changes import Reading
from memcli.core.judgement.cues import IMPLIED, PARENS
from memcli.core.judgement.kinds import PHRASES, SINGLE, WEAK_ZH, is_attribute
from memcli.core.judgement.profiles import Profile, slots_of
from memcli.core.judgement.stated import clauses_about, clauses_of, holds, overlap
from memcli.core.subjects import Words, coverage, covers, stem, value_kind, words_of

ONLY_ABOUT_UNITS = 4  # an older entry saying this little besides its subject states one value of it


# a label that only says when ("周四下午", "monday") names no thing of its own
_WHEN = re.compile(
    r"(?:周[一二三四五六日天末]|星期.|礼拜.|上午|下午|早上|晚上|凌晨|中午|傍晚|每天|每周|今天|明天|后天|本周|下周)+|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|afternoon|evening|tonight|tomorrow|today"
)


def same_attribute(old: Profile, r: Reading) -> bool:
    """For a new value that is a number, a time, a date or a version: whether the older
    entry states one of the same kind that the newer one drops, labelled as the new value
    is ("MySQL 5.7" for "MySQL 8.0"), or in a clause about what changed ("备份每天凌晨 2 点"
    for "备份时间调整到凌晨 4 点")."""
    kinds = {value_kind(v) for v in r.value.values}
    labels = {label for label, _, _ in slots_of(r.text, after=False) if not _WHEN.fullmatch(label)}
    for label, value, clause in old.slots:
        if value in r.clause.values or not (value_kind(value) in kinds or "number" in kinds):
            continue
        if labels and not any(overlap(label, theirs) for theirs in labels):
            continue
        if r.subject.empty or covers(words_of(clause), r.subject):
            return True
    return False


def only_about(old: Profile, new: Profile, subject: Words) -> bool:
    """Whether the older entry says little besides its subject and one value of it ("The
    landing page uses Gatsby"; not "Demoed SLA reports to Isaac", an event, nor "Tom lives in
    Berlin", a place): then a new value of unknown kind replaces that one."""
    if subject.empty or not covers(old.body, subject):
        return False
    if not leads(old, new, subject) or typed(old, subject):
        return False
    rest = old.body.units() - coverage(old.body, subject)[0]
    return rest <= ONLY_ABOUT_UNITS


_LOCATIVE = re.compile(
    r"\b(?:is|are|lives?|sits?|runs?|hosted|based|located|stays?)\s+(?:in|at|on)\b|位于|放在|住在|部署在|托管在|存放在|在[^，,。]{1,8}(?:办公|机房)"
)


def _all_named(old: Profile, subject: Words) -> bool:
    """Whether the older entry holds every English word of the subject (or, for a word
    naming an attribute, a value of it)."""
    words = old.words.words
    return all(n in words or (is_attribute(n) and SINGLE[n] in words) for n in subject.names)


def id_swapped(old: Profile, r: Reading) -> bool:
    """Whether the new value is an identifier (a host, a URL, a path) and the older entry
    names another one, in a clause about the subject: "api.acme.io/v1" for "api.acme.io/v2"."""
    if not r.value.ids or r.subject.empty:
        return False
    shapes = {_shape(i) for i in r.value.ids}  # (another of its shape: a URL for a URL, not a project)
    return any(
        _shape(i) in shapes for _, words in clauses_about(old, r.subject) for i in words.ids - r.clause.words
    )


_HOST = re.compile(r"[a-z0-9-]+(?:\.[a-z0-9-]+)+")


def _shape(identifier: str) -> str:
    """url, path, host or name."""
    if "://" in identifier or (_HOST.match(identifier) and "/" in identifier and identifier[0] not in "/~%."):
        return "url"
    if identifier[:1] in "/~%." or identifier[1:3] == ":/":
        return "path"
    return "host" if _HOST.fullmatch(identifier) else "name"


def names_a_kind(old: Profile, kinds: frozenset[str], subject: Words) -> bool:
    """Whether the older entry names a thing of one of these kinds (or states one of these
    attributes), in a clause about the subject when there is one ("发布说明没加索引" names
    no tool the notes were kept in)."""
    if not old.words.words & kinds and not ("#place" in kinds and _LOCATIVE.search(old.scanned)):
        return False
    if subject.empty:
        return True
    for clause, words in clauses_about(old, subject):
        located = "#place" in kinds and _LOCATIVE.search(clause) is not None  # "is in Berlin"
        if words.words & kinds or located:
            return True
    return False


# a head that only names which attribute of the subject changed ("the backup *window*",
# "定投*日*", "降压*药*", "酒店每晚*上限*", "repo *path*"): the older entry may name the subject
# without it
_HEAD = re.compile(
    r"(?:\s+(?:window|slot|time|times|schedule|day|date|path|location|address|owner|owners|lead|contact|"
    r"port|plan|setting|settings|budget|limit|cap|provider|vendor|tool|service|version|entry|file|folder|"
    r"directory|dir|process|flow))[\s.]*$|"
    r"(?<=[\u4e00-\u9fff]{2})(?:时间|日期|时段|路径|地址|位置|目录|文件夹|文件|上限|下限|额度|预算|负责人|对接人|"
    r"供应商|服务商|平台|工具|方式|流程|渠道|安排|端口|版本|日|药|费|号|期|点|处)[\s.。]*$"
)
# more verbs that say which attribute changed (beside cues.IMPLIED): a new owner
IMPLIED_MORE = (
    (
        re.compile(r"own|maintain|lead|handl|manag|charge|responsib|take|took|taken|负责|接手|接管|由"),
        "#owner",
    ),
)
# what an entry says a thing is built with or runs on ("博客用 Hugo 搭的", "the blog runs on Hugo")
_PLATFORM = re.compile(
    r"\b(?:uses?|using|built (?:with|on|in)|runs? on|running on|powered by|based on|on top of|"
    r"hosted (?:on|at|by)|deployed (?:on|to)|is on|are on|lives? on)\b|"
    r"用|在|搭在|搭的|搭建|建在|基于|跑在|架在|部署在|托管在|放在"
)
PRONOUN = re.compile(r"(?:i|we|he|she|they|my family|our family|我们|我|他们|她们|他|她|全家|一家人?)")
_LEAD = re.compile(
    r"[\s*>\-]*(?:the |my |our |his |her |their )?([a-z][\w.\-]*(?:\s+[a-z][\w.\-]*)?|[\u4e00-\u9fff]{2,4})"
)
_NAMED_THING = re.compile(r"^\s*(?:a|an|the|my|our|his|her|their|some|this|that)\s")


def subject_core(r: Reading) -> Words | None:
    """The subject without a head that only names the attribute changed (see `_HEAD`)."""
    topic = PARENS.sub(" ", r.topic).strip()
    head = _HEAD.search(topic)
    if head is None or head.start() == 0:
        return None
    core = words_of(topic[: head.start()])
    return core if not core.empty else None


def subject_in(old: Profile, r: Reading) -> Words | None:
    """What changed, as the older entry names it: the subject, or the subject without a head
    that only names the attribute changed ("Backup window moved to 01:30" is about "the NAS
    backup runs at 02:00"). None when the older entry is about something else ("release
    2.5" is not release 2.4; "the design review" not the design doc)."""
    for subject in (r.subject, subject_core(r)):
        if subject is None:
            continue
        if covers(old.words, subject) and _all_named(old, subject) and subject.values <= old.words.values:
            return subject
    return None


def leads(old: Profile, new: Profile, subject: Words) -> bool:
    """Whether the older entry opens with the subject ("GP is Dr. Chen", "车险在平安买的"): it is
    what the entry is about, and the rest is what it says of it; naming no project, host or
    version the newer entry does not (then it is about that one's)."""
    if not old.body.ids <= new.words.words:
        return False
    text = _OPENING.sub("", old.body_text)
    if text[:1].isascii():
        tokens = _TOKEN.findall(text)
        i = 0
        while i < len(tokens) and stem(tokens[i]) in subject.words:
            i += 1
        # (then what it says of it: "GP *is*", "Phone plan*:*"; not "Skill *creation* patterns")
        return i > 0 and (i == len(tokens) or tokens[i] in _PREDICATE_EN or not tokens[i][0].isalnum())
    for run in subject.runs:
        if text.startswith(run):  # ("博客*用*", "车险*在*"; not "分页接口*评审*定在")
            rest = text[len(run) :]
            return not rest or rest[0] in _PREDICATE_ZH or not ("\u4e00" <= rest[0] <= "\u9fff")
    return False


_OPENING = re.compile(r"^[\s*>\-]*(?:the |my |our |his |her |their )?")
_TOKEN = re.compile(r"[a-z][\w.\-']*|[^\sa-z]")
_PREDICATE_EN = frozenset(
    "is are was were be uses use used runs run lives live goes go sits sit has have had will would should "
    "must can at in on via with by from for to".split()
)
_PREDICATE_ZH = (
    frozenset("用在是的走找由每从到放住跑搭建已都也还就要会被给叫为交吃喝买去来定设改选开关有没不仍一")
    | WEAK_ZH
)


def typed(old: Profile, subject: Words) -> bool:
    """Whether the older entry says of the subject a value of a known attribute: a place, a
    time, a date, an owner (a new value of no known kind is no new value of it)."""
    clauses = clauses_of(old)
    if clauses and _LOCATIVE.search(clauses[0]):
        return True
    return any(words.words & _TYPES for _, words in clauses_about(old, subject))


_TYPES = frozenset({"#place", "#time", "#date", "#owner"})


def _things(p: Profile, kinds: frozenset[str]) -> set[str]:
    """The names in an entry of things of these kinds ("lisbon" for @city)."""
    found = {n for n in p.words.names if SINGLE.get(n) in kinds}
    found.update(name for name, kind in PHRASES.items() if kind in kinds and name in p.scanned)
    return found


def kept(old: Profile, r: Reading, kinds: frozenset[str]) -> bool:
    """Whether the change names, as its new value, every thing of these kinds the older entry
    names: then it does not give it up ("Moved to a bigger flat in Lisbon" keeps "Lives in
    Lisbon"; not "…迁移到 GitLab，GitHub 那份归档了", which names GitHub only as the old one)."""
    things = _things(old, kinds)
    value = r.clause
    return bool(things) and all(t in value.words or any(t in run for run in value.runs) for t in things)


def same_head(old: Profile, r: Reading, subject: Words) -> bool:
    """Whether the new value is another of what the older entry says of the subject, by a head
    both share ("报销改为飞书审批" for "报销走邮件审批"; "paper forms" for "PDF forms"): the value
    has a word the older entry lacks, before one it holds."""
    value = r.value
    if value.runs:
        run = value.runs[-1]
        head, rest = run[-2:], run[:-2]
        if len(run) < 4 or not rest or head not in old.words.bigrams:
            return False
        fresh = any(rest[i : i + 2] not in old.words.bigrams for i in range(len(rest) - 1)) or len(rest) == 1
    elif len(value.names) >= 2:
        head, fresh = value.names[-1], any(n not in old.words.words for n in value.names[:-1])
    else:
        return False
    return fresh and any(
        head in words.words or head in words.bigrams for _, words in clauses_about(old, subject)
    )


def one_name(r: Reading) -> bool:
    """Whether the new value is one name ("Astro", "缬沙坦", "人保"), not a phrase ("part of my DNA")."""
    value = r.value
    return (len(value.names) == 1 and not value.runs) or (
        not value.names and len(value.runs) == 1 and len(value.runs[0]) <= 4
    )


def platformed(old: Profile, new: Profile, r: Reading, subject: Words) -> bool:
    """For a move to a thing named by one name ("博客迁到 Astro", "moved the blog to Astro"):
    whether the older entry says what the subject is built with or runs on ("博客用 Hugo 搭的")."""
    if _NAMED_THING.match(r.text) or not one_name(r):
        return False
    if not leads(old, new, subject):
        return False  # ("cedar-exporter 用 Biome 做库存同步" is about cedar-exporter)
    return any(_PLATFORM.search(clause) for clause, _ in clauses_about(old, subject))


def moved_away(old: Profile, r: Reading) -> bool:
    """A move said of a person by a pronoun ("They moved to Porto"): whether the older entry
    says where the same person lives ("They live in Lisbon")."""
    topic = r.topic.strip()
    if not PRONOUN.fullmatch(topic) or not any(v.search(r.verb) for v, a in IMPLIED if a == "#place"):
        return False
    body = old.body_text.lstrip(" -*>")
    return body.startswith(topic) and _LOCATIVE.search(body) is not None


_WHY_EN = re.compile(r"\b(?:after|because|since|due to|following|when)\b[^,;.]*")
_WHY_ZH = re.compile(
    r"(?:因为|由于)[^，,。；;]*|[^，,。；;]{1,10}?(?:后|之后|以后)(?=(?:就|也|已经|再)?(?:不|没|戒))"
)


def alone(old: Profile, new: Profile, r: Reading) -> bool:
    """Whether the newer entry says nothing but that x is given up ("He quit coffee", "他不喝咖啡
    了"), and the older entry is about x: x is much of its clause, or both open with the same
    person ("He drinks a coffee every morning")."""
    rest = _WHY_ZH.sub(" ", _WHY_EN.sub(" ", new.body_text))  # (why: "after the injury", "膝盖受伤后")
    rest = rest.replace(r.text, " ")
    for cue in r.verb.split():
        rest = rest.replace(cue, " ")
    if (words_of(rest).content - r.subject.content) - r.given_up.content:
        return False
    mine = _LEAD.match(new.body_text)
    for clause in clauses_of(old):
        words = words_of(clause)
        if not holds(words, r.given_up):
            continue
        got, _ = coverage(r.given_up, words)
        if 3 * got >= words.units():
            return True
        theirs = _LEAD.match(clause)
        if (
            mine
            and theirs
            and PRONOUN.fullmatch(mine.group(1).split()[0])
            and (mine.group(1).split()[0] == theirs.group(1).split()[0])
        ):
            return True
        if mine and theirs and not mine.group(1).isascii() and mine.group(1)[0] == theirs.group(1)[0]:
            return PRONOUN.match(mine.group(1)) is not None
    return False
