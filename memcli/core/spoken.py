"""What a person said in a message of a session, without the machinery around it (SPEC §9).

OpenClaw wraps what reaches the model: an inbound message comes with its envelope
(`[Telegram Dana id:88120455 +2m Tue 2026-10-27 19:04 EDT] …`, `[Wed 2026-10-28 09:14
GMT+1] …`), metadata blocks ("Conversation info (untrusted metadata):" and its JSON),
system events (`System: [2026-…] Feishu[default] DM | …`, a gateway that connected or
dropped), message ids (`[message_id: om_…]`), media notes, queued-message headers; and
some turns are not a person's at all: the heartbeat prompt, a cron job's prompt, a
subagent's context and the announcement of its result, the memory-flush prompt, and the
silent replies to them (`HEARTBEAT_OK`, `NO_REPLY`).

`spoken(role, text)` gives the words of a user or assistant turn with all of that taken
out (None when nothing of a person is left), every character of those words as written;
`units(text)` splits them into what a note would hold as entries: paragraphs and list
items, a line that opens a list ("We decided:") kept with its list, code, tables and
headings left out. Pure: no I/O, no clock.
"""

from __future__ import annotations

import re

from memcli.core.entries import parse

# A metadata block OpenClaw puts before an inbound message, with its fenced JSON.
_METADATA = re.compile(
    r"^[^\n]{0,80}\((?:untrusted|trusted)(?:\s+metadata|,\s*for\s+context)\)\s*:[ \t]*\n"
    r"(?:```[^\n]*\n.*?\n```[ \t]*(?:\n|$))?",
    re.MULTILINE | re.DOTALL | re.IGNORECASE,
)
_INTERNAL = re.compile(
    r"<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>.*?(?:<<<END_OPENCLAW_INTERNAL_CONTEXT>>>|\Z)", re.DOTALL
)
_REPLYING = re.compile(r"^\[Replying to [^\]\n]*\][^\n]*\n.*?^\[/Replying\][ \t]*$", re.MULTILINE | re.DOTALL)
# Lines that are machinery wherever they stand.
_MACHINE_LINE = re.compile(
    r"^(?:System(?:\s*\(untrusted\))?:\s.*"  # a system event: a channel, a connection, a job
    r"|\[message_id:[^\]\n]*\]"
    r"|\[media attached[^\n]*"
    r"|To send an image back, prefer the message tool.*"
    r"|\[Queued messages while agent was busy\]|-{3,}|Queued #\d+"
    r"|\[(?:Image|Audio|Video|File|Document)(?: attached)?:?[^\]\n]*\]"
    r")[ \t]*$",
    re.MULTILINE | re.IGNORECASE,
)
# A connection event said on a line of its own ("Gateway disconnected (1006); reconnecting…").
_CONNECTION = re.compile(
    r"^[ \t]*(?:\[[^\]\n]{0,60}\][ \t]*)?(?:[\w .#@'-]{0,40}[ \t])?"
    r"(?:gateway|websocket|ws|bot|node|channel|connection|socket)[ \t]+"
    r"(?:re)?(?:connected|disconnected|reconnecting|reconnected|connecting|closed|lost|restored|dropped)\b"
    r"[^\n]{0,120}$"
    r"|^[ \t]*(?:网关|连接|长连接|机器人)[^\n]{0,20}(?:已连接|已断开|断开|重连|重新连接|已恢复)[^\n]{0,60}$",
    re.MULTILINE | re.IGNORECASE,
)
# The envelope a line opens with: a bracket holding a date and time, or a channel's name.
_CHANNELS = (
    "telegram|whatsapp|discord|slack|signal|imessage|feishu|lark|wecom|dingtalk|webchat|matrix|line|"
    "googlechat|msteams|teams|mattermost|zalo|qq|yuanbao|飞书|钉钉|企业微信|微信"
)
_ENVELOPE = re.compile(
    r"^\[(?:[^\]\n]{0,160}?\d{4}-\d{2}-\d{2}[ T]\d{1,2}:\d{2}[^\]\n]{0,40}|"
    rf"(?:{_CHANNELS})\b[^\]\n]{{0,160}})\][ \t]*",
    re.MULTILINE | re.IGNORECASE,
)
_GROUP = re.compile(r"#|\b(?:group|guild|channel|room|thread)\b|群", re.IGNORECASE)
_SENDER = re.compile(r"[^\n:：\[\]]{1,40}?(?:[ \t]\([^()\n]{1,40}\))?[:：][ \t]+")
_REPLY_TAG = re.compile(r"\[\[\s*(?:reply_to_current|reply_to\s*:[^\]]*|audio_as_voice)\s*\]\][ \t]*")

# Whole turns that are no person's words: prompts a gateway or a job injects, and the silent
# replies to them.
_PROMPT = re.compile(
    r"^\s*(?:\[cron:[^\]\n]*\]|\[subagent (?:context|task)\]|\[system message\]|pre-compaction memory flush|"
    r"read heartbeat\.md|heartbeat_ok\s*$|no_reply\s*$|\[heartbeat\])",
    re.IGNORECASE,
)
_PROMPT_WORDS = (
    "you are running as a subagent",
    "a completed subagent task is ready",
    "reply with no_reply",
    "reply heartbeat_ok",
    "reply with just: heartbeat_ok",
    "store durable memories now",
)
_SILENT = frozenset({"heartbeat_ok", "no_reply", "announce_skip", "reply_skip"})


def spoken(role: str, text: str) -> str | None:
    """The words a person (the user, or the assistant in its own voice) said in a turn:
    envelopes, metadata, system events and ids taken out, every other character as
    written. None for a tool result, a prompt injected by a gateway or a job (heartbeat,
    cron, subagent, memory flush), a silent reply, or a turn with nothing else left."""
    if role not in ("user", "assistant") or not text.strip():
        return None
    folded = text.casefold()
    if any(words in folded for words in _PROMPT_WORDS):
        return None
    body = _INTERNAL.sub("", text)
    body = _REPLYING.sub("", body)
    body = _METADATA.sub("", body)
    body = _MACHINE_LINE.sub("", body)
    body = _CONNECTION.sub("", body)
    body = _REPLY_TAG.sub("", body)
    body = _without_envelopes(body)
    body = re.sub(r"\n{3,}", "\n\n", body).strip("\n")
    if not body.strip() or body.strip().casefold() in _SILENT or _PROMPT.match(body):
        return None
    return body


_TASK = re.compile(r"\[Subagent Task\]\s*:?\s*(\S.*?)\s*$", re.IGNORECASE | re.DOTALL)


def subagent_task(text: str) -> str | None:
    """The task a subagent session was started with ("[Subagent Task]: Compare …"): what
    the session is for, though no person said it in that session."""
    found = _TASK.search(text) if "[subagent task]" in text[:2000].casefold() else None
    return found.group(1).split("\n", 1)[0].strip() or None if found else None


def _without_envelopes(body: str) -> str:
    """Each line's leading envelope taken out; in a group chat, with the sender's name after it."""
    out: list[str] = []
    for line in body.split("\n"):
        found = _ENVELOPE.match(line)
        if found is not None:
            rest = line[found.end() :]
            if _GROUP.search(found.group(0)):
                sender = _SENDER.match(rest)
                if sender is not None:
                    rest = rest[sender.end() :]
            line = rest
        out.append(line)
    return "\n".join(out)


# --- units ------------------------------------------------------------------------------------

_TEXT_KINDS = frozenset({"paragraph", "bullet", "task", "quote"})
_OPENS_LIST = re.compile(r"[:：][ \t]*$")


def units(body: str) -> list[str]:
    """The parts of what was said that a note would hold as entries, each as written: the
    lines of a paragraph (a chat's line break ends a statement) and list items; a line that
    opens a list or a paste ("We decided:", "这是上午的日志：") with what follows it. Code
    blocks, tables, HTML and headings are left out."""
    doc = parse(body)
    found: list[str] = []
    opener = False  # the last unit opens a list: the items that follow belong to it
    for block in doc.blocks:
        text = "".join(doc.lines[block.start : block.end]).rstrip("\r\n")
        if block.kind not in _TEXT_KINDS or not text.strip():
            opener = False
            continue
        if opener and block.kind in ("bullet", "task") and found:
            found[-1] += "\n" + text
            continue
        lines = text.split("\n") if block.kind == "paragraph" else [text]
        opener = False
        for line in lines:
            if not line.strip():
                continue
            if opener:
                found[-1] += "\n" + line
                continue
            found.append(line)
            opener = block.kind == "paragraph" and _OPENS_LIST.search(line) is not None
    return found


_SENTENCE_END = re.compile(r"(?<=[。！？；!?;])[ \t]*|(?<=\.)[ \t]+(?=[^\sa-z0-9])|\n+")


def sentences(unit: str) -> list[str]:
    """A unit's sentences (for judging; what is copied is the whole unit)."""
    return [s.strip() for s in _SENTENCE_END.split(unit) if s and s.strip()]
