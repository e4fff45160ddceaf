"""The CJK-aware token estimate of SPEC §10."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memcli.core.tokens import CJK_CHAR, count_cjk, estimate_tokens, is_mostly_cjk


def test_one_token_per_cjk_character_and_four_characters_otherwise() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2
    assert estimate_tokens("周会时区") == 4
    assert estimate_tokens("用 pnpm") == 1 + 2  # 用 + " pnpm" (5 chars -> 2)
    assert estimate_tokens("ｈｅｌｌｏ。") == 6  # full-width forms count like CJK
    assert count_cjk("日本語かなカナ한국어") == 10


def test_language_share() -> None:
    assert is_mostly_cjk("我习惯用 pnpm 安装依赖")
    assert not is_mostly_cjk("I prefer pnpm over npm, 谢谢")
    assert not is_mostly_cjk("1234 !!")


@given(st.text(), st.text())
def test_estimate_is_additive_within_rounding_and_never_negative(a: str, b: str) -> None:
    ta, tb, tab = estimate_tokens(a), estimate_tokens(b), estimate_tokens(a + b)
    assert ta >= 0 and tb >= 0
    assert ta + tb - 1 <= tab <= ta + tb
    assert tab >= count_cjk(a + b)


@given(st.text(alphabet=st.sampled_from("ab 1,中文한ｈ。\U00020000\n")) | st.text())
def test_cjk_count_is_the_number_of_cjk_characters(text: str) -> None:
    assert count_cjk(text) == sum(1 for ch in text if CJK_CHAR.fullmatch(ch))
