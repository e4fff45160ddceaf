"""Where OpenClaw keeps its agents, their workspaces and their sessions (SPEC §1).

The state folder is `--state-dir`, else `$OPENCLAW_STATE_DIR`, else `~/.openclaw`. Its
agents are those `openclaw.json` lists (`agents.list[]`, each with its `workspace`) and
those that have a folder under `agents/`. An agent's workspace is the one its entry
names, else the default: `agents.defaults.workspace` when set (the main agent's; another
agent's is `<that>/<agentId>`), else `<state>/workspace` for `main` and
`<state>/workspace-<agentId>` for the others, as OpenClaw resolves them. The config is
`$OPENCLAW_CONFIG_PATH`, else `<state>/openclaw.json`; it is JSON5 (comments, trailing
commas, unquoted keys, single quotes), which `parse_json5` reads.

A workspace sees the sessions of the agents whose workspace it is, and of no other:
OpenClaw runs each agent in its own workspace, and one agent's notes are not another's.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.errors import DataError, UsageError

STATE_ENV = "OPENCLAW_STATE_DIR"
CONFIG_ENV = "OPENCLAW_CONFIG_PATH"
CONFIG_NAME = "openclaw.json"
MAIN = "main"
SQLITE_NAME = "openclaw-agent.sqlite"
STORE_NAME = "sessions.json"
MAX_CONFIG_BYTES = 4 << 20

_VALID_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}", re.IGNORECASE)
_INVALID = re.compile(r"[^a-z0-9_-]+")


@dataclass(frozen=True, slots=True)
class Agent:
    id: str
    workspace: Path  # absolute, not resolved through links
    source: str  # where the workspace comes from: "openclaw.json" or "default"
    folder: Path  # <state>/agents/<id>

    @property
    def sessions_dir(self) -> Path:
        return self.folder / "sessions"

    @property
    def store(self) -> Path:
        """OpenClaw's JSON store (up to 2026.7; a stale migration input after)."""
        return self.sessions_dir / STORE_NAME

    @property
    def database(self) -> Path:
        """OpenClaw's per-agent SQLite database (2026.8 and later)."""
        return self.folder / "agent" / SQLITE_NAME


@dataclass(frozen=True, slots=True)
class OpenClaw:
    state: Path
    state_source: str  # "--state-dir", "$OPENCLAW_STATE_DIR" or "~/.openclaw"
    config: Path | None  # the config file read; None when there is none
    agents: tuple[Agent, ...]

    def agent(self, agent_id: str) -> Agent | None:
        wanted = normalise_agent_id(agent_id)
        return next((a for a in self.agents if a.id == wanted), None)

    def agents_of(self, workspace: Path) -> list[Agent]:
        """The agents whose workspace `workspace` is (links resolved on both sides)."""
        real = _real(workspace)
        return [a for a in self.agents if _real(a.workspace) == real]

    def describe_agents(self) -> str:
        """`main → /path, ops → /path` (for messages)."""
        return ", ".join(f"{a.id} → {a.workspace}" for a in self.agents) or "none"


def _real(path: Path) -> str:
    return os.path.realpath(path)


def normalise_agent_id(value: str) -> str:
    """An agent id as OpenClaw stores it: lower case, other characters folded to "-"."""
    text = value.strip()
    if _VALID_ID.fullmatch(text):
        return text.lower()
    folded = _INVALID.sub("-", text.lower()).strip("-")[:64]
    return folded or MAIN


def state_folder(explicit: str | Path | None, environ: Mapping[str, str], home: Path) -> tuple[Path, str]:
    """OpenClaw's state folder and where it came from: --state-dir, $OPENCLAW_STATE_DIR,
    else ~/.openclaw."""
    if explicit:
        return Path(os.path.abspath(Path(explicit).expanduser())), "--state-dir"
    named = environ.get(STATE_ENV, "").strip()
    if named:
        return Path(os.path.abspath(_expand(named, home))), f"${STATE_ENV}"
    return home / ".openclaw", "~/.openclaw"


def _expand(text: str, home: Path) -> Path:
    if text == "~" or text.startswith("~/"):
        return home / text[2:]
    return Path(text).expanduser()


def config_path(state: Path, environ: Mapping[str, str], home: Path) -> Path:
    named = environ.get(CONFIG_ENV, "").strip()
    return Path(os.path.abspath(_expand(named, home))) if named else state / CONFIG_NAME


def load_openclaw(
    explicit: str | Path | None = None,
    environ: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> OpenClaw:
    """OpenClaw's state folder, its config and its agents. A config that cannot be read is
    bad data (exit 3): without it memcli cannot tell whose workspace is whose."""
    env = os.environ if environ is None else environ
    home = Path.home() if home is None else home
    state, source = state_folder(explicit, env, home)
    config_file = config_path(state, env, home)
    config: dict[str, Any] = {}
    used: Path | None = None
    if config_file.is_file():
        config = read_config(config_file)
        used = config_file
    return OpenClaw(state, source, used, tuple(_agents(state, config, config_file.parent, home)))


def read_config(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise DataError(
            f"{path} cannot be read ({exc.strerror or exc})",
            "memcli needs it to tell whose workspace is whose",
        ) from None
    if len(data) > MAX_CONFIG_BYTES:
        raise DataError(f"{path} is over {MAX_CONFIG_BYTES >> 20} MiB: not an OpenClaw config")
    try:
        text = data.decode("utf-8-sig")
        value = parse_json5(text)
    except UnicodeDecodeError:
        raise DataError(f"{path} is not UTF-8 text", "fix it with `openclaw doctor`") from None
    except ValueError as exc:
        raise DataError(
            f"{path} is not JSON5 memcli can read ({exc})",
            "fix it (or check it with `openclaw doctor`); memcli needs it to tell whose workspace is whose",
        ) from None
    if not isinstance(value, dict):
        raise DataError(f"{path} is not a JSON object", "fix it with `openclaw doctor`")
    return value


def _agents(state: Path, config: Mapping[str, Any], base: Path, home: Path) -> list[Agent]:
    agents_section = config.get("agents")
    section: Mapping[str, Any] = agents_section if isinstance(agents_section, dict) else {}
    defaults = section.get("defaults")
    default_workspace = defaults.get("workspace") if isinstance(defaults, dict) else None
    fallback = _path(default_workspace, base, home)
    listed: dict[str, Agent] = {}
    entries = section.get("list")
    for entry in entries if isinstance(entries, list) else []:
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str) or not entry["id"].strip():
            continue
        agent_id = normalise_agent_id(entry["id"])
        if agent_id in listed:
            continue
        configured = _path(entry.get("workspace"), base, home)
        if configured is not None:
            listed[agent_id] = Agent(agent_id, configured, "openclaw.json", state / "agents" / agent_id)
        else:
            listed[agent_id] = _default(state, agent_id, fallback)
    found = dict(listed)
    folder = state / "agents"
    try:
        names = sorted(p.name for p in folder.iterdir() if p.is_dir())
    except OSError:
        names = []
    for name in names:
        agent_id = normalise_agent_id(name)
        if agent_id == name and agent_id not in found:
            found[agent_id] = _default(state, agent_id, fallback)
    return sorted(found.values(), key=lambda a: (a.id != MAIN, a.id))


def _default(state: Path, agent_id: str, fallback: Path | None) -> Agent:
    if fallback is not None:
        workspace = fallback if agent_id == MAIN else fallback / agent_id
    else:
        workspace = state / ("workspace" if agent_id == MAIN else f"workspace-{agent_id}")
    return Agent(agent_id, workspace, "default", state / "agents" / agent_id)


def _path(value: Any, base: Path, home: Path) -> Path | None:
    if not isinstance(value, str) or not value.strip() or "\x00" in value:
        return None
    path = _expand(value.strip(), home)
    return Path(os.path.abspath(path if path.is_absolute() else base / path))


def agent_workspace(openclaw: OpenClaw, agent_id: str) -> Path:
    """The workspace of agent `agent_id` (for `--agent ID` without -w): UsageError when
    OpenClaw has no such agent."""
    agent = openclaw.agent(agent_id)
    if agent is None:
        raise no_such_agent(openclaw, agent_id)
    return agent.workspace


def no_such_agent(openclaw: OpenClaw, agent_id: str) -> UsageError:
    return UsageError(
        f"OpenClaw has no agent {agent_id!r} in {openclaw.state} (agents: {openclaw.describe_agents()})",
        "name one of them, or point --state-dir at the right OpenClaw",
    )


# --- JSON5 -------------------------------------------------------------------------------------

_JSON5_TOKEN = re.compile(
    r"""
    (?P<space>(?:\s|//[^\n]*|/\*.*?\*/)+)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<number>[+-]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|Infinity|NaN))
  | (?P<word>[A-Za-z_$][\w$]*)
  | (?P<punct>[{}\[\]:,])
    """,
    re.VERBOSE | re.DOTALL,
)


def parse_json5(text: str) -> Any:
    """JSON5 as OpenClaw's config uses it: comments, trailing commas, unquoted keys,
    single-quoted strings, hexadecimal numbers. Plain JSON is read by json itself.
    ValueError (naming the line) for anything else."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    out: list[str] = []
    pos = 0
    while pos < len(text):
        m = _JSON5_TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"line {text.count(chr(10), 0, pos) + 1}: unexpected {text[pos]!r}")
        kind, token = m.lastgroup, m.group()
        pos = m.end()
        if kind == "space":
            continue
        if kind == "string" and token.startswith("'"):
            token = json.dumps(_single_quoted(token[1:-1]))
        elif kind == "string":
            token = token.replace("\\\n", "")  # a line continuation
        elif kind == "number":
            token = _number(token)
        elif kind == "word":
            if token in ("true", "false", "null"):
                pass
            else:
                token = json.dumps(token)  # an unquoted key
        elif kind == "punct" and token in "}]" and out and out[-1] == ",":
            out.pop()  # a trailing comma
        out.append(token)
    try:
        return json.loads("".join(out))
    except ValueError as exc:
        raise ValueError(str(exc)) from None


def _single_quoted(body: str) -> str:
    return str(json.loads('"' + body.replace("\\'", "'").replace('"', '\\"').replace("\\\n", "") + '"'))


def _number(token: str) -> str:
    sign = ""
    if token[0] in "+-":
        sign, token = ("-" if token[0] == "-" else ""), token[1:]
    if token.lower().startswith("0x"):
        return sign + str(int(token, 16))
    if token in ("Infinity", "NaN"):
        raise ValueError(f"{token} is not a value memcli reads in a config")
    if token.startswith("."):
        token = "0" + token
    if token.endswith("."):
        token += "0"
    return sign + token
