"""How a text is cut into weighed features (core.judgement.features), from the word lists
of core.judgement.concepts and core.judgement.phrasing. (tests/test_similarity.py judges
pairs with them.)"""

from __future__ import annotations

from memcli.core.judgement import concepts, phrasing
from memcli.core.judgement.features import CHAR, CONCEPT, DENY, LIGHT, PIVOT, VALUE, features_of


def flat(text: str) -> list[tuple[str, float, str]]:
    return [feature for group, _ in features_of(text) for feature in group]


def names(text: str) -> list[str]:
    return [name for name, weight, _ in flat(text) if weight > 0]


def test_the_english_and_chinese_words_of_a_concept_are_one_feature() -> None:
    assert names("commit the fix") == names("提交修复") == ["commit", "fix"]
    assert names("use the prod db") == names("use the production database")


def test_word_forms_fold_to_one_stem() -> None:
    assert phrasing.stem("fixing") == phrasing.stem("fixes") == phrasing.stem("fixed") == "fix"
    assert names("deploys") == names("deployed") == ["deploy"]


def test_each_feature_weighs_what_it_tells() -> None:
    weights = {name: weight for name, weight, _ in flat("use 7890 端口 的 咖")}
    assert weights["7890"] == VALUE
    assert weights["port"] == CONCEPT
    assert weights["use"] == LIGHT  # a function word shades a fact
    assert weights["咖"] == CHAR  # a character outside known words
    assert "的" not in weights  # a stop word carries nothing


def test_a_negation_is_a_cue_and_a_compound_that_denies_nothing_is_not() -> None:
    assert DENY in flat("不要提交") and DENY in flat("never commit")
    assert DENY not in flat("不过还行") and DENY not in flat("don't forget to commit")


def test_a_comparison_is_a_pivot() -> None:
    assert PIVOT in flat("tabs over spaces") and PIVOT in flat("用 tabs 而非 spaces")


def test_a_unit_after_a_number_is_its_concept() -> None:
    assert names("30天") == ["30", "day"]


def test_members_of_one_class_are_marked_with_it() -> None:
    assert [cls for _, _, cls in flat("staging")] == ["stage"]
    assert [cls for _, _, cls in flat("生产环境")] == ["stage"]


def test_the_concept_lists_hold_together() -> None:
    """Every concept is named once; light concepts and classes name concepts that exist."""
    named = [name for name, _, _ in concepts.CONCEPTS]
    assert len(named) == len(set(named))
    assert not concepts.LIGHT_CONCEPTS - set(named)
    assert not set(concepts.CLASSES) - set(named)
