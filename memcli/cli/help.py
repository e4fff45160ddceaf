"""Each command's help made to teach: the global options it also takes, examples that run,
and placeholders written one way (upper case: TEXT, PATH, N, DATE; choices as [a|b])."""

from __future__ import annotations

from typing import Any

from typer.core import TyperArgument, TyperOption

from memcli.cli.examples import EXAMPLES

# placeholders by parameter name; otherwise by type (N, PATH), else the name in upper case
PLACEHOLDERS = {
    "since": "DATE",
    "until": "DATE",
    "period": "WEEK",
    "session": "KEY",
    "sessions": "PATH",
    "output": "PATH",
    "template": "NAME",
    "summarizer_cmd": "COMMAND",
    "budget": "TOKENS",
    "keep_recent_tokens": "TOKENS",
    "threshold": "SIMILARITY",
    "query": "TEXT",
    "what": "ID|TEXT",
    "files": "FILES",
    "limit": "N",
    "min": "N",
}
HIDDEN_GLOBALS = frozenset({"help", "version", "install_completion", "show_completion"})


class PlainArgument(TyperArgument):
    """An argument shown as `TEXT` (`[PATH]` when optional), not typer's `{text}`."""

    def make_metavar(self, ctx: Any, *, usage: bool = False) -> str:
        var = self.metavar or (self.name or "").upper()
        if self.nargs != 1:
            var += "..."
        return f"[{var}]" if usage and not self.required else var


def _placeholder(param: Any) -> str:
    name = param.name or ""
    if name in PLACEHOLDERS:
        return PLACEHOLDERS[name]
    choices = getattr(param.type, "choices", None)
    if choices:
        return "[" + "|".join(str(getattr(c, "value", c)) for c in choices) + "]"
    kind = type(param.type).__name__.lower()
    if "int" in kind or "float" in kind:
        return "N"
    if "path" in kind:
        return "PATH"
    return name.upper()


def _metavars(command: Any) -> None:
    for param in command.params:
        if isinstance(param, TyperArgument):
            if param.metavar is None:
                param.metavar = _placeholder(param)
            param.__class__ = PlainArgument
        elif isinstance(param, TyperOption) and not (param.is_flag or param.count or param.metavar):
            param.metavar = _placeholder(param)


def examples_text(name: str) -> list[str]:
    found = EXAMPLES.get(name, ())
    width = min(52, max((len(line) for line, _ in found), default=0))
    return [f"{line:<{width}}  # {comment}" if comment else line for line, comment in found]


def teach(command: Any, name: str) -> None:
    """Give `command` (and a group's subcommands) uniform placeholders and a help that ends
    with the global options and the examples."""
    _metavars(command)
    for sub_name, sub in (getattr(command, "commands", None) or {}).items():
        teach(sub, f"{name} {sub_name}")
    own_epilog = command.format_epilog

    def format_epilog(ctx: Any, formatter: Any) -> None:
        root = ctx.find_root()
        records = [
            p.get_help_record(root)
            for p in root.command.get_params(root)
            if p.name not in HIDDEN_GLOBALS and not getattr(p, "hidden", False)
        ]
        records = [r for r in records if r is not None]
        if records:
            with formatter.section("Global options (before or after the command)"):
                formatter.write_dl(records)
        lines = examples_text(name)
        if lines:
            with formatter.section("Examples"):
                for line in lines:
                    formatter.write(f"{'':>{formatter.current_indent}}{line}\n")
        own_epilog(ctx, formatter)

    command.format_epilog = format_epilog
