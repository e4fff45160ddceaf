"""`search`, `context` and `entities`: the index brought up to date, hits ranked by relevance ×
decay × importance and diversified (core.recall), the text an agent loads at session start, and
the people, projects, tools and places memory names (core.entities)."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

from memcli.core.decay import age_days, decay_factor, decayed_score
from memcli.core.recall import PREFERENCE_TITLE, Candidate, Piece, assemble, clean, mmr, not_current, snippet
from memcli.core.roles import SUPERSEDED
from memcli.core.scoring import score_text, tier_of
from memcli.core.tokens import estimate_tokens
from memcli.phases import phase
from memcli.quick import policy_key, policy_record, shown_key
from memcli.runtime import Runtime
from memcli.workspace.index import ROUTINE, Hit, Index, Refresh, Seen

if TYPE_CHECKING:
    from memcli.core.entities import Entity

# core.entities and core.similarity are imported where they are used: search does not need
# them, and they cost a tenth of a second to import (context needs no planner at all).

CANDIDATES = 60  # bm25's best, re-ranked and diversified


@dataclass(frozen=True, slots=True)
class Found:
    hit: Hit
    score: float  # its rank: relevance × decay × importance
    entry: Mapping[str, Any] = field(default_factory=dict)  # see `hit_entry`

    def to_json(self) -> dict[str, object]:
        """The entry's keys (SPEC §13: its importance is `score`), the text as a snippet,
        and the hit's `rank`."""
        return {**self.entry, "text": snippet(self.hit.text), "rank": round(self.score, 4)}


def hit_entry(run: Runtime, h: Hit, seen: Seen) -> dict[str, Any]:
    """The keys every entry-shaped object carries (SPEC §13), for an entry of the index,
    as `list` has them as far as the index can tell: scored by the workspace's rules with
    the days its text is written on (exact copies: `list` also counts near ones, and the
    repetition of a MEMORY.md entry), decayed to `run.now`, its tier by the thresholds."""
    day = date.fromisoformat(h.day) if h.day else None
    core = h.role == "core"
    if h.flags & ROUTINE or (not core and seen.days == 0):  # a routine event is its own day's
        seen = Seen(1, h.day) if day is not None and not core else Seen(0, None)
    scored = score_text(
        h.text,
        run.rules,
        kind=h.kind,
        importance=h.importance,
        today=run.today,
        written=day,
        mentions=seen.days,
    )
    evergreen = h.evergreen or h.pinned
    age = 0.0 if evergreen else age_days(day, h.time, run.now_local)
    tier = "core" if core else tier_of(scored, run.policy, seen.days).value
    return {
        "id": h.entry_id,
        "file": h.path,
        "line": h.line,
        "end_line": h.end_line,
        "text": h.text,
        "tier": tier,
        "score": scored.score,
        "decayed": round(decayed_score(scored.score, age, run.policy.half_life_days, evergreen), 4),
        "date": h.day,
        "mentions": seen.days,
        "last_seen": seen.last,
    }


def with_entries(run: Runtime, index: Index, hits: Sequence[Hit]) -> dict[int, dict[str, Any]]:
    """`hit_entry` of each hit, by its row in the index."""
    seen = index.seen(h.entry_id for h in hits)
    return {h.id: hit_entry(run, h, seen[h.entry_id]) for h in hits}


@functools.lru_cache(maxsize=4096)
def _normal(text: str) -> str:
    from memcli.core.similarity import normalise

    return normalise(text)


def _similar(a: str, b: str) -> float:
    """How alike two normalised texts are, 0..1."""
    from rapidfuzz.fuzz import ratio

    return float(ratio(a, b)) / 100.0


def rank(run: Runtime, hits: list[Hit], limit: int) -> list[Found]:
    """Hits scored and diversified; copies of one text (the same fact on ten days) count
    once, by their best-placed copy."""
    by_id = {h.id: h for h in hits}
    best: dict[str, Candidate] = {}
    for h in hits:
        evergreen = h.evergreen or h.pinned
        day = date.fromisoformat(h.day) if h.day else None
        decay = (
            1.0 if evergreen else decay_factor(age_days(day, None, run.now_local), run.policy.half_life_days)
        )
        importance = h.score
        key = h.norm or _normal(h.text)  # the index keeps each entry's normalised text
        candidate = Candidate(h.id, 1.0 + max(0.0, -h.bm25), decay, max(0.0, importance), key)
        if key not in best or candidate.base > best[key].base:
            best[key] = candidate
    candidates = list(best.values())
    return [Found(by_id[c.key], c.base) for c in mmr(candidates, limit, _similar)]


def search(run: Runtime, query: str, limit: int) -> tuple[list[Found], Refresh]:
    with Index(run.root, run.policy.max_file_bytes, run.progress) as index:
        refreshed = index.refresh()
        with phase(run.progress, "searching"):
            hits = index.search(query, CANDIDATES)
            found = rank(run, hits, limit)
            entries = with_entries(run, index, [f.hit for f in found])
            _remember(run, index, found, entries)
    return [replace(f, entry=entries[f.hit.id]) for f in found], refreshed


def _remember(
    run: Runtime, index: Index, found: list[Found], entries: Mapping[int, Mapping[str, Any]]
) -> None:
    """What the next search answers from without loading the rules (memcli.quick): the
    policy values ranking needs, and each hit's importance and tier."""
    key = policy_key(run.config, os.environ)
    if key is None:
        return
    today = run.today.isoformat()
    shown = []
    for f in found:
        h, e = f.hit, entries[f.hit.id]
        at = shown_key(key, today, h.text, h.kind, h.importance, h.day, h.role == "core", int(e["mentions"]))
        shown.append((at, today, float(e["score"]), str(e["tier"])))
    policy = run.policy
    index.remember(policy_record(key, policy.half_life_days, policy.timezone, policy.max_file_bytes), shown)


# --- context --------------------------------------------------------------------------------

RECALL_DAYS = 30  # without a query, recall draws on the notes of this many days
RECALL_CANDIDATES = 40  # MMR is quadratic in what it picks: the best 40 are plenty


@dataclass(frozen=True)
class Context:
    text: str
    tokens: int
    budget: int
    included: list[Piece]
    left_out: int
    entries: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)  # by `from`: see hit_entry

    def to_json(self) -> dict[str, object]:
        """Each item the entry's keys (SPEC §13), its section, `from` (path:line) and its text
        as it is in the context (memcli's markers stripped)."""
        return {
            "text": self.text,
            "tokens": self.tokens,
            "budget": self.budget,
            "included": [
                {**self.entries.get(p.source, {}), "section": p.section, "from": p.source, "text": p.text}
                for p in self.included
            ],
            "left_out": self.left_out,
        }


def _piece(section: str, h: Hit, dated: bool = False) -> Piece:
    return Piece(section, f"{h.path}:{h.line}", clean(h.text), h.day if dated else None)


def build_context(run: Runtime, budget: int, query: str | None) -> Context:
    """Core memory first (its preference sections first of all), then today's and
    yesterday's notes, then the best-ranked recalled entries in time order."""
    today = run.today
    open_days = [(today - timedelta(days=n)).isoformat() for n in range(max(1, run.policy.open_days))]
    with Index(run.root, run.policy.max_file_bytes, run.progress) as index:
        index.refresh()
        core_rows = index.entries("f.role = 'core'")
        core_pref = _preference_lines(run)
        core = sorted(core_rows, key=lambda h: (h.line not in core_pref.get(h.path, set()), h.path, h.line))
        marks = ",".join("?" * len(open_days))
        recent = index.entries(
            f"f.role IN ('daily', 'daily-with-slug') AND f.day IN ({marks})", tuple(open_days)
        )
        if query:
            recalled_hits = index.search(query, CANDIDATES)
        else:
            since = (today - timedelta(days=RECALL_DAYS)).isoformat()
            notes = "f.role IN ('daily', 'daily-with-slug', 'summary')"
            recalled_hits = index.entries(
                f"{notes} AND e.day >= ? AND e.day < ? AND e.score > 0", (since, min(open_days))
            )
        retired = [h.text for h in index.entries("e.path = ?", (SUPERSEDED,))]
        taken = {h.id for h in (*core, *recent)}
        pool = [h for h in recalled_hits if h.id not in taken and h.path != SUPERSEDED]
        if not query:  # the most important first, before diversifying the best of them
            pool = sorted(pool, key=lambda h: -h.score)[: RECALL_CANDIDATES * 3]
        if not query:
            pool = [replace(h, bm25=-1.0) for h in pool]
        ranked = [f.hit for f in rank(run, pool, RECALL_CANDIDATES)]  # best first; printed in time order
        sections = [
            [_piece("core", h) for h in core],
            [_piece("recent", h, dated=True) for h in sorted(recent, key=lambda h: (h.day or "", h.line))],
            [_piece("recalled", h, dated=True) for h in ranked],
        ]
        # a fact gc retired as replaced, or one a newer piece replaces, is not recalled as current
        flat = [p for pieces in sections for p in pieces]
        stale = not_current(flat, retired)
        if stale:
            kept = {id(p) for i, p in enumerate(flat) if i not in stale}
            sections = [[p for p in pieces if id(p) in kept] for pieces in sections]
        text, included, left_out = assemble(sections, budget)
        by_place = {f"{h.path}:{h.line}": h for h in (*core, *recent, *ranked)}
        chosen = [by_place[p.source] for p in included if p.source in by_place]
        entries = with_entries(run, index, chosen)
    return Context(
        text,
        estimate_tokens(text),
        budget,
        included,
        left_out,
        {f"{h.path}:{h.line}": entries[h.id] for h in chosen},
    )


def _preference_lines(run: Runtime) -> dict[str, set[int]]:
    """Lines of MEMORY.md under a heading about preferences."""
    from memcli.workspace.files import read_text

    out: dict[str, set[int]] = {}
    for name in ("MEMORY.md", "memory.md"):
        path = run.root / name
        if not path.is_file():
            continue
        _, text = read_text(path, run.root, run.policy.max_file_bytes)
        lines: set[int] = set()
        inside = False
        for number, line in enumerate(text.splitlines(), 1):
            if line.startswith("#"):
                inside = bool(PREFERENCE_TITLE.search(line))
            elif inside:
                lines.add(number)
        out[name] = lines
    return out


# --- entities -------------------------------------------------------------------------------

ENTITY_ROLES = "('core', 'daily', 'daily-with-slug', 'other', 'archive')"  # not summaries: they repeat


def entities(run: Runtime, kinds: Sequence[str] | None = None) -> list[Entity]:
    """The people, projects, tools and places named in memory, most named first (all
    kinds when `kinds` is None)."""
    from memcli.core.entities import KINDS, Note, tally

    with Index(run.root, run.policy.max_file_bytes, run.progress) as index:
        index.refresh()
        rows = index.entries(f"f.role IN {ENTITY_ROLES}")
    return tally(
        (Note(h.text, f"{h.path}:{h.line}", h.day, h.section) for h in rows),
        KINDS if kinds is None else kinds,
    )
