"""The fast path of `memcli search` (issue 20): an answer from the index alone.

`memcli [global options] search QUERY [-n N] [--json]` on a workspace whose index is up
to date is answered here, before typer, rich, the configuration or the scoring rules are
imported: a stat of every note (workspace.fingerprint) shows that nothing changed since
the index was last brought up to date, the index is read directly with sqlite3, and the
hits are ranked as memcli.recall ranks them. What the answer needs from the configuration
(the half-life, the time zone, the largest file read) and, under --json, each hit's
importance and tier are what the last full search stored in the index (`remember`), under
the key of the configuration (its path, bytes and MEMCLI_* variables) and of all the score
was computed from.

Anything else returns None and the full command line runs: another command or option,
-v, a changed note, a configuration the index has not seen, a hit not scored before, a
workspace without a usable .memcli/. The output is the full command line's, byte for byte
(tests/test_search_fast.py compares them).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import sys
from collections.abc import Mapping, Sequence
from datetime import date, datetime, tzinfo
from pathlib import Path
from typing import Any

from memcli.clock import parse_now, to_local

# The query and the ranking are core.recall's own (stdlib only, ~20 ms to import).
from memcli.core.recall import SNIPPET_CHARS, Candidate, fts_query, mmr
from memcli.errors import UsageError

# Constants of the modules this one stands in for (tests/test_search_fast.py checks them).
STATE_DIR = ".memcli"  # core.roles
INDEX_NAME = "index.sqlite"  # workspace.index
SCHEMA = "8"  # workspace.index
CONFIG_NAME = "memcli.toml"  # config
CORE_NAMES = ("MEMORY.md", "memory.md")  # core.roles
WORKSPACE_SIGNS = ("memcli.toml", "sessions.json", "SOUL.md", "IDENTITY.md", "HEARTBEAT.md")  # layout
ENV_OPTIONS = frozenset({"MEMCLI_WORKSPACE", "MEMCLI_CONFIG", "MEMCLI_NOW", "MEMCLI_PAGER"})  # config
CANDIDATES = 60  # recall
HIT_INDENT = 4  # cli.search
BIG_LIST = 200  # cli.output: longer lists are written another way
ROUTINE = 4  # workspace.index (Hit.flags)
MENTION_ROLES = ("daily", "daily-with-slug", "other", "archive")  # workspace.index

GLOBAL_VALUED = ("-w", "--workspace", "--now", "--color")  # handled here; others: the full CLI
COLOR_MODES = ("auto", "always", "never")


class Options:
    __slots__ = ("color", "json", "limit", "now", "query", "quiet", "workspace")

    def __init__(self) -> None:
        self.workspace: str | None = None
        self.now: str | None = None
        self.json = False
        self.quiet = False
        self.color = "auto"
        self.limit = 6
        self.query: str | None = None


def parse(args: Sequence[str]) -> Options | None:
    """The options of `memcli … search QUERY …`, or None for anything this path leaves to
    the full command line."""
    opts = Options()
    command: str | None = None
    i = 0
    while i < len(args):
        arg = args[i]
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if name in GLOBAL_VALUED or (command and name in ("-n", "--limit")):
            if not eq:
                if i + 1 >= len(args):
                    return None
                i += 1
                value = args[i]
            if name in ("-w", "--workspace"):
                opts.workspace = value
            elif name == "--now":
                opts.now = value
            elif name == "--color":
                if value not in COLOR_MODES:
                    return None
                opts.color = value
            else:
                if not (value.isascii() and value.isdigit()) or int(value) < 1:
                    return None
                opts.limit = int(value)
        elif arg == "--json":
            opts.json = True
        elif arg in ("-q", "--quiet"):
            opts.quiet = True
        elif arg.startswith("-"):
            return None  # -v, --help, --config, --agent, -n3, --, …
        elif command is None:
            if arg != "search":
                return None
            command = arg
        elif opts.query is None:
            opts.query = arg
        else:
            return None
        i += 1
    if command is None or opts.query is None or opts.limit > BIG_LIST:
        return None
    return opts


# --- the workspace, its configuration and the time ------------------------------------------


def _workspace(explicit: str | None, environ: Mapping[str, str]) -> Path | None:
    """As layout.locate finds it, when it finds one without complaint; else None."""
    for value in (explicit, environ.get("MEMCLI_WORKSPACE")):
        if value:
            path = Path(value).expanduser()
            if not path.is_dir():
                return None
            if (
                not any((path / n).is_file() for n in (*CORE_NAMES, *WORKSPACE_SIGNS))
                and not (path / "memory").is_dir()
            ):
                return None
            return path.resolve()
    cwd = Path.cwd()
    if any((cwd / n).is_file() for n in CORE_NAMES) or (cwd / "memory").is_dir():
        return cwd.resolve()
    return None


def _config(root: Path, environ: Mapping[str, str]) -> Path | bool | None:
    """config.config_path without --config; False when that would fail."""
    named = environ.get("MEMCLI_CONFIG")
    if named:
        path = Path(named).expanduser()
        return path if path.is_file() else False
    return root / CONFIG_NAME if (root / CONFIG_NAME).is_file() else None


def policy_key(config: Path | None, environ: Mapping[str, str]) -> str | None:
    """What the policy is built from: the config file's path and bytes and the MEMCLI_*
    variables that are policy keys. None when the file cannot be read."""
    try:
        data = config.read_bytes() if config is not None else b""
    except OSError:
        return None
    variables = sorted((k, v) for k, v in environ.items() if k.startswith("MEMCLI_") and k not in ENV_OPTIONS)
    digest = hashlib.sha256(
        json.dumps([str(config) if config else None, variables]).encode("utf-8", "replace")
    )
    digest.update(data)
    return digest.hexdigest()


def policy_record(key: str, half_life_days: float, timezone: str | None, max_file_bytes: int) -> str:
    return json.dumps(
        {"key": key, "half_life_days": half_life_days, "timezone": timezone, "max": max_file_bytes}
    )


def _now(text: str | None, tz: tzinfo | None) -> datetime | None:
    """clock.parse_now; None when it would fail (the full command line says why)."""
    try:
        return parse_now(text, tz)
    except UsageError:
        return None


def _writable(path: Path) -> bool:
    """workspace.files.writable_dir."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    return bool(st.st_mode & 0o222) and os.access(path, os.W_OK)


# --- the query and the ranking (core.recall, recall.rank) -----------------------------------


HIT_COLUMNS = (
    "e.id, e.path, e.line, e.end_line, e.text, e.day, e.importance, e.pinned, f.evergreen, bm25(terms),"
    " e.score, e.eid, e.flags, f.role, e.time, e.kind, e.norm"
)


def shown_key(policy: str, today: str, text: str, kind: str, importance: int | None, day: str | None,
              core: bool, mentions: int) -> str:  # fmt: skip
    """The key of an entry's importance and tier as `recall.hit_entry` computed them: all
    that `score_text` and `tier_of` were given."""
    data = json.dumps([policy, today, text, kind, importance, day, core, mentions], ensure_ascii=False)
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()


def effective_seen(
    flags: int, role: str, day: str | None, days: int, last: str | None
) -> tuple[int, str | None]:
    """The mentions recall.hit_entry counts for an entry: a routine event is its own day's."""
    core = role == "core"
    if flags & ROUTINE or (not core and days == 0):
        return (1, day) if day is not None and not core else (0, None)
    return days, last


# --- the answer ------------------------------------------------------------------------------


def answer(args: Sequence[str], environ: Mapping[str, str] | None = None) -> str | None:
    """What `memcli ARGS` prints on stdout, when this path can tell; else None."""
    env = os.environ if environ is None else environ
    opts = parse(args)
    if opts is None or opts.color == "always":  # colour: the full path paints
        return None
    root = _workspace(opts.workspace, env)
    if root is None:
        return None
    config = _config(root, env)
    if config is False:
        return None
    key = policy_key(config or None, env)  # type: ignore[arg-type]
    state = root / STATE_DIR
    index = state / INDEX_NAME
    if (
        key is None
        or not _writable(root)
        or os.path.islink(state)
        or not _writable(state)
        or not index.is_file()
    ):
        return None  # the full path would keep its index in memory, or make it
    db = sqlite3.connect(index)
    try:
        return _answer(db, opts, root, key, env)
    except sqlite3.Error:
        return None
    finally:
        db.close()


def _answer(
    db: sqlite3.Connection, opts: Options, root: Path, key: str, env: Mapping[str, str]
) -> str | None:
    meta = dict(db.execute("SELECT key, value FROM meta WHERE key IN ('schema', 'fingerprint', 'policy')"))
    if meta.get("schema") != SCHEMA or "policy" not in meta or "fingerprint" not in meta:
        return None
    policy = json.loads(meta["policy"])
    if policy.get("key") != key:
        return None
    from memcli.workspace.fingerprint import tree_fingerprint

    if tree_fingerprint(root, int(policy["max"])) != meta["fingerprint"]:
        return None  # a note changed: the full path brings the index up to date
    tz: tzinfo | None = None
    if policy["timezone"]:
        import zoneinfo

        tz = zoneinfo.ZoneInfo(policy["timezone"])
    now = _now(opts.now or env.get("MEMCLI_NOW"), tz)
    if now is None:
        return None
    now_local = to_local(now, tz)
    match = fts_query(opts.query or "")
    rows = (
        []
        if match is None
        else db.execute(
            f"SELECT {HIT_COLUMNS} FROM terms JOIN entries e ON e.id = terms.rowid"
            " JOIN files f ON f.path = e.path WHERE terms MATCH ? ORDER BY bm25(terms) LIMIT ?",
            (match, CANDIDATES),
        ).fetchall()
    )
    found = _rank(rows, now_local, float(policy["half_life_days"]), opts.limit)
    if opts.json:
        hits = _entries(db, found, key, now_local, float(policy["half_life_days"]))
        if hits is None:
            return None
        data = {"query": opts.query, "hits": hits, "reindexed": []}
        return json.dumps(data, ensure_ascii=False, indent=2, default=str) + "\n"
    return _text(found)


def _rank(rows: list[Any], now_local: datetime, half_life: float, limit: int) -> list[tuple[Any, float]]:
    """recall.rank: the rows picked, each with its rank."""
    from memcli.core.decay import age_days, decay_factor

    by_id = {r[0]: r for r in rows}
    best: dict[str, Candidate] = {}
    for r in rows:
        evergreen = bool(r[7]) or bool(r[8])
        day = date.fromisoformat(r[5]) if r[5] else None
        decay = 1.0 if evergreen else decay_factor(age_days(day, None, now_local), half_life)
        candidate = Candidate(int(r[0]), 1.0 + max(0.0, -float(r[9])), decay, max(0.0, float(r[10])), r[16])
        if r[16] not in best or candidate.base > best[r[16]].base:
            best[r[16]] = candidate
    if not best:
        return []
    from rapidfuzz.fuzz import ratio

    def similar(a: str, b: str) -> float:
        return float(ratio(a, b)) / 100.0

    return [(by_id[c.key], c.base) for c in mmr(list(best.values()), limit, similar)]


def _entries(
    db: sqlite3.Connection, found: list[tuple[Any, float]], key: str, now_local: datetime, half_life: float
) -> list[dict[str, Any]] | None:
    """Each hit as recall.Found.to_json has it, from what the last full search stored; None
    when a hit was not scored before under this configuration and day."""
    from memcli.core.decay import age_days, decayed_score

    eids = sorted({r[11] for r, _ in found})
    seen: dict[str, tuple[int, str | None]] = {}
    if eids:
        roles = ",".join("?" * len(MENTION_ROLES))
        for eid, days, last in db.execute(
            "SELECT e.eid, count(DISTINCT e.day), max(e.day) FROM entries e JOIN files f ON f.path = e.path"
            f" WHERE f.role IN ({roles}) AND e.day IS NOT NULL AND e.eid IN ({','.join('?' * len(eids))})"
            " GROUP BY e.eid",
            (*MENTION_ROLES, *eids),
        ):
            seen[str(eid)] = (int(days), str(last) if last else None)
    today = now_local.date().isoformat()
    out: list[dict[str, Any]] = []
    for r, rank in found:
        _id, path, line, end_line, text, day, importance, pinned, evergreen_file = r[:9]
        eid, flags, role, clock, kind = r[11], r[12], r[13], r[14], r[15]
        days, last = effective_seen(int(flags), str(role), day, *seen.get(str(eid), (0, None)))
        row = db.execute(
            "SELECT score, tier FROM shown WHERE key = ?",
            (shown_key(key, today, text, kind, importance, day, role == "core", days),),
        ).fetchone()
        if row is None:
            return None
        score, tier = float(row[0]), str(row[1])
        evergreen = bool(evergreen_file) or bool(pinned)
        entry_day = date.fromisoformat(day) if day else None
        age = 0.0 if evergreen else age_days(entry_day, clock, now_local)
        out.append(
            {
                "id": eid,
                "file": path,
                "line": line,
                "end_line": end_line,
                "text": text if len(text) <= SNIPPET_CHARS else text[: SNIPPET_CHARS - 1].rstrip() + "…",
                "tier": tier,
                "score": score,
                "decayed": round(decayed_score(score, age, half_life, evergreen), 4),
                "date": day,
                "mentions": days,
                "last_seen": last,
                "rank": round(rank, 4),
            }
        )
    return out


def _text(found: list[tuple[Any, float]]) -> str | None:
    """cli.search's lines, in a pipe (on a terminal, or with colour, the full path draws them);
    None when nothing was found (the full path says so on stderr)."""
    if not found or sys.stdout.isatty():
        return None
    lines = []
    for r, rank in found:
        line, end_line = r[2], r[3]
        where = f"{r[1]}:{line}" + (f"-{end_line}" if end_line > line else "")
        lines.append(f"{where}  ({rank:.2f})  {' '.join(r[4].split())}".rstrip())
    return "".join(line + "\n" for line in lines)


def main(args: Sequence[str]) -> int | None:
    """Answer `memcli ARGS` here and return its exit code, or None: run the full CLI."""
    try:
        text = answer(args)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if text is None:
        return None
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0
