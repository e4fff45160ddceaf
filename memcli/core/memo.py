"""What planning learnt from each text last time, to be learnt once (issue 20).

Most of what the judgement reads is a pure function of one text (the changes it states,
the keys it is found by, its wording's sketch) or of two (whether one replaces the
other, whether they state one fact). A workspace that grew by one note holds the same
texts as yesterday but a few, so a run that is given yesterday's answers has only the
new texts to read and the new pairs to judge, and its plan is the one a cold run makes:
the answers are the same function's on the same arguments. The I/O layer loads and
stores the tables (workspace.cache), stamped with memcli's code, the rules and the
policy, so a change of any of them starts from nothing.

A table keeps what this run asked of it; what no text of this run asked for is dropped
when it is stored again, so the tables follow the workspace and never grow without end.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

T = TypeVar("T")
DROPPED_MOST = 200  # a table that no longer asks for more than one answer in this many is stored whole
_MISSING: Any = object()


class Table:
    """One function's answers, by its arguments (a text, or a tuple of them)."""

    __slots__ = ("added", "asked", "known", "loaded", "new", "remapped", "rewritten", "shrink_at", "stored")

    def __init__(self, known: dict[Hashable, Any] | None = None, stored: bool = True) -> None:
        # an answer of last time moves from `known` to `asked` when asked for: its key is
        # held once (a table of pairs holds a tuple per key)
        self.known: dict[Hashable, Any] = known if known is not None else {}
        self.loaded = len(self.known)  # answers of last time
        self.stored = stored  # kept for the next run (else: for this run only)
        self.asked: dict[Hashable, Any] = {}  # what this run asked for, answered
        self.added = 0  # answers worked out this run
        self.new: list[Hashable] = []  # their keys: none of them was known last time
        self.remapped = False  # answers put another way this run (`remap`)
        self.rewritten = False  # an answer of last time replaced (`put`)
        # `known` is made again when half of it has moved to `asked`: a dict keeps the room
        # of what was taken out of it (a decade's 672,000 verdicts: 20 MB held twice)
        self.shrink_at = self.loaded // 2

    def get(self, key: Hashable, compute: Callable[..., T], *args: Any) -> T:
        """The answer for `key`, from last time when known, else `compute(*args)`."""
        found = self.asked.get(key, _MISSING)
        if found is _MISSING:
            found = self.known.pop(key, _MISSING)
            if found is _MISSING:
                found = compute(*args)
                self.added += 1
                self.new.append(key)
            elif len(self.known) < self.shrink_at:
                self._shrink()
            self.asked[key] = found
        return found  # type: ignore[no-any-return]

    def _shrink(self) -> None:
        self.known = dict(self.known)
        self.shrink_at = len(self.known) // 2

    def has(self, key: Hashable) -> bool:
        """Whether the answer for `key` is known (asking nothing)."""
        return key in self.asked or key in self.known

    def peek(self, key: Hashable) -> Any:
        """The answer for `key` if this run or the last one worked it out, else None (a
        function whose answer may be None is not peeked at)."""
        found = self.asked.get(key, _MISSING)
        if found is _MISSING:
            found = self.known.pop(key, _MISSING)
            if found is _MISSING:
                return None
            if len(self.known) < self.shrink_at:
                self._shrink()
            self.asked[key] = found
        return found

    def learn(self, key: Hashable, value: Any) -> None:
        """An answer worked out elsewhere (in a worker process) for this run."""
        if key not in self.asked:
            self.asked[key] = value
            if key not in self.known:
                self.added += 1
                self.new.append(key)

    def put(self, key: Hashable, value: Any) -> None:
        """This run's answer for `key`, in place of last time's (kept for the next run)."""
        if self.known.pop(key, _MISSING) is not _MISSING or key in self.asked:
            self.rewritten = True
        else:
            self.new.append(key)
        self.asked[key] = value
        self.added += 1

    def sample(self) -> Any:
        """One answer of this run or the last, asking nothing; None when there are none."""
        for answers in (self.asked, self.known):
            for value in answers.values():
                return value
        return None

    def remap(self, change: Callable[[Any], Any]) -> None:
        """Every answer this run asked for put another way that means the same (a sketch
        numbered again): how the answer is held changes, not what it says. Those of last
        time not asked for are left as they are (they are not stored again)."""
        asked = self.asked
        for key, value in asked.items():
            asked[key] = change(value)
        self.remapped = True

    def forget_unasked(self) -> None:
        """Let go of the answers of last time not asked for yet: none will be (they are not
        stored again either)."""
        self.known = {}
        self.shrink_at = 0

    def keep(self, wanted: Callable[[Any], bool]) -> None:
        """Keep for the next run the answers of last time `wanted` names, asked for or not
        (those worker processes used: their asking is not seen here)."""
        asked = self.asked
        for key, value in self.known.items():
            if key not in asked and wanted(key):
                asked[key] = value

    def changed(self) -> bool:
        """Whether storing the table again would change it: new answers, or old ones no
        longer asked for. A table this run did not use at all (a command that does not
        plan: `dedupe` asks no supersede verdict) is kept as it was."""
        return self.added > 0 or self.remapped or (bool(self.asked) and len(self.asked) != self.loaded)

    def to_store(self) -> dict[Hashable, Any]:
        return self.asked if self.asked else self.known

    def fresh(self) -> dict[Hashable, Any] | None:
        """The answers worked out this run, when they are all that changed: every answer
        of last time was asked for (or kept) as it was, but for at most one in
        DROPPED_MOST (those stay stored, unused, until the table is stored whole). Storing
        the table again then means adding these to what is stored. None otherwise."""
        dropped = self.loaded - (len(self.asked) - len(self.new))
        if self.remapped or self.rewritten or dropped * DROPPED_MOST > self.loaded:
            return None
        return {key: self.asked[key] for key in self.new}


Loader = Callable[[str], "dict[Hashable, Any] | None"]
Sink = Callable[[str, "dict[Hashable, Any]"], None]
Appender = Callable[[str, "dict[Hashable, Any]"], bool]  # whether the answers were added


class Memo:
    """Named tables of answers. A table is loaded when first asked for (`loader`, given by
    the I/O layer) and handed back (`sink`) when the step that uses it is done (`finish`),
    so that only one step's answers are held at a time; a table that only gained answers
    hands back those alone (`append`), when the I/O layer can add them. An empty Memo (the default
    everywhere) answers nothing from before and remembers within the run only."""

    def __init__(
        self, loader: Loader | None = None, sink: Sink | None = None, append: Appender | None = None
    ) -> None:
        self.tables: dict[str, Table] = {}
        self.loader = loader
        self.sink = sink
        self.append = append  # adds a table's new answers to those stored, when it can

    def table(self, name: str, stored: bool = True) -> Table:
        """The table of that name. `stored=False`: answers kept for this run only, for a
        function whose answer costs more to load than to work out again."""
        found = self.tables.get(name)
        if found is None:
            known = self.loader(name) if stored and self.loader is not None else None
            found = self.tables[name] = Table(known, stored=stored)
        return found

    def finish(self, *names: str) -> None:
        """The tables of a step that is done: stored when they changed, then let go."""
        for name in names:
            table = self.tables.pop(name, None)
            if table is None or not table.stored or not table.changed() or self.sink is None:
                continue
            if self.append is not None and (fresh := table.fresh()) is not None and self.append(name, fresh):
                continue
            self.sink(name, table.to_store())

    def finish_all(self) -> None:
        self.finish(*list(self.tables))
