"""Examples shown at the end of each command's help. tests/test_cli_help.py runs every one
of them (but the watching daemon) on a copy of sample-workspace/, so they stay true."""

from __future__ import annotations

# command (as typed after `memcli`, "hook install" for a subcommand) -> (line, comment)
EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "init": (
        ("memcli init", "the current folder"),
        ("memcli init ~/agent", "a new workspace"),
    ),
    "status": (
        ("memcli status", ""),
        ("memcli -w ~/.openclaw/workspace status", "OpenClaw's default workspace"),
        ("memcli status --json", ""),
    ),
    "doctor": (
        ("memcli doctor", "exit 1 when a problem needs action"),
        ("memcli -w ~/.openclaw/workspace doctor", "OpenClaw's default workspace"),
        ("memcli doctor --json", ""),
    ),
    "add": (
        ('memcli add "我习惯用 pnpm，不要用 npm"', "to memory/<today>.md"),
        ('memcli add --pin "never force-push to main"', "never decays"),
        ('memcli add --importance 8 "the staging database is db-stg-2"', ""),
        ('echo "remember: the VPN needs 2FA" | memcli add -', "from stdin"),
    ),
    "score": (
        ('memcli score "我是 Windows 系统，路径记得处理反斜杠"', "5, core"),
        ('memcli score "ok, got it"', "-1, discard"),
        ('memcli score --kind task "[ ] renew the TLS certificate"', ""),
    ),
    "list": (
        ("memcli list --since 2026-10-01 --tier core", ""),
        ("memcli list --sort decayed -n 20", "the 20 liveliest"),
        ("memcli list --stale", "what gc would let go"),
        ("memcli list --file 'memory/2026-10-*' --json", ""),
    ),
    "dedupe": (
        ("memcli dedupe", ""),
        ("memcli dedupe --threshold 0.9 --json", "only near-identical copies"),
    ),
    "gc": (
        ("memcli gc --dry-run", "the plan; nothing changes"),
        ("memcli gc --diff", "the plan as unified diffs"),
        ("memcli gc", "apply it, as one transaction"),
        ("memcli undo", "and take it back"),
        ("memcli gc --fit", "also bring MEMORY.md within core_max_chars"),
    ),
    "summarize": (
        ("memcli summarize --period 2026-W43 --output -", "a week, to stdout"),
        ("memcli summarize --since 2026-10-01 --until 2026-10-07", "to memory/summaries/"),
        ("memcli summarize --session agent:main:main --output -", "a session"),
    ),
    "flush": (
        ("memcli flush --dry-run", "what would be written"),
        ("memcli flush", "the sessions that are due"),
        ("memcli flush --session agent:main:main --force", "one session, due or not"),
    ),
    "compact": (
        ("memcli compact --dry-run", ""),
        ("memcli compact --session agent:main:main --force --dry-run", ""),
    ),
    "search": (
        ("memcli search 周会", ""),
        ('memcli search "port 8080" -n 3', "the 3 best hits"),
        ("memcli search 部署 --json", ""),
    ),
    "context": (
        ("memcli context", "at session start"),
        ("memcli context --budget 1500 --query 部署", "about deploying, within 1,500 tokens"),
    ),
    "entities": (
        ("memcli entities", ""),
        ("memcli entities --kind person -n 5", ""),
    ),
    "check": (
        ("memcli check", "the whole workspace"),
        ("memcli check memory/2026-10-30.md", "one note"),
        ("memcli check --staged", "what the next commit holds"),
        ("memcli check --fix", "remove exact copies (undoable)"),
    ),
    "undo": (
        ("memcli undo", "the last gc, restore or summarize"),
        ("memcli undo --force", "even over files changed since"),
    ),
    "restore": (
        ('memcli restore "got it"', "by words of its text"),
        ("memcli show 'got it'", "its history, and its id"),
    ),
    "purge": (
        ("memcli purge --older-than 90 --dry-run", "what would go"),
        ("memcli purge --older-than 90", ""),
    ),
    "show": (
        ('memcli show "got it"', "by words of its text"),
        ("memcli show 8694b762b1", "by its id (the id column of `memcli list`)"),
    ),
    "watch": (
        ("memcli watch", "until Ctrl-C"),
        ("memcli watch --once", "one pass, for cron"),
    ),
    "hook": (
        ("memcli hook install", ""),
        ("memcli hook status", ""),
        ("memcli hook uninstall", ""),
    ),
    "hook install": (
        ("memcli hook install", ""),
        ("memcli hook install --force", "keeps the hook it replaces"),
    ),
    "hook uninstall": (("memcli hook uninstall", ""),),
    "hook status": (("memcli hook status --json", ""),),
    "schedule": (
        ("memcli schedule", "cron lines"),
        ("memcli schedule --systemd", "systemd user timers"),
        ("memcli schedule --gc-at 04:30 --flush-every 30", ""),
    ),
}
