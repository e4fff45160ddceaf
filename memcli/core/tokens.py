"""A CJK-aware token estimate (SPEC §10).

Tokenisers spend about one token per CJK character and about one token per
four characters of other text; counting words by spaces would make Chinese
look almost free.
"""

from __future__ import annotations

import re

CJK_RANGES = (
    "\u2e80-\u2fdf"  # radicals
    "\u3000-\u303f"  # CJK symbols and punctuation
    "\u3040-\u30ff"  # hiragana, katakana
    "\u3100-\u312f"  # bopomofo
    "\u3130-\u318f"  # hangul compatibility jamo
    "\u31a0-\u31ff"
    "\u3200-\u33ff"  # enclosed letters, compatibility
    "\u3400-\u4dbf"  # extension A
    "\u4e00-\u9fff"  # unified ideographs
    "\ua960-\ua97f"
    "\uac00-\ud7af"  # hangul syllables
    "\uf900-\ufaff"  # compatibility ideographs
    "\ufe30-\ufe4f"  # compatibility forms
    "\uff00-\uffef"  # full-width forms
    "\U00020000-\U0003ffff"  # extensions B and later
)
CJK_CHAR = re.compile(f"[{CJK_RANGES}]")
_CJK_RUN = re.compile(f"[{CJK_RANGES}]+")

CHARS_PER_TOKEN = 4


def count_cjk(text: str) -> int:
    if text.isascii():
        return 0
    return sum(map(len, _CJK_RUN.findall(text)))  # runs, not characters: fewer objects


def estimate_tokens(text: str) -> int:
    """One token per CJK character, one per four other characters (rounded up)."""
    cjk = count_cjk(text)
    other = len(text) - cjk
    return cjk + -(-other // CHARS_PER_TOKEN)


_LATIN_LETTER = re.compile(r"[A-Za-z]")


def is_mostly_cjk(text: str, share: float = 0.5) -> bool:
    """True when CJK characters make up at least `share` of the letters."""
    cjk = count_cjk(text)
    letters = cjk + len(_LATIN_LETTER.findall(text))
    return letters > 0 and cjk / letters >= share
