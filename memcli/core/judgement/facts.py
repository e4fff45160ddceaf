"""Lasting facts (step 7 of core.judgement.importance): why a line that reports nothing
done is a fact that stays true — something set up where it stays, a convention, a limit, a
place or an owner, what a tool is for, a rule named and spelled out, a labelled setting, a
tool or a service with its host, port or version, a standing schedule, a fact said on many
days.

A labelled setting is a label that names a setting, a parameter or a policy (core.rules
SETTING, and the environment, place and rule words) over its value — not a status or a
result ("状态", "Metric", "进度"). A figure is a value only under a limit's or an interval's
label ("日损熔断：10%", "Heartbeat interval: 30 min"); an address (a URL, a host and port,
"18789/tcp") or a chat command ("`/stop`") is a setting's value under any label that is
not a report's or a citation's ("来源: https://…" cites a reading).

Each check returns the reason it found (a `Reason` of 0 points: the score has its own), or
None. `Cues` reads a scored text's cues by signal, for these checks and for the label.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from memcli.core.judgement.shapes import FIELD_KINDS, STATUS_MARK, field_of, label_signals, reporting, units
from memcli.core.policy import Policy
from memcli.core.rules import PERSONAL_PATTERNS, YEARLY, Rules
from memcli.core.scoring import Reason, Scored, mask_code


class Cues:
    """The cues of a scored text by signal, as reasons for a label."""

    def __init__(self, scored: Scored, rules: Rules, t: str) -> None:
        self.scored = scored
        self.rules = rules
        self.t = t
        self._cues: Mapping[str, str] | None = None

    def cues(self) -> Mapping[str, str]:
        if self._cues is None:
            known = self.scored.cues
            self._cues = known if known is not None else self.rules.scan(self.t)
        return self._cues

    def of(self, name: str) -> Reason | None:
        if name not in self.scored.signals:
            return None
        cue = self.cues().get(name, "")
        return Reason(_RULE_NAMES.get(name, name), 0.0, cue)

    def first(self, names: Iterable[str]) -> Reason | None:
        for name in names:
            found = self.of(name)
            if found is not None:
                return found
        return None


_RULE_NAMES = {
    "preference": "standing preference",
    "decision": "decision",
    "lesson": "lesson",
    "long_lived": "standing",
    "convention": "convention",
    "schedule": "schedule",
    "rule_noun": "rule",
    "constraint": "constraint",
    "short_lived": "time-bounded",
    "routine": "routine event",
    "unresolved": "unresolved",
    "done": "done",
    "remember": "remember this",
    "place": "where it lives",
    "environment": "environment",
    "setting": "setting",
    "tooling": "tool use",
}


# What lasts once set up: a path, URL, host:port, port, version, reverse-DNS name.
_LASTING = re.compile(
    r"(?:~|\.{1,2})?/(?=[0-9_.-]*[a-z])[a-z0-9_.-]+/|[a-z]:\\|https?://|\b[a-z0-9.-]+\.[a-z]{2,}:\d{2,5}\b|"
    r"(?:port|端口)\s*[:：]?\s*\d{2,5}|\bv?\d+\.\d+(?:\.\d+)+\b|\bv\d+\.\d+\b|"
    r"\b[a-z]{2,6}\.[a-z0-9-]+\.[a-z0-9.-]+\b"
)
# ... and where a tool or service is found, said in a sentence: a host and port, an e-mail
# address, a configuration or system folder, a drive. Not a file the day produced
# ("skills/x/SKILL.md"), a list ("Eco/Boost/Turbo") or a release of the project ("v3.0").
_PLACED = re.compile(
    r"\b[a-z0-9.-]+\.[a-z]{2,}:\d{2,5}\b|\b(?:localhost|\d{1,3}(?:\.\d{1,3}){3}):\d{2,5}\b|"
    r"(?:port|端口)\s*[:：]?\s*\d{2,5}|\b\d{2,5}\s*端口|\b\d{2,5}/(?:tcp|udp)\b|[\w.+-]+@[a-z0-9-]+\.[a-z]{2,}|"
    r"(?<![\w/])(?:~/\.[a-z]|/(?:etc|opt|usr|var|srv|volume\d|mnt|data|home|users)/)|(?<![\w])[a-z]:\\|"
    r"(?<![\w.])\d{1,3}(?:\.\d{1,3}){3}(?![\w.])"  # an IP address: 192.168.31.1
)
# A device named with its model: "主路由是小米 AX9000", "Printer: Brother HL-L2375DW", "the NAS is a DS920+"
_DEVICE = re.compile(
    r"(?:路由器?|打印机|显示器|交换机|光猫|摄像头|扫描仪|nas|router|printer|monitor|modem|access point|mesh|"
    r"scanner|主力机|台式机|笔记本|电脑|手机|平板|电视|投影仪|音箱|相机|耳机|键盘|laptop|desktop|phone|tablet|tv|"
    r"projector|speaker|camera|headphones|keyboard|e-reader|kindle)"
    r"[^，,。；;\n]{0,4}?(?:是|为|用的是|型号|[:：]|\s+is\s+(?:an?\s+|the\s+)?|\s+model\s+)\s*"
    r"(?:[a-z\u4e00-\u9fff][\w\u4e00-\u9fff.-]*\s+){0,2}?(?=[a-z0-9-]*\d)(?=[a-z0-9-]*[a-z])[a-z0-9][a-z0-9-]*\d[a-z0-9+-]*"
)
_ENV_VAR = re.compile(r"\b[A-Z][A-Z0-9]+_[A-Z0-9_]{2,}\b")  # read on the text as written
_DURABLE_SIGNALS = frozenset(
    {"preference", "decision", "environment", "place", "lesson", "long_lived", "convention", "constraint"}
)
# When a schedule runs: 02:00, 9 点, 7pm, every 15 minutes, 每 15 分钟, 凌晨
CLOCK = re.compile(
    r"\d{1,2}:\d{2}|\d{1,2}\s*(?:点|时|am|pm)|[一二三四五六七八九十两]{1,3}\s*点|every\s+\d+\s*(?:min|hour|day)|每\s*\d+\s*(?:分钟|小时|天)|"
    r"凌晨|早上|晚上|中午|上午|下午|周[一二三四五六日]|monday|tuesday|wednesday|thursday|friday|saturday|sunday"
)
_DIGIT = re.compile(r"\d")
_FIGURE = re.compile(r"[%$¥€£]|\d\s*(?:kb|mb|gb|tb|k|m|ms|s|x|×|个|人|条|次|篇|天)\b")


# A value that says where or how to reach something: a URL, a host and port, a port and its
# protocol ("18789/tcp"), a chat command ("`/stop`"). Digits in it are no figure of the day.
_ADDRESS = re.compile(
    r"https?://\S+|\b[a-z0-9.-]+\.(?:com|net|org|io|ai|dev|app|cn|co|me|cc|xyz|tech|cloud)(?::\d{2,5})?\b(?![.-])|"
    r"\b(?:localhost|\d{1,3}(?:\.\d{1,3}){3}):\d{2,5}\b|"
    r"\b\d{2,5}/(?:tcp|udp)\b"
)
_CHAT_COMMAND = re.compile(r"[`'\"“「]?/[a-z][a-z0-9_-]{1,20}[`'\"”」]?(?:\s*[(（][^)）]{0,30}[)）])?")


# A label that cites where a text came from: its URL is a reading's source, not a setting.
_CITATION = re.compile(
    r"来源|出处|参考|原文|引用|阅读|读了|^(?:source|sources|reference|references|via|credit|credits|link|read|"
    r"reading|watched)$"
)


def address(value: str) -> bool:
    """Whether a value is an address: a URL, a host (and port), a port and its protocol."""
    return _ADDRESS.match(value.lstrip("`<'\" ")) is not None and not STATUS_MARK.search(value)


def setting_value(value: str) -> bool:
    """Whether a value is a setting's by its shape: an address or a chat command."""
    return address(value) or _CHAT_COMMAND.fullmatch(value) is not None


def _figure(value: str) -> bool:
    """A value that is a figure of the day ("12.5KB", "85%", "0 个", "<20K ✅"), not a setting."""
    if address(value):
        return False
    return bool(STATUS_MARK.search(value) or (_DIGIT.search(value) and units(value) <= 3)) or (
        _FIGURE.search(value) is not None and units(value) <= 4
    )


_SEPARATORS = re.compile(r"[^\w\u3400-\u9fff]+")
_KEYLIKE = re.compile(r"[a-z0-9_-]+(?:[._][a-z0-9_-]+)+")
_REPORT_SIGNALS = frozenset({"done", "unresolved", "short_lived", "routine", "past_due"})
LABEL_QUALIFIER_UNITS = 2
RULE_NAME_UNITS = 5  # "Small-diff", "OPSEC", "文件命名": what the rule is about
_SPELLED_OUT = frozenset("(（:：—–-=")
# The label of a setting whose value is a figure: a port, an interval, a limit, a budget.
_NUMERIC_SETTING = re.compile(
    r"port|interval|frequency|timeout|threshold|budget|limit|quota|\bmax|\bmin|size|ttl|retries|rate|cap\b|"
    r"amount|price|端口|间隔|频率|超时|阈值|预算|上限|下限|配额|大小|金额|价格|费率|时长|周期|"
    r"cutoff|stop.?loss|take.?profit|drawdown|leverage|cooldown|retention|expiry|grace period|"
    r"熔断|止损|止盈|回撤|杠杆|仓位|冷却|保留期|有效期|宽限"
)
# ... and of those, the labels that name a setting by themselves ("冷却时间", "Retry
# interval"): not a size, a rate, an amount or a price, which a reading has too.
_LIMIT_LABEL = re.compile(
    r"\b(?:port|interval|frequency|timeout|threshold|budget|limit|quota|ttl|retries|cutoff|stop.?loss|"
    r"take.?profit|drawdown|leverage|cooldown|retention|expiry|grace period)\b|"
    r"端口|间隔|频率|超时|阈值|预算|上限|下限|配额|熔断|止损|止盈|回撤|杠杆|仓位|冷却|保留期|有效期|宽限"
)
_CONFIG_KEY = re.compile(
    r"[a-z0-9_-]+(?:\.[a-z0-9_-]+)+(?<!\.py)(?<!\.js)(?<!\.ts)(?<!\.go)(?<!\.rs)(?<!\.sh)"
)
_TALLY = re.compile(
    r"^(?:总|共|合计|累计|total\b|count\b|number of\b|#)|数量|次数|人数|个数|总数|总计|\bcount$"
)
# A named thing and its version: "ripgrep 14.1", "k3s 1.29", "ubuntu 22.04" (not "45.45%").
_VERSIONED = re.compile(
    r"\b(?!(?:of|in|on|at|to|for|from|by|with|is|are|was|were|now|has|have|had|the|and|or|than|about|"
    r"only|still|v|default)\b)[a-z][a-z0-9+-]{1,20}\s+v?\d{1,3}\.\d{1,3}(?:\.\d+)?\b(?![%\d.])"
    r"(?!\s*(?:s|ms|x|k|m|gb|mb|kb|min|h|million|billion|thousand|万|亿|倍|秒|分钟|小时)\b)"
)
# An operating system or a runtime by its version: macOS 15, Ubuntu 22.04, Node 20, Python 3.12.
_RUNTIME = re.compile(
    r"\b(?:macos|ios|ubuntu|debian|windows|centos|fedora|android|node(?:\.js)?|python|java|go|rust|"
    r"postgres(?:ql)?|mysql|redis|k3s|k8s|kubernetes|docker)\s*v?\d{1,2}(?:\.\d{1,2}){0,2}\b(?![%\d.])"
)


# What stays true of the user's family and the people who look after them (core.rules).
_PERSONAL = re.compile("|".join(f"(?:{regex})" for _, regex in PERSONAL_PATTERNS))


def set_up(text: str, t: str, cue: Cues) -> Reason | None:
    """Something installed, created or registered where it stays: a path, port, version or
    environment variable. A fact even though the line reports the work ("Installed … v1.2")."""
    if "setup" not in cue.scored.signals:
        return None
    kept = _LASTING.search(t) or _ENV_VAR.search(text) or _VERSIONED.search(t) or _RUNTIME.search(t)
    return Reason("set up to last", 0.0, kept[0]) if kept is not None else None


def named_setting(t: str, cue: Cues, rules: Rules) -> bool:
    """Whether the routine cue is only a word in a setting's label ("Heartbeat interval: 30
    min", "巡检频率：每小时"), the value saying nothing routine: a setting, not a check."""
    field = field_of(t)
    if field is None:
        return False
    label, value = field
    said = label_signals(label, rules)
    return "routine" in said and any(k in said for k in FIELD_KINDS) and "routine" not in rules.scan(value)


_YEARLY = YEARLY
# A day of the year a yearly schedule names: 每年 3 月, "every year on May 12", "each March".
_YEARLY_DAY = re.compile(
    r"\d{1,2}\s*月|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|春节|中秋|国庆|元旦|"
    r"\b(?:new year|christmas|easter|thanksgiving)\b"
)
_DATED = re.compile(
    r"(?<!\d)\d{4}-\d{1,2}-\d{1,2}(?!\d)|\d{1,2}\s*月\s*\d{1,2}\s*[日号]|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?\b"
)


# A day of the month a monthly schedule names: 每月 15 号, "on the 1st of every month"
_MONTHLY = re.compile(r"每月|每个月|monthly|every month|each month|of the month")
_MONTH_DAY = re.compile(r"\d{1,2}\s*[号日]|\b\d{1,2}(?:st|nd|rd|th)\b|月(?:初|底|中)")


def _calendar_day(t: str) -> bool:
    """Whether a recurring line names the day it comes back on: a day of the year with a
    yearly cue (车险每年 3 月到期, "renews every March"), a day of the month with a monthly one."""
    yearly = _YEARLY.search(t) is not None and _YEARLY_DAY.search(t) is not None
    return yearly or (_MONTHLY.search(t) is not None and _MONTH_DAY.search(t) is not None)


def dated(t: str) -> Reason | None:
    """A calendar date in a line makes it a record of that day (a meeting, a launch), not a
    standing fact — unless a standing cue says otherwise, or the date comes every year (a
    birthday, an anniversary)."""
    day = _DATED.search(mask_code(t))  # not a file's or a path's date: `2026-10-03-ablation.ipynb`
    if day is None or _YEARLY.search(t):
        return None
    return Reason("dated", 0.0, day[0])


def lasting(text: str, t: str, cue: Cues, rules: Rules, policy: Policy, mentions: int) -> Reason | None:
    """Why a line that reports nothing done is a lasting fact — a convention, a constraint,
    a place or owner, a rule, a standing schedule, a labelled setting, an environment with
    a lasting value, a fact said on many days — or None."""
    scored = cue.scored
    found = cue.first(("convention", "constraint", "place", "tooling")) or _named_rule(t, cue)
    if found is not None and found.rule == "where it lives" and _PERSONAL.search(found.cue):
        return Reason("personal fact", 0.0, found.cue)  # 妈妈高血压, "Dr. Chen is his GP"
    if found is not None:
        return found
    if "schedule" in scored.signals and (CLOCK.search(t) or _calendar_day(t)):
        return cue.of("schedule")  # 每天凌晨 2 点备份, every night at 02:00, 车险每年 3 月到期, 每月 15 号
    field = field_of(t)
    if field is not None:
        setting = _setting(*field, rules)
        if setting is not None:
            return setting
    if "environment" in scored.signals:
        kept = _PLACED.search(t) or _RUNTIME.search(t) or _DEVICE.search(t)
        if kept is not None:  # a tool, a host, a service with its path, port or version; a device's model
            return Reason("environment", 0.0, kept[0].strip())
    durable = scored.signals & _DURABLE_SIGNALS
    if durable and mentions >= policy.promote_mentions:
        return Reason("referenced again", 0.0, f"{mentions} days")
    return None


def _named_rule(t: str, cue: Cues) -> Reason | None:
    """A rule named and then spelled out: "Small-diff policy (200 lines/file, 5 files)",
    "命名规范 — 全小写加连字符". A rule's name said in passing ("宪法学习 + 晨报") is not one."""
    named = cue.of("rule_noun")
    if named is None or not named.cue:
        return None
    at = t.find(named.cue)
    head = t[:at].strip(" *_")
    after = t[at + len(named.cue) :].lstrip(" *_")
    if at < 0 or units(head) > RULE_NAME_UNITS or not after[:1] or after[:1] not in _SPELLED_OUT:
        return None
    if STATUS_MARK.search(t) or (at and (t[at - 1].isascii() and (t[at - 1].isalnum() or t[at - 1] in "-_"))):
        return None  # "✅ … format loads correctly", "agent-workflow-viz": a status, a project's name
    return named if units(after[1:]) >= 2 else None


def _setting(label: str, value: str, rules: Rules) -> Reason | None:
    """A labelled field that names a setting or a fact ("时区: Asia/Shanghai", "Location:
    ~/…", "Rule: …"): the label says what kind of fact it is. Not a report ("Metric: …",
    "产出：…"), nor a reading of the day ("总 Skills: 85 个", "DGC: fitness 0.82") — a figure
    is a value only under the label of a numeric setting ("Heartbeat interval: 30 min")."""
    said = label_signals(label, rules)
    if reporting(label, said, _REPORT_SIGNALS):
        return None
    if STATUS_MARK.search(label) or label[:1] in "#0123456789":
        return None  # "✅ P1", "#3": an item of a list, not a setting's name
    kind = next((k for k in FIELD_KINDS if k in said and _names(label, said[k], k, rules)), None)
    if units(value) < 1:
        return None
    if _figure(value) and not (_NUMERIC_SETTING.search(label) and not _TALLY.search(label)):
        return None
    if kind is None and (_CONFIG_KEY.fullmatch(label) or _KEYLIKE.fullmatch(value.strip("` "))):
        kind = "environment"  # sandbox.mode: …, residual.md: …, All files: snake_case.md
    if kind is None and _LIMIT_LABEL.search(label) and not _TALLY.search(label):
        kind = "setting"  # 冷却时间：30 分钟
    if kind is None and _CHAT_COMMAND.fullmatch(value):
        kind = "setting"  # 紧急停止命令：`/stop`: the command to remember
    if kind is None and address(value) and not _CITATION.search(label):
        kind = "environment"  # OpenClaw: 18789/tcp, 访问地址：https://…
    return Reason(f"{_RULE_NAMES[kind]} field", 0.0, label) if kind is not None else None


def _names(label: str, cue: str, kind: str, rules: Rules) -> bool:
    """Whether a label's cue names what the label is: the label is the word ("时区",
    "Location"), or the word with a qualifier before it ("交易所账户", "SSH key") — not one
    word inside a longer name ("辩证用户模型", "性能监控系统"), nor an identifier or a
    release a pattern found ("search_by_tags", "v3.0 scope")."""
    if not rules.lexical(cue):
        return False
    if kind not in ("environment", "place", "setting"):
        return True
    head = _SEPARATORS.sub(" ", label).strip()  # "stop-loss" is the cue "stop loss"
    return head.endswith(cue) and units(head) - units(cue) <= LABEL_QUALIFIER_UNITS
