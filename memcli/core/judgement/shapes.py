"""Shapes that are never core memory, whatever cues they carry (SPEC §3, §7: promote
facts, not logs).

A rule quoted from an article, "always" inside a chat envelope, a `git push` in a code
span, "Gateway: ✅ 运行中": each may hold a standing cue, none is a fact for MEMORY.md.
The importance judgement (core.judgement.importance) asks `never_core` before it lets a
cue make an entry core; the reason it returns names the shape.

A report's label ("**状态**", "Metric", "Git status") makes a status line, not a label that
only holds a report word ("Status page" is a page), nor one over a value that states a
standing fact of its own ("**Status:** Credentials stored in `~/…`", "**反馈**: 越简单越好"),
nor the condition of a rule said as an equation ("通知失效 = 当前对话汇报").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memcli.core.entries import Heading
from memcli.core.rules import DEFAULT_RULES, Rules, compile_cues
from memcli.core.scoring import Reason, mask_code

# A label a line opens with ("**时区**: …", "Location: …", "敏感操作：…"), and its value.
FIELD = re.compile(r"\s*([^\s:：=|`][^:：=|`\n]{0,23}?)\s*(?:[:：]|\s=\s)\s*(\S.*)?$", re.DOTALL)
_URL_LABEL = frozenset({"http", "https", "ftp", "ssh", "file", "mailto"})
FIELD_LABEL_MAX_UNITS = 6
STATUS_MARK = re.compile("[✅❌⚠⏳🟢🔴🟡✔✗☑]")
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*")

# Chat envelopes and metadata (OpenClaw, Feishu, Telegram …): never a fact of the user's.
_CHANNELS = (
    "feishu|lark|telegram|discord|slack|whatsapp|wechat|signal|imessage|webchat|dingtalk|yuanbao|qq|"
    "飞书|微信|钉钉|企业微信"
)
_ENVELOPE = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:system\s*:|user\s*:\s*(?:\[media|sender\b|conversation info)|"
    r"assistant\s*:|\[(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\s+\d{4}-\d\d-\d\d\s+\d\d:\d\d[^\]]*\]|"
    rf"\[(?:{_CHANNELS})\b[^\]]*\]|"  # [Telegram Sam id:42 +2m 2026-03-02 10:00 UTC] …
    rf"(?:{_CHANNELS})(?:\[[^\]]*\])?\s+(?:dm|group|channel|群聊|私聊)\b)"
    r"|(?:untrusted|trusted) metadata|runtime context for|\[message_id\s*:|\[media attached"
    r"|\b(?:message_id|chat_id|sender_id|inbound_event_kind|was_mentioned)\"?\s*[:=]",
    re.MULTILINE,
)  # read on the case-folded text
_ENVELOPE_HINTS = re.compile(
    r"system|user|assistant|metadata|runtime context|_id|media|inbound|mentioned|"
    rf"\[(?:mon|tue|wed|thu|fri|sat|sun)|{_CHANNELS}"
)
# OpenClaw dreaming: "- Candidate: …" with its confidence / evidence / recalls lines, and
# the score metadata a promotion from short-term memory carries.
_DREAMING = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:(?:candidate(?:\s+truth)?|confidence|evidence|recalls?|recall\s*count|"
    r"unique\s+queries)\s*[:：]|status\s*:\s*(?:staged|promoted|rejected)\b|note\s*:\s*reflection\b)"
    r"|\[score=[\d.]+\s+recalls=\d+|\brecalls=\d+\s+avg=[\d.]+",
    re.MULTILINE,
)  # read on the case-folded text
_DREAM_MARKER = re.compile(r"openclaw:dreaming|openclaw-memory-promotion|<!--\s*dreaming")  # in comments
_DREAM_HINTS = re.compile(r"candidate|confidence|evidence|recall|queries|staged|dreaming|reflection|score=")
_DREAM_SECTIONS = compile_cues(
    (
        "light sleep",
        "rem sleep",
        "deep sleep",
        "dream diary",
        "dreaming",
        "dreams",
        "promoted from short-term",
    )
)
# Quoted or pasted text: a line wholly in quotation marks, perhaps with its author
# ("…" — Alan Kay), a book's line (《金刚经》: …), a section the note marks as a post.
_QUOTED = re.compile(
    r"""\s*(?:["“「『'‘][^\n]{4,}["”」』'’]|《[^》]{1,24}》\s*[:：·][^\n]*)"""
    r"""\s*(?:[-—–]{1,2}\s*[^\s]{1,24}(?:\s[^\s]{1,24}){0,2})?\s*$"""
)
_QUOTE_OPENERS = tuple("\"“「『'‘《")
_QUOTE_LEAD = ("quote from", "quoted from", "摘自", "引自", "原文", "金句", "名言", "语录", "转载")
# A label that introduces someone else's words: 文章摘录, 书中原文, "Quote", "Excerpt from …"
_QUOTE_LABEL = re.compile(
    r"(?:摘录|摘抄|引用|原文|语录|金句|名言|书摘|引语|\bquotes?|\bexcerpts?|\bquotations?|\bquoted)$|"
    r"^(?:excerpts?|quotes?|quotations?)\s+(?:from|of)\b"
)
# ... or names where the words it quotes come from: a book, a post, a talk.
_SOURCE_LABEL = re.compile(
    r"书|文章|作者|博客|演讲|播客|推文|论文|课程|视频|采访|访谈|一句话|\b(?:book|article|post|blog|talk|podcast|"
    r"paper|author|essay|interview|video|tweet|newsletter|lecture)s?\b|^from\b"
)
_LONG_LABEL = re.compile(r"([^:：\n]{1,60})[:：]\s*(\S.*)$")


def _sourced(said: str) -> tuple[str, str] | None:
    """A long label and its value ("From the Stripe engineering blog: "…""), which
    `field_of` leaves alone: a label names a source at any length."""
    m = _LONG_LABEL.match(said)
    return (m[1].strip(" *_"), m[2]) if m is not None else None


_WHOLLY_QUOTED = re.compile(r"""["“「『'‘]([^\n]{4,})["”」』'’][.。]?""")
QUOTED_SENTENCE_UNITS = 5  # fewer is a title in quotation marks ("The Witness Engineer"), not words quoted


def _quotes_a_sentence(value: str) -> bool:
    """Whether a value is wholly someone's words in quotation marks: a sentence, not a title."""
    m = _WHOLLY_QUOTED.fullmatch(value.strip(" *_"))
    return m is not None and (units(m[1]) >= QUOTED_SENTENCE_UNITS or m[1].rstrip()[-1:] in ".!?。！？")


_ARTICLE_TEXT = re.compile(
    r"本文(?!件|档)|本篇|这篇文章|this (?:article|post|essay)|in this (?:article|post)"
)
_ARTICLE_SECTIONS = compile_cues((
    "post", "posts", "article", "articles", "draft", "drafts", "essay", "excerpt", "excerpts", "quotes",
    "reading notes", "tweet", "thread", "newsletter", "文章", "草稿", "帖子", "推文", "原文", "摘录",
    "读书笔记", "引用", "语录", "转载", "金句", "公众号文章",
))  # fmt: skip
# A step of a procedure: what to click, open or type, once.
_PROCEDURE = re.compile(
    r"(?:点击|打开|选择|输入|填写|登录|注册|进入|访问|下载|复制|粘贴)(?![:：]|地址|链接|入口|方式|权限|页|路径|密码|码|接口|态|凭证|流程|账号|信息)|"
    r"(?:click|open|select|enter|go to|navigate to|visit|download|sign in|log in|type)\s"
)
# A template's slot left unfilled: [A/B], $X.XX, <name>, {{var}}
_TEMPLATE = re.compile(r"\[[a-z]/[a-z]\]|\$?\bx\.xx\b|<[a-z][a-z _-]{0,20}>|\{\{[^}]*\}\}|\bxxx\b")
# A shell command: in a code span, or after "$", "Command:", "Ran".
_CLI = (
    "npm npx pnpm yarn pip pip3 python python3 node deno bun git gh kubectl docker helm terraform "
    "openclaw curl wget ssh scp rsync brew apt apt-get yum dnf cargo go make mvn gradle systemctl "
    "launchctl journalctl cd ls cat grep rg find sed awk chmod chown mkdir rm cp mv tar psql mysql "
    "redis-cli sqlite3 pytest uv poetry conda ollama crontab export source bash sh zsh sudo claude codex"
).split()
_COMMAND_SPAN = re.compile(r"`(?:\$\s*)?(" + "|".join(re.escape(c) for c in _CLI) + r")\s+[^`]*`")
_COMMAND_WHOLE = re.compile(
    r"\s*`(?:\$\s*)?(?:" + "|".join(re.escape(c) for c in _CLI) + r")\s[^`]*`\s*[.。]?\s*$"
)
_PROMPT = re.compile(r"^\s*(?:\$\s|>\s*\$|sudo\s|#\s*\$\s)")  # a shell prompt: a command, whatever it says
_COMMAND_LEAD = re.compile(
    r"^\s*(?:(?:ran|run|running|executed?|执行|运行|跑了)\s*`|"
    r"(?:command|cmd|命令|指令|部署命令|安装命令|启动命令)\s*[:：])"
)
_CODE_KINDS = frozenset({"code", "html", "table", "front_matter"})
_LEAD = re.compile(r"\s*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]*)?")
STATUS_NAME_UNITS = 3  # "Gateway", "磁盘空间": the component a status mark is about
FRAGMENT_CHARS = 4  # "- Results", "- 监控告警": a topic word leaning on its heading
_REPORTS = frozenset({"done", "unresolved"})
_SETTING_KINDS = frozenset({"environment", "place", "preference", "convention", "setting"})
# Signals that make a lasting fact of a labelled field: what, where, whose, how.
FIELD_KINDS = (
    "preference", "decision", "lesson", "long_lived", "convention", "constraint", "rule_noun", "schedule",
    "place", "environment", "setting", "tooling",
)  # fmt: skip


def units(text: str) -> int:
    """How much a text says: CJK characters count one each, other words one each."""
    return len(_CJK.findall(text)) + len(_LATIN_WORD.findall(_CJK.sub(" ", text)))


def field_of(t: str) -> tuple[str, str] | None:
    """The label a line opens with and its value ("时区", "asia/shanghai"), or None."""
    m = FIELD.match(t)
    if m is None or not m[2]:
        return None
    label = m[1].strip(" *_【】[]✅☑✔\ufe0f")
    if not label or label in _URL_LABEL or label.isdigit() or units(label) > FIELD_LABEL_MAX_UNITS:
        return None
    if label[-1].isdigit() and m[2][:1].isdigit():
        return None  # "standup is at 10:15": a clock, not a label
    return label, m[2].strip()


def label_signals(label: str, rules: Rules) -> dict[str, str]:
    """The signals of a field's label, read as a label ("决策:", "Decision:")."""
    return rules.scan_label(label + ":")


def report_label(label: str, rules: Rules) -> bool:
    """A label that reports ("**状态**", "Metric", "产出", "Finding") rather than names a
    setting: a report cue and none of a setting ("Preferred units", "Decided" name one)."""
    return reporting(label, label_signals(label, rules), _REPORTS)


def reporting(label: str, said: dict[str, str], names: Iterable[str]) -> bool:
    """Whether a label's cues (`said`) make it a report's label: a cue of `names` and none of
    a setting. An English label is named by its last word: "Status page" is a page, "Git
    status" a status."""
    reports = [said[k] for k in names if k in said]
    if not reports or any(k in said for k in FIELD_KINDS):
        return False
    head = label.rstrip(" *_")
    if head.endswith(_HOW_HEADS):
        return False  # 排查顺序, 发布流程: how something is done, not its status
    return not label.isascii() or any(head.endswith(cue) for cue in reports)


# What a label names when it ends with one of these: an order, a way, a procedure.
_HOW_HEADS = (
    "顺序",
    "次序",
    "优先级",
    "方式",
    "方法",
    "流程",
    "步骤",
    "规则",
    "原则",
    "策略",
    "order",
    "procedure",
)
_EQUATION = re.compile(r"[^:：=\n]{1,24}\s=\s")
# Where a value says something lives: a home, system or absolute path.
_LASTING_PATH = re.compile(
    r"~/|(?<![\w.])/(?:etc|opt|usr|var|srv|home|users|root|mnt|data)/|`[~/.]?[\w.-]+/[\w./-]+`"
)


def _states_in_value(label: str, value: str, rules: Rules) -> bool:
    """Whether the value under a report's label states a standing fact of its own: a
    preference ("**关键反馈**: …越简单越好", "Feedback: I prefer …"), or where something is
    kept ("**Status:** Credentials stored in `~/…/.env`"). Then the label only files it.
    Not under a work item's number ("#431: …"): that is the item's summary."""
    if not all(rules.lexical(cue) for name, cue in label_signals(label, rules).items() if name in _REPORTS):
        return False
    said = rules.scan(value)
    if "unresolved" in said:
        return False
    return "preference" in said or ("place" in said and _LASTING_PATH.search(value) is not None)


def _fragment(body: str) -> bool:
    """A topic word or two that leans on its heading ("- Results", "- 监控告警", "- Redis 7.2")."""
    cjk = len(_CJK.findall(body))
    latin = len(_LATIN_WORD.findall(_CJK.sub(" ", body)))
    return (cjk == 0 and latin <= 2) or (latin == 0 and cjk <= FRAGMENT_CHARS) or cjk + latin <= 2


def quoted(text: str, t: str, kind: str, section: Sequence[Heading]) -> Reason | None:
    """Quoted or pasted text: a quote block, a line in quotation marks or naming its
    source, prose of an article, a line under a section the note marks as a post."""
    body = _LEAD.sub("", text.lstrip(), count=1)
    if kind == "quote" or body.startswith(">"):
        return Reason("quoted", 0.0, "> quote")
    titles = " / ".join(h.title.casefold() for h in section)
    if titles and _ARTICLE_SECTIONS.search(titles):
        return Reason("quoted", 0.0, f"section {section[-1].title}")
    said = t.strip()
    bare = said.strip("*_ ")
    if (bare.startswith(_QUOTE_OPENERS) and _QUOTED.match(bare)) or said.startswith(_QUOTE_LEAD):
        return Reason("quoted", 0.0, said[:12])
    field = field_of(said) or _sourced(said)
    if field is not None and (
        _QUOTE_LABEL.search(field[0].casefold())
        or (_SOURCE_LABEL.search(field[0].casefold()) and _quotes_a_sentence(field[1]))
    ):
        return Reason("quoted", 0.0, field[0])  # 文章摘录：“…”, 书里有一句话：“…”, "From the blog: "…""
    if _ARTICLE_TEXT.search(said):
        return Reason("quoted", 0.0, "article")
    return None


def metadata(text: str, t: str, section: Sequence[Heading]) -> Reason | None:
    """A chat envelope or metadata line, or an OpenClaw dreaming candidate and its lines."""
    body = t.strip()
    if _ENVELOPE_HINTS.search(body) and _ENVELOPE.search(body):
        return Reason("chat envelope", 0.0, "metadata")
    if (_DREAM_HINTS.search(body) and _DREAMING.search(body)) or _DREAM_MARKER.search(text.casefold()):
        return Reason("dreaming candidate", 0.0, "openclaw dreaming")
    titles = " / ".join(h.title.casefold() for h in section)
    if titles and _DREAM_SECTIONS.search(titles):
        return Reason("dreaming candidate", 0.0, "openclaw dreaming")
    return None


def never_core(
    text: str,
    t: str,
    kind: str,
    section: Sequence[Heading],
    standing: str | None,
    rules: Rules = DEFAULT_RULES,
    signals: frozenset[str] = frozenset(),
) -> Reason | None:
    """The shape that keeps an entry out of MEMORY.md whatever its cues, or None. `t` is
    the text as the rules read it; `standing`, the cue of the standing rule it states, if
    any (then a command inside it is the rule's, and a line with more than the cue is no
    fragment)."""
    if kind in _CODE_KINDS or "```" in text:
        return Reason("code", 0.0, kind)
    found = metadata(text, t, section) or quoted(text, t, kind, section)
    if found is not None:
        return found
    body = t.strip()
    template = _TEMPLATE.search(mask_code(body))  # a slot in a path is the path's: `~/tax/<year>/`
    if template is not None:
        return Reason("template", 0.0, template[0])
    asked = body.rstrip(" *_。.").endswith("?")  # "(China region?)" is an aside, not a question
    if asked or "question" in signals:  # a question states nothing
        return Reason("question", 0.0, "?" if asked else body[:12])
    step = _PROCEDURE.match(body)
    if step is not None:
        return Reason("procedure step", 0.0, step[0])
    prompt = _PROMPT.match(text.lstrip("-*+ \t")) or _COMMAND_WHOLE.fullmatch(body)
    if prompt is not None:
        return Reason("command", 0.0, body[:16])  # a command alone, whatever its comment says
    if standing is None:
        command = _COMMAND_LEAD.match(body) or ("`" in body and _COMMAND_SPAN.search(body))
        if command:
            return Reason("command", 0.0, command[0])
    mark = STATUS_MARK.search(body)
    if mark is not None and mark.start() > 0:
        before = body[: mark.start()].strip(" *_")
        after = body[mark.end() :].strip(" *_\ufe0f")
        if before.endswith((":", "：")) or (before and after and units(before) <= STATUS_NAME_UNITS):
            return Reason("status list", 0.0, mark[0])  # "Gateway: ✅ 运行中", "DGM ✅ running"
    field = FIELD.match(body)
    if field is not None and not (field[2] or "").strip(" *_:：."):
        return Reason("heading", 0.0, field[1])  # "**v2.1 目标：**": a label over what follows
    if body.rstrip(" *_").endswith((":", "：")):
        return Reason("heading", 0.0, body.rsplit("\n", 1)[-1][:16])  # its last line opens a list
    labelled = field_of(body)
    if (
        labelled is not None
        and report_label(labelled[0], rules)
        and not _states_in_value(*labelled, rules)
        and _EQUATION.match(body) is None  # 通知失效 = 当前对话汇报: a condition, not a status
    ):
        return Reason("status list", 0.0, labelled[0])  # "**状态**: …", "Metric: …", "产出：…"
    if _fragment(body) if standing is None else units(body) <= units(standing) and rules.lexical(standing):
        setting = labelled is not None and _SETTING_KINDS & label_signals(labelled[0], rules).keys()
        if not setting:  # "Name: Catalyst" says what it is; "- Results", "- 偏好" lean on a heading
            return Reason("fragment", 0.0, body[:16])
    return None
