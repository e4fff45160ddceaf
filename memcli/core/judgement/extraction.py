"""What a session's messages yield for a flush: the durable items a person would keep
(SPEC §9; issue 18, point 3).

A flush keeps what the user said that stays true: their preferences and rules, decisions
in force, facts about their environment, people and projects, lessons, and what they ask
to be remembered; of the assistant's words, only a lesson it states as one ("Lesson:",
"踩坑：", "turns out …"). Everything else a session holds is left: envelopes and metadata,
prompts injected by a gateway or a job, tool calls and results (core.spoken takes those
out), the assistant narrating or reporting its own work, questions, one-off requests,
acknowledgements, plans for today.

Each sentence is judged as gc judges an entry (core.judgement.importance): core is kept,
transient, routine and noise are not. A chat says some things a note rarely does, so the
chat's own cues decide on top of it:

- a request ("can you…", "帮我…", "put it in my Notes", "…, please") is no rule unless it
  says it stands ("always", "以后", 一律…, or a scope without "please": "only in CI", "before
  any change"): "Please run all the tests" is not kept, "please always run migrations
  separately" is; nor is what holds for now ("for now", "先别…", "这次", "压缩一下");
- set phrases that carry a rule's word say nothing that stands: "never mind", "always
  nice to…", "don't worry", 不要着急, 以后再说;
- a fact told in passing is kept though it carries no rule's cue: about the speaker or
  their people ("I'm vegetarian", "my mom's birthday is June 3rd", "我的读者大多是产品经理"),
  who owns or handles what ("Tom handles DNS"), what something is, runs on or where it lives
  ("staging cluster is k3s on 3 Hetzner boxes") — not what they will do, did or are doing;
- "remember this" keeps what it names; said alone ("please remember that one", "记一下"),
  it keeps what was said just before;
- a lesson or a decision said with its label ("经验记一下：…", "就这么定：…") is one.

What is kept is the whole unit the sentence stands in (a line or list item: core.spoken;
the speaker's characters: core.verbatim), once per session (core.judgement.held), at most
`per_session` of them, the best ranked ("remember this" first). A message that holds a
secret yields nothing: its id is named instead.
Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from memcli.core.conversation import Message
from memcli.core.judgement.held import same_wording
from memcli.core.judgement.importance import Label, Verdict, judge
from memcli.core.rules import DEFAULT_RULES, Rules, compile_cues
from memcli.core.scoring import score_text, scoring_text
from memcli.core.similarity import normalise
from memcli.core.spoken import sentences, spoken, units
from memcli.core.summarize import ITEM_MAX_CHARS, Item
from memcli.core.verbatim import one_line
from memcli.core.withheld import holds_secret

PER_SESSION = 20  # items a flush takes from one session at most: the best ranked

# --- the chat's cues --------------------------------------------------------------------------

# What makes an instruction stand beyond the task at hand.
_STANDING = compile_cues((
    "always", "never", "every time", "everytime", "whenever", "from now on", "going forward", "in future",
    "in the future", "by default", "default to", "as a rule", "hard rule", "rule", "policy", "no matter",
    "以后", "今后", "往后", "从现在起", "每次", "一律", "统一", "都要", "都用", "永远", "始终",
    "一定要", "务必", "不许", "不准", "禁止", "严禁", "默认", "绝不", "铁律", "规矩", "原则", "一直", "固定",
))  # fmt: skip
# Words that give an instruction a scope beyond one thing: with no word of today, it stands.
_SCOPE = compile_cues(("only", "any", "anything", "every", "all", "each", "所有", "任何", "每个", "凡是"))
# A request for the task at hand: what the assistant is asked to do now.
_FILLER = (
    r"(?:(?:ok(?:ay)?|yes|yeah|yep|sure|great|perfect|thanks|fair|no|nope|hmm|and|also|then|so|btw|now|"
    r"right|好的?|嗯|那|可以|行|对|同意)[\s,，.。!！:：]+)*"
)
_REQUEST = re.compile(
    rf"^{_FILLER}(?:can you|could you|would you|will you|can we|please|pls|let'?s|go ahead|try|run|check|"
    r"look|show|fix|add|open|put|send|create|write|update|remind me|make|split|move|rename|delete|remove|"
    r"copy|merge|push|deploy|start|stop|restart|book|find|search|summari[sz]e|draft|tell me|give me|help me|"
    r"set up|note|save|list|compare|cut|trim|shorten|translate|schedule|cancel|build|ping|cc|ask|tag|call|"
    r"email|reply|post|include|skip|mention|"
    r"帮我|请帮|请你|麻烦|你看下|你看看|看看|看一下|给我|把|先(?!说|讲|交代|介绍|声明)|再|去|试试|跑一下|查一下|改一下|"
    r"加一个|加个|写一下|"
    r"整理|第.{1,4}部分|提醒我)",
    re.IGNORECASE,
)
# Cues of a preference that are only polite: without a word that it stands, a request.
_POLITE = frozenset(
    {"please", "pls", "请", "make sure", "i want", "我希望", "希望你", "should", "应该", "尽量"}
)
_PLEASE = re.compile(r"\b(?:please|pls|plz)\b|请|麻烦", re.IGNORECASE)
# What is said for now only ("for now", "先别…", "这次"): no standing rule however it is worded.
_ONE_OFF = re.compile(
    r"\b(?:for now|right now|this time|today|tonight|tomorrow|this one|again|for the moment)\b|"
    r"(?<![优首领率事原祖最预抢争])先(?![生前进锋知后天])(?![^，。；]{0,20}(?:再(?!说)|然后|后))|这次|这一次|暂时|今天|明天|马上|这个文件|这一版|这期|(?<![醒明说定记充绍代])一下",
    re.IGNORECASE,
)
# A fact told in passing about the speaker, their people and things.
_LEAD = re.compile(
    r"^(?:(?:also|and|btw|fyi|so|oh|ok(?:ay)?|well|right|for the record|for context|context|one more thing|"
    r"one more|good|great|fair|另外|顺便|对了|补充一下|先说一下|说明一下|提醒一下|背景)"
    r"[^\w\u4e00-\u9fff]*(?:\s|$|(?=[\u4e00-\u9fff])))+",
    re.IGNORECASE,
)
_FACT_EN = re.compile(
    r"(?:i'?m (?!going|gonna|trying|about|thinking|not sure|wondering|working|looking|done|back|off|here|"
    r"sorry|glad|happy|afraid)|i am (?!going|trying|about|thinking|not sure|wondering|working|looking)|"
    r"i (?:use|run|live|work|drive|speak|have|own|cook|prefer|usually|always|never)\b|"
    r"my \w[\w' -]{0,30}?(?:\s(?:is|are|was born|lives|works|runs|uses)\b|'s\b)|"
    r"our \w[\w' -]{0,30}?\s(?:is|are|runs|lives|uses|sits|goes)\b|"
    r"we(?:'re| are)? (?:use|run|cook|eat|host|keep|deploy|live|work|are on|'re on|are based|meet)\b|"
    r"(?:i|we) (?:don'?t|do not|never|only) (?:eat|drink|drive|smoke|fly|use|work|cook|travel)\b|"
    r"my (?:wife|husband|partner|son|daughter|kids?|children|mom|mum|mother|dad|father|brother|sister|"
    r"boss|manager|dog|cat|family|team)\b(?! (?:asked|said|wants|needs|will|is going|just)\b))",
    re.IGNORECASE,
)
# What a thing is, runs on or lives on, said of something of the environment.
_ENV_IS = re.compile(
    r"(?:the |our |my )?[\w./@-]+(?: [\w./@-]+){0,3} (?:is|are|runs on|run on|is on|are on|uses|lives on|"
    r"sits on|is hosted on|is deployed on)\b",
    re.IGNORECASE,
)
_ROLES_EN = (
    r"tool|warehouse|database|db|server|host|cluster|registry|repo|editor|ide|ci|stack|backend|frontend|"
    r"provider|vendor|platform|admin|owner|lead|contact|manager|maintainer|boss|accountant|doctor|dentist|"
    r"landlord|contractor|point person|on-call|language|os|laptop|phone|bank|account|team|company|client"
)
_RELATION_EN = re.compile(
    r"\b(?:owns|handles|manages|maintains|leads|runs the|is in charge of|is responsible for|reports to|"
    r"works (?:at|as|for|on)|lives in|is based in|is allergic to|(?:is|'s) a \w+ (?:at|in|for)|"
    r"birthday is|is on call|runs on|is hosted on|lives at|is at https?://|"
    rf"is (?:the|our|my|his|her|their) (?:[\w-]+ ){{0,3}}(?:{_ROLES_EN})\b)|"
    rf"^(?:the|our|my|his|her|their) (?:[\w-]+ ){{0,3}}(?:{_ROLES_EN}) (?:is|are)\b|"
    r"^(?:his|her|their|my|our) names? (?:is|are)\b",
    re.IGNORECASE,
)
# A lead that says what follows is worth knowing: "Note that …", "Heads up: …", "注意…".
_KNOWING = re.compile(
    r"^(?:note that|note:|heads up|fyi|for the record|keep in mind|worth knowing|good to know|"
    r"注意|提醒一下|补充|备注|说明一下|顺便说一下)",
    re.IGNORECASE,
)
_FACT_ZH = re.compile(
    r"(?:我|我们|咱们|我家|我司|公司|团队)(?:的|家|这边)?(?![先来去想要在看试打准觉刚会])"
    r"[^，。；！？!?]{0,16}?(?:是|用的是|都是|都在|跑在|部署在|放在|住在|在用|叫|大多是|主要是|一般|平时|习惯|负责)|"
    r"(?:我|我们)(?:不|从不|从来不|只|每天|平时|都)(?:吃|喝|抽烟|喝酒|开车|坐|用|住)|"
    r"我(?:的)?(?:女儿|儿子|老婆|妻子|老公|丈夫|爸爸?|妈妈?|父亲|母亲|孩子|宝宝|男朋友|女朋友|对象|家人|猫|狗)"
    r"(?![^，。；]{0,6}(?:说|问|让|要我|想|刚))"
)
_RELATION_ZH = re.compile(
    r"是[^，。；]{1,8}负责的|由[^，。；]{1,8}负责|[^，。；]{1,8}负责[^，。；]{2,}|的生日是|对[^，。；]{1,8}过敏|"
    r"在[^，。；]{1,12}(?:工作|上班)|地址是|地址为|叫「|叫“|"
    r"(?:对接人|负责人|联系人|管理员|管理者|老板|上级|主管|组长|客户|供应商|医生|律师|房东|用户)(?:是|为)|"
    r"是[^，。；]{0,10}(?:负责人|对接人|管理员|联系人|主管|组长|老板)"
)
# A label that says what a line is: a lesson, a decision, something to remember.
_LESSON_LABEL = re.compile(
    r"^(?:(?:good catch|noted|ok(?:ay)?|对|嗯|好)[\s,，.。!！]+)?"
    r"(?:[a-z]+ |[\u4e00-\u9fff]{1,4})?"  # "big lesson:", "上次踩的坑：", "又一个教训："
    r"(?:lessons?(?: learned)?(?: for next time)?|gotcha|til|note to self|for next time|root cause|"
    r"pitfall|caveat|takeaway|the trick is|"
    r"经验|教训|踩坑|踩的坑|踩过的坑|避坑|坑|注意事项|切记|根因|根本原因|学到)"
    r"[^:：\n]{0,16}[:：]",
    re.IGNORECASE,
)
_LESSON_WORD = re.compile(r"\blessons?\b|\bgotcha|\bpitfall|坑|教训|经验", re.IGNORECASE)
_TURNS_OUT = re.compile(
    r"\bturns out\b|\bturned out\b|原来是|原来[^，。]{0,12}(?:要|得|会|是)", re.IGNORECASE
)
_DECISION_LABEL = re.compile(
    r"就这么定|就这样定|就按这个|定下来|定一下|拍板|敲定|最终方案|(?:^|[，,：:。])(?:定了|决定了?|结论)[:：，,]|"
    r"(?:我们|我)(?:选了|选定|定了|挑了|决定|改用|换成)|"
    r"final(?:ly)? decision|decision:|\b(?:we|i)(?:'ve| have)? (?:picked|chose|went with|selected|settled on|"
    r"opted for|decided|agreed on|agreed to)\b|\b(?:we|i)(?:'re| are|'ll| will) go(?:ing)? with\b|"
    r"^let'?s (?:use|go with|stick with|switch to|standardi[sz]e on|keep using|move to)\b|"
    r"going with|settled on|decided (?:on|to)",
    re.IGNORECASE,
)
# A cause found: what a problem comes from ("根因是…", "the root cause was …").
_CAUSE = re.compile(
    r"根因是|根本原因是|原因是|root cause (?:is|was)|the cause (?:is|was)|is caused by", re.IGNORECASE
)
_REMEMBER = re.compile(
    r"(?:^|[\s,，.。!！:：])(?:please\s+)?"
    r"(?:remember(?! to\b| when\b)|keep in mind|note to self|make a note)\b|"
    r"(?<![笔日登标书游忘])记(?:住|一下|下来|下|着)|牢记",
    re.IGNORECASE,
)
# Set phrases that carry a rule's word and say nothing that stands: "never mind", "always
# nice to see…", "不要着急", "以后再说".
_IDIOM = re.compile(
    r"\bnever ?mind\b|\b(?:always|never) (?:nice|fun|good|great|happy|glad|easy|forget|forgets)\b|"
    r"\bdon'?t worry\b|\bno worries\b|"
    r"(?:不要|别|不用|不必)(?:着急|担心|紧张|客气|谢|在意)|(?:以后|回头|改天)再说",
    re.IGNORECASE,
)
_NARRATION = re.compile(
    r"^(?:(?:ok(?:ay)?|sure|got it|noted|done|好的?|收到|明白|嗯)[\s,，.。!！:：]*)*"
    r"(?:let me|i'?ll|i will|i'?m going to|now i|now let|next i|i've|i have|i just|"
    r"我来|我先|我去|我现在|我会|已(?:经)?记|记下了|记住了|saved|noted)",
    re.IGNORECASE,
)
_QUESTION = re.compile(r"[?？]\s*$|[吗呢][。]?\s*$")

_KIND_OF = {
    "remember this": "remember",
    "standing preference": "preference",
    "standing": "preference",
    "decision": "decision",
    "decision field": "decision",
    "lesson": "lesson",
    "lesson field": "lesson",
    "convention": "rule",
    "constraint": "rule",
    "rule": "rule",
    "rule field": "rule",
    "schedule": "fact",
    "where it lives": "environment",
    "environment": "environment",
    "set up to last": "environment",
    "tool use": "environment",
}
_RANK = {"remember": 3.0, "preference": 2.0, "rule": 2.0, "decision": 2.0, "lesson": 1.5}


@dataclass(frozen=True, slots=True)
class Said:
    """What one sentence of a turn is, for a flush: the kind of item it makes (None: none)."""

    kind: str | None
    why: str
    score: float = 0.0


def judge_sentence(sentence: str, role: str, rules: Rules = DEFAULT_RULES) -> Said:
    """What a sentence makes: a kind of durable item (preference, rule, decision,
    environment, fact, lesson, remember) or none, and why."""
    body = sentence.strip().rstrip(":：").strip()
    t = scoring_text(body).strip()
    if not t or _QUESTION.search(t):
        return Said(None, "question")
    if role != "user" and (_NARRATION.match(t) or not (_LESSON_LABEL.match(t) or _TURNS_OUT.search(t))):
        return Said(None, "the assistant's own work")  # decided before the rubric: most of a session
    scored = score_text(body, rules)
    if scored.noise or _IDIOM.search(t):
        return Said(None, "noise")
    if role != "user":
        return Said("lesson", "the assistant's lesson", scored.score)
    if _LESSON_LABEL.match(t) or _CAUSE.search(t):
        return Said("lesson", "a lesson, said so", scored.score)
    if _REMEMBER.search(t):
        kind = "lesson" if _LESSON_WORD.search(t) else "remember"
        return Said(kind, "asked to remember it", scored.score + 3)
    verdict = judge(body, scored, rules)
    standing = _STANDING.search(t) is not None
    scoped = _SCOPE.search(t) is not None and _ONE_OFF.search(t) is None  # "ping the owner before any change"
    asked = _REQUEST.match(t) is not None
    polite = _PLEASE.search(t) is not None  # "please run all the tests": asked for now
    decided = _DECISION_LABEL.search(t) is not None and _ONE_OFF.search(t) is None
    if verdict.label is Label.CORE:
        if asked and not standing and not decided and (polite or not scoped):
            return Said(None, f"a request ({verdict.why})")
        cue = verdict.reasons[0].cue if verdict.reasons else ""
        if cue in _POLITE and not standing and not decided:
            return Said(None, f"a request ({verdict.why})")  # "…, please": asked, not a rule
        kind = "decision" if decided else _kind(verdict)
        if kind in ("preference", "rule") and _ONE_OFF.search(t) and not standing:
            return Said(None, f"for now only ({verdict.why})")  # 先别改生产: this once
        return Said(kind, verdict.why, scored.score)
    if decided:
        return Said("decision", "a decision, said so", scored.score)
    if verdict.label in (Label.NOISE, Label.ROUTINE):
        return Said(None, verdict.why)
    if verdict.label is Label.TRANSIENT:
        return Said(None, verdict.why)
    if asked:
        if standing or (scoped and not polite):
            return Said("rule", "an instruction that stands", scored.score)
        return Said(None, "a request")
    fact = _fact(t, scored.signals)
    if fact is not None:
        return Said(fact, "a fact told in passing", scored.score)
    return Said(None, verdict.why)


def _kind(verdict: Verdict) -> str:
    for reason in verdict.reasons:
        kind = _KIND_OF.get(reason.rule.removesuffix(" field")) or _KIND_OF.get(reason.rule)
        if kind is not None:
            return kind
    return "fact"


def _fact(t: str, signals: frozenset[str]) -> str | None:
    """The kind of fact a sentence tells in passing (about the speaker, their people, their
    things, their environment), or None."""
    lead = _LEAD.match(t)
    said = t[lead.end() :] if lead is not None else t
    if _FACT_EN.match(said) or _FACT_ZH.match(said):
        return "fact"
    if "environment" in signals and "done" not in signals and _ENV_IS.match(said):
        return "environment"
    if _RELATION_EN.search(said) or _RELATION_ZH.search(said):
        return "fact"
    if _KNOWING.match(t) and len(t) >= 12:
        return "fact"
    return None


# --- a conversation ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Extraction:
    items: tuple[Item, ...]  # in the order they were said
    withheld: tuple[str, ...] = ()  # "message <id>" of the messages left out for a secret


_BARE = re.compile(r"^\W*(?:\w+\W+){0,3}\w*\W*$")


def _bare_remember(unit: str) -> bool:
    """ "please remember that one", "记一下": a request to remember what came before."""
    t = scoring_text(unit).strip()
    rest = _REMEMBER.sub(" ", t)
    rest = re.sub(r"\b(?:that|this|one|it|please|too|also|as well)\b|这个|这条|那个|一下|吧|哈|也", " ", rest)
    return _REMEMBER.search(t) is not None and not re.search(r"[\w\u4e00-\u9fff]{2,}", rest)


def extract(
    messages: Sequence[Message], rules: Rules = DEFAULT_RULES, per_session: int = PER_SESSION
) -> Extraction:
    """The durable items of a conversation, in order, each said once, at most
    `per_session` (the best ranked); and the messages withheld for a secret."""
    found: list[Item] = []
    withheld: list[str] = []
    last: tuple[str, str, str, int] | None = None  # the user's last unit said: text, source, full, order
    order = 0
    for m in messages:
        body = spoken(m.role, m.text)
        if body is None:
            continue
        said: list[Item] = []
        for unit in units(body):
            order += 1
            if m.role == "user" and _bare_remember(unit):
                if last is not None:
                    said.append(_item("remember", last[0], 10 * _RANK["remember"], last[3], last[1], last[2]))
                continue
            verdicts = [judge_sentence(s, m.role, rules) for s in sentences(unit)]
            kept = [v for v in verdicts if v.kind is not None]
            if m.role == "user":
                last = (unit, m.id or f"line {m.index + 1}", m.text, order)
            if not kept:
                continue
            best = max(kept, key=lambda v: (_RANK.get(v.kind or "", 1.0), v.score))
            rank = 10 * _RANK.get(best.kind or "", 1.0) + best.score  # "remember this" first
            said.append(_item(best.kind or "fact", unit, rank, order, m.id or f"line {m.index + 1}", m.text))
        if said and holds_secret(m.text, *(i.text for i in said)):
            withheld.append(f"message {m.id}" if m.id else said[0].source)
            continue
        found.extend(said)
    return Extraction(tuple(_once(found, per_session)), tuple(dict.fromkeys(withheld)))


def _item(kind: str, unit: str, rank: float, order: int, source: str, full: str) -> Item:
    return Item(kind, one_line(unit, ITEM_MAX_CHARS, stamp=False), rank, order, source, full)


def _once(items: Sequence[Item], limit: int) -> list[Item]:
    """At most `limit` items, each once, the best ranked (the earlier of two alike), in the
    order they were said: one that says again what a kept one says is dropped."""
    kept: list[Item] = []
    seen: set[str] = set()
    for item in sorted(items, key=lambda i: (-i.rank, i.order)):
        if len(kept) >= limit:
            break
        key = normalise(item.text)
        if not key or key in seen or any(same_wording(item.text, k.text) for k in kept):
            continue
        seen.add(key)
        kept.append(item)
    return sorted(kept, key=lambda i: i.order)
