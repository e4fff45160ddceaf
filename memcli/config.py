"""Configuration: defaults < memcli.toml < MEMCLI_* variables < flags (SPEC §12).

The result is a frozen `Policy` handed down to every function that needs it;
nothing reads settings from a global. Unknown keys are errors that name them,
so a typo never silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import math
import reprlib
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memcli.core.policy import POLICY_FIELDS, Policy
from memcli.core.rules import SIGNAL_NAMES, RuleOverride
from memcli.errors import ConfigError
from memcli.workspace.files import read_config_text

CONFIG_NAME = "memcli.toml"
ENV_PREFIX = "MEMCLI_"
# MEMCLI_* variables that are options of the command line, not policy keys.
ENV_OPTIONS = frozenset({"MEMCLI_WORKSPACE", "MEMCLI_CONFIG", "MEMCLI_NOW", "MEMCLI_PAGER"})


def _coerce(name: str, value: Any, where: str) -> Any:
    """One setting checked and converted; `where` names it as the user wrote it."""
    f = POLICY_FIELDS[name]
    default = f.default
    if isinstance(default, tuple):
        if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v.strip() for v in value):
            raise ConfigError(f"{where} must be a list of non-empty strings, got {_brief(value)}")
        return tuple(v.strip() for v in value)
    if isinstance(default, str):
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, got {_brief(value)}")
        if name == "timezone" and value:
            _check_timezone(value, where)
        choices = f.metadata.get("choices")
        if choices and value not in choices:
            raise ConfigError(f"{where} must be one of {', '.join(repr(c) for c in choices)}, got {value!r}")
        return value
    _check_number(value, where)
    given = value
    if isinstance(default, int):
        if isinstance(value, float) and not value.is_integer():
            raise ConfigError(f"{where} must be a whole number, got {value!r}")
        value = int(value)
    else:
        value = float(value)
    low, high = f.metadata["min"], f.metadata["max"]
    if low is not None and value < low:
        raise ConfigError(f"{where} must be at least {_shown(low)}, got {given!r}")
    if high is not None and value > high:
        raise ConfigError(f"{where} must be at most {_shown(high)}, got {given!r}")
    return value


_BRIEF = reprlib.Repr()
_BRIEF.maxlevel, _BRIEF.maxlist, _BRIEF.maxdict, _BRIEF.maxstring, _BRIEF.maxother = 3, 6, 6, 80, 80


def _brief(value: Any) -> str:
    """A value of the wrong type, shown in an error: a few levels and items of it, not a
    whole nested array (which TOML allows hundreds of levels deep)."""
    return _BRIEF.repr(value)


def _shown(bound: float) -> str:
    """A bound as a user would write it: 86400, not 86400.0; 0.001 stays 0.001."""
    return str(int(bound)) if float(bound).is_integer() else str(bound)


def _check_number(value: Any, where: str) -> None:
    """A number that TOML, a variable or a flag gave: not a boolean, never nan or ±inf."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ConfigError(f"{where} must be a number, got {_brief(value)}")
    if not math.isfinite(value):
        raise ConfigError(f"{where} must be a finite number, got {value}")


def _check_timezone(name: str, where: str) -> None:
    import zoneinfo

    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"{where}: {name!r} is not a known IANA time zone",
            "use a name such as Asia/Shanghai or Europe/Berlin",
        ) from None


def _from_env_text(name: str, text: str, var: str) -> Any:
    default = POLICY_FIELDS[name].default
    if isinstance(default, str):
        return text
    if isinstance(default, tuple):  # MEMCLI_ARCHIVE_GLOBS="memory/projects/*.md,memory/p0/*.md"
        return [part for part in text.split(",") if part.strip()]
    try:
        return float(text) if "." in text or "e" in text.lower() or "n" in text.lower() else int(text)
    except ValueError:
        raise ConfigError(f"{var} must be a number, got {text!r}") from None


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
        # tomllib says where: "(at line L, column C)", or "(at end of document)" when the file
        # stops in the middle of a setting or a table header.
        hint = (
            "fix the line it names" if "(at line " in str(exc) else "complete or remove the file's last line"
        )
        raise ConfigError(f"{source} is not valid TOML: {exc}", hint) from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise ConfigError(
            f"{source} nests its arrays or tables too deeply to be read",
            "no setting needs more than a few levels",
        ) from None
    unknown = [k for k in data if k not in POLICY_FIELDS and k != "rules"]
    if unknown:
        raise _unknown(unknown, source)
    values = {k: _coerce(k, v, f"{source}: {k}") for k, v in data.items() if k != "rules"}
    if "rules" in data:
        values["rules"] = rule_overrides(data["rules"], source)
    return values


RULE_KEYS = ("points", "cues", "add")
MAX_RULE_POINTS = 100  # a score is 0-10: a signal worth more than this cannot be meant


def rule_overrides(table: Any, source: str) -> tuple[RuleOverride, ...]:
    """`[rules.<signal>]` tables: points, cues (replace the list) and add (extend it)."""
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: rules must be a table of [rules.<signal>] tables")
    unknown = [k for k in table if k not in SIGNAL_NAMES]
    if unknown:
        raise ConfigError(
            f"{source}: unknown rule signal{'s' if len(unknown) > 1 else ''} {', '.join(sorted(unknown))}",
            f"signals are {', '.join(SIGNAL_NAMES)}",
        )
    out = []
    for name, spec in table.items():
        where = f"{source}: rules.{name}"
        if not isinstance(spec, dict):
            raise ConfigError(f"{where} must be a table with {', '.join(RULE_KEYS)}")
        bad = [k for k in spec if k not in RULE_KEYS]
        if bad:
            raise ConfigError(f"{where}: unknown key{'s' if len(bad) > 1 else ''} {', '.join(sorted(bad))}")
        points = spec.get("points")
        if points is not None:
            _check_number(points, f"{where}.points")
            if abs(points) > MAX_RULE_POINTS:
                raise ConfigError(
                    f"{where}.points must be within ±{MAX_RULE_POINTS}, got {points!r}",
                    "an entry's score runs from 0 to 10",
                )
        lists = {}
        for key in ("cues", "add"):
            value = spec.get(key)
            if value is not None and (
                not isinstance(value, list) or not all(isinstance(c, str) and c for c in value)
            ):
                raise ConfigError(f"{where}.{key} must be a list of non-empty strings")
            lists[key] = tuple(value) if value is not None else None
        out.append(
            RuleOverride(
                name,
                None if points is None else float(points),
                lists["cues"],
                lists["add"] or (),
            )
        )
    return tuple(out)


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
        values[name] = _coerce(name, _from_env_text(name, text, var), var)
    if unknown:
        raise _unknown(unknown, "environment")
    return values


def config_path(explicit: str | None, environ: Mapping[str, str], workspace: Path | None) -> Path | None:
    """--config, then MEMCLI_CONFIG, then memcli.toml in the workspace if present."""
    named = explicit or environ.get("MEMCLI_CONFIG")
    if named:
        path = Path(named).expanduser()
        if path.is_dir():
            raise ConfigError(f"config file {named} is a folder", "name the memcli.toml file itself")
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
    policy = Policy(**values)
    if overrides:
        policy = with_flags(policy, overrides)
    return policy


def with_flags(policy: Policy, overrides: Mapping[str, Any]) -> Policy:
    """Command-line flags over everything else, checked like the file's values."""
    checked = {k: _coerce(k, v, f"--{k.replace('_', '-')}") for k, v in overrides.items()}
    return dataclasses.replace(policy, **checked)


def default_toml() -> str:
    """memcli.toml as `memcli init` writes it: every key, commented, at its default."""
    lines = [
        "# memcli configuration. Every key is shown at its default; uncomment to change.",
        "# Precedence: defaults < this file < MEMCLI_<KEY> variables < command-line flags.",
        "",
    ]
    for name, f in POLICY_FIELDS.items():
        value = f.default
        if isinstance(value, str):
            shown = f'"{value}"'
        elif isinstance(value, tuple):
            shown = "[" + ", ".join(f'"{v}"' for v in value) + "]"
        else:
            shown = repr(value)
        lines.append(f"# {f.metadata['doc']}")
        lines.append(f"# {name} = {shown}")
        lines.append("")
    lines += [
        "# Scoring rules: change a signal's points, replace its cues, or add cues.",
        f"# Signals: {', '.join(SIGNAL_NAMES)}.",
        "# [rules.preference]",
        "# points = 3",
        '# add = ["我倾向", "I tend to"]',
        "",
    ]
    return "\n".join(lines)
