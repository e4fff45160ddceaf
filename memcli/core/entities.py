"""The people, projects, tools and places that recur in memory (SPEC §10: a light
knowledge graph), found by transparent bilingual rules.

Two passes. First the names are learnt: people from the ways notes speak of people
("Priya said", "ask Marco", "Lin 让我", "小周", "王总", "@handle", "Team: A, B, C"),
projects from theirs ("project Atlas", "Atlas 项目", a heading under "Projects / 项目",
a GitHub owner/repo), tools and places from two bilingual gazetteers (上海 and Shanghai
are one place). Then every entry that names one of them counts once for it, with the
entry's date for first and last seen. Pure: entries in, entities out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

KINDS = ("person", "project", "tool", "place")

# --- gazetteers: canonical name -> aliases (the canonical name itself always matches) ---------

# fmt: off
TOOLS: dict[str, tuple[str, ...]] = {
    "Git": ("git",), "GitHub": ("github",), "GitHub Actions": ("github actions",), "GitLab": ("gitlab",),
    "Docker": ("docker", "docker desktop", "docker compose"), "Kubernetes": ("kubernetes", "k8s", "kubectl"),
    "Node.js": ("node.js", "nodejs"), "npm": ("npm",), "pnpm": ("pnpm",), "Yarn": ("yarn",), "nvm": ("nvm",),
    "Bun": (), "Deno": ("deno",), "Python": ("python", "python3"), "pip": ("pip",),
    "uv": ("uv",), "Poetry": ("poetry",), "Conda": ("conda",), "Rust": ("rust",), "Cargo": ("cargo",),
    "Java": ("java",), "Maven": ("maven",), "Gradle": ("gradle",), "TypeScript": ("typescript",),
    "JavaScript": ("javascript",), "React": (), "Vue": ("vue", "vue.js"), "Next.js": ("next.js",),
    "Redis": ("redis",), "PostgreSQL": ("postgres", "postgresql"), "MySQL": ("mysql",),
    "SQLite": ("sqlite",), "MongoDB": ("mongodb",), "Elasticsearch": ("elasticsearch",), "Kafka": ("kafka",),
    "RabbitMQ": ("rabbitmq",), "Nginx": ("nginx",), "Terraform": ("terraform",), "AWS": ("aws",),
    "GCP": ("gcp",), "Azure": ("azure",), "Cloudflare": ("cloudflare",), "Vercel": ("vercel",),
    "Supabase": ("supabase",), "Sentry": ("sentry",), "Grafana": ("grafana",), "Prometheus": ("prometheus",),
    "VS Code": ("vs code", "vscode"), "Vim": ("vim", "neovim", "nvim"), "Emacs": ("emacs",),
    "Cursor": (), "Copilot": ("copilot",), "Jest": ("jest",), "ESLint": ("eslint",),
    "Prettier": ("prettier",), "Webpack": ("webpack",), "Vite": ("vite",), "Homebrew": ("homebrew", "brew"),
    "zsh": ("zsh",), "bash": ("bash",), "tmux": ("tmux",), "SSH": ("ssh",), "WebDAV": ("webdav",),
    "Ollama": ("ollama",), "OpenClaw": ("openclaw",), "Claude": ("claude", "claude code"),
    "ChatGPT": ("chatgpt",), "Codex": ("codex",), "Gemini": ("gemini",), "Notion": (),
    "Obsidian": ("obsidian",), "Jira": ("jira",), "Confluence": ("confluence",), "Figma": ("figma",),
    "Slack": (), "Telegram": ("telegram",), "Discord": ("discord",), "WhatsApp": ("whatsapp",),
    "WeChat": ("wechat", "微信"), "WeCom": ("企业微信", "wecom"), "Feishu": ("飞书", "feishu", "lark"),
    "DingTalk": ("钉钉", "dingtalk"), "Xiaohongshu": ("小红书", "xiaohongshu"), "Chrome": ("chrome",),
    "Firefox": ("firefox",), "Safari": ("safari",), "Windows": (), "macOS": ("macos", "mac os"),
    "Linux": ("linux",), "Ubuntu": ("ubuntu",), "Debian": ("debian",), "WSL": ("wsl",),
    "Android": ("android",), "iOS": ("ios",), "Excel": (), "cron": ("cron", "crontab"),
    "systemd": ("systemd",), "Go": (),
}

PLACES: dict[str, tuple[str, ...]] = {
    "Beijing": ("北京",), "Shanghai": ("上海",), "Shenzhen": ("深圳",), "Guangzhou": ("广州",),
    "Hangzhou": ("杭州",), "Chengdu": ("成都",), "Nanjing": ("南京",), "Wuhan": ("武汉",),
    "Xi'an": ("西安",), "Suzhou": ("苏州",), "Chongqing": ("重庆",), "Tianjin": ("天津",),
    "Xiamen": ("厦门",), "Qingdao": ("青岛",), "Hong Kong": ("香港",), "Macau": ("澳门",),
    "Taipei": ("台北",), "Taiwan": ("台湾",), "Singapore": ("新加坡",), "Tokyo": ("东京",),
    "Osaka": ("大阪",), "Seoul": ("首尔",), "Bangkok": ("曼谷",), "Sydney": ("悉尼",),
    "Melbourne": ("墨尔本",), "London": ("伦敦",), "Paris": ("巴黎",), "Berlin": ("柏林",),
    "Munich": ("慕尼黑",), "Amsterdam": ("阿姆斯特丹",), "Zurich": ("苏黎世",), "Dublin": ("都柏林",),
    "New York": ("纽约",), "San Francisco": ("旧金山",), "Silicon Valley": ("硅谷",), "Seattle": ("西雅图",),
    "Los Angeles": ("洛杉矶",), "Boston": ("波士顿",), "Austin": (), "Chicago": ("芝加哥",),
    "Toronto": ("多伦多",), "Vancouver": ("温哥华",), "Dubai": ("迪拜",),
    "Bangalore": ("班加罗尔", "bengaluru"), "Mumbai": ("孟买",), "China": ("中国",), "Japan": ("日本",),
    "Korea": ("韩国",),
    "United States": ("美国", "USA"), "United Kingdom": ("英国",), "Germany": ("德国",), "France": ("法国",),
    "India": ("印度",), "Canada": ("加拿大",), "Australia": ("澳大利亚", "澳洲"), "Europe": ("欧洲",),
}
# fmt: on

# --- people ---------------------------------------------------------------------------------

_NAME = r"[A-Z][a-z]{2,14}"
_PERSON_AFTER = (
    r"said|says|asked|asks|wants|wanted|prefers|preferred|likes|liked|thinks|thought|told|suggested|"
    r"mentioned|joined|joins|reviewed|approved|owns|leads|agreed|replied|pinged|is out|is back|is on leave"
)
# "with X" and "from X" name products and papers as often as people: only meeting words count
_PERSON_BEFORE = (
    r"ask|asked|tell|told|ping|pinged|cc|thanks|thank you|mentor is|met|met with|call with|called|emailed|"
    r"meeting with|1:1 with|talked to|talked with|chat with|chatted with|reply to|replied to"
)
_ZH_VERBS = r"说|让我|喜欢|希望|觉得|提到|问我|建议|同意|告诉|请我"
_SURNAMES = (
    "王李张刘陈杨赵黄吴周徐孙胡朱高林何郭马罗梁宋郑谢韩唐冯董萧曹袁邓许傅沈曾彭吕苏卢蒋蔡贾丁魏薛叶"
    "余潘杜戴夏钟汪田任姜范石姚谭廖邹熊金陆郝孔崔康毛邱秦江史顾侯邵孟龙段雷钱汤尹黎易武乔贺赖龚"
)
# 小/老 + surname, unless the pair ends a word (缩小, 古老) or starts one (小时, 老师, 小程序, 缩小周期)
_ZH_NICKNAME = re.compile(
    rf"(?<![大缩最减变从很太较小老古养])([小老][{_SURNAMES}])"
    r"(?!序|时|候|组|型|区|号|心|家|板|师|伙|子|总|末|期|边|围|年|报|刊|日|字|量|额|品|票)"
)
_ZH_TITLED = re.compile(  # 王总, 李老师, not 周总结
    rf"(?<![\u4e00-\u9fff])([{_SURNAMES}](?:总|老师|经理|哥|姐))(?!结|数|共|体|计|部|线|监|裁|之)"
)
_EN_PERSON = (
    re.compile(rf"(?<![\w.@/\\-])({_NAME})(?:'s)?\s+(?:{_PERSON_AFTER})\b"),
    re.compile(rf"\b(?i:{_PERSON_BEFORE})\s+({_NAME})(?![\w.-])"),
    re.compile(rf"(?<![\w.@/\\-])({_NAME})\s*(?:{_ZH_VERBS})"),
    re.compile(rf"(?:让|给|问|找|联系|同事|老板|经理|导师)\s*({_NAME})(?![\w.-])"),  # not 和: "and"
)
_CODE = re.compile(r"```.*?(?:```|$)|~~~.*?(?:~~~|$)|`[^`\n]*`", re.DOTALL)
_HANDLE = re.compile(r"(?<![\w@.])@([A-Za-z][\w-]{1,30})(?![\w/.@(-])")  # not @decorator(
_TEAM = re.compile(r"(?i:\bteam|团队|成员|members?)\s*[:：]\s*([^\n]+)")
_NOT_PEOPLE = frozenset(
    "The This That These Those There Then When What Which Where Why How Who Today Tomorrow Yesterday "
    "Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May June July "
    "August September October November December Note Notes Todo Done Please Also Still Just Maybe Every "
    "Each Some Any All None Both Other Another Since After Before During Because Will Would Could Should "
    "Must Can May Might Not Yes Okay Sure Thanks Thank Hello Team User Users Agent Assistant Memory Bot "
    "Someone Everyone Nobody Customer Client Staging Production Prod Main Master Release Build Deploy "
    "Error Errors Warning Issue Issues Review Meeting Daily Weekly Lead Infra Backend Frontend Jan Feb Mar "
    "Apr Jun Jul Aug Sep Sept Oct Nov Dec Mon Tue Wed Thu Fri Sat Sun".split()
)

# --- projects -------------------------------------------------------------------------------

# a project's name: quoted or in backticks (any word, 星火 too), or bare when it looks like a
# name (capitalised, or joined: notes-sync, atlas_api, next.js) rather than a word ("repo at")
_QUOTED = r"[`\"'“「《]([A-Za-z][\w.-]{1,40}|[\u4e00-\u9fff]{2,8})[`\"'”」》]"
_BARE = r"([A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+|[A-Za-z0-9]+[-_.][\w.-]*[A-Za-z0-9])"  # MemoryManager
_PROJECT_WORD = r"(?i:project|repo|repository|codebase)"
_EN_PROJECT = (
    re.compile(rf"\b{_PROJECT_WORD}\s*[:：]?\s+(?:{_QUOTED}|{_BARE}(?![\w.-]))"),
    re.compile(rf"(?:{_QUOTED}|(?<![\w.-]){_BARE})\s*(?:项目|仓库|{_PROJECT_WORD}\b)"),
    re.compile(rf"(?:项目|仓库)(?:\s*[:：]\s*(?:{_QUOTED}|{_BARE})|\s*{_QUOTED})"),
    re.compile(r"\b(?i:project|repo)\s*[:：]\s*([A-Z][\w.-]{1,40})"),  # "Project: Atlas"
)
_GITHUB = re.compile(
    r"github\.com[/:]([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*?)(?:\.git)?(?=[/\s)\]>`'\"#?]|$)"
)
# a heading that is about projects as a whole: "Projects", "## Projects / 项目", "我的项目"
_PROJECTS_HEADING = re.compile(
    r"(?i)^[\W\d_]*(?:(?:active|current|my|our|side|ongoing)\s+)?(?:projects|项目|项目列表|我的项目|在做的项目)"
    r"(?:\s*[/|·:：-]\s*[^/|]*)?$"
)
_NOT_PROJECTS = frozenset(
    "a an the this that my our your his her their its new old main side open source whole web big small "
    "same other current next first last private public personal git github gitlab sentry api monorepo "
    "entire each every any some one two is was be in on of to for and or with docs doc the_project "
    "该 这个 那个 新 老 整个 每个 我们 他的 自己 当前 相关 开源 个人 公司 团队".split()
)


@dataclass(frozen=True, slots=True)
class Note:
    """What entities need of an entry."""

    text: str
    where: str  # path:line
    day: str | None  # ISO date, None for undated (MEMORY.md)
    section: str = ""  # "## Projects / 项目 > ### Atlas"


@dataclass(slots=True)
class Entity:
    name: str
    kind: str
    count: int = 0  # entries that name it
    first_seen: str | None = None
    last_seen: str | None = None
    where: list[str] = field(default_factory=list)  # up to three places, most recent first

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.name,
            "kind": self.kind,
            "count": self.count,
            "first_seen": self.first_seen,
            "last_seen": self.last_seen,
            "where": self.where,
        }


def people_named(text: str) -> set[str]:
    """Names the text speaks of as people (code left out: @dataclass is no one)."""
    text = _CODE.sub(" ", text)
    found = {m.group(1) for p in _EN_PERSON for m in p.finditer(text)}
    found |= {m.group(1) for m in _ZH_NICKNAME.finditer(text)}
    found |= {m.group(1) for m in _ZH_TITLED.finditer(text)}
    found |= {"@" + m.group(1) for m in _HANDLE.finditer(text)}
    for m in _TEAM.finditer(text):
        for part in re.split(r"[,，、;；]|\band\b|和", m.group(1)):
            name = re.sub(r"[(（][^)）]*[)）]?", "", part).strip(" *`.。")
            if re.fullmatch(_NAME, name) or _ZH_NICKNAME.fullmatch(name) or _ZH_TITLED.fullmatch(name):
                found.add(name)
            elif re.fullmatch(rf"[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}", name):
                found.add(name)  # a full Chinese name in a team list: 张伟
    return {n for n in found if n not in _NOT_PEOPLE and n not in _KNOWN_NAMES}


def projects_named(text: str, section: str = "") -> set[str]:
    """Names the text (or its heading, under a Projects section) speaks of as projects."""
    found = {next(g for g in m.groups() if g) for p in _EN_PROJECT for m in p.finditer(text)}
    found |= {m.group(1) for m in _GITHUB.finditer(text)}
    headings = [h.lstrip("#").strip() for h in section.split(" > ")] if section else []
    if len(headings) >= 2 and _PROJECTS_HEADING.match(headings[-2]):
        title = re.sub(r"^[\W\d_]+|\s*[(（].*$", "", headings[-1]).strip()  # "1. Atlas (active)"
        if 0 < len(title) <= 30 and len(title.split()) <= 3:
            found.add(title)
    return {n.strip(".-") for n in found if _plausible_project(n.strip(".-"))}


def _plausible_project(name: str) -> bool:
    if len(name) < 2 or name.lower() in _NOT_PROJECTS or name in _NOT_PEOPLE:
        return False
    if name.lower() in _KNOWN_NAMES_LOWER:
        return False
    return not name.isdigit()


def _gazetteer_names() -> set[str]:
    names = set(TOOLS) | set(PLACES)
    for aliases in (*TOOLS.values(), *PLACES.values()):
        names.update(aliases)
    return names


_KNOWN_NAMES = frozenset(_gazetteer_names())
_KNOWN_NAMES_LOWER = frozenset(n.lower() for n in _KNOWN_NAMES)
# words as well as names: they count only as written ("react to", "the cursor", "go home")
_CASE_SENSITIVE = frozenset({"Go", "Windows", "USA", "Cursor", "Notion", "React", "Excel", "Bun", "Slack"})


class Matcher:
    """Finds every known name in a text: one regex for names that match only as written
    (people, and the words Go and Windows), one ignoring case for the rest."""

    def __init__(self, names: dict[str, tuple[str, str]], exact: frozenset[str]) -> None:
        # names: surface form -> (kind, canonical name)
        self.names = names
        as_written = sorted((s for s in names if s in exact), key=len, reverse=True)
        folded = sorted((s for s in names if s not in exact), key=len, reverse=True)
        self.folded_names = {s.lower(): names[s] for s in folded}
        self.exact = _alternation(as_written, 0)
        self.folded = _alternation(folded, re.IGNORECASE)

    def find(self, text: str) -> set[tuple[str, str]]:
        found: set[tuple[str, str]] = set()
        if self.exact is not None:
            found.update(self.names[m.group(0)] for m in self.exact.finditer(text))
        if self.folded is not None:
            found.update(self.folded_names[m.group(0).lower()] for m in self.folded.finditer(text))
        return found


def _alternation(surfaces: Sequence[str], flags: int) -> re.Pattern[str] | None:
    if not surfaces:
        return None
    body = "|".join(re.escape(s) for s in surfaces)
    # ASCII names stand as whole words (Lin is not in Linux); CJK names match where they stand
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{body})(?![A-Za-z0-9_])", flags)


def tally(notes: Iterable[Note], kinds: Sequence[str] = KINDS) -> list[Entity]:
    """Every entity named in at least one note, with its count, first and last seen dates;
    most named first."""
    notes = list(notes)
    surfaces: dict[str, tuple[str, str]] = {}
    if "tool" in kinds:
        surfaces.update(_gazetteer_surfaces(TOOLS, "tool"))
    if "place" in kinds:
        surfaces.update(_gazetteer_surfaces(PLACES, "place"))
    people: set[str] = set()
    projects: set[str] = set()
    for note in notes:
        if "person" in kinds:
            people |= people_named(note.text)
        if "project" in kinds:
            projects |= projects_named(note.text, note.section)
    for name in projects:
        surfaces.setdefault(name, ("project", name))
    for name in people:
        surfaces[name] = ("person", name)  # a name spoken of as a person is one, whatever else it is
    matcher = Matcher(surfaces, _CASE_SENSITIVE | people)
    entities: dict[tuple[str, str], Entity] = {}
    for note in sorted(notes, key=lambda n: (n.day or "", n.where)):
        for kind, name in matcher.find(note.text):
            entity = entities.setdefault((kind, name), Entity(name, kind))
            entity.count += 1
            if note.day:
                entity.first_seen = entity.first_seen or note.day
                entity.last_seen = note.day
            entity.where = [note.where, *entity.where][:3]
    return sorted(entities.values(), key=lambda e: (-e.count, e.kind, e.name))


def _gazetteer_surfaces(table: dict[str, tuple[str, ...]], kind: str) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for canonical, aliases in table.items():
        for surface in (canonical, *aliases):
            out[surface] = (kind, canonical)
    return out
