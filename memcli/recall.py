"""`search`, `context` and `entities`: the index brought up to date, hits ranked by relevance ×
decay × importance and diversified (core.recall), the text an agent loads at session start, and
the people, projects, tools and places memory names (core.entities)."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta

from memcli.core.decay import age_days, decay_factor
from memcli.core.entities import KINDS, Entity, Note, tally
from memcli.core.recall import PREFERENCE_TITLE, Candidate, Piece, assemble, clean, mmr, snippet
from memcli.core.similarity import normalise
from memcli.core.tokens import estimate_tokens
from memcli.runtime import Runtime
from memcli.workspace.index import Hit, Index, Refresh

CANDIDATES = 60  # bm25's best, re-ranked and diversified


@dataclass(frozen=True, slots=True)
class Found:
    hit: Hit
    score: float

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.hit.path,
            "line": self.hit.line,
            "end_line": self.hit.end_line,
            "text": snippet(self.hit.text),
            "score": round(self.score, 4),
        }


@functools.lru_cache(maxsize=4096)
def _normal(text: str) -> str:
    return normalise(text)


def _similar(a: str, b: str) -> float:
    from rapidfuzz.fuzz import ratio

    return ratio(_normal(a), _normal(b)) / 100.0


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
        candidate = Candidate(h.id, 1.0 + max(0.0, -h.bm25), decay, max(0.0, importance), h.text)
        key = _normal(h.text)
        if key not in best or candidate.base > best[key].base:
            best[key] = candidate
    candidates = list(best.values())
    return [Found(by_id[c.key], c.base) for c in mmr(candidates, limit, _similar)]


def search(run: Runtime, query: str, limit: int) -> tuple[list[Found], Refresh]:
    with Index(run.root, run.policy.max_file_bytes) as index:
        refreshed = index.refresh()
        hits = index.search(query, CANDIDATES)
    return rank(run, hits, limit), refreshed


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

    def to_json(self) -> dict[str, object]:
        return {
            "text": self.text,
            "tokens": self.tokens,
            "budget": self.budget,
            "included": [{"section": p.section, "from": p.source, "text": p.text} for p in self.included],
            "left_out": self.left_out,
        }


def _piece(section: str, h: Hit, dated: bool = False) -> Piece:
    return Piece(section, f"{h.path}:{h.line}", clean(h.text), h.day if dated else None)


def build_context(run: Runtime, budget: int, query: str | None) -> Context:
    """Core memory first (its preference sections first of all), then today's and
    yesterday's notes, then the best-ranked recalled entries in time order."""
    today = run.today
    open_days = [(today - timedelta(days=n)).isoformat() for n in range(max(1, run.policy.open_days))]
    with Index(run.root, run.policy.max_file_bytes) as index:
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
    taken = {h.id for h in (*core, *recent)}
    pool = [h for h in recalled_hits if h.id not in taken]
    if not query:  # the most important first, before diversifying the best of them
        pool = sorted(pool, key=lambda h: -h.score)[: RECALL_CANDIDATES * 3]
    if not query:
        pool = [replace(h, bm25=-1.0) for h in pool]
    ranked = [f.hit for f in rank(run, pool, RECALL_CANDIDATES)]  # best first; printed in time order
    text, included, left_out = assemble(
        [
            [_piece("core", h) for h in core],
            [_piece("recent", h, dated=True) for h in sorted(recent, key=lambda h: (h.day or "", h.line))],
            [_piece("recalled", h, dated=True) for h in ranked],
        ],
        budget,
    )
    return Context(text, estimate_tokens(text), budget, included, left_out)


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


def entities(run: Runtime, kinds: Sequence[str] = KINDS) -> list[Entity]:
    """The people, projects, tools and places named in memory, most named first."""
    with Index(run.root, run.policy.max_file_bytes) as index:
        index.refresh()
        rows = index.entries(f"f.role IN {ENTITY_ROLES}")
    return tally((Note(h.text, f"{h.path}:{h.line}", h.day, h.section) for h in rows), kinds)
