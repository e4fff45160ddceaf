"""`search`: the index brought up to date, then hits ranked by relevance × decay ×
importance and diversified (core.recall)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from memcli.core.decay import age_days, decay_factor
from memcli.core.recall import Candidate, mmr, snippet
from memcli.core.scoring import score_text
from memcli.core.similarity import normalise
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


def _similar(a: str, b: str) -> float:
    from rapidfuzz.fuzz import ratio

    return ratio(normalise(a), normalise(b)) / 100.0


def rank(run: Runtime, hits: list[Hit], limit: int) -> list[Found]:
    """Hits scored and diversified; copies of one text (the same fact on ten days) count
    once, by their best-placed copy."""
    by_id = {h.id: h for h in hits}
    candidates = []
    seen: set[str] = set()
    for h in hits:
        key = normalise(h.text)
        if key in seen:
            continue
        seen.add(key)
        evergreen = h.evergreen or h.pinned
        day = date.fromisoformat(h.day) if h.day else None
        decay = (
            1.0 if evergreen else decay_factor(age_days(day, None, run.now_local), run.policy.half_life_days)
        )
        importance = float(h.importance) if h.importance is not None else score_text(h.text, run.rules).score
        candidates.append(Candidate(h.id, max(1e-6, -h.bm25), decay, max(0.0, importance), h.text))
    return [Found(by_id[c.key], c.base) for c in mmr(candidates, limit, _similar)]


def search(run: Runtime, query: str, limit: int) -> tuple[list[Found], Refresh]:
    with Index(run.root, run.policy.max_file_bytes) as index:
        refreshed = index.refresh()
        hits = index.search(query, CANDIDATES)
    return rank(run, hits, limit), refreshed
