"""Configuration: defaults < memcli.toml < MEMCLI_* variables < flags (SPEC §12).

The result is a frozen `Policy` handed down to every function that needs it;
nothing reads settings from a global. Unknown keys are errors that name them,
so a typo never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memcli.errors import ConfigError
from memcli.workspace.files import read_config_text

CONFIG_NAME = "memcli.toml"
ENV_PREFIX = "MEMCLI_"
# MEMCLI_* variables that are options of the command line, not policy keys.
ENV_OPTIONS = frozenset({"MEMCLI_WORKSPACE", "MEMCLI_CONFIG", "MEMCLI_NOW"})

MiB = 1 << 20


def _key(default: Any, doc: str, minimum: float | None = 0, maximum: float | None = None) -> Any:
    return field(default=default, metadata={"doc": doc, "min": minimum, "max": maximum})


@dataclass(frozen=True)
class Policy:
    half_life_days: float = _key(30.0, "days for an entry's importance to halve (decay)", 0.001)
    stale_below: float = _key(1.0, "an entry is stale when its decayed score falls below this")
    short_term_days: int = _key(7, "the short-term window; older daily notes get summarised")
    core_unused_days: int = _key(30, "a MEMORY.md entry not mentioned for this long is demoted")
    task_archive_hours: float = _key(24.0, "a finished task note is archived this long after done")
    promote_score: float = _key(5.0, "score from which an entry belongs in MEMORY.md (L4 core)")
    task_score: float = _key(2.0, "score from which an entry is task memory (L3)")
    session_score: float = _key(0.0, "score from which an entry is session memory (L2)", None)
    promote_mentions: int = _key(3, "days a fact must be mentioned on to be promoted", 1)
    promote_tasks: int = _key(3, "tasks that must reference a fact for it to be promoted", 1)
    dedupe_threshold: float = _key(0.80, "similarity (0-1) from which two entries are duplicates", 0.01, 1)
    core_max_chars: int = _key(12_000, "MEMORY.md budget in characters (OpenClaw's smallest cap)", 1)
    max_removal_share: float = _key(0.25, "a plan removing more of a file's entries needs --force", 0, 1)
    context_window: int = _key(200_000, "the model's context window when a session does not say", 1)
    reserve_tokens_floor: int = _key(20_000, "tokens kept free for the reply (flush threshold)")
    soft_threshold_tokens: int = _key(4_000, "flush this many tokens before the reserve is reached")
    reserve_tokens: int = _key(20_000, "compaction starts when context exceeds window minus this")
    keep_recent_tokens: int = _key(20_000, "tokens of recent transcript compaction keeps verbatim")
    force_flush_transcript_bytes: int = _key(2 * MiB, "a transcript this large is flushed anyway")
    gc_every_turns: int = _key(10, "watch: run a light gc every this many turns", 1)
    summary_every_turns: int = _key(20, "summarise long conversations every this many turns", 1)
    timezone: str = _key("", "IANA time zone of the user's dates; empty means the host's", None)
    open_days: int = _key(2, "today's and yesterday's notes are only appended to (2 = both)")
    max_file_bytes: int = _key(10 * MiB, "notes larger than this are refused as bad input", 1)
    lock_timeout_seconds: float = _key(10.0, "how long to wait for another memcli to finish")

    def replace(self, **changes: Any) -> Policy:
        return validate(dataclasses.replace(self, **changes), "flags")


POLICY_FIELDS = {f.name: f for f in dataclasses.fields(Policy)}


def _coerce(name: str, value: Any, source: str) -> Any:
    default = POLICY_FIELDS[name].default
    where = f"{source}: {name}"
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, got {value!r}")
        return value
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where} must be a number, got {value!r}")
    if isinstance(default, int):
        if isinstance(value, float) and not value.is_integer():
            raise ConfigError(f"{where} must be a whole number, got {value!r}")
        return int(value)
    return float(value)


def _from_env_text(name: str, text: str, source: str) -> Any:
    default = POLICY_FIELDS[name].default
    if isinstance(default, str):
        return text
    try:
        return float(text) if "." in text or "e" in text.lower() else int(text)
    except ValueError:
        raise ConfigError(f"{source} must be a number, got {text!r}") from None


def validate(policy: Policy, source: str) -> Policy:
    for name, f in POLICY_FIELDS.items():
        value = getattr(policy, name)
        if isinstance(value, str):
            continue
        low, high = f.metadata["min"], f.metadata["max"]
        if low is not None and value < low:
            raise ConfigError(f"{source}: {name} must be at least {low}, got {value}")
        if high is not None and value > high:
            raise ConfigError(f"{source}: {name} must be at most {high}, got {value}")
    if policy.timezone:
        import zoneinfo

        try:
            zoneinfo.ZoneInfo(policy.timezone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise ConfigError(
                f"{source}: timezone {policy.timezone!r} is not a known IANA time zone",
                "use a name such as Asia/Shanghai or Europe/Berlin",
            ) from None
    return policy


def _unknown(names: list[str], source: str) -> ConfigError:
    listed = ", ".join(sorted(names))
    return ConfigError(
        f"{source}: unknown setting{'s' if len(names) > 1 else ''} {listed}",
        f"known keys are listed by `memcli init` in {CONFIG_NAME}",
    )


def values_from_toml(text: str, source: str) -> dict[str, Any]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source} is not valid TOML: {exc}", "fix the line it names") from None
    unknown = [k for k in data if k not in POLICY_FIELDS]
    if unknown:
        raise _unknown(unknown, source)
    return {k: _coerce(k, v, source) for k, v in data.items()}


def values_from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    unknown = []
    for var, text in environ.items():
        if not var.startswith(ENV_PREFIX) or var in ENV_OPTIONS:
            continue
        name = var[len(ENV_PREFIX) :].lower()
        if name not in POLICY_FIELDS:
            unknown.append(var)
            continue
        values[name] = _coerce(name, _from_env_text(name, text, var), "environment")
    if unknown:
        raise _unknown(unknown, "environment")
    return values


def config_path(explicit: str | None, environ: Mapping[str, str], workspace: Path | None) -> Path | None:
    """--config, then MEMCLI_CONFIG, then memcli.toml in the workspace if present."""
    named = explicit or environ.get("MEMCLI_CONFIG")
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            raise ConfigError(f"config file {named} does not exist")
        return path
    if workspace is not None and (workspace / CONFIG_NAME).is_file():
        return workspace / CONFIG_NAME
    return None


def load_policy(
    path: Path | None,
    environ: Mapping[str, str],
    overrides: Mapping[str, Any] | None = None,
) -> Policy:
    values: dict[str, Any] = {}
    if path is not None:
        values.update(values_from_toml(read_config_text(path), path.name))
    values.update(values_from_env(environ))
    policy = validate(Policy(**values), "configuration")
    if overrides:
        policy = policy.replace(**overrides)
    return policy


def default_toml() -> str:
    """memcli.toml as `memcli init` writes it: every key, commented, at its default."""
    lines = [
        "# memcli configuration. Every key is shown at its default; uncomment to change.",
        "# Precedence: defaults < this file < MEMCLI_<KEY> variables < command-line flags.",
        "",
    ]
    for name, f in POLICY_FIELDS.items():
        value = f.default
        shown = f'"{value}"' if isinstance(value, str) else repr(value)
        lines.append(f"# {f.metadata['doc']}")
        lines.append(f"# {name} = {shown}")
        lines.append("")
    return "\n".join(lines)
