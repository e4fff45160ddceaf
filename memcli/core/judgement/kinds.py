"""What kind of thing a word names, and which words name nothing (the supersede judgement).

- `FUNCTION`, `FUNCTION_ZH`, `WEAK_ZH`: words that never name a subject: function words,
  pronouns, the verbs of change themselves, fillers of time ("full-time", "这周");
- `KINDS`: kinds of named things (`Neovim` is an editor, 杭州 a city): a switch that names no
  subject ("I've moved to Neovim") replaces the thing of the same kind an older entry names;
- `ATTRIBUTES`: words that name an attribute ("schedule", "端口", "owner"), held by a value
  of it ("02:00", "7890") or a word of it ("owns").

A text's kinds and attributes are virtual words: "@editor", "#time".
"""

from __future__ import annotations

import re

from memcli.core.rules import trie_regex

# English words that never name a subject: function words, pronouns, auxiliaries, the verbs
# of change themselves, and fillers of time ("full-time", "last night", "this sprint").
FUNCTION = frozenset(
    """
    a an the and or but nor so if of to in on at by for from with without into onto over under via
    as than then that this these those there here it its it's is are was were be been being am do
    does did done doing have has had having will would shall should can could may might must i i'm
    i've i'd me my mine we we're we've us our you your he him his she her they them their one ones
    who whom which what when where why how all any some each every both either neither no not none
    only just also too very really quite still yet again now today tonight tomorrow yesterday since
    until till ago last next this week month year day days night morning afternoon evening sprint
    full-time fulltime fully full entirely completely permanently officially finally basically
    actually going forward anymore longer more most less least new old current currently
    instead rather because due per about after before once while whereas though although
    use used uses using run runs running ran go goes going went gone get got make made keep kept
    set put take took need needs needed want wants wanted like likes
    switch switched switching move moved moving migrate migrated migrating change changed changing
    replace replaced replacing upgrade upgraded upgrading downgrade downgraded update updated
    correction correct wrong mistake retired retire deprecated dropped stopped stop start started
    passed handed slipped postponed delayed pushed shifted transferred rescheduled relocated renamed
    raised lowered increased decreased reduced bumped converted ported flipped swapped went widened
    narrowed status state important must please note remember todo decided update fyi til
    thing things stuff way ways lot lots bit kind sort
    """.split()
)
# Chinese function words. Words and particles that never name anything are cut out of a
# run; single characters that also occur inside names (都 of 成都, 会 of 周会) stay in the
# run but are not needed for it to be covered.
FUNCTION_ZH = (
    "已经 现在 目前 当前 之前 以前 原来 原先 后来 之后 以后 今后 从此 所有 全部 全面 统一 正式 彻底"
    " 我们 你们 他们 她们 这个 那个 一个 这些 那些 这里 那里 其实 实际上 应该 可能 以及 然后 并且"
    " 重要 必须 务必 一定 注意 记得 今天 明天 昨天 本周 这周 上周 下周 决定 定了 那部分 这部分 部分"
    " 的 了 着 吗 呢 吧 啊 呀 嘛 哦 我 你 他 她 它 们 把 被"
).split()
WEAK_ZH = frozenset("都也还就又再很和与及或是在从到由给对为于之而并已用")
ZH_CUT = re.compile("|".join(sorted(map(re.escape, FUNCTION_ZH), key=len, reverse=True)))


# Kinds of named things: a switch that names no subject ("I've moved to Neovim") replaces
# the thing of the same kind the old entry names. The kind's own name counts too.
KINDS: dict[str, tuple[str, ...]] = {
    "editor": (
        "editor", "ide", "编辑器", "vs code", "vscode", "vim", "neovim", "nvim", "emacs", "cursor", "zed",
        "sublime", "sublime text", "intellij", "pycharm", "webstorm", "goland", "helix", "nano", "xcode",
        "android studio", "notepad++",
    ),
    "os": (
        "operating system", "操作系统", "windows", "macos", "mac", "macbook", "macbook pro",
        "macbook air", "imac", "mac mini", "linux", "ubuntu", "debian", "fedora", "arch", "wsl", "centos",
        "chromebook", "台式机", "笔记本", "主力机",
    ),
    "package manager": (
        "package manager", "包管理器", "npm", "pnpm", "yarn", "bun", "pip", "pipenv", "poetry", "uv", "conda",
        "homebrew", "brew",
    ),
    "database": (
        "database", "db", "数据库", "postgres", "postgresql", "mysql", "mariadb", "redis", "valkey",
        "memcached", "sqlite", "mongodb", "mongo",
        "oracle", "sql server", "clickhouse", "duckdb", "dynamodb", "cockroachdb", "tidb",
    ),
    "ci": (
        "ci/cd", "jenkins", "github actions", "gitlab ci", "circleci", "travis", "buildkite",
        "drone", "teamcity", "argocd", "bamboo",
    ),
    "hosting": (
        "hosting", "托管", "netlify", "vercel", "cloudflare pages", "github pages", "heroku",
        "fly.io", "render", "railway", "firebase hosting", "s3",
    ),
    "cloud": (
        "aws", "gcp", "azure", "aliyun", "阿里云", "腾讯云", "华为云", "digitalocean", "linode", "hetzner",
    ),
    "shell": ("shell", "bash", "zsh", "fish", "powershell", "nushell", "cmd"),
    "browser": ("browser", "浏览器", "chrome", "firefox", "safari", "edge", "arc", "brave"),
    "model": (
        "llm", "gpt", "chatgpt", "claude", "sonnet", "opus", "haiku", "gemini", "kimi",
        "deepseek", "qwen", "通义", "llama", "mistral", "glm", "智谱", "文心", "豆包",
    ),
    "chat": (
        "slack", "discord", "teams", "microsoft teams", "飞书", "lark", "钉钉", "企业微信", "微信",
        "wechat", "telegram", "whatsapp", "signal", "mattermost",
    ),
    "notes": (
        "notion", "obsidian", "confluence", "语雀", "google docs", "logseq", "onenote", "evernote",
        "笔记", "印象笔记", "有道云笔记", "备忘录", "飞书文档", "腾讯文档", "apple notes", "bear", "roam",
    ),
    "git host": ("github", "gitlab", "bitbucket", "gitee", "gitea", "forgejo"),
    "container": ("docker", "podman", "containerd", "colima", "orbstack"),
    "proxy": ("nginx", "caddy", "traefik", "haproxy", "envoy", "clash", "v2ray"),
    "queue": ("消息队列", "kafka", "rabbitmq", "nats", "sqs", "pulsar", "redis streams", "celery", "bullmq"),
    "language": (
        "programming language", "编程语言", "python", "typescript", "javascript",
        "golang", "rust", "java", "kotlin", "ruby", "php", "c++", "c#",
    ),
    "city": (
        "北京", "上海", "深圳", "杭州", "广州", "成都", "南京", "苏州", "武汉", "西安", "重庆",
        "天津", "厦门", "香港", "台北", "新加坡", "东京", "大阪", "首尔", "伦敦", "巴黎", "柏林", "纽约",
        "beijing", "shanghai", "shenzhen", "hangzhou", "guangzhou", "chengdu", "hong kong", "taipei",
        "singapore", "tokyo", "osaka", "seoul", "london", "paris", "berlin", "munich", "amsterdam",
        "lisbon", "madrid", "barcelona", "dublin", "zurich", "vienna", "prague", "warsaw", "stockholm",
        "new york", "san francisco", "seattle", "austin", "boston", "chicago", "toronto", "vancouver",
        "sydney", "melbourne", "bangalore",
    ),
}  # fmt: skip

# Attributes: a word that names one, and the values that fill it. "the backup schedule" is
# about the time a backup runs, which "Backups run at 02:00" states.
ATTRIBUTES: dict[str, tuple[str, ...]] = {
    "time": (
        "time", "schedule", "schedules", "scheduled", "clock", "hour", "hours", "时间", "时刻", "点钟",
        "几点",
    ),
    "date": ("date", "dates", "deadline", "day", "release date", "日期", "截止", "哪天"),
    "port": ("port", "ports", "端口"),
    "version": ("version", "versions", "release", "版本"),
    "owner": (
        "owner", "owners", "own", "owns", "owned", "ownership", "maintainer", "maintainers", "maintains",
        "maintained", "lead", "assignee", "assigned", "responsible", "in charge", "contact",
        "负责", "负责人", "对接人", "维护", "维护人", "主负责", "owner是",
    ),
    "place": (
        "location", "located", "office", "based", "lives", "live", "sits", "地点", "位置", "办公", "机房",
        "所在地",
        "住在", "放在", "位于", "存放",
    ),
    "limit": ("limit", "limits", "cap", "quota", "上限", "限流", "限制", "配额"),
}  # fmt: skip

PHRASES: dict[str, str] = {}  # a multi-word or Chinese name -> its virtual word
SINGLE: dict[str, str] = {}  # an English word -> its virtual word
for _kind, _names in KINDS.items():
    for _name in _names:
        (SINGLE if _name.isascii() and " " not in _name else PHRASES)[_name] = f"@{_kind}"
for _attr, _names in ATTRIBUTES.items():
    for _name in _names:
        (SINGLE if _name.isascii() and " " not in _name else PHRASES)[_name] = f"#{_attr}"
PHRASE = re.compile(trie_regex(p for p in PHRASES if not p.isascii()))  # Chinese names
PAIRS = {tuple(p.split()): v for p, v in PHRASES.items() if p.isascii()}  # "vs code", "github actions"
PAIR_FIRSTS = frozenset(p[0] for p in PAIRS)
SINGLE_WORDS = frozenset(SINGLE)


def is_attribute(word: str) -> bool:
    """Whether a word names an attribute ("schedule", "owner", "port") rather than a thing."""
    return SINGLE.get(word, "").startswith("#")
