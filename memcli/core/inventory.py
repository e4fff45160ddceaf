"""Counts behind `memcli status`: files, entries, characters and tokens per role."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from memcli.core.entries import Document
from memcli.core.roles import MemoryFile, Role
from memcli.core.tokens import estimate_tokens


@dataclass(frozen=True, slots=True)
class Tally:
    files: int = 0
    entries: int = 0
    chars: int = 0
    tokens: int = 0

    def plus(self, doc: Document) -> Tally:
        text = doc.render()
        return Tally(
            self.files + 1,
            self.entries + len(doc.entries),
            self.chars + len(text),
            self.tokens + estimate_tokens(text),
        )


@dataclass(frozen=True, slots=True)
class Budget:
    """MEMORY.md against the characters OpenClaw will load before truncating it."""

    file: str
    chars: int
    tokens: int
    limit: int

    @property
    def used(self) -> float:
        return self.chars / self.limit

    @property
    def over(self) -> bool:
        return self.chars > self.limit


def tally_by_role(files: Iterable[tuple[MemoryFile, Document]]) -> dict[Role, Tally]:
    tallies: dict[Role, Tally] = {}
    for file, doc in files:
        tallies[file.role] = tallies.get(file.role, Tally()).plus(doc)
    return {role: tallies[role] for role in Role if role in tallies}


def core_budget(file: MemoryFile, doc: Document, limit: int) -> Budget:
    text = doc.render()
    return Budget(file.rel, len(text), estimate_tokens(text), limit)
