"""`memcli doctor`: whether memcli can do its job here, one finding per thing it needs, and
what to do about each problem. It reads only: no lock is taken, no cache or index opened
for writing, nothing created (a workspace without .memcli/ keeps none).

Each finding has a status: `ok`; `info` (worth knowing, nothing to do); `warning` (memcli
works, but something it is for is not done: a schedule, a hook; it has a fix); `problem`
(memcli cannot do its job until it is acted on; it has a fix). Problems make the exit
status 1.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memcli.cli_options import GlobalOptions
from memcli.clock import parse_now
from memcli.config import load_policy
from memcli.core.checks import OPENCLAW_MAX_CHARS
from memcli.core.entries import parse
from memcli.core.inventory import core_budget
from memcli.core.roles import CORE_NAMES, MEMORY_DIR, STATE_DIR, MemoryFile, Role
from memcli.errors import MemcliError
from memcli.runtime import Runtime, open_runtime, user_timezone
from memcli.workspace.files import display, read_text, writable_dir
from memcli.workspace.layout import locate, scan
from memcli.workspace.openclaw import STATE_ENV

STATUSES = ("ok", "info", "warning", "problem")
FIT = "`memcli gc --fit` demotes its least valuable entries to memory/archive/core-cold.md until it fits"
SCHEDULE_FIX = (
    "`memcli schedule` prints the lines to paste into `crontab -e` (`memcli schedule --systemd`: "
    "user timers); or keep `memcli watch` running"
)


@dataclass(frozen=True)
class Finding:
    check: str  # workspace, config, memory, writable, sessions, hook, schedule, timezone, index, cache, state
    status: str  # ok, info, warning, problem
    summary: str
    fix: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "status": self.status,
            "summary": self.summary,
            "fix": self.fix,
            "details": dict(self.details),
        }


@dataclass(frozen=True)
class Diagnosis:
    workspace: str | None
    found_by: str | None
    findings: tuple[Finding, ...]

    def count(self, status: str) -> int:
        return sum(1 for f in self.findings if f.status == status)

    @property
    def ok(self) -> bool:
        return self.count("problem") == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "problems": self.count("problem"),
            "warnings": self.count("warning"),
            "workspace": self.workspace,
            "found_by": self.found_by,
            "checks": [f.to_json() for f in self.findings],
        }


def diagnose(options: GlobalOptions, environ: Mapping[str, str], cwd: Path, home: Path) -> Diagnosis:
    found: list[Finding] = []
    run, how = _runtime(options, environ, cwd, home, found)
    if run is None:
        return Diagnosis(None, how, tuple(found))
    stores = _sessions(run, found)
    found.append(_memory(run))
    found.append(_writable(run))
    found.append(_hook(run))
    found.append(_schedule(run, home, stores))
    found.append(_timezone(run, environ))
    found.append(_index(run))
    found.append(_cache(run))
    found.append(_state(run))
    order = ["workspace", "config", "memory", "writable", "sessions", "hook", "schedule"]
    ranked = sorted(found, key=lambda f: order.index(f.check) if f.check in order else len(order))
    return Diagnosis(str(run.root), how, tuple(ranked))


# --- the workspace and its configuration ----------------------------------------------------


def _runtime(
    options: GlobalOptions, environ: Mapping[str, str], cwd: Path, home: Path, found: list[Finding]
) -> tuple[Runtime | None, str | None]:
    """The runtime (a broken configuration replaced by the defaults, and said), and how the
    workspace was found; None when there is no workspace."""
    named = options.workspace or environ.get("MEMCLI_WORKSPACE")
    try:
        if options.agent and not named:
            root = open_runtime(options, environ, cwd, home).root
            how = f"--agent {options.agent} (its workspace in OpenClaw's config)"
        else:  # OpenClaw's default workspace is in the state folder --state-dir names
            state = {STATE_ENV: str(Path(options.state_dir).expanduser())} if options.state_dir else {}
            root, how = locate(options.workspace, {**environ, **state}, cwd, home)
    except MemcliError as exc:
        found.append(Finding("workspace", "problem", exc.message, exc.hint))
        return None, None
    agents = _agents_of(options, environ, home, root)
    whose = f"; the workspace of OpenClaw agent {', '.join(agents)}" if agents else ""
    found.append(
        Finding(
            "workspace", "ok", f"{root} (from {how}){whose}", details={"path": str(root), "agents": agents}
        )
    )
    try:
        run = open_runtime(options, environ, cwd, home, root=root)
    except MemcliError as exc:
        found.append(Finding("config", "problem", exc.message, exc.hint or "fix memcli.toml"))
        policy = load_policy(None, {})
        now = parse_now(options.now, user_timezone(policy))
        return Runtime(root, policy, now, None, None, options.agent), how
    if run.config is not None:
        found.append(
            Finding("config", "ok", display(run.config, run.root), details={"file": str(run.config)})
        )
    else:
        found.append(Finding("config", "ok", "the defaults (no memcli.toml)", details={"file": None}))
    return run, how


def _agents_of(options: GlobalOptions, environ: Mapping[str, str], home: Path, root: Path) -> list[str]:
    from memcli.workspace.openclaw import load_openclaw

    try:
        return [a.id for a in load_openclaw(options.state_dir, environ, home).agents_of(root)]
    except MemcliError:
        return []


def _memory(run: Runtime) -> Finding:
    name = next((n for n in CORE_NAMES if (run.root / n).is_file()), None)
    if name is None:
        return Finding(
            "memory",
            "warning",
            "no MEMORY.md: nothing is loaded as long-term memory at session start",
            "`memcli init` creates it (and keeps every file that exists); `memcli gc` promotes facts into it",
        )
    try:
        _, text = read_text(run.root / name, run.root, run.policy.max_file_bytes)
    except MemcliError as exc:
        return Finding("memory", "problem", exc.message, exc.hint or f"fix {name}")
    budget = core_budget(MemoryFile(name, Role.CORE, None), parse(text, name), run.policy.core_max_chars)
    details = {
        "file": name,
        "chars": budget.chars,
        "tokens": budget.tokens,
        "budget": budget.limit,
        "used": round(budget.used, 4),
        "openclaw_max_chars": OPENCLAW_MAX_CHARS,
    }
    figures = (
        f"{budget.chars:,} of {budget.limit:,} characters ({budget.used:.0%}), ~{budget.tokens:,} tokens"
    )
    if name != "MEMORY.md":
        figures = f"{name}: {figures}"
    if budget.chars > OPENCLAW_MAX_CHARS:
        return Finding(
            "memory",
            "problem",
            f"{figures}: past the {OPENCLAW_MAX_CHARS:,} OpenClaw loads, so the agent never sees its end",
            FIT,
            details,
        )
    if budget.over:
        return Finding(
            "memory",
            "problem",
            f"{figures}: over its budget (core_max_chars)",
            f"{FIT} (or raise core_max_chars in memcli.toml)",
            details,
        )
    return Finding("memory", "ok", figures, details=details)


def _writable(run: Runtime) -> Finding:
    places = [run.root] + [run.root / n for n in (MEMORY_DIR, *CORE_NAMES) if (run.root / n).exists()]
    shut = [p for p in places if not (writable_dir(p) if p.is_dir() else _writable_file(p))]
    details = {"read_only": [display(p, run.root) or "." for p in shut]}
    if shut:
        names = ", ".join(_place(p, run.root) for p in shut)
        return Finding(
            "writable",
            "problem",
            f"read-only: {names}; gc, add, flush and summarize cannot write",
            f"make it writable (chmod u+w {' '.join(str(p) for p in shut)}), "
            "or run memcli as the agent's user",
            details,
        )
    said = ", ".join(_place(p, run.root) for p in places)
    return Finding("writable", "ok", said, details=details)


def _place(path: Path, root: Path) -> str:
    if path == root:
        return "the workspace"
    return display(path, root) + ("/" if path.is_dir() else "")


def _writable_file(path: Path) -> bool:
    try:
        return bool(os.stat(path).st_mode & 0o222) and os.access(path, os.W_OK)
    except OSError:
        return False


# --- sessions -------------------------------------------------------------------------------


def _sessions(run: Runtime, found: list[Finding]) -> int:
    """The session stores and their sessions; returns how many stores there are."""
    from memcli.flush import overview
    from memcli.workspace.session_store import search_stores

    try:
        openclaw = run.openclaw()
        search = search_stores(run.root, None, openclaw, run.agent)
    except MemcliError as exc:
        found.append(Finding("sessions", "problem", exc.message, exc.hint))
        return 0
    state = {
        "folder": str(openclaw.state),
        "from": openclaw.state_source,
        "exists": openclaw.state.is_dir(),
        "config": str(openclaw.config) if openclaw.config else None,
        "agents": [a.id for a in openclaw.agents],
    }
    stores = [
        {
            "path": str(s.path),
            "kind": s.kind,
            "agent": s.agent,
            "legacy": s.legacy,
        }
        for s in search.stores
    ]
    details: dict[str, Any] = {"openclaw": state, "agents": list(search.agents), "stores": stores}
    if not search.stores:
        where = (
            f"OpenClaw's state folder {openclaw.state} (from {openclaw.state_source}) does not exist"
            if not openclaw.state.is_dir()
            else f"{run.root} is the workspace of no OpenClaw agent in {openclaw.state}"
        )
        found.append(
            Finding(
                "sessions",
                "warning",
                f"no session store: {where}; flush, compact and watch have nothing to work on",
                "point --state-dir (or OPENCLAW_STATE_DIR) at OpenClaw's state folder, or choose the agent "
                "with --agent ID; a workspace without sessions needs none",
                details,
            )
        )
        return 0
    rows, problems = overview(run)
    due = sum(1 for r in rows if r.decision.due)
    details |= {"sessions": len(rows), "due": due, "problems": problems}
    listed = "; ".join(_store_line(run, s.path, s.kind, s.agent, s.legacy) for s in search.stores)
    count = f"{plural(len(rows), 'session')} in {plural(len(stores), 'store')} ({listed})"
    if due:
        count += f"; {due} due for a flush"
    if problems:
        found.append(
            Finding(
                "sessions",
                "warning",
                f"{count}; {plural(len(problems), 'problem')}: {problems[0]}"
                + (" …" if len(problems) > 1 else ""),
                "flush and compact skip such a session with a warning; `memcli status` lists every problem, "
                "`memcli check` checks sessions.json",
                details,
            )
        )
    else:
        found.append(Finding("sessions", "ok", count, details=details))
    return len(stores)


def _store_line(run: Runtime, path: Path, kind: str, agent: str | None, legacy: bool) -> str:
    whose = f"agent {agent}'s" if agent else "the workspace's own"
    what = ", an OpenClaw 2026.8+ database, read only" if kind == "sqlite" else ""
    old = ", legacy: OpenClaw no longer reads it" if legacy else ""
    return f"{display(path, run.root)}, {whose}{what}{old}"


# --- automation -----------------------------------------------------------------------------


def _hook(run: Runtime) -> Finding:
    from memcli.core.automation import hook_script
    from memcli.workspace.githooks import find_repo, is_runnable, kept_backup, read_existing
    from memcli.workspace.health import pre_commit_config

    try:
        repo = find_repo(run.root)
    except MemcliError as exc:
        return Finding(
            "hook",
            "info",
            f"no pre-commit hook (it needs git): {exc.message.split(' (git:')[0]}",
            details={"repository": None},
        )
    try:
        existing = read_existing(repo.hook)
    except MemcliError as exc:
        return Finding("hook", "problem", exc.message, exc.hint, {"repository": str(repo.top)})
    framework = pre_commit_config(repo.top)
    details: dict[str, Any] = {
        "repository": str(repo.top),
        "hook": str(repo.hook),
        "installed": existing.kind,
        "pre_commit_config": str(framework[0]) if framework else None,
        "pre_commit_runs_memcli": bool(framework and framework[1]),
    }
    if framework and framework[1]:
        return Finding("hook", "ok", f"pre-commit runs memcli-check ({framework[0].name})", details=details)
    if existing.kind == "memcli":
        python = existing.info.python
        backup = kept_backup(repo, existing.info.backup)
        current = existing.text == hook_script(
            os.path.abspath(sys.executable), backup.name if backup else None
        )
        details |= {"python": python, "current": current}
        if not is_runnable(python):
            return Finding(
                "hook",
                "problem",
                f"memcli's pre-commit hook runs {python}, which is gone: every commit of a memory file fails",
                "`memcli hook install` writes it again with this memcli",
                details,
            )
        if not current:
            return Finding(
                "hook",
                "warning",
                f"memcli's pre-commit hook ({repo.hook}) is not the one this memcli writes",
                "`memcli hook install` updates it",
                details,
            )
        return Finding("hook", "ok", f"memcli's pre-commit hook: {repo.hook}", details=details)
    if existing.kind == "other":
        return Finding(
            "hook",
            "warning",
            f"{repo.hook} is another pre-commit hook: memory files are committed unchecked",
            "`memcli hook install --force` replaces it (keeping it as pre-commit.memcli-backup), or add "
            "memcli-check to .pre-commit-config.yaml",
            details,
        )
    return Finding(
        "hook",
        "warning",
        f"no pre-commit hook in {repo.top}: a secret in a note could be committed",
        "`memcli hook install` (or memcli-check in .pre-commit-config.yaml)",
        details,
    )


def _schedule(run: Runtime, home: Path, stores: int) -> Finding:
    from memcli.workspace.health import read_crontab, systemd_timers

    root = str(run.root)
    crontab = read_crontab()
    mine = [line for line in crontab.lines if "memcli" in line and _names(line, root)]
    others = [line for line in crontab.lines if "memcli" in line and line not in mine]
    timers = systemd_timers(home)
    my_timers = [t for t in timers if _names(t.service, root)]
    jobs: dict[str, str] = {}  # job -> how it is scheduled
    for line in mine:
        for job in ("gc", "flush", "watch"):
            if re.search(rf"\s{job}(\s|;|$)", line):
                jobs.setdefault(job, "cron")
    disabled = []
    for t in my_timers:
        job = t.name.removeprefix("memcli-").removesuffix(".timer")
        if t.enabled:
            jobs.setdefault(job, "systemd")
        else:
            disabled.append(t.name)
    details = {
        "crontab": crontab.available,
        "cron_lines": mine,
        "timers": [{"name": t.name, "path": str(t.path), "enabled": t.enabled} for t in my_timers],
        "jobs": jobs,
    }
    said = ", ".join(f"{job} ({how})" for job, how in sorted(jobs.items())) or "nothing"
    if disabled:
        return Finding(
            "schedule",
            "warning",
            f"scheduled: {said}; timer(s) {', '.join(disabled)} written but not enabled",
            f"systemctl --user enable --now {' '.join(disabled)}",
            details,
        )
    missing = [job for job in ("gc", "flush") if job not in jobs and not (job == "flush" and "watch" in jobs)]
    if stores == 0 and "flush" in missing:
        missing.remove("flush")  # no sessions: nothing to flush
    if "gc" in missing and "watch" in jobs:
        missing.remove("gc")  # watch runs a light gc every few turns
    if missing:
        where = "no crontab command" if not crontab.available else f"{plural(len(mine), 'memcli cron line')}"
        elsewhere = f" ({len(others)} for other workspaces)" if others else ""
        why = "MEMORY.md and the notes are never tidied" if "gc" in missing else "sessions are never flushed"
        return Finding(
            "schedule",
            "warning",
            f"nothing runs {' or '.join(missing)} for this workspace ({where}{elsewhere}, "
            f"{plural(len(my_timers), 'memcli timer')}): {why}",
            SCHEDULE_FIX,
            details,
        )
    return Finding("schedule", "ok", f"scheduled: {said}", details=details)


def _names(text: str, root: str) -> bool:
    """Whether a cron line or a unit names the workspace (quoted or not)."""
    return any(form in text for form in (root, f"'{root}'", f'"{root}"'))


def _timezone(run: Runtime, environ: Mapping[str, str]) -> Finding:
    from memcli.workspace.health import host_timezone

    if run.policy.timezone:
        source = "MEMCLI_TIMEZONE" if environ.get("MEMCLI_TIMEZONE") else "memcli.toml"
        zone = run.policy.timezone
    else:
        source, zone = "the host's", host_timezone()
    today = run.today
    ahead = sorted(
        f.rel
        for f in scan(run.root, lenient=True).files
        if f.role in (Role.DAILY, Role.DAILY_SLUG) and f.date is not None and f.date > today
    )
    local = run.now_local
    details = {"zone": zone, "source": source, "now": run.now.isoformat(), "today": today.isoformat()}
    said = f"{zone} ({source}); today is {today.isoformat()}, {local:%H:%M}"
    if ahead:
        return Finding(
            "timezone",
            "warning",
            f"{said}; {plural(len(ahead), 'daily note')} dated after today ({ahead[0]}): "
            "is the time zone the user's?",
            'set timezone = "Area/City" (the user\'s IANA zone) in memcli.toml',
            details | {"ahead": ahead},
        )
    return Finding("timezone", "ok", said, details=details)


# --- memcli's own state ---------------------------------------------------------------------


def _index(run: Runtime) -> Finding:
    from memcli.workspace.index import index_state

    state = index_state(run.root, run.policy.max_file_bytes)
    details = {
        "file": f"{STATE_DIR}/index.sqlite",
        "exists": state.exists,
        "bytes": state.size,
        "current": state.current,
        "fresh": state.fresh,
        "entries": state.entries,
        "files": state.files,
    }
    if not state.exists:
        return Finding(
            "index", "info", "not built yet: the first search, context or entities builds it", None, details
        )
    if state.problem is not None:
        return Finding(
            "index",
            "warning",
            f"{STATE_DIR}/index.sqlite cannot be read ({state.problem})",
            f"delete {STATE_DIR}/index.sqlite (a cache: the next search builds it again)",
            details,
        )
    if not state.current:
        return Finding(
            "index", "info", "made by another memcli: the next search builds it again", None, details
        )
    size = f"{state.entries:,} entries of {state.files:,} files, {_size(state.size)}"
    if state.fresh is False:
        return Finding(
            "index", "info", f"{size}; files changed since: the next search re-reads them", None, details
        )
    return Finding("index", "ok", f"{size}, up to date", details=details)


def _cache(run: Runtime) -> Finding:
    from memcli.workspace.cache import cache_state
    from memcli.workspace.memo_store import memo_stamp, memo_state

    state = cache_state(run.root, run.policy.rules)
    memo_tables, memo_bytes = memo_state(run.root, memo_stamp(run.policy))
    details = {
        "file": f"{STATE_DIR}/cache.sqlite",
        "exists": state.exists,
        "bytes": state.size,
        "notes": state.notes,
        "other": state.other,
        "memo_tables": memo_tables,  # what the judgement worked out, for the next run (core.memo)
        "memo_bytes": memo_bytes,
    }
    if not state.exists:
        why = "" if (run.root / STATE_DIR).is_dir() else f" (memcli keeps it only once a {STATE_DIR}/ exists)"
        return Finding("cache", "info", f"none yet{why}: list, dedupe and gc fill it", None, details)
    if state.problem is not None:
        return Finding(
            "cache",
            "warning",
            f"{STATE_DIR}/cache.sqlite cannot be read ({state.problem})",
            f"delete {STATE_DIR}/cache.sqlite (a cache: it is never needed)",
            details,
        )
    other = (
        f"; {state.other:,} of another memcli or other rules, dropped by the next list or gc"
        if state.other
        else ""
    )
    memo = f"; the judgement's memo: {memo_tables} tables, {_size(memo_bytes)}" if memo_tables else ""
    return Finding(
        "cache", "ok", f"{state.notes:,} notes cached, {_size(state.size)}{memo}{other}", details=details
    )


def _state(run: Runtime) -> Finding:
    from memcli.workspace.health import lock_state, pending_transactions

    lock = lock_state(run.root)
    pending = pending_transactions(run.root)
    details = {
        "lock": "held" if lock.held else ("stale" if lock.stale else "free"),
        "holder": lock.holder,
        "unfinished": [{"transaction": p.tx, "state": p.state, "command": p.command} for p in pending],
    }
    if pending and not lock.held:
        first = pending[0]
        return Finding(
            "state",
            "problem",
            f"{plural(len(pending), 'unfinished transaction')} ({first.tx}, `memcli {first.command}`, "
            f"{first.state}): "
            "a run was stopped half way",
            "run `memcli gc --dry-run` to see the plan, then `memcli gc`: a writing run first finishes or "
            "rolls back what was left",
            details,
        )
    if lock.held:
        return Finding("state", "info", f"the workspace lock is held by {lock.holder}", None, details)
    if lock.stale:
        return Finding(
            "state",
            "info",
            f"the lock names {lock.holder}, which no longer runs: the next writing run takes it over",
            None,
            details,
        )
    return Finding("state", "ok", "no run under way, no unfinished transaction", details=details)


def plural(n: int, word: str) -> str:
    if n == 0:
        return f"no {word}"
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MB" if n >= 1 << 20 else f"{max(1, round(n / 1024))} KB"
