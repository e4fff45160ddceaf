"""The bilingual cue lexicon behind the importance score (SPEC §3).

Every signal is a list of cues in Chinese and English plus, where words are not
enough, regular expressions (paths, versions, numbers). English cues match
whole words, Chinese cues match as substrings, both after NFKC and case-folding.
`memcli.toml` can change a signal's points, replace its cues or add to them:

    [rules.preference]
    points = 2
    add = ["我倾向", "I tend to"]
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class RuleOverride:
    """One `[rules.<signal>]` table: new points, a replacement cue list, extra cues."""

    signal: str
    points: float | None = None
    cues: tuple[str, ...] | None = None
    add: tuple[str, ...] = ()


_NEGATED = re.compile(r"(?:non-|not |no |never |不|非|未|没|没有)\s*$")


Pattern = tuple[tuple[str, ...], str]


@dataclass(frozen=True)
class Signal:
    name: str
    points: float
    cues: tuple[str, ...]
    patterns: tuple[Pattern, ...] = ()
    negatable: bool = False  # "non-urgent", "不重要", "not decided" do not count
    matcher: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "points", float(self.points))
        object.__setattr__(self, "matcher", compile_cues(self.cues, [regex for _, regex in self.patterns]))

    def find(self, text: str) -> str | None:
        """The first cue found in (normalised) text, or None."""
        for m in self.matcher.finditer(text):
            if self.negatable and _NEGATED.search(text, max(0, m.start() - 8), m.start()):
                continue
            return m.group(0).strip()
        return None


def _is_word_char(ch: str) -> bool:
    return ch.isascii() and (ch.isalnum() or ch == "_")


def trie_regex(words: Iterable[str]) -> str:
    """An alternation of literal words as a prefix tree, so the regex engine branches on each
    character once instead of trying every word in turn; longer words are preferred."""
    trie: dict[str, dict] = {}  # type: ignore[type-arg]
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict) -> str:  # type: ignore[type-arg]
        branches = [re.escape(ch) + emit(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(trie)


def compile_cues(cues: Iterable[str], patterns: Iterable[str] = ()) -> re.Pattern[str]:
    """One regex for a whole cue list. English words match whole (a-z0-9_ boundaries),
    Chinese cues anywhere; the longest cue at a place wins."""
    groups: dict[tuple[bool, bool], list[str]] = {}
    for cue in {c.casefold() for c in cues if c}:
        groups.setdefault((_is_word_char(cue[0]), _is_word_char(cue[-1])), []).append(cue)
    parts = []
    for (head, tail), words in sorted(groups.items(), reverse=True):
        before = r"(?<![a-z0-9_])" if head else ""
        after = r"(?![a-z0-9_])" if tail else ""
        parts.append(f"{before}(?:{trie_regex(words)}){after}")
    parts.extend(patterns)
    return re.compile("|".join(parts) if parts else r"(?!x)x")


# --- the lexicon -------------------------------------------------------------------------

# fmt: off
PREFERENCE = (
    "我喜欢", "我不喜欢", "喜欢用", "我习惯", "习惯用", "我偏好", "偏好", "讨厌", "不要", "别用", "别再",
    "请用", "请不要", "尽量", "我希望", "我更喜欢", "更喜欢", "宁可", "我用", "我使用", "我一般用", "记得",
    "一律", "统一用", "千万别", "不许", "i prefer", "prefers", "prefer", "preferred", "i like", "likes",
    "i love", "i hate", "i use", "i'm on", "i am on", "always", "never", "don't", "do not", "dont",
    "please use", "please don't", "avoid", "mind the", "make sure", "i want", "i'd rather", "rather than",
    "i usually",
)

DECISION = (
    "决定", "决策", "选择", "选定", "改用", "采用", "换成", "定了", "确定用", "就用", "拍板", "敲定",
    "decided", "decide", "decision", "chose", "chosen", "we will use", "we'll use", "going with",
    "settled on", "switch to", "switched to", "adopt", "adopted", "opted for", "agreed to", "agreed on",
)

URGENCY = (
    "紧急", "重要", "关键", "务必", "马上", "立刻", "尽快", "严重", "高优先级", "十万火急", "urgent",
    "important", "critical", "asap", "immediately", "blocker", "blocking", "high priority", "p0", "severe",
    "showstopper",
)

TASK = (
    "任务", "目标", "要求", "验收", "截止", "需求", "待办", "里程碑", "交付", "必须", "task", "goal",
    "must", "requirement", "requirements", "deadline", "due", "todo", "to-do", "acceptance", "milestone",
    "deliverable", "objective", "need to", "needs to",
)

ENVIRONMENT = (
    "系统", "环境", "路径", "端口", "版本", "配置", "目录", "反斜杠", "斜杠", "服务器", "数据库", "终端",
    "命令行", "环境变量", "windows", "macos", "mac", "macbook", "linux", "ubuntu", "debian", "centos",
    "fedora", "wsl", "android", "ios", "git", "github", "gitlab", "docker", "kubernetes", "k8s", "node",
    "node.js", "nodejs", "npm", "pnpm", "yarn", "python", "pip", "poetry", "conda", "golang", "rust",
    "cargo", "java", "maven", "gradle", "redis", "postgres", "postgresql", "mysql", "sqlite", "mongodb",
    "nginx", "vscode", "vs code", "vim", "neovim", "emacs", "zsh", "bash", "homebrew", "brew", "nvm",
    "jest", "eslint", "prettier", "terraform", "aws", "gcp", "azure", "kafka", "rabbitmq", "elasticsearch",
    "chrome", "firefox", "safari", "ollama", "openclaw", "sentry", "webdav", "ssh", "env var",
    "environment variable", "port", "path", "config", "version",
)

# (triggers, regex): the regex runs only when one of the trigger strings occurs in the text.
ENVIRONMENT_PATTERNS = (
    (("://",), r"https?://\S+"),
    (("\\",), r"(?<![\w])[a-z]:\\"),  # C:\
    (("/",), r"(?:~|\.{1,2})?/(?:users|home|etc|var|opt|usr|tmp|srv)/"),
    (("~/",), r"~/[\w.-]+"),
    (("%",), r"%\w+%"),
    ((".",), r"(?<![\w.])v?\d+\.\d+(?:\.\d+)+(?![\w.])"),  # versions with two dots
    (("v",), r"(?<![\w.])v\d+(?:\.\d+)?(?![\w.])"),  # v3, v2.1
    (("port", "端口"), r"(?:port|端口)\s*[:：]?\s*\d{2,5}"),
    ((":",), r"(?:localhost|[a-z0-9-]+\.[a-z]{2,}|\d{1,3}(?:\.\d{1,3}){3}):\d{2,5}(?!\d)"),  # host:port
    ((".",), r"(?<![\w.])\.(?:md|json|ya?ml|toml|ini|env|py|ts|js|sh|go|rs|sql|lock|conf)(?![\w])"),
    (("_",), r"(?<![\w.])[a-z][a-z0-9]*_[a-z0-9_]+(?![\w])"),  # snake_case identifiers
    (("=",), r"(?<![\w.])[a-z]+\.[a-z]+(?:\.[a-z]+)*\s*="),  # config keys: core.autocrlf=
    (("`",), r"`[^`\s]+`"),  # anything in code spans
)

DATA_PATTERNS = (
    ((), r"\d+(?:[.,/:]\d+)*"),
    ((), r"[零一二三四五六七八九十两百千万亿]+\s*(?:个|天|次|小时|分钟|秒|周|月|年|元|块|岁|人|条|页|倍)"),
    (("$", "¥", "€", "£"), r"[$¥€£]"),
)

KNOWLEDGE = (
    "学到", "学会", "踩坑", "坑", "注意", "教训", "原来", "发现", "经验", "心得", "记录一下", "提醒",
    "lesson", "lessons", "learned", "learnt", "gotcha", "til", "note:", "pitfall", "turns out", "caveat",
    "beware", "tip:", "insight", "heads up", "watch out",
)

LONG_LIVED = (
    "以后", "今后", "从现在起", "从今以后", "长期", "永久", "一直", "每次", "始终", "往后", "from now on",
    "going forward", "in future", "in the future", "permanently", "every time", "for good",
)

SHORT_LIVED = (
    "今天", "刚才", "刚刚", "暂时", "临时", "这次", "本次", "目前先", "这会儿", "当前", "today", "just now",
    "temporarily", "for now", "this time", "right now", "at the moment", "等待", "待定", "waiting for",
    "awaiting", "pending",
)

SCHEDULED = (
    "定在", "安排在", "计划", "截止", "到期", "预计", "届时", "之前完成", "前完成", "约在", "deadline",
    "due", "scheduled", "planned", "expires", "until", "meeting on", "review on",
)

PLEASANTRIES = (
    "好的", "好滴", "好嘞", "好", "明白了", "明白", "谢谢", "多谢", "感谢", "收到", "嗯嗯", "嗯", "哈哈",
    "没问题", "了解", "知道了", "辛苦了", "可以", "行", "ok", "okay", "k", "thanks", "thank you", "thx",
    "ty", "got it", "sure", "cool", "nice", "great", "noted", "roger", "yes", "yep", "yeah", "no problem",
    "np", "alright", "sounds good", "will do", "understood", "perfect", "awesome", "lol",
)

REMEMBER = (
    "记住", "记下来", "记下", "请记住", "牢记", "别忘了", "不要忘记", "不要忘了", "remember this",
    "remember:", "remember that", "remember to", "remember", "don't forget", "note to self", "keep in mind",
)

ROUTINE = (
    "heartbeat", "health check", "healthcheck", "checked the build", "build green", "all green", "ci green",
    "ping ok", "看了一下", "检查了一下", "巡检", "例行", "日常检查", "看了下", "cron ran", "backup ok",
    "nothing new", "no issues", "无异常", "没有异常", "一切正常", "status ok", "checked the logs",
    "checked logs", "checked email", "checked inbox", "synced", "同步完成", "daily standup",
    "without errors", "no new alerts", "no alerts", "no conflicts", "nothing urgent", "nothing blocking",
    "usage normal", "all passed", "全绿", "没有告警", "无告警", "没有阻塞", "没有冲突", "正常完成",
    "服务都在线", "照常", "zero regressions", "no regressions", "all tests pass", "all tests passed",
    "tests pass", "0 failures", "测试通过", "测试全部通过",
)

# A newer fact replacing an older one; what follows RETIRED names the thing given up.
CHANGE = (
    "现在", "改用", "不再", "换成", "改成", "换了", "已经换", "替换", "取代", "no longer", "switched to",
    "switch to", "moved from", "moved to", "instead", "now use", "now uses", "replaced", "migrated to",
    "we now", "i now",
)
RETIRED = (
    "不再用", "不再使用", "不再", "弃用", "no longer use", "no longer using", "no longer on", "no longer",
    "switched from", "moved from", "migrated from", "stopped using",
)
# An explicit correction marks the entry it refers to obsolete. Only phrases that say so
# outright count: a bug report that "shows incorrect data" corrects nothing.
CORRECTION = (
    "这个不对", "那个不对", "刚才说的不对", "是错的", "搞错了", "说错了", "记错了", "更正", "纠正",
    "以后不要这样", "that's wrong", "that is wrong", "thats wrong", "that was wrong", "i was wrong",
    "correction:", "don't do that again",
)

# Words that hold a cue but do not mean it: a decision-maker decides nothing here, a keyword
# (关键词) is not critical, "要不要" asks rather than forbids. They are matched like cues and
# signal nothing, so the cue inside them is not seen.
FALSE_FRIENDS = (
    "决策者", "决策参考", "决策支持", "决策树", "选择器", "选择题", "关键词", "关键字", "要不要", "不要紧",
    "decision maker", "decision makers", "decision tree", "decision trees", "decision making",
)

# Words that flip a sentence's meaning; two entries that disagree on them are not duplicates.
NEGATIONS = (
    "不", "没", "别", "未", "无法", "不再", "never", "not", "no", "don't", "dont", "doesn't", "isn't",
    "won't", "no longer", "without",
)

# fmt: on

DEFAULT_SIGNALS = (
    Signal("preference", 3, PREFERENCE),
    Signal("decision", 3, DECISION, negatable=True),
    Signal("urgency", 3, URGENCY, negatable=True),
    Signal("task", 2, TASK),
    Signal("environment", 2, ENVIRONMENT, ENVIRONMENT_PATTERNS),
    Signal("data", 2, (), DATA_PATTERNS),
    Signal("knowledge", 1, KNOWLEDGE),
    Signal("long_lived", 1, LONG_LIVED),
    Signal("short_lived", 0, SHORT_LIVED),
    Signal("past_due", -1, SCHEDULED),
    Signal("noise", -1, PLEASANTRIES),
    Signal("remember", 0, REMEMBER),
    Signal("routine", 0, ROUTINE),
    Signal("change", 0, CHANGE),
    Signal("retired", 0, RETIRED),
    Signal("correction", 0, CORRECTION),
)
SIGNAL_NAMES = tuple(s.name for s in DEFAULT_SIGNALS)
# Signals that add up into the score (the others are handled by their own rule).
ADDITIVE = ("preference", "decision", "urgency", "task", "environment", "data", "knowledge")


_WORD = re.compile(r"[a-z0-9_]+(?:'[a-z]+)*")
_NEGATING_WORDS = frozenset({"non", "not", "no", "never"})


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(text))


@dataclass(frozen=True)
class Rules:
    """All signals, indexed so a text is scanned once: English cues by their words, Chinese
    and punctuated cues by one prefix-tree regex, patterns only when their trigger occurs."""

    signals: dict[str, Signal]
    phrases: dict[tuple[str, ...], tuple[str, ...]] = field(init=False, repr=False, compare=False)
    starts: frozenset[str] = field(init=False, repr=False, compare=False)
    firsts: frozenset[str] = field(init=False, repr=False, compare=False)
    longest: int = field(init=False, repr=False, compare=False)
    chinese: re.Pattern[str] = field(init=False, repr=False, compare=False)
    edged: re.Pattern[str] = field(init=False, repr=False, compare=False)
    edge_marks: frozenset[str] = field(init=False, repr=False, compare=False)
    owners: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)
    patterns: dict[str, list[tuple[tuple[str, ...], re.Pattern[str]]]] = field(
        init=False, repr=False, compare=False
    )

    def __post_init__(self) -> None:
        phrases: dict[tuple[str, ...], list[str]] = {}
        owners: dict[str, list[str]] = {}
        for name, signal in self.signals.items():
            for cue in {c.casefold() for c in signal.cues if c}:
                words = _words(cue)
                if _is_word_char(cue[0]) and _is_word_char(cue[-1]) and words:
                    phrases.setdefault(words, []).append(name)
                else:
                    owners.setdefault(cue, []).append(name)
        for cue in FALSE_FRIENDS:
            words = _words(cue)
            if _is_word_char(cue[0]) and _is_word_char(cue[-1]) and words:
                phrases.setdefault(words, [])
            else:
                owners.setdefault(cue, [])
        set_ = object.__setattr__
        set_(self, "phrases", {k: tuple(v) for k, v in phrases.items()})
        set_(self, "starts", frozenset(k[0] for k in phrases if len(k) > 1))
        set_(self, "firsts", frozenset(k[0] for k in phrases))
        set_(self, "longest", max((len(k) for k in phrases), default=1))
        set_(self, "owners", {k: tuple(v) for k, v in owners.items()})
        plain = [c for c in owners if not _is_word_char(c[0]) and not _is_word_char(c[-1])]
        edged = [c for c in owners if _is_word_char(c[0]) or _is_word_char(c[-1])]
        set_(self, "chinese", re.compile(trie_regex(plain)) if plain else re.compile(r"(?!x)x"))
        set_(self, "edged", compile_cues(edged))
        marks = {ch for c in edged for ch in (c[0], c[-1]) if not _is_word_char(ch)}
        set_(self, "edge_marks", frozenset(marks))
        set_(
            self,
            "patterns",
            {
                name: [(triggers, re.compile(regex)) for triggers, regex in signal.patterns]
                for name, signal in self.signals.items()
                if signal.patterns
            },
        )

    def __getitem__(self, name: str) -> Signal:
        return self.signals[name]

    def _claim(self, found: dict[str, str], names: tuple[str, ...], cue: str, negated: bool) -> None:
        for name in names:
            if name not in found and not (negated and self.signals[name].negatable):
                found[name] = cue

    def scan(self, text: str) -> dict[str, str]:
        """Signal name -> the first cue of it found in (normalised) text."""
        found: dict[str, str] = {}
        words = _words(text)
        firsts = self.firsts
        for i, word in enumerate(words):
            if word not in firsts:
                continue  # most words open no cue
            negated = i > 0 and words[i - 1] in _NEGATING_WORDS
            span = self.longest if word in self.starts else 1
            for size in range(min(span, len(words) - i), 0, -1):
                names = self.phrases.get(words[i : i + size])
                if names is None:
                    continue
                if not names:
                    break  # a false friend: the shorter cues inside it do not count
                self._claim(found, names, " ".join(words[i : i + size]), negated)
        hits = list(self.chinese.finditer(text)) if not text.isascii() else []
        if any(mark in text for mark in self.edge_marks):
            hits.extend(self.edged.finditer(text))
        for m in hits:
            negated = _NEGATED.search(text, max(0, m.start() - 8), m.start()) is not None
            self._claim(found, self.owners.get(m.group(0), ()), m.group(0), negated)
        for name, patterns in self.patterns.items():
            if name in found:
                continue
            for triggers, pattern in patterns:
                for trigger in triggers:
                    if trigger in text:
                        break
                else:
                    if triggers:
                        continue  # no trigger of this pattern in the text
                hit = pattern.search(text)
                if hit:
                    found[name] = hit.group(0).strip()
                    break
        return found


@functools.lru_cache(maxsize=8)
def build_rules(overrides: tuple[RuleOverride, ...] = ()) -> Rules:
    signals = {s.name: s for s in DEFAULT_SIGNALS}
    for o in overrides:
        base = signals[o.signal]
        cues = tuple(o.cues) if o.cues is not None else base.cues
        signals[o.signal] = Signal(
            base.name,
            base.points if o.points is None else o.points,
            cues + tuple(o.add),
            base.patterns,
            base.negatable,
        )
    return Rules(signals)


DEFAULT_RULES = build_rules()
