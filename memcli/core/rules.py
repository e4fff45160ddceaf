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
STATIVE_WORDS = frozenset({"is", "are", "be", "get", "gets"})  # "are synced": how things stand
HABITUAL_WORDS = frozenset({"get", "gets", "usually", "often", "always", "sometimes"})  # "gets blocked"
PAST_WORDS = frozenset({"was", "were", "had", "has", "have"})  # "were never tested", "has always been"
HYPOTHETICAL_WORDS = frozenset({"would", "could", "might", "may"})  # "would require …": a guess, no limit


Pattern = tuple[tuple[str, ...], str]


@dataclass(frozen=True)
class Signal:
    name: str
    points: float
    cues: tuple[str, ...]
    patterns: tuple[Pattern, ...] = ()
    negatable: bool = False  # "non-urgent", "不重要", "not decided" do not count
    # Words a cue does not count after: "are synced" says how things stand, not that a sync
    # happened; "gets blocked" what always happens; "were never tested" states no rule.
    not_after: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        object.__setattr__(self, "points", float(self.points))

    @functools.cached_property
    def matcher(self) -> re.Pattern[str]:
        """All the signal's cues and patterns as one regex, compiled when first asked for
        (`Rules.scan` has its own index; a few judgements strip a signal's cues)."""
        return compile_cues(self.cues, [regex for _, regex in self.patterns])

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
# A preference, or an instruction that stands: what to do, use or avoid, mild or strict.
PREFERENCE = (
    "我喜欢", "我不喜欢", "喜欢用", "我习惯", "习惯用", "我偏好", "偏好", "讨厌", "不要", "别用", "别再",
    "请用", "请不要", "尽量", "我希望", "我更喜欢", "更喜欢", "宁可", "我用", "我使用", "我一般用", "记得",
    "一律", "统一用", "千万别", "不许", "比较喜欢", "倾向于", "我倾向", "习惯于", "禁止", "严禁", "切勿",
    "绝不", "绝对不", "千万不要", "不允许", "不得", "不可", "不能用", "务必", "一定要", "一定先",
    "只用", "只能用", "仅用", "统一使用", "优先用", "优先使用", "优先", "为主", "为准", "默认用", "应该",
    "应当", "请勿", "勿", "别", "先别", "尽可能", "不喜欢", "之前先", "前先", "要先",
    "用中文", "用英文", "用英语", "回复用", "回答用",
    "不使用", "不用", "不希望", "希望你", "宁愿", "最好用", "最好别",
    "i prefer", "prefers", "prefer", "preferred", "i like", "likes",
    "i love", "i hate", "i use", "i'm on", "i am on", "always", "never", "don't", "do not", "dont",
    "please use", "please don't", "avoid", "mind the", "make sure", "i want", "i'd rather", "rather than",
    "i usually", "i'd prefer", "i would rather", "i tend to", "must not", "mustn't", "should never",
    "should always", "stick to", "stick with", "only use", "use only", "no more than", "in english",
    "in chinese", "should", "shouldn't", "should not", "ought to", "hates", "dislikes", "can't stand",
    "please", "not allowed", "forbidden", "prohibited", "mandatory", "strictly",
    "under no circumstances", "default to", "favour", "favor", "keep it", "be concise", "no emojis",
    "at least", "ask before", "ask first", "check with", "before any", "before every",
    # what a thing should be ("`dataDir` 应为 `dbPath`"), what comes first ("human instructions override all")
    "应为", "应是", "应设为", "应改为", "应该是", "override all", "overrides all", "overrides everything",
    "override everything", "takes precedence", "take precedence", "优先于", "高于一切", "凌驾于",
    # a preference named as one by its label ("Preference: metric units", "喜好：…")
    "preference:", "preferences:", "pref:", "喜好:", "口味:",
)
# Imperatives a note opens with: a rule for later sessions ("Use X", "用 pnpm 装依赖").
PREFERENCE_PATTERNS = (
    # …at the start of the line or of a sentence in it: "Discord works. Use them."
    (("use", "prefer", "keep", "ensure", "ship", "treat", "reply", "answer", "respond", "stop", "avoid"),
     r"(?:^\s*|[.!;。！；]\s+)(?:use|prefer|keep|ensure|ship|treat|reply|answer|respond|stop|avoid)\s"
     r"(?!(?:out|up|into|through|cases?)\b)"),
    # 旧接口下线了。用 v2。: a sentence that only says which tool to use
    (("用",), r"(?:^\s*|[。！；!;]\s*)(?:请)?(?:用|使用|改用|统一用)\s*[a-z][\w.+-]*"
     r"(?:\s+[a-z0-9][\w.+-]*)?\s*(?:[。!！]|\.(?!\w)|$)"),
    # someone's liking or habit: 用户比较喜欢…, 老板习惯…
    (("喜欢", "习惯", "偏好", "讨厌"),
     r"(?:用户|老板|客户|他|她|大家|团队|我们|主人|领导)(?:比较|很|更|最|一直|都|也)?(?:不)?(?:喜欢|习惯|偏好|讨厌)"),
    # an instruction after a fact: "RUSHABDEV is the sibling node — coordinate daily"
    (("—", "--", " - "), r"(?:—|--|\s-)\s*(?:use|prefer|keep|ensure|avoid|coordinate|verify|check|ask|sync|"
     r"follow|cite|report|ping|notify|escalate|reply|answer|integrate|route)\s+\S"),
    # 先备份再改 (not 我先写原型，然后…: a plan of one's own)
    (("先",), r"(?<!我)(?<!我们)先[\u4e00-\u9fffa-z]{1,12}[，,]?\s*(?:再|后|然后)"),
    (("不准",), r"不准(?!确)(?=[\u4e00-\u9fffa-z])"),  # 不准删除 (not 结果不准: inaccurate)
    # a standing judgement: "心跳检查是合适的提醒时机", "NATS is the right backbone", 越简单越好
    (("是",), r"是(?:最|更)?(?:合适|正确|最佳|最好|首选|理想)的[\u4e00-\u9fffa-z]"),
    (("is", "are"), r"\b(?:is|are)\s+(?:the|our)\s+(?:right|best|correct|proper|preferred|canonical)\s+"
     r"(?:[\w-]+\s+)?(?:way|place|time|tool|choice|default|backbone|approach|moment|channel|option|fit|home|source)s?\b"),
    (("越",), r"越[\u4e00-\u9fffa-z]{1,4}越(?:好|佳)"),
    (("the better",), r"\bthe\s+(?:more|less|fewer|[a-z]+er)\b(?:\s+[a-z]+){0,4}\s*,?\s+the\s+better\b"),
)

DECISION = (
    "决定", "决策:", "选择", "选定", "改用", "采用", "换成", "定了", "确定用", "就用", "拍板", "敲定",
    "选型", "定为", "定下", "采纳", "而不是", "而非", "代替", "取而代之", "选用", "商定", "最终方案",
    "统一为",
    "方案定", "达成一致", "共识:", "agreed:",
    "decided", "decide", "decision", "chose", "chosen", "we will use", "we'll use", "going with",
    "settled on", "switch to", "switched to", "adopt", "adopted", "opted for", "agreed to", "agreed on",
    "instead", "instead of", "in favour of", "in favor of", "we chose", "go with", "we'll go with",
    "we use", "standardize on", "standardise on", "standardized on", "picked", "selected", "approved",
    "ruled",
    # a decision told as its outcome: what now comes first, what is now on, what it was changed to
    "确立", "设为默认", "设为首选", "设为主", "作为主力", "作为默认", "作为主要", "改为", "调整为", "改成了",
    "promoted to", "as primary", "as the primary", "as secondary", "as the secondary", "as fallback",
    "as a fallback", "as the fallback", "as default", "as the default", "top priority", "now enabled",
    "now disabled", "now on by default", "enabled by default", "disabled by default", "now the default",
    "changed to", "now set to",
)
# "不用 X，用 Y": one thing chosen over another
DECISION_PATTERNS = (
    (("不用",), r"不用\s*[^，,。；;]{1,30}[，,；;]\s*(?:改)?用"),
    # one thing over another: "自托管 > 云服务", "Business mind > telos mind"
    ((">",), r"[a-z\u4e00-\u9fff)](?<![-=])\s+>\s+(?![\d~])[a-z\u4e00-\u9fff(]"),
    # a priority order of three or more: 乌克兰>中东>东南亚, coingecko > newsapi > unsplash
    ((">",), r"[a-z\u4e00-\u9fff)]\s*>(?!=)\s*[a-z\u4e00-\u9fff(][^<>\n]{0,30}?"
     r"[a-z\u4e00-\u9fff)]\s*>(?!=)\s*[a-z\u4e00-\u9fff(]"),
)

URGENCY = (
    "紧急", "重要", "关键", "马上", "立刻", "尽快", "严重", "高优先级", "十万火急", "urgent",
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
    # what a setting is called: as a label ("Model: …", "语言：…") it names a lasting fact
    "model", "provider", "browser", "voice", "workspace", "language", "locale", "editor", "shell",
    "terminal", "模型", "语言", "工作区", "浏览器", "编辑器", "website", "网站", "blog", "博客", "phone",
    "电话", "company", "公司", "occupation", "职业", "职位", "city", "城市", "country", "国家",
    "name", "名字", "姓名", "pronouns", "hobby", "hobbies", "爱好", "interests", "兴趣", "credentials",
    "credential", "凭证", "密钥", "api key", "token", "cron", "launchd", "systemd", "daemon", "webhook",
    "plugin", "插件", "extension", "skill", "skills", "openrouter", "anthropic", "openai", "claude",
    "gpt", "gemini", "llama", "qwen", "deepseek", "mistral", "kimi", "vercel", "netlify", "cloudflare",
    "supabase", "notion", "obsidian", "slack", "telegram", "discord", "feishu", "飞书", "微信", "wechat",
    "gmail", "icloud", "dropbox", "google drive", "s3", "bucket", "仓库", "账号", "账户", "用户名", "时区",
    "主页", "邮箱", "域名", "官网", "网址", "链接", "入口", "文件夹", "repo", "repository", "account",
    "username", "handle", "homepage", "email", "domain", "url", "endpoint", "branch", "timezone",
    "time zone", "greeting", "contact", "role", "birthday", "生日", "角色", "成员", "sibling", "teammate",
    "colleague", "manager",
    # who someone is, and the settings a value is given for
    "identity", "persona", "人设", "身份", "age", "年龄", "nickname", "昵称", "address", "地址", "住址",
    "interval", "frequency", "timeout", "threshold", "budget", "间隔", "频率", "超时", "阈值", "预算", "端口",
    "units", "单位", "格式", "database", "数据库", "server", "服务器", "host", "主机", "cluster", "集群",
    # the devices of a home or an office, named with their model ("打印机是 Brother HL-L2375DW")
    "路由器", "主路由", "打印机", "显示器", "交换机", "光猫", "摄像头", "nas", "router", "printer",
    "monitor", "modem", "access point", "mesh", "扫描仪", "scanner", "电视", "投影仪", "音箱", "相机", "耳机",
    "键盘", "主力机", "台式机", "笔记本电脑", "laptop", "desktop", "tv", "projector", "speaker", "camera",
    "headphones", "keyboard", "e-reader", "kindle",
)

# (triggers, regex): the regex runs only when one of the trigger strings occurs in the text.
ENVIRONMENT_PATTERNS = (
    (("://",), r"https?://\S+"),
    (("\\",), r"(?<![\w])[a-z]:\\"),  # C:\
    (("/",), r"(?:~|\.{1,2})?/(?:users|home|etc|var|opt|usr|tmp|srv)/"),
    (("~/",), r"~/[\w.-]+"),
    (("%",), r"%\w+%"),
    (("@",), r"[\w.+-]+@[a-z0-9-]+\.[a-z0-9.-]+"),  # an e-mail address
    (("/",), r"(?<![\w.:/])/[a-z0-9_.-]+/[a-z0-9_.-]+"),  # an absolute path: /volume1/photos
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

# A lesson that keeps the same mistake from happening again.
LESSON = (
    "教训", "踩坑", "避坑", "坑", "经验教训", "注意事项", "切记", "下次注意", "诀窍", "血的教训",
    "lesson", "lessons", "lesson learned", "lessons learned", "gotcha", "pitfall", "pitfalls", "caveat",
    "correction", "takeaway", "beware", "watch out", "never again", "the trick is", "careful", "mistake",
    "til", "learned the hard way", "学到了", "长记性", "doesn't support", "does not support", "not supported",
    "经验:", "心得:", "注意:", "lesson learned:", "learned:", "takeaway:",
    "unsupported", "only works", "only supports", "only accepts", "only accept", "accepts only", "只接受",
    "不支持", "只支持", "仅支持", "只适用", "仅适用",
    # what a thing declares or exposes, and no more ("微信插件只声明了 direct")
    "只声明", "仅声明", "只暴露", "只注册", "only declares", "only declared", "only exposes",
    "only registers",
    # a trap and what it really is: harmless, backwards
    "陷阱", "trap", "benign", "harmless", "safe to ignore", "can be ignored", "can safely be ignored",
    "无害", "可以忽略", "可忽略", "可放心忽略", "was backwards", "were backwards", "is backwards",
    "are backwards", "搞反了", "弄反了", "写反了", "是反的", "关键在于", "要点在于",
)
# "Thresholds matter — …", "what matters is …": the point a lesson makes
LESSON_PATTERNS = (
    (("matter",), r"\bmatters?\s*(?:[—–:]|--|\s-\s)|\bwhat matters is\b"),
)

# A limit or a requirement the world imposes: what works only so, what breaks otherwise.
CONSTRAINT = (
    # a limit set on something
    "上限", "下限", "最多", "不超过", "至少", "限额", "at most", "no more than", "upper bound", "rate limit",
    "capped at", "is capped", "expires after",
    # what works only so
    "只能在", "仅限", "只能", "仅可", "只可", "only via", "only with", "only through", "only from",
    "only after",
    "only if", "must be",
    # what something needs to work: a requirement, a configuration, an approval
    "requires", "require", "required for", "is required", "are required", "is necessary", "are necessary",
    "causally necessary", "必不可少", "是必需的", "是必要的", "必要条件", "只在", "仅在",
    "二次确认", "人工确认", "人工审批", "手动确认", "手动审批", "需审批", "需要审批", "需人工审核",
    "需人工确认", "需要人工审核", "需要人工确认", "事前批准", "事先批准", "事后报备",
    "manual approval", "human approval", "requires approval", "needs approval", "approval required",
    "double confirmation", "double-confirm", "sign-off required", "双人复核", "双人审核", "四眼原则",
    "two-person review", "four-eyes", "four eyes",
    # what breaks otherwise
    "会导致", "会报错", "会失败", "否则会", "不然会", "绕过", "workaround", "doesn't work with",
    "does not work with",
    "won't work", "breaks if", "breaks when", "fails if", "fails when", "fails on", "fails auth",
    "doesn't accept",
    "does not accept",
)
CONSTRAINT_PATTERNS = (
    # 公众号需配置 Cookie, the API needs 3 credentials: a thing's requirement (not 需要配置…: a to-do)
    (("需",), r"[\u4e00-\u9fffa-z0-9)）]\s*需要?\s*(?:配置|设置|开启|提供|传入|携带|绑定|"
     r"(?:\d+|[一二三四五六七八九十两])\s*(?:个|项)\s*(?:凭证|密钥|参数|权限|key|token))"),
    (("need",),
     r"\bneeds?\s+(?:\d+|two|three|four)\s+(?:credentials|keys|tokens|secrets|scopes|permissions)\b"),
    # what happens only so: "ONLY loads in private sessions", "only fires on push"
    (("only",), r"\bonly\s+(?:loads?|runs?|works?|applies|apply|fires?|triggers?|starts?|syncs?|appears?|"
     r"shows?|matches|match|reads?|writes?|listens?)\b"),
    # a limit in symbols: ≤5x 杠杆, 月用量 ≥ 99%, ≤ $50/day
    (("≤", "≥"), r"[≤≥]\s*[\d¥$€£]"),
    (("only",), r"\bonly\s*(?:[(（,;.:]|$)"),  # "last 7 days only (…)", "English only."
    (("get",), r"\bgets?\s+(?:\w+-)?\w+ed\b"),  # what always happens: "gets blocked", "get rate-limited"
)

# Where something lives, who owns it, which account it is: a fact that stays true.
PLACE = (
    "位于", "放在", "存放在", "存放于", "保存在", "存储在", "存于", "地址是", "地址为", "路径是", "路径为",
    "负责人", "对接人", "联系人", "登录为", "负责", "名叫", "叫做", "汇报给", "汇报对象", "安装在", "部署在",
    "运行在", "托管在", "在线地址", "是我们的", "直属", "隶属", "归属", "代号", "是指", "指的是", "用的是",
    "使用的是", "客户是", "老板是", "公司是", "团队是", "来自", "住在", "就职于", "叫我", "称呼", "我叫",
    "我的名字", "用户是",
    "lives in", "live in", "lives at", "live at", "lives under", "live under", "lives on", "stored in",
    "stored at", "stored under", "kept in", "saved in", "saved to", "located", "location", "hosted on",
    "hosted at", "installed at", "installed in", "deployed on", "runs on", "runs macos", "runs linux",
    "runs windows", "defined in", "configured in", "managed with", "handled by", "synced via", "synced with",
    "backed up to", "owner", "owned by", "owns", "maintainer", "maintained by", "managed by", "belongs to",
    "responsible for", "in charge of", "reports to", "point of contact", "authenticated as", "logged in as",
    "signed in as", "address them as", "call me", "years old", "works at", "works for", "works as",
    "based in", "speaks", "name is", "my name is", "is called", "is named", "are called", "goes by",
    "i am a", "i'm a", "i am an", "i'm an", "user is", "is our", "is my", "are our", "are my",
    "reserved for", "dedicated to", "code name", "codename", "aka", "a.k.a.", "stands for", "refers to",
    # who answers for what, where a service answers
    "管理员", "主理人", "审批人", "决策人", "working at", "reachable at", "available at",
    "managed in", "managed on", "tracked in", "tracked on", "organised in", "organized in",
    "贴在", "挂在", "锁在", "收在", "写在", "记在", "记录在",
)

# Who someone is to the user: family, the people who look after them (a doctor, a nanny).
_KIN_ZH = (
    "老婆|老公|爱人|妻子|丈夫|太太|媳妇|女儿|儿子|孩子|闺女|小孩|宝宝|妈妈|爸爸|母亲|父亲|老妈|老爸|爸妈|父母|"
    "爷爷|奶奶|外公|外婆|姥姥|姥爷|岳父|岳母|公公|婆婆|哥哥|姐姐|弟弟|妹妹|家人|家里人|医生|大夫|牙医|保姆|阿姨"
)
_KIN_EN = (
    "wife|husband|partner|spouse|daughter|son|kids?|children|child|mom|mum|mother|dad|father|parents|"
    "brother|sister|grandma|grandpa|grandmother|grandfather|in-laws|mother-in-law|father-in-law|baby|"
    "toddler|nanny|babysitter|family"
)
# ... and what stays true of them: a condition, an allergy, a home, a charge, a doctor.
_CONDITION_ZH = "高血压|低血压|糖尿病|哮喘|心脏病|痛风|甲亢|甲减|贫血|鼻炎|湿疹|癫痫|近视|色弱|色盲"
_CONDITION_EN = (
    r"asthma|diabetes|type [12] diabetes|hypertension|high blood pressure|epilepsy|adhd|eczema|celiac|"
    r"coeliac|gout|migraines?|a pacemaker|a nut allergy|an? \w+ allergy"
)
_ROLE_EN = (
    "gp|doctor|family doctor|physician|dentist|pediatrician|paediatrician|therapist|psychiatrist|physio|"
    "physiotherapist|optometrist|vet|accountant|lawyer|tutor|nanny|babysitter|landlord|cleaner|teacher"
)
PERSONAL_PATTERNS = (
    # what stays true of family and the people who look after them: 妈妈高血压, 爸爸体检在协和做,
    # 老婆管家里的账, "Sarah (his wife) handles the family calendar", "Dr. Chen is his GP"
    (tuple(_KIN_ZH.split("|")),
     rf"(?:{_KIN_ZH})[^，,。；;\n]{{0,10}}?(?:{_CONDITION_ZH}|过敏|不能吃|不吃|忌口|不耐受|生日|住在|负责|"
     r"管(?![道子理])|(?:每天|每日|每晚|每早|长期)(?:吃|服|用|打)|"
     r"(?:体检|看病|就诊|复查|看牙|洗牙|上学|读书|上班|工作)[^，,。；;\n]{0,4}?在|"
     r"在[^，,。；;\n]{1,10}?(?:做体检|体检|看病|就诊|看牙|上学|读书|上班|工作|"
     r"(?:上|读|念)(?:幼儿园|小学|初中|高中|大学|[一二三四五六七八九初高]年级)))"),
    (tuple(w.replace("s?", "") for w in _KIN_EN.split("|")),
     rf"\b(?:{_KIN_EN})\b[)）,]?\s*(?:[\w'-]+\s+){{0,2}}?(?:is\s+allergic|allergic\s+to|is\s+\w*\s*intolerant|"
     r"can't\s+eat|cannot\s+eat|doesn't\s+eat|does\s+not\s+eat|handles|manages|takes\s+care\s+of|"
     r"is\s+in\s+charge\s+of|is\s+responsible\s+for|lives\s+(?:in|at|with|near)|works\s+(?:at|as|for)|"
     r"go(?:es)?\s+to|attends?|stud(?:y|ies)\s+at|sees\s+dr\b|has\s+(?:" + _CONDITION_EN + r"))\b"),
    (("allergic", "allergy", "allergies", "intolerant", "过敏", "不耐受", "血型", "blood type"),
     r"(?:is|are)?\s*allergic\s+to|allerg(?:y|ies)\s*(?:to|:)|\b(?:lactose|gluten)[\s-]+intolerant|"
     r"对[^，,。；;\n]{1,12}过敏|(?<![今昨])过敏(?:原|体质)|[^，,。；;\n]{1,6}不耐受|血型\s*(?:是|为|:)?\s*[abo]|"
     r"blood\s+type\s*(?:is|:)?\s*(?:ab|a|b|o)\b"),
    (("birthday", "生日"), r"birthday\s*(?:is|falls|:)|生日\s*(?:是|在|为|:)"),
    (tuple(_ROLE_EN.split("|")), rf"(?:'s|s'|\bmy|\bour|\bhis|\bher|\btheir)\s+(?:{_ROLE_EN})\s+is\b"),
    (("is", "are"), rf"\b(?:is|are)\s+(?:his|her|my|our|their|the\s+(?:kids'?|family'?s?|children's))\s+"
     rf"(?:{_ROLE_EN})\b"),
    (("has",), rf"\bhas\s+(?:{_CONDITION_EN})\b"),
    (("takes",), r"\btakes\s+[\w-]+\s+(?:daily|every\s+(?:day|morning|night|evening)|"
     r"each\s+(?:day|morning|night)|"
     r"twice\s+a\s+day)\b"),
)
_SETTING_NOUNS = (
    "账号|账户|地址|端口|路径|目录|域名|邮箱|用户名|版本|时区|仓库|服务器|数据库|网址|主页|模型|主机|位置|"
    # the accounts, devices and providers of a home: 宽带是电信的, 车险在平安, 家庭医生是陈医生
    "密码|无线网|wifi|手机号|电话|号码|型号|路由|网关|宽带|运营商|银行卡|信用卡|券商|车险|保险|医保卡|社保卡|网盘|"
    "云盘|家庭医生|主治医生|牙医|医生|大夫|班主任|渠道|频道"
)
PLACE_PATTERNS = (
    (tuple(_SETTING_NOUNS.split("|")), rf"(?:{_SETTING_NOUNS})\s*(?:是|为|在|叫|用)\s*\S"),  # 主账号是 @acme
    (("叫",), r"(?:猫|狗|宠物|老板|上司|领导|孩子|儿子|女儿|老婆|老公|妻子|丈夫|太太|助理|名字)\s*(?:叫|是)"),
    (("是一",), r"是一(?:台|名|位)"),  # 构建机是一台 Mac mini, 用户是一名老师
    *PERSONAL_PATTERNS,
    # who is in charge of a thing: 社保的事由张姐管, 由小王对接
    (("由",),
     r"由\s*[\u4e00-\u9fffa-z][\u4e00-\u9fffa-z .]{0,8}?(?:管(?![道子理])|管理|打理|对接|审批|把关)"),
    # where things are sent: "feedback goes to #design", 日报发到飞书群
    (("goes", "go ", "sent", "posted", "land"),
     r"\b(?:goes|go|are sent|is sent|gets? posted|is posted|are posted|lands?)\s+(?:to|in|into)\s+"
     r"(?:#[\w-]+|the\s+[\w-]+\s+(?:channel|folder|inbox|queue|board|calendar|list))"),
    (("发到", "发在", "贴到", "贴在", "提到", "提交到", "同步到"),
     r"(?:发到|发在|贴到|贴在|提交到|同步到)\s*[^，,。；;\n]{1,12}?(?:群|频道|邮箱|文件夹|看板|#)"),
    # whom to go to for what: 报销的问题都找李姐, "for billing issues, ask Priya"
    (("找",), r"(?:问题|事|事情|事宜|需求|申请|报销|故障|评审|审核|审批|发票|合同|权限|报修|维修|请假|采购)"
     r"(?:都|一律|统一|请|就|直接|可以)?找\s*[\u4e00-\u9fffa-z]"),
    (("ask", "ping", "contact", "email", "talk to", "go to"),
     r"\bfor\s+(?:all\s+|any\s+)?(?:[\w-]+\s+){0,2}(?:issues|problems|questions|requests|bugs|matters)\s*,?\s*"
     r"(?:ask|ping|contact|email|talk to|go to)\s+\S"),
    # someone's role: "Zhiduo is the high-signal contact", "Mia is our go-to reviewer"
    (("is", "are"),
     r"\b(?:is|are)\s+(?:the|our|my)\s+(?:[\w-]+\s+){0,2}(?:contact|contacts|go-to|point person|owner|lead|"
     r"maintainer|admin|reviewer|approver|sponsor|architect|founder|gatekeeper)\b"),
    # a role and what one builds: "Consciousness researcher building AIKAGRYA", 研究员，专注于…
    (("building", "developing", "working on", "creating", "leading", "running"),
     r"\b(?:researcher|engineer|developer|designer|founder|scientist|writer|student|teacher|professor|"
     r"consultant|maker|artist|architect|maintainer)\s+"
     r"(?:building|developing|working on|creating|leading|running)\b"),
    (("研究", "工程师", "开发者", "设计师", "创始人", "作者", "学生", "老师", "教授", "顾问", "经理"),
     r"(?:研究员|研究者|工程师|开发者|设计师|创始人|作者|学生|老师|教授|顾问|产品经理)[，,]?\s*"
     r"(?:专注于?|致力于|从事|主攻|主做|在做)"),
    # a setting named as the subject: "the repo for the site is acme/www", "calendar is Google's"
    (("is", "are"),
     r"\b(?:repo|repository|database|db|server|host|calendar|editor|shell|browser|model|provider|"
     r"domain|account|workspace|vault|bucket|branch|timezone|os|stack|backend|frontend|router|printer|nas|wi-?fi|"
     r"ssid|vpn|isp|carrier|bank|broker|insurer|insurance|mortgage|password|gp|doctor|dentist|pediatrician|"
     r"landlord|accountant|page|site|dashboard|wiki|portal|console)\b[^.,;]{0,30}?\b(?:is|are)\s+"
     r"(?!(?:down|up|broken|failing|slow|red|green|ok|fine|empty|full|done|ready|running|blocked|not|still|now)\b)\S"),
)

# A standing scope: what holds from now on, every time, without exception.
LONG_LIVED = (
    "以后", "今后", "从现在起", "从今以后", "每次", "始终", "from now on",
    "going forward", "in future", "in the future", "permanently", "every time", "for good",
    "永远", "永不", "总是", "每当", "任何时候", "无论何时", "从今天起", "从今天开始", "从现在开始", "必须",
    "from today on", "starting today", "as of today", "from tomorrow on", "starting tomorrow",
    "铁律", "红线", "always", "never", "whenever", "each time", "at all times", "as a rule", "must",
    # said to stand: 长期执行, "until further notice"
    "长期执行", "长期有效", "长期坚持", "长期保持", "持续执行", "一直有效", "until further notice",
    "as a standing rule", "standing order",
    # where a standing scope starts: 从本月起, "starting next month"
    "从本月起", "从本月开始", "本月起", "自本月起", "从这个月起", "从这个月开始", "从下个月起",
    "从下个月开始",
    "从下月起", "下月起", "从本周起", "从下周起", "从下周开始", "starting this month", "from this month on",
    "starting next month", "from next month on", "starting next week", "from next week on",
)

# How things are done here: a default, a fixed value, what to do when something happens.
CONVENTION = (
    "默认", "(固定)", "固定为", "固定在", "固定用", "永久", "往后", "一旦", "遇到", "如遇", "凡是",
    "by default", "standing", "when in doubt", "if in doubt", "in case of", "any time", "anytime",
    # how things usually go
    "一般", "通常", "平时", "习惯上", "usually", "typically", "normally", "tends to", "as usual",
    # what is judged not needed: 无需急于引入…, "no need to shard yet"
    "无需急于", "不必急于", "没必要", "不必要", "无须", "no need to", "no need for", "needn't",
    "there's no need", "there is no need",
)
# A condition opening the line, then what to do: "If a deploy fails, roll back", 如果…，就…
CONVENTION_PATTERNS = (
    # past a threshold, this: "context > 80K → 建议压缩", "disk < 10% -> clean up"
    (("→", "->", "=>"),
     r"(?<![\w.])(?:[<>≥≤]=?|超过|低于|高于|above|below|over|under|exceeds?)\s*[\d.,]+\s*[a-z%\u4e00-\u9fff]{0,4}\s*"
     r"(?:→|->|=>)\s*(?![<>≥≤~\d])\S"),
    # what to do right after something: 完成后立即提交, 新项目初始化后立即创建仓库
    (("后", "前"), r"(?:后|之后|以后|前|之前)[，,]?\s*(?:立即|立刻|马上|第一时间|务必|必须|一定|要先|先)"),
    # a rule over every case: 所有脚本都放在 scripts/, every PR needs a review, 任何改动都要先确认
    (("所有", "任何", "每个", "每一", "全部", "凡", "一切"),
     r"(?:所有|任何|每个|每一个?|全部|凡是?|一切)[^，,。；;\n]{1,20}?(?:都|均|一律|统一)\s*(?:要|得|需|必须|不|应|用|放|走|由|经过|先)"),
    (("every", "each", "any", "all"),
     r"\b(?:every|each|any|all)\s+(?:\w+\s+){0,3}?"
     r"(?:must|should|needs?|requires?|gets?|goes|go|has to|have to|"
     r"is to|are to)\b"),
    # past a threshold, then what: 超过 5 分钟就报警, 一旦失败则回滚
    (("超过", "低于", "高于", "大于", "小于", "达到", "一旦", "如果"),
     r"(?:超过|低于|高于|大于|小于|达到|一旦|如果)[^，,。；;\n]{1,20}[，,]?\s*(?:就|则|便)"),
    (("without",), r"\b(?:no|never|nothing|don't|do not)\b[^.;]{2,50}\bwithout\b"),  # no X without Y
    (("未经",), r"未经[^，,。；;]{1,20}(?:不|禁止|不得|不许|别)"),
    (("per ",), r"\b(?:one|a single|at most \d+|max \d+|\d+)\s+[\w-]+\s+per\s+\w+"),  # one concern per commit
    # every case mapped to what follows: 所有盈利途径 → 100% 授权, all alerts → #ops; 所有输出自动审核
    (("所有", "全部", "一切", "all ", "every "),
     r"^\s*(?:所有|全部|一切|all|every)\s*[^，,。；;\n→]{1,20}?\s*(?:→|->|=>|自动|一律)\s*(?!通过|完成|成功|失败|正常|ok\b|pass|done|fail)\S"),
    # a situation and what to do, said as an equation: 编辑失败 = 自动切换 write (no figures, no formula)
    ((" = ",), r"^\s*[^\s=\d`<>()（）/×*+^|$¥%][^=\d`<>()（）/×*+^|$¥%]{1,15}?\s=\s"
     r"[^=\d`<>/×*+^|$¥%\s][^=\d`<>/×*+^|$¥%]{1,29}$"),
    (("if", "unless", "whenever", "when"), r"^\s*(?:if|unless|whenever|when)\b[^,;.\n]{3,80}[,;]\s*\S"),
    (("如果", "若", "只要", "假如", "万一", "一旦"),
     r"^\s*(?:如果|若|只要|假如|万一|一旦)[^，,；;。\n]{1,40}[，,；;]\s*\S"),
)

# A schedule that recurs: with a clock time or a count it is a standing arrangement.
SCHEDULE = (
    "每天", "每日", "每晚", "每周", "每小时", "每月", "每年", "每隔", "every day", "every hour",
    "every morning", "every night", "every week", "every month", "daily", "nightly", "hourly", "weekly",
    "monthly", "定时", "每季度", "every year", "each year", "annually", "yearly", "quarterly",
    # what is sent or made on its own, and the reports that come so: 日报 19:30 发送
    "自动生成", "自动发送", "自动推送", "自动执行", "自动运行", "自动备份",
    "日报", "周报", "晨报", "晚报", "月报",
    "daily report", "weekly report", "daily digest", "weekly digest", "auto-runs", "runs at", "fires at",
)

# A month that comes back: "renews every March", "each April the licence is due"
SCHEDULE_PATTERNS = (
    (("every", "each"),
     r"\b(?:every|each)\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|weekday|weekend)s?\b"),
    (("every", "each"),
     r"\b(?:every|each)\s+(?:january|february|march|april|may|june|july|august|september|october|november|"
     r"december)\b"),
)

# What a rule is called: as a label ("Rule: …", "风格：…") it introduces one.
RULE_NOUNS = (
    "boundary", "boundaries", "guardrail", "guardrails", "边界", "底线", "禁区",
    "规则", "原则", "规范", "约定", "守则", "准则", "惯例", "格式", "命名", "风格", "语气", "口吻", "宪法",
    "rule", "rules", "policy", "principle", "principles", "convention", "conventions", "naming", "style",
    "tone", "format", "guideline", "guidelines", "protocol", "workflow", "流程",
)

# What a tool or a mode is for, which tool does a job: "PTY 模式用于终端 UI", "使用 Tavily 搜索
# 技术文档", "Redis is used for sessions".
TOOLING = (
    "用于", "用来", "专用于", "专门用于", "专门用来", "主要用于", "is used for", "are used for", "used for",
    "is used to", "are used to", "is meant for", "are meant for", "serves as", "used as",
)
TOOLING_PATTERNS = (
    (("使用", "采用", "用"),
     r"^\s*(?:使用|采用|用)\s*[a-z][\w.+-]*(?:\s+[a-z][\w.+-]*)?\s*"
     r"(?:来|做|进行|搜索|查询|处理|管理|生成|抓取|提取|部署|监控|发送|存储|记录|翻译|写|画|跑|测试|分析|调度|同步)"),
    # the standard or the tool a thing follows, with its edition: "Citations use APA 7", 参考文献用 GB/T 7714
    (("use", "uses", "follow", "follows"),
     r"\b(?:uses?|follows?)\s+(?!(?:about|around|roughly|up|only|over|under|less|more|at|the|a|an|its|their|our|"
     r"my|his|her|to|v)\b)[a-z][\w.+/-]*\s+v?\d{1,4}(?:\.\d+)*(?![\w.%])(?!\s*(?:gb|mb|kb|tb|%|x|times|workers?|"
     r"threads?|cores?|minutes?|hours?|seconds?|days?|ms|s)\b)"),
    (("用", "采用", "遵循", "按"),
     r"(?:用|采用|遵循|按)\s*(?!v\d)[a-z][\w.+/-]*\s+v?\d{1,4}(?:\.\d+)*(?![\w.%])"
     r"(?!\s*(?:个|次|天|小时|分钟|秒|台|条|块|元|万|%))"),
)

# What a setting is called: as a label it names a parameter, a limit, a command, a
# procedure ("日损熔断：10%", "Stop-loss: …", "紧急停止命令：`/stop`", "Substrate: …"), whose value
# stands until it is changed — not a status or a result ("状态", "Metric").
SETTING = (
    "熔断", "止损", "止损点", "止损线", "止盈", "回撤", "最大回撤", "杠杆", "仓位", "阈值", "限额", "配额",
    "上限", "下限", "命令", "指令", "快捷键", "审批", "权限", "授权", "代理", "路由", "回退", "降级", "兜底",
    "默认值", "参数", "开关", "运行环境", "运行时", "硬件", "底座", "机制",
    "threshold", "thresholds", "cutoff", "stop-loss", "stop loss", "take-profit", "drawdown", "max drawdown",
    "leverage", "position size", "limit", "limits", "cap", "quota", "command", "commands", "shortcut",
    "shortcuts", "hotkey", "keybinding", "approval", "approvals", "permission", "permissions", "proxy",
    "routing", "fallback", "failover", "default", "defaults", "parameter", "parameters", "param", "flag",
    "toggle", "setting", "settings", "substrate", "runtime", "hardware", "mechanism",
)

# A date that comes back every year: a birthday, an anniversary, a renewal "每年 3 月".
YEARLY = re.compile(
    r"birthday|anniversary|生日|纪念日|every year|each year|annually|yearly|每年|每逢|"
    r"\b(?:every|each)\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b"
)

# A reminder to do something once: "remember to call back", "别忘了续费".
REMINDERS = ("remember to", "don't forget", "do not forget", "别忘了", "不要忘记", "不要忘了", "别忘记")

# True for a while only: a moment, a day, a plan, a state that will change.
SHORT_LIVED = (
    "今天", "刚才", "刚刚", "暂时", "临时", "这次", "本次", "目前先", "这会儿", "today", "just now",
    "temporarily", "for now", "this time", "right now", "at the moment", "等待", "待定", "waiting for",
    "awaiting", "pending", "明天", "明日", "明早", "明晚", "后天", "今晚", "今夜", "今早", "今日", "本周",
    "这周", "下周", "这两天", "正在", "期间", "plan:", "计划:", "暂定", "下次", "下一次", "next time",
    "next session", "todo:", "to-do:", "待办:", "待办事项", "action item:", "action items:", "current focus",
    "current task", "当前任务", "当前焦点", "今日目标", "focus:", "焦点:", *REMINDERS, "初定", "tentatively",
    "tentative", "眼下", "截止日期", "截止时间", "规划中", "今天下午", "今天上午", "稍后", "待会", "回头再",
    "先这样",
    "打算", "下一步", "月底", "周末", "将要", "即将",
    "tomorrow", "tonight", "this morning", "this afternoon", "this evening", "this week", "next week",
    "later today", "for the time being", "until", "till", "at the time", "for today",
    "next step", "next steps", "next:", "plan to", "planning to", "going to", "upcoming", "soon",
    "next weekend", "the plan for", "the plan is", "target date", "due date", "deadline", "planning",
    "this weekend", "this month", "next month", "eta", "wip", "for this sprint", "this sprint",
    "本月", "这个月", "这月", "下个月", "下月", "本季度", "这季度", "this quarter", "短期", "短期内",
    "本学期", "这学期", "this semester", "this term",
)
SHORT_LIVED_PATTERNS = (
    # 先…再说: for the time being — 再说 closing its clause (not 先说结论，再说过程: then tell)
    (("再说",), r"先.{0,24}再说(?=\s*(?:吧|了|啦|呗)?\s*(?:[，,。；;！!？?…~～)）]|$))"),
    (("before",), r"before\s+\d{1,2}(?::\d\d)?\s*(?:am|pm)?\b"),
    (("by ",), r"\bby (?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\bby (?:eod|eow|noon)\b"),
    (("前",), r"(?:周|星期|礼拜)[一二三四五六日天]\s*(?:之)?前"),
    # until something is done, until an event: 在新 SSD 换好之前, 出差之前, "before the design review"
    (("前",), r"(?:[\u4e00-\u9fffa-z0-9](?:好|完|齐)|到货|到手|到位|回来|搞定|修复|修好|恢复|解决|"
     r"批下来|落地|"
     r"评审|评审会|答辩|面试|出差|旅行|度假|假期|放假|搬家|婚礼|考试|年会)\s*(?:之前|以前|前)(?!端|台|面|天|年|两|几)"),
    (("before",),
     r"\bbefore\s+(?:the|this|next|our|my|that)\s+(?:new\s+)?(?:[\w-]+\s+){0,2}?(?:review|meeting|launch|demo|"
     r"deadline|trip|holiday|holidays|vacation|offsite|interview|kickoff|cutover|move|wedding|exam|arrives?|"
     r"is\s+(?:in|installed|fixed|back|done|ready)|comes?\s+(?:in|back)|gets?\s+(?:here|fixed|installed|back))\b"),
    (("点",), r"[一二三四五六七八九十两\d]{1,3}\s*点(?:半|钟)?\s*(?:之)?前"),  # 下午三点前
    # 等老板回复后再决定: until then (not 等一分钟再重试: a step of a procedure)
    (("等",), r"等(?!\s*[一二三四五六七八九十两几半\d]+\s*(?:秒|分钟|分|小时|天|会|下))[^，,。；;\n]{1,16}?"
     r"(?:后|之后|以后|完|好)?再"),
    (("快",), r"快[\u4e00-\u9fff]{1,4}了"),  # 快用完了, 快到期了: about to
    (("in ", "后", "还剩"),
     r"\bin \d+ (?:days?|hours?|weeks?|minutes?)\b|\d+\s*(?:天|小时|周|分钟)后|还剩\s*\d+\s*(?:天|小时)"),
    (("月",), r"\d{1,2}\s*月(?:份)?\s*(?:第[一二三四五\d]\s*周|初|底|中旬|上旬|下旬)"),  # 11 月第一周
    # an effort estimate is a to-do's: (10 分钟), (2 hours), ~30 min
    (("分钟", "小时", "min", "hour", "h)"),
     r"[(（~约]\s*\d+(?:\.\d+)?\s*(?:分钟|小时|min(?:utes?)?|hours?|hrs?|h)\s*[)）]?"),
)

# A state expected to change: waiting on something, broken, not yet done.
UNRESOLVED = (
    "待处理", "待修复", "待确认", "待登录", "待提交", "待接入", "待审核", "待发布", "待完成", "待验证",
    "待测试", "待上线", "待部署", "待回复", "待安装", "待配置", "待解决", "需修复", "需要修复", "未解决",
    "未完成", "未修复", "尚未", "还没", "仍未", "仍然", "依然", "还在", "卡住", "卡在", "阻塞", "排查中",
    "修复中", "处理中", "进行中", "部署中", "挂了", "宕机", "故障", "报错", "失败", "异常", "丢失", "耗尽",
    "无法", "不可用", "超时", "崩溃", "红了", "是红的", "限流", "未提交", "需要重新", "需重新", "待",
    "等待中",
    "排查", "问题", "bug", "没有响应", "无响应", "过期", "失效", "缺少", "缺失", "不通", "连不上",
    "waiting", "blocked", "still", "not yet", "yet to", "investigating", "in progress", "to be fixed",
    "stuck", "failing", "failed", "failure", "failures", "is down", "are down", "went down", "outage",
    "crash", "crashed", "crashing", "broken", "error:", "errors:", "is red", "exhausted", "unavailable",
    "timing out", "timed out", "uncommitted", "re-login", "expired", "offline", "issue:", "problem:",
    "ongoing", "unresolved", "missing", "not working", "doesn't work", "does not work", "down since",
    "degraded", "flaky", "regression", "502", "503", "500s", "502s", "timeout", "bug:", "needs fixing",
    "candidates", "candidate", "候选", "备选", "undecided", "proposal", "提案", "leaning towards",
    "unreachable", "not reachable", "can't reach", "cannot reach", "not responding", "无法访问", "访问不了",
    "打不开", "ebadf", "enoent", "eacces", "econnrefused", "econnreset", "etimedout", "eperm", "enospc",
    "emfile", "epipe", "eaddrinuse", "ehostunreach", "revoked", "失效", "被限流", "rate limited", "exceeded",
    "超出", "超限",
    "open question", "open questions", "idea:", "ideas:", "想法:", "点子:", "suggestion:", "maybe", "perhaps",
    "也许", "或许",
)
UNRESOLVED_PATTERNS = (
    (("pid",), r"\bpid\s*[:：]?\s*\d{2,}"),  # a process id: gone at the next restart
    # a state that persists so far: 还是不支持, 仍不可用 (not 还是不要…: had better not)
    (("还是", "仍"), r"(?:还是|仍旧|仍)(?!不要|别|不用|不必)\s*(?:不|没|无法|未)"),
    (("return", "返回"), r"(?:\breturn(?:s|ed|ing)?|返回)\s*(?:an?\s+)?[45]\d\d\b"),  # returns 403
    (("需要", "需"), r"需要?(?:清理|处理|更新|修|重启|升级|确认|补充|扫码|重新|登录|续费|联系|跟进)"),
    (("need",), r"\bneeds? (?:to be |a new |re-?)\w+"),  # needs a new token, needs to be rebuilt
    # work in progress: 下载中, 审核中; "Installing …", "Migrating …"
    (("中",),
     r"(?:下载|安装|上传|审核|测试|构建|编译|迁移|导入|导出|升级|更新|训练|生成|调试|开发|编写|撰写|申请|筹备|"
     r"准备|重启)中"),
    ((), r"^\s*(?:still\s+)?(?:installing|downloading|uploading|migrating|deploying|building|compiling|"
     r"rebuilding|reindexing|debugging|drafting|preparing|setting up|rolling out|retrying|training|"
     r"fetching|processing|generating|waiting)\b"),
)

# What happened: work done, a result, a meeting. A log of the day, not a lasting fact.
DONE = (
    "完成", "已完成", "完成了", "搞定", "修复", "修好", "已修", "已发布", "发布了", "已上线", "上线了",
    "已部署",
    "部署了", "已推送", "推送了", "已提交", "提交了", "已合并", "合并了", "已删除", "删除了", "已更新",
    "更新了",
    "已成功", "成功", "跑通", "实现了", "新增", "增加了", "提升", "优化", "讨论", "汇报", "评审", "开会",
    "写了", "做了", "研究了", "学习了", "阅读了", "迁移至", "迁移完成", "进度", "产出", "成果", "评价",
    "反馈",
    "已发送", "发送了", "已生效", "已验证", "已启用", "已清理", "分享了", "测试了", "确认了",
    "回复了",
    "覆盖率", "准确率", "通过率", "耗时", "提高了", "降低了", "减少了", "增长了",
    "fixed", "done", "completed", "finished", "shipped", "released", "deployed", "merged", "published",
    "pushed", "committed", "implemented", "refactored", "improved", "optimized", "passed", "passing",
    "ran", "met with", "discussed", "reviewed", "wrote", "posted", "found that", "identified", "audited",
    "rejected", "result", "results", "metric", "metrics", "progress", "finding", "findings", "recommendation",
    "feedback", "was identified", "bug fix", "bugfix", "hotfix", "tests pass", "tests passed", "resolved",
    "upgraded", "migrated",
    "status", "状态", "summary", "总结", "stats", "benchmark", "built", "launched", "tested", "debugged",
    "analysed", "analyzed", "compared", "measured", "explored", "researched", "kicked off", "replied",
    "emailed", "achieved", "delivered", "accuracy", "coverage", "removed", "deleted",
    "dropped", "found", "升到", "升级到", "更新到", "提了", "wasn't", "weren't", "didn't", "hadn't",
    "was not", "were not", "旧机制", "原机制", "previously", "used to",
    "formerly",
    # said in the past tense, or of a day gone by: what happened
    "was", "were", "went", "took", "got", "made", "said", "told", "gave", "saw", "came", "sent", "spent",
    "tried", "asked", "bought", "began", "broke", "caught", "forgot", "heard", "learned", "learnt", "lost",
    "met", "paid", "spoke", "taught", "thought", "understood", "won", "yesterday", "last night",
    "last week", "earlier today", "this morning we", "昨天", "昨晚", "前天", "上周", "刚完成", "那天",
    "updated", "closed", "reopened", "压测", "实测", "测得",
)
DONE_PATTERNS = (
    (("→", "->"), r"\d[^→>]{0,16}(?:→|->)\s*[~≈]?\d"),  # a before → after figure: 134s → 6s
    (("/",), r"(?<![\d/])\d+/\d+\s*(?:tests?|passed|passing|pass|通过)"),  # 329/329 tests
    (("(+", "（+"), r"[（(]\+\d"),  # (+5)
    ((), r"^\s*[a-z]{3,}ed\b(?<!\bneed)(?<!\bbased)(?<!\bshared)"),  # opens with a past tense: "Fixed …"
    # 已发布, 已经完成 (not 已开通, 已绑定: a state an account or a service is in)
    (("已",),
     r"已(?!经?(?:开通|绑定|实名|备案|认证|订阅|授权|开户|签约|办理))(?:经)?(?![知有在])[\u4e00-\u9fff]"),
    # 做了 / 写了: an action completed (not 多了, 晚了: too much, too late)
    (("了",), r"[\u4e00-\u9fff](?<![为除算好罢明超多少大小慢快长高低久晚早])了(?!解)"),
    (("#",), r"(?:\bpr|\bissue|\bmr|\bticket)?\s*#\d{2,}\b"),  # PR #431, issue #12: a work item
    (("%",), r"\d+(?:\.\d+)?\s*%"),  # a percentage is a measurement of its day
)

# Setting something up: with a lasting path, port or version it is a fact (where it lives).
SETUP = (
    "安装", "装了", "创建", "建立", "配置了", "设置了", "注册了", "部署在", "installed", "install", "created",
    "set up", "configured", "registered", "added", "enabled", "mounted", "provisioned", "connected",
    "启用", "开通", "接入", "绑定",
)

# A date that passes: once it has, the entry is past its date.
SCHEDULED = (
    "定在", "安排在", "计划", "截止", "到期", "预计", "届时", "之前完成", "前完成", "约在", "deadline",
    "due", "scheduled", "planned", "expires", "until", "meeting on", "review on", "下次更新", "下次", "提醒",
    "reminder", "remind", "next review", "next update", "next check", "复查", "会议", "meeting", "review",
    "launch", "发布会", "面试", "interview", "appointment", "预约",
)

PLEASANTRIES = (
    "好的", "好滴", "好嘞", "好", "明白了", "明白", "谢谢", "多谢", "感谢", "收到", "嗯嗯", "嗯", "哈哈",
    "没问题", "了解", "知道了", "辛苦了", "可以", "行", "ok", "okay", "k", "thanks", "thank you", "thx",
    "ty", "got it", "sure", "cool", "nice", "great", "noted", "roger", "yes", "yep", "yeah", "no problem",
    "np", "alright", "sounds good", "will do", "understood", "perfect", "awesome", "lol",
    "早上好", "早安", "午安", "晚上好", "晚安", "你好", "您好", "大家好", "哈喽", "再见", "拜拜", "马上",
    "这就去",
    "呃", "哦", "噢", "啊", "哇", "hmm", "hm", "um", "uh", "oh", "wow", "hi", "hello", "hey", "good morning",
    "good night", "good evening", "bye", "cheers", "on it", "right away", "okay okay", "加油", "冲",
    "继续努力", "继续加油", "let's go", "onward", "keep going", "we got this", "let's do this", "fighting",
    # laughter, praise, farewells, replies that only say "on it"
    "哈哈哈", "嘿嘿", "呵呵", "嘻嘻", "haha", "hahaha", "hehe", "lmao", "good job", "great work",
    "well done", "nice work", "太棒了", "棒", "不错", "很好", "厉害", "好耶", "赞", "love it", "amazing",
    "excellent", "brilliant", "优秀", "完美", "see you", "talk soon", "have a nice day", "have a good one",
    "明天见", "回头见", "拜", "bye bye", "take care", "good luck", "no worries", "happy to help",
    "glad to help", "my pleasure", "you're welcome", "不客气", "没事", "so much", "very much", "a lot",
    "to me", "马上处理", "这就去改", "这就改", "马上改", "我这就去", "我这就", "namaste", "辛苦啦", "啦",
    "👍", "🙏", "🎉", "👌", "哈", "嘿", "呵", "嘻", "以上", "就这些", "完毕", "that's all", "that's it",
    # are you there? sorry! best wishes: courtesies that open a line and are all it says
    "在吗", "在不在", "你在吗", "are you there", "you there", "anyone there", "抱歉", "对不起", "不好意思",
    "sorry", "apologies", "my apologies", "my bad", "挨打立正", "我的锅", "愿您", "愿你", "祝您", "祝你",
    "祝大家", "wishing you", "wish you", "may you", "have a great", "have a nice", "have a good",
    "enjoy your",
)
# A line that opens with one of these and says nothing more is a courtesy: a thank-you, an
# apology, a wish ("谢谢你今天的耐心", "挨打立正，我确实没在线", "愿您今日心安自在").
COURTESIES = (
    "谢谢", "感谢", "多谢", "thanks", "thank you", "grateful", "抱歉", "对不起", "不好意思", "sorry",
    "apologies", "my apologies", "my bad", "挨打立正", "我的锅", "是我的错", "愿您", "愿你", "祝您", "祝你",
    "祝大家", "wishing you", "wish you", "may you", "have a great", "have a nice", "have a good",
    "enjoy your",
)
# The fields a diary opens a day with: a weekday or the weather says nothing to keep.
DAY_FIELDS = ("星期", "天气", "心情", "weekday", "day of week", "weather", "mood")

# A question asks; it states no rule and no fact ("should we …?", "是否要…").
QUESTION = (
    "whether", "是否", "能不能", "可不可以", "会不会", "是不是", "有没有", "要不要呢", "why not", "how about",
    "what about", "should we", "shall we", "do we", "can we", "怎么办", "为什么", "吗",
)

# A signature under a note: who wrote it, and nothing else.
SIGNATURES = (
    "记录者", "记录人", "整理者", "整理人", "作者", "撰写", "撰写人", "署名", "签名", "落款", "recorded by",
    "written by", "author", "signed", "signed by", "signed off", "generated by", "自动生成", "by",
)

# A line with nothing filled in yet: a template's blank, "none", "TBD".
PLACEHOLDERS = (
    "无", "暂无", "暂无内容", "无内容", "没有内容", "内容待补充", "none yet", "nothing yet", "待填写",
    "待补充", "待定", "系统自动创建", "自动创建", "空", "略", "同上", "tbd", "todo",
    "n/a", "none", "nil", "null", "placeholder", "fill in", "to be filled", "lorem ipsum", "yyyy-mm-dd",
    "yyyy", "mm-dd", "hh:mm", "xxx", "...", "…", "---", "—", "功能", "项目", "事项", "步骤", "item",
    "feature", "step", "untitled", "无标题", "未记录", "无记录", "未填写", "not recorded", "n/r",
)

# How the writer feels: a mood line says nothing to remember.
MOOD = (
    "期待", "兴奋", "开心", "高兴", "激动", "感慨", "感动", "难过", "沮丧", "焦虑", "担心", "好奇", "思考",
    "琢磨", "充满", "满怀", "excited", "happy", "glad", "thrilled", "grateful", "curious", "wondering",
    "pondering", "thinking about", "feeling", "looking forward", "hoping", "累", "困", "烦", "郁闷", "无聊",
    "饿", "好开心", "感觉", "心情", "tired", "sleepy", "bored", "hungry", "sad", "stressed", "proud",
    "happy to", "relieved", "😴", "😊", "🥰", "😂",
    "收获满满", "满满的收获", "受益匪浅", "收获颇丰", "感触良多",
)

REMEMBER = (
    "记住", "记下来", "记下", "请记住", "牢记", "remember this", "remember:", "remember that", "remember",
    "note to self", "keep in mind",
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
    # health and status checks that found nothing
    "心跳", "运行正常", "正常运行", "状态正常", "状态：健康", "健康", "稳定", "无阻塞", "无新", "没有新",
    "无变化", "没有变化", "一切如常", "all clear", "all good", "all working", "working fine", "looks good",
    "no new", "0 new", "zero new", "nothing to report", "no changes", "no change", "quiet", "clean",
    "build clean", "verified", "up to date", "still running", "running fine", "healthy", "stable",
    "no errors", "no blockers", "all systems",
    # streaks and counters that grow every day
    "零回滚", "zero rollbacks", "zero rollback", "0 rollback", "0 rollbacks", "streak", "in a row",
    # the agent's own housekeeping
    "spawned", "refreshed", "timestamp updated", "已同步", "同步了", "记忆整理", "知识整理", "整理记忆",
    "更新当前", "创建今日", "今日记忆", "上下文已压缩", "context compacted", "memory flushed", "已发送",
    "跑了一遍", "again", "checked", "ran the", "re-ran", "心跳已发送",
)
ROUTINE_PATTERNS = (
    (("正常",), r"(?:均|都|全部|一切)?正常\s*[。.!！]?\s*$"),  # 所有服务正常。
    (("ok", "okay", "fine", "good", "green"), r"\b(?:all|everything|is|are)\s+(?:ok|okay|fine|good|green)\b"),
    (("连续",), r"连续\s*\d+\s*(?:天|日|次|周)"),  # 连续51天
    (("day", "days"), r"\b\d+\s*(?:consecutive\s+)?days?\s+(?:in a row|straight|streak)"),
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
    "不可用", "不可能", "不可逆", "不可避免", "不可或缺", "不可控", "优先级", "不得不", "时区间", "心得",
    "还原", "坑位", "固定资产", "rule out", "ruled out", "policy engine", "no matter", "完成后", "完成前",
    "完成时", "提交前", "发布前", "上线前", "部署前", "推送前", "别人", "特别", "区别", "分别", "类别",
    "级别",
    "性别", "告别", "别名", "识别", "辨别", "差别", "个别", "离别", "别的", "别处", "期待", "对待", "看待",
    "招待", "待遇", "款待", "接待", "交待", "等待", "待办", "不会吧", "不能不", "不然后", "往后挪", "往后推",
    "往后延", "往后顺延", "踩坑日志", "踩坑记录", "pitfalls.md", "lessons.md", "长期记忆", "长期目标",
    "修改用", "更改用", "没有任何", "无任何", "任何问题", "作用", "用户", "用途", "用地", "用量", "用法",
    "用时", "用于", "费用", "使用率", "无限制", "不限制", "没有限制", "用地红线",
    "picked up", "pick up", "use case", "use cases", "do not need", "don't need", "does not need",
    "doesn't need", "don't know", "do not know", "don't think", "don't see", "any more", "anymore",
    "any longer", "远超需要", "有需要", "按需要", "可用于", "可以用于", "可用来", "可以用来", "应用于",
    # a kind of thing named with a time or state word: a temp file is no time bound, a
    # topic's questions no open problem, metric units no metric of the day
    "临时文件", "临时文件夹", "临时目录", "临时变量", "临时表", "临时工", "临时数据", "临时存储",
    "相关问题", "常见问题", "类似问题", "同类问题", "此类问题", "这类问题", "各类问题", "问题反馈",
    "待在", "待着", "待机", "善待", "优待", "亏待", "厚待", "虐待", "短期记忆", "写在前面", "写在最后",
    "metric units", "metric system", "metric ton", "metric tons",
)

# Words that flip a sentence's meaning; two entries that disagree on them are not duplicates.
NEGATIONS = (
    "不", "没", "别", "未", "无法", "不再", "never", "not", "no", "don't", "dont", "doesn't", "isn't",
    "won't", "no longer", "without",
)

# fmt: on

DEFAULT_SIGNALS = (
    Signal("preference", 3, PREFERENCE, PREFERENCE_PATTERNS, not_after=PAST_WORDS),
    Signal("decision", 3, DECISION, DECISION_PATTERNS, negatable=True),
    Signal("urgency", 3, URGENCY, negatable=True),
    Signal("task", 2, TASK),
    Signal("environment", 2, ENVIRONMENT, ENVIRONMENT_PATTERNS),
    Signal("place", 2, PLACE, PLACE_PATTERNS),
    Signal("data", 2, (), DATA_PATTERNS),
    Signal("knowledge", 1, KNOWLEDGE),
    Signal("lesson", 1, LESSON, LESSON_PATTERNS),
    Signal("constraint", 1, CONSTRAINT, CONSTRAINT_PATTERNS, not_after=HYPOTHETICAL_WORDS),
    Signal("long_lived", 1, LONG_LIVED, not_after=PAST_WORDS),
    Signal("convention", 1, CONVENTION, CONVENTION_PATTERNS),
    Signal("schedule", 0, SCHEDULE, SCHEDULE_PATTERNS),
    Signal("rule_noun", 0, RULE_NOUNS),
    Signal("setting", 0, SETTING),
    Signal("tooling", 0, TOOLING, TOOLING_PATTERNS, not_after=PAST_WORDS),
    Signal("short_lived", 0, SHORT_LIVED, SHORT_LIVED_PATTERNS),
    Signal("unresolved", 0, UNRESOLVED, UNRESOLVED_PATTERNS, negatable=True, not_after=HABITUAL_WORDS),
    Signal("done", 0, DONE, DONE_PATTERNS, negatable=True, not_after=STATIVE_WORDS),
    Signal("setup", 0, SETUP, negatable=True),
    Signal("past_due", -1, SCHEDULED),
    Signal("noise", -1, PLEASANTRIES),
    Signal("placeholder", -1, PLACEHOLDERS),
    Signal("mood", -1, MOOD),
    Signal("signature", -1, SIGNATURES),
    Signal("question", 0, QUESTION),
    Signal("remember", 0, REMEMBER),
    Signal("routine", 0, ROUTINE, ROUTINE_PATTERNS, not_after=STATIVE_WORDS),
    Signal("change", 0, CHANGE),
    Signal("retired", 0, RETIRED),
    Signal("correction", 0, CORRECTION),
)
SIGNAL_NAMES = tuple(s.name for s in DEFAULT_SIGNALS)
# The rows of the rubric that add up into the score (SPEC §3), each counted once: by the
# first of its signals the text carries. A place or an owner is an environment fact, a lesson
# is new knowledge, a limit the world sets is a constraint; the others are handled by their
# own rule.
ROWS = (
    ("preference",), ("decision",), ("urgency",), ("task", "constraint"), ("environment", "place"),
    ("data",), ("knowledge", "lesson"),
)  # fmt: skip
ADDITIVE = tuple(name for row in ROWS for name in row)


_WORD = re.compile(r"[a-z0-9_]+(?:'[a-z]+)*")
LABEL_MEMO = 4096
_NEGATING_WORDS = frozenset({"non", "not", "no", "never"})
_CHANGE_SIGNALS = frozenset({"change", "retired", "correction"})  # read whole, inside longer cues too


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
    # each signal's patterns, by name: (triggers, regex), compiled when a text first has a
    # trigger of it (`compiled`): most texts have none, and compiling them all took a
    # third of the rules' making, paid by every run, `check` in a pre-commit hook too
    patterns: dict[str, list[tuple[tuple[str, ...], str]]] = field(init=False, repr=False, compare=False)
    compiled: dict[str, re.Pattern[str]] = field(init=False, repr=False, compare=False)

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
            {name: list(signal.patterns) for name, signal in self.signals.items() if signal.patterns},
        )
        set_(self, "compiled", {})

    def __getitem__(self, name: str) -> Signal:
        return self.signals[name]

    def lexical(self, cue: str) -> bool:
        """Whether a cue `scan` found is a word of the lexicon (not a pattern's match)."""
        return cue in self.owners or tuple(_words(cue)) in self.phrases

    def scan_label(self, label: str) -> dict[str, str]:
        """`scan` of a short label ("状态", "Location"), remembered: labels recur."""
        memo: dict[str, dict[str, str]] = self.__dict__.setdefault("_labels", {})
        found = memo.get(label)
        if found is None:
            if len(memo) > LABEL_MEMO:
                memo.clear()
            found = memo[label] = self.scan(label)
        return found

    def _claim(
        self, found: dict[str, str], names: tuple[str, ...], cue: str, negated: bool, before: str = ""
    ) -> None:
        for name in names:
            signal = self.signals[name]
            if name in found or (negated and signal.negatable) or before in signal.not_after:
                continue
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
            before = words[i - 1] if i > 0 else ""
            span = self.longest if word in self.starts else 1
            covered = False
            for size in range(min(span, len(words) - i), 0, -1):
                names = self.phrases.get(words[i : i + size])
                if names is None:
                    continue
                if not names:
                    break  # a false friend: the shorter cues inside it do not count
                if covered:  # the longest cue at a place speaks for it ("synced via" is no "synced")
                    names = tuple(n for n in names if n in _CHANGE_SIGNALS)
                self._claim(found, names, " ".join(words[i : i + size]), negated, before)
                covered = True
        hits = list(self.chinese.finditer(text)) if not text.isascii() else []
        if any(mark in text for mark in self.edge_marks):
            hits.extend(self.edged.finditer(text))
        for m in hits:
            negated = _NEGATED.search(text, max(0, m.start() - 8), m.start()) is not None
            self._claim(found, self.owners.get(m.group(0), ()), m.group(0), negated)
        compiled = self.compiled
        for name, patterns in self.patterns.items():
            if name in found:
                continue
            for triggers, regex in patterns:
                for trigger in triggers:
                    if trigger in text:
                        break
                else:
                    if triggers:
                        continue  # no trigger of this pattern in the text
                pattern = compiled.get(regex)
                if pattern is None:
                    pattern = compiled[regex] = re.compile(regex)
                hit = pattern.search(text)
                if hit:
                    found[name] = hit.group(0).strip()
                    break
        return found


def build_rules(overrides: Iterable[RuleOverride] = ()) -> Rules:
    """The default signals with a policy's `[rules.<signal>]` overrides applied, built once
    a process for each set of overrides (the defaults are DEFAULT_RULES itself)."""
    return _built(tuple(overrides))


@functools.lru_cache(maxsize=8)
def _built(overrides: tuple[RuleOverride, ...]) -> Rules:
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
            base.not_after,
        )
    return Rules(signals)


DEFAULT_RULES = build_rules()  # (the same object as build_rules(()) and a policy's without overrides)
