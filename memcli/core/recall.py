"""Recall (SPEC §10): how texts are cut into index terms, and how hits are ranked.

Terms: words of other scripts as they are (lower-cased, NFKC), and every Chinese,
Japanese or Korean character both alone and paired with the next one, so that a
one-character query (会) and a two-character word (周会) are both found. SQLite's own
trigram tokenizer cannot match a query shorter than three characters, which is most
Chinese words; this is why the index stores these terms instead.

Ranking: relevance (bm25) × decay (evergreen files and pinned entries exempt) ×
importance, then maximal marginal relevance (λ 0.7), so that one fact said ten times
takes one slot.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from memcli.core.tokens import CJK_RANGES

_RUN = re.compile(f"[{CJK_RANGES}]+|[^\\W_{CJK_RANGES}]+", re.UNICODE)
_CJK = re.compile(f"[{CJK_RANGES}]")
MMR_LAMBDA = 0.7
SNIPPET_CHARS = 700


def _fold(text: str) -> str:
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return text.casefold()


def index_terms(text: str) -> str:
    """The terms an entry is indexed under, space-separated."""
    out: list[str] = []
    for run in _RUN.findall(_fold(text)):
        if _CJK.match(run):
            out.extend(run)
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            out.append(run)
    return " ".join(out)


def query_terms(query: str) -> list[str]:
    """The terms a query needs, all of them: a Chinese run as its pairs (or one character),
    other words as they are."""
    terms: list[str] = []
    for run in _RUN.findall(_fold(query)):
        if _CJK.match(run) and len(run) > 1:
            terms.extend(run[i : i + 2] for i in range(len(run) - 1))
        else:
            terms.append(run)
    return list(dict.fromkeys(terms))


def fts_query(query: str) -> str | None:
    """An FTS5 MATCH expression for the query (every term required), None when it has none."""
    terms = query_terms(query)
    if not terms:
        return None
    return " AND ".join('"' + t.replace('"', '""') + '"' for t in terms)


@dataclass(frozen=True, slots=True)
class Candidate:
    key: int
    relevance: float  # higher is better: 1 + bm25 negated (bm25 is near 0 when every entry has the word)
    decay: float  # 0..1, 1 for evergreen
    importance: float  # 0..10
    text: str

    @property
    def base(self) -> float:
        return self.relevance * self.decay * (1.0 + self.importance / 10.0)


def mmr(
    candidates: Sequence[Candidate],
    limit: int,
    similarity: Callable[[str, str], float],
    lam: float = MMR_LAMBDA,
) -> list[Candidate]:
    """Pick `limit` candidates: each time the one whose score, less its likeness to those
    already picked, is highest (scores scaled to 0..1 first)."""
    if not candidates:
        return []
    top = max(c.base for c in candidates) or 1.0
    pool = list(candidates)
    picked: list[Candidate] = []
    while pool and len(picked) < limit:
        best = max(
            pool,
            key=lambda c: (
                lam * c.base / top
                - (1 - lam) * max((similarity(c.text, p.text) for p in picked), default=0.0),
                -c.key,
            ),
        )
        picked.append(best)
        pool.remove(best)
    return picked


def snippet(text: str, limit: int = SNIPPET_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --- context --------------------------------------------------------------------------------

MARKER = re.compile(r"\s*<!-- memcli: [^>]*-->|\s*<!-- importance: \d+ -->")
SECTION_TITLES = {
    "core": "## Core memory (MEMORY.md)",
    "recent": "## Today and yesterday",
    "recalled": "## Recalled",
}
PREFERENCE_TITLE = re.compile(r"prefer|偏好|喜好|习惯|风格|style", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Piece:
    section: str  # core, recent, recalled
    source: str  # path:line
    text: str  # the entry, memcli's markers stripped
    day: str | None = None


def clean(text: str) -> str:
    """An entry without memcli's own markers (they mean nothing to the agent)."""
    return MARKER.sub("", text).rstrip()


def not_current(pieces: Sequence[Piece], retired: Iterable[str] = ()) -> set[int]:
    """The pieces (by position) that are not current facts: one memcli retired as replaced
    (`retired`: the entries of memory/archive/superseded.md), or one a later piece replaces
    (judgement.candidates). Undated pieces (MEMORY.md's) count as older than any dated one."""
    from memcli.core.judgement.candidates import superseded_among
    from memcli.core.scoring import scoring_text
    from memcli.core.similarity import normalise

    gone = {normalise(clean(t)) for t in retired}
    out = {i for i, p in enumerate(pieces) if gone and normalise(p.text) in gone}
    texts = [scoring_text(p.text) for p in pieces]
    days = [date.fromisoformat(p.day) if p.day else None for p in pieces]
    return out | superseded_among(texts, days)


def assemble(sections: Sequence[Sequence[Piece]], budget: int) -> tuple[str, list[Piece], int]:
    """Pieces chosen section by section in the order given (their priority), each while
    the whole text stays within `budget` tokens; a piece that does not fit is left out and
    counted, and smaller ones after it may still fit. Within a section the chosen pieces
    are then printed in time order (undated ones first, as given). Returns the text, the
    pieces included and how many were left out."""
    from memcli.core.tokens import estimate_tokens

    used = 0
    left_out = 0
    chosen: list[list[Piece]] = []
    for pieces in sections:
        mine: list[Piece] = []
        for piece in pieces:
            head = "" if mine else ("\n" if used else "") + SECTION_TITLES[piece.section] + "\n\n"
            cost = estimate_tokens(head + _line(piece) + "\n")
            if used + cost > budget:
                left_out += 1
                continue
            mine.append(piece)
            used += cost
        chosen.append(mine)
    parts: list[str] = []
    included: list[Piece] = []
    for mine in chosen:
        if not mine:
            continue
        ordered = sorted(mine, key=lambda p: p.day or "")  # stable: undated keep their order
        parts.append(("\n" if parts else "") + SECTION_TITLES[ordered[0].section] + "\n\n")
        parts.extend(_line(p) + "\n" for p in ordered)
        included.extend(ordered)
    return "".join(parts), included, left_out


def _line(piece: Piece) -> str:
    return piece.text if piece.day is None else _dated(piece.text, piece.day)


def _dated(text: str, day: str) -> str:
    first, _, rest = text.partition("\n")
    m = re.match(r"(\s*(?:[-+*]|\d{1,9}[.)])\s+)", first)
    lead, body = (m.group(1), first[m.end() :]) if m else ("- ", first)
    return f"{lead}({day}) {body}" + ("\n" + rest if rest else "")
