"""What every command starts from: the workspace, the policy and `now`.

Built once from the global options; passed down explicitly, never global.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, tzinfo
from pathlib import Path

from memcli.cli_options import GlobalOptions
from memcli.clock import parse_now, to_local
from memcli.config import config_path, load_policy
from memcli.core.policy import Policy
from memcli.core.rules import Rules, build_rules
from memcli.errors import UsageError
from memcli.phases import Report, silent
from memcli.workspace.layout import discover
from memcli.workspace.openclaw import STATE_ENV, OpenClaw, agent_workspace, load_openclaw


@dataclass(frozen=True, slots=True)
class Runtime:
    root: Path
    policy: Policy
    now: datetime  # timezone-aware
    config: Path | None
    state_dir: Path | None = None  # OpenClaw's state folder as --state-dir named it (None: not named)
    agent: str | None = None  # the OpenClaw agent --agent chose (None: the workspace's own)
    progress: Report = field(default=silent, compare=False, repr=False)  # phases of long work

    def openclaw(self) -> OpenClaw:
        """OpenClaw's state folder, config and agents (read each time: cheap, and current)."""
        return load_openclaw(self.state_dir)

    @property
    def tz(self) -> tzinfo | None:
        """The configured zone; None means the host's own rules (with its summer time)."""
        return user_timezone(self.policy)

    @property
    def now_local(self) -> datetime:
        """`now` as a naive wall-clock time in the user's zone, the frame entry dates live in."""
        return to_local(self.now, self.tz)

    @property
    def today(self) -> date:
        """Today in the user's time zone: the date of the note being written now."""
        return self.now_local.date()

    @property
    def rules(self) -> Rules:
        return build_rules(self.policy.rules)


def user_timezone(policy: Policy) -> tzinfo | None:
    if policy.timezone:
        import zoneinfo

        return zoneinfo.ZoneInfo(policy.timezone)
    return None


def open_runtime(
    options: GlobalOptions,
    environ: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    home: Path | None = None,
    root: Path | None = None,
    progress: Report = silent,
) -> Runtime:
    env = os.environ if environ is None else environ
    state = Path(os.path.abspath(Path(options.state_dir).expanduser())) if options.state_dir else None
    if root is None:
        home = home or Path.home()
        found = {**env, STATE_ENV: str(state)} if state is not None else env  # its default workspace
        explicit = options.workspace
        if options.agent and not explicit and not env.get("MEMCLI_WORKSPACE"):
            workspace = agent_workspace(load_openclaw(state, env, home), options.agent)
            if not workspace.is_dir():
                raise UsageError(
                    f"the workspace of agent {options.agent!r}, {workspace}, is not a folder",
                    "create it (`memcli init PATH`), or pass -w",
                )
            explicit = str(workspace)
        by_agent = explicit is not None and explicit != options.workspace  # OpenClaw's own folder
        root = discover(explicit, found, cwd or Path.cwd(), home, check=not by_agent)
    path = config_path(options.config, env, root)
    policy = load_policy(path, env)
    source = "--now" if options.now else "MEMCLI_NOW"
    now = parse_now(options.now or env.get("MEMCLI_NOW"), user_timezone(policy), source)
    return Runtime(
        root=root,
        policy=policy,
        now=now,
        config=path,
        state_dir=state,
        agent=options.agent,
        progress=progress,
    )
