"""What an entry is about, for telling whether a newer entry replaces or corrects it.

Subject tokens are content words: English words of three or more letters that are
not function words, numbers, and the bigrams of Chinese runs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memcli.core.similarity import normalise

_WORD = re.compile(r"[a-z][a-z0-9_]{2,}|\d+(?:[.:]\d+)*")
_CJK_RUN = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff]+")

STOP = frozenset(
    """
    about after again all also and any are been before being but can correct correction could did
    does don don't done each every for from get got had has have her here his how incorrect instead
    into its just longer lot lots may might migrated more most move moved must new not now off old
    once only onto other our ours out over per rather replaced set should some still switch switched
    than that that's thats the their them then there they this too under use used uses using very
    via was were what when where which who whom why will with would wrong yet you your
    """.split()
)
STOP_BIGRAMS = frozenset(
    "一个 上次 不再 不对 不要 了的 以后 取代 可以 已经 应该 我们"
    " 换了 换成 改成 改用 是错 替换 现在 用的 的是 这个 这样 错了 错的".split()
)


def subject_tokens(text: str, drop: Iterable[str] = (), norm: str | None = None) -> frozenset[str]:
    """Content tokens of an entry's text (cue phrases in `drop` removed first); `norm` is
    the text already normalised, when the caller has it."""
    if norm is None:
        norm = normalise(text)
    for phrase in drop:
        norm = norm.replace(normalise(phrase), " ")
    tokens = {w for w in _WORD.findall(norm) if w not in STOP}
    for run in _CJK_RUN.findall(norm):
        if len(run) == 1:
            continue
        tokens.update(run[i : i + 2] for i in range(len(run) - 1))
    return frozenset(t for t in tokens if t not in STOP_BIGRAMS)


_BREAK = re.compile(r"[,.;:!?，。；：！？、()（）\n]")


def retired_object(scanned: str, cue: str) -> frozenset[str]:
    """The tokens of what follows the cue that gives something up ("no longer on Windows",
    "不再用 MySQL", "instead of npm") up to the end of its clause."""
    at = scanned.find(cue)
    if at < 0:
        return frozenset()
    clause = _BREAK.split(scanned[at + len(cue) :], maxsplit=1)[0]
    return subject_tokens(clause)
