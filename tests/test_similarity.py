"""Duplicates (SPEC §6): normalisation, values, Chinese similarity, groups, blocking."""

from __future__ import annotations

import json
import pickle
import random
from collections.abc import Collection, Iterable
from datetime import date
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rapidfuzz.fuzz import ratio

from conftest import NOW, REPO, Invoke, as_json
from memcli.core.judgement.duplicates import judge
from memcli.core.judgement.wording import Shape, shape, sketch, status_marks, value_keys, value_keys_once
from memcli.core.memo import Memo, Table
from memcli.core.similarity import (
    Blocking,
    Candidates,
    Item,
    Vocabulary,
    _with_day,
    candidate_pairs,
    describe,
    duplicate_groups,
    features_in,
    held_values,
    normalise,
    polarity,
    terms,
    terms_of,
    values,
)

D1, D2, D3 = date(2026, 9, 1), date(2026, 9, 8), date(2026, 9, 15)


def groups_of(texts: list[tuple[str, date | None]], threshold: float = 0.8) -> list[set[int]]:
    items = [Item(t, d) for t, d in texts]
    return [{g.keep, *(i for i, _ in g.duplicates)} for g in duplicate_groups(items, threshold)]


def test_normalise_drops_marker_markup_punctuation_and_timestamps() -> None:
    assert normalise("- **09:10** — Deployed `atlas-api`!") == "deployed atlas api"
    assert normalise("- [x] 周会改到每周三上午 10 点。") == "周会改到每周三上午10点"
    assert normalise("* [链接](https://x.example/a) <!-- pin -->") == "链接https x example a"
    assert normalise("ＡＢＣ　全角") == "abc全角"  # NFKC folds full-width forms


def test_values_keep_what_must_not_be_lost() -> None:
    assert values("- deploy atlas-api on port 8080") == {"atlas-api", "8080"}
    assert values("- 评审定在 11 月 12 日") == {"11-12"}
    assert values("- **09:10** — backups at 02:00") == {"02:00"}  # the leading stamp is not a value
    assert "c:\\users\\lin\\atlas" in values("repo in C:\\Users\\lin\\atlas")
    assert "https://staging.atlas.example.com" in values("see https://staging.atlas.example.com")
    assert "@node" in values("upgraded Node to 22.3") and "22.3" in values("upgraded Node to 22.3")
    assert "1,000" in values("about 1,000 rows") and "08:02" in values("at 08:02，Orla 主持")
    assert "@orla" in values("at 08:02，Orla 主持") and "@hannah" in values("交给 Hannah 负责")


def test_polarity() -> None:
    assert polarity("我不喜欢用 npm") and not polarity("我喜欢用 npm")
    assert polarity("we no longer use MySQL") and not polarity("we use MySQL")


def test_exact_and_paraphrased_duplicates_in_both_languages() -> None:
    found = groups_of(
        [
            ("- 用户偏好用 pnpm，不要用 npm 安装依赖", D1),
            ("- 用户偏好用 pnpm，不要用 npm 安装依赖", D2),
            ("- 周会改到每周三上午 10 点", D1),
            ("- 周会改成每周三上午 10 点开", D2),
            ("- Staging DB backups run nightly at 02:00", D1),
            ("- the staging DB backups run nightly at 02:00", D3),
        ]
    )
    assert sorted(map(sorted, found)) == [[0, 1], [2, 3], [4, 5]]


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("- deploy atlas-api on port 8080", "- deploy atlas-api on port 9090"),
        ("- 评审定在 11 月 12 日", "- 评审定在 11 月 19 日"),
        ("- upgraded Node to 20.11", "- upgraded Node to 22.3"),
        ("- config lives in ~/.config/atlas/a.toml", "- config lives in ~/.config/atlas/b.toml"),
        ("- the release is v3.0.1", "- the release is v3.0.2"),
        ("- 我喜欢用 Vim 写代码", "- 我不喜欢用 Vim 写代码"),
    ],
)
def test_entries_that_differ_in_a_value_are_not_duplicates(a: str, b: str) -> None:
    assert ratio(normalise(a), normalise(b)) >= 80  # similar enough to be tempting
    assert groups_of([(a, D1), (b, D2)]) == []


def test_an_open_task_and_the_same_task_done_are_not_duplicates() -> None:
    items = [
        Item("- [ ] 准备设计评审的材料", D1, done=False),
        Item("- [x] 准备设计评审的材料", D2, done=True),
    ]
    assert duplicate_groups(items, 0.8) == []
    items.append(Item("- [ ] 准备设计评审的材料", D2, done=False))
    ((keep, dups),) = [(g.keep, [i for i, _ in g.duplicates]) for g in duplicate_groups(items, 0.8)]
    assert (keep, dups) == (0, [2])


def test_a_missing_value_may_go_only_into_the_entry_that_has_it() -> None:
    (group,) = duplicate_groups(
        [Item("- backups run nightly", D1), Item("- backups run nightly at 02:00", D2)], 0.8
    )
    assert group.keep == 1  # the more complete wording carries the time


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("- 夜间同步交给 徐涛 负责，10 月 27 日前完成", "- 夜间同步交给 萧静 负责，10 月 27 日前完成"),
        ("- 蓝绿切换交给高浩然负责", "- 蓝绿切换交给高超负责"),
        (
            "- SPARRO-2860 is assigned to Gustav D., due 2016-04-19",
            "- SPARRO-2860 is assigned to 马秀英, due 2016-04-19",
        ),
        ("- the review is run by Mateo this week", "- the review is run by Priya this week"),
        (
            "- 修了 `models_test.go` 的偶发失败，原因是账号注销有竞态",
            "- 修了 `models_test.go` 的偶发失败，原因是签名校验有竞态",
        ),
    ],
)
def test_a_person_swapped_for_another_is_not_a_duplicate(a: str, b: str) -> None:
    assert groups_of([(a, D1), (b, D2)]) == []


def test_dont_forget_is_not_a_negation() -> None:
    assert not polarity("Don't forget to run the tests before shipping")
    assert not polarity("别忘了发布前先跑测试")
    assert polarity("don't run the tests on main")
    a = "- Always run `go test -race ./...` before shipping lichen-admin; Daniel R. owns the release"
    b = "- Don't forget to run `go test -race ./...` before shipping lichen-admin; Daniel R. owns the release"
    assert groups_of([(a, D1), (b, D2)]) == [{0, 1}]


def test_routine_events_on_different_days_are_not_merged() -> None:
    items = [Item("- heartbeat OK", d, routine=True) for d in (D1, D2, D3)]
    items.append(Item("- heartbeat OK", D1, routine=True))  # pasted twice the same day
    groups = duplicate_groups(items, 0.8)
    assert [(g.keep, [i for i, _ in g.duplicates]) for g in groups] == [(0, [3])]


def test_the_core_copy_is_kept_and_mentions_count_distinct_days() -> None:
    items = [
        Item("- Lin prefers short commit messages", D2),
        Item("- Lin prefers short commit messages", None, in_core=True),
        Item("- Lin prefers short commit messages", D1),
        Item("- Lin prefers short commit messages", D1),
    ]
    (group,) = duplicate_groups(items, 0.8)
    assert group.keep == 1
    assert (group.mentions, group.first_seen, group.last_seen) == (2, D1, D2)


def test_every_duplicate_resembles_the_kept_entry() -> None:
    # a chain a~b, b~c where a and c are far apart must not become one group through b
    chain = [
        "- alpha beta gamma delta",
        "- alpha beta gamma delta epsilon",
        "- beta gamma delta epsilon zeta",
    ]
    for group in duplicate_groups([Item(t, D1) for t in chain], 0.8):
        keep = normalise(chain[group.keep])
        assert all(ratio(keep, normalise(chain[i])) >= 80 for i, _ in group.duplicates)


# --- blocking ------------------------------------------------------------------------------

WORDS = [
    "atlas",
    "deploy",
    "staging",
    "review",
    "backup",
    "nightly",
    "redis",
    "queue",
    "周会",
    "评审",
    "部署",
    "数据库",
    "配置",
    "同步",
    "间隔",
    "依赖",
]
VALUES = ["8080", "9090", "v2.3.1", "11 月 12 日", "~/atlas/a.toml", "Priya", "02:00", "atlas-api"]


def _random_corpus(rng: random.Random, n: int) -> list[str]:
    """Entries from a small vocabulary; a third are copies of earlier ones reworded the way
    notes get reworded: a filler word or particle added or dropped, two words swapped."""
    texts: list[str] = []
    for _ in range(n):
        if texts and rng.random() < 0.3:
            words = rng.choice(texts).split(" ")
            for _ in range(rng.randint(0, 2)):
                edit = rng.random()
                if edit < 0.5:
                    words.insert(
                        rng.randrange(len(words) + 1), rng.choice(["的", "了", "the", "now", "已经"])
                    )
                elif edit < 0.8 and len(words) > 3:
                    words.pop(rng.randrange(len(words)))
                elif len(words) > 1:
                    k = rng.randrange(len(words) - 1)
                    words[k], words[k + 1] = words[k + 1], words[k]
            texts.append(" ".join(words))
        else:
            words = [rng.choice(WORDS) for _ in range(rng.randint(3, 9))]
            if rng.random() < 0.6:
                words.insert(rng.randrange(len(words) + 1), rng.choice(VALUES))
            texts.append(" ".join(words))
    return texts


SYNONYMS = [
    ("部署", "deploy"),
    ("评审", "review"),
    ("配置", "config"),
    ("数据库", "database"),
    ("每天", "每日"),
]


def _reworded(rng: random.Random, texts: list[str]) -> list[str]:
    """The corpus with some entries said again in other words: a word swapped for its
    synonym or its English, words reordered (see _random_corpus for fillers and drops)."""
    out = list(texts)
    for _ in range(len(texts) // 5):
        words = rng.choice(texts).split(" ")
        for zh, en in SYNONYMS:
            words = [en if w == zh and rng.random() < 0.5 else w for w in words]
        if len(words) > 3 and rng.random() < 0.5:
            k = rng.randrange(len(words) - 1)
            words[k], words[k + 1] = words[k + 1], words[k]
        out.append(" ".join(words))
    return out


def _same_pairs(shapes: list[Shape], pairs: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    return {(i, j) for i, j in pairs if judge(shapes[i], shapes[j], 0.8).same}


def test_blocking_finds_the_duplicate_pairs_all_pairs_comparison_finds() -> None:
    """Over random workspaces, the blocking misses at most 1% of the pairs that judging every
    pair finds the same fact (SPEC §6)."""
    found_total = truth_total = 0
    for seed in range(12):
        rng = random.Random(seed)
        texts = _reworded(rng, _random_corpus(rng, 110))
        shapes = [shape(t) for t in texts]
        truth = _same_pairs(shapes, combinations(range(len(texts)), 2))
        features = [sketch(s.norm, s.values) for s in shapes]
        found = _same_pairs(shapes, candidate_pairs(features, [value_keys(s.values) for s in shapes], 0.8))
        assert found <= truth
        found_total += len(found)
        truth_total += len(truth)
    assert truth_total > 300
    assert found_total >= 0.99 * truth_total


def test_equal_statuses_are_one_object() -> None:
    """The memo keeps a status for every text: equal ones are one object, stored once."""
    assert status_marks("- [x] shipped ✅") is status_marks("✅ 已上线")
    assert status_marks("- [ ] 待办") is status_marks("- [ ] todo") == frozenset({"open"})
    assert status_marks("plain") is status_marks("普通") == frozenset()


def test_candidates_are_every_pair_the_blocking_proposes_once_in_order() -> None:
    """Candidates keeps, for each entry, the later entries to judge it against: the pairs
    are those `near` proposes from either side, each once, as (smaller, larger), sorted."""
    for seed in range(6):
        rng = random.Random(seed)
        texts = _reworded(rng, _random_corpus(rng, 80))
        shapes = [shape(t) for t in texts]
        features = [sketch(s.norm, s.values) for s in shapes]
        blocking = Blocking([terms(f) for f in features], [value_keys(s.values) for s in shapes], 0.8)
        proposed = {(min(i, j), max(i, j)) for i in range(len(texts)) for j in blocking.near(i)}
        found = list(Candidates(blocking, len(texts)))
        assert proposed and found == sorted(proposed)
        assert len(Candidates(blocking, len(texts))) == len(proposed)


def test_blocking_compares_few_pairs_on_real_notes(sample: Path) -> None:
    from memcli.core.entries import parse

    texts = [
        e.text
        for path in sorted(sample.rglob("*.md"))
        for e in parse(path.read_text(encoding="utf-8")).entries
        if e.kind in ("bullet", "task", "paragraph")
    ]
    shapes = [shape(t) for t in texts]
    features = [sketch(s.norm, s.values) for s in shapes]
    candidates = set(candidate_pairs(features, [value_keys(s.values) for s in shapes], 0.8))
    everything = len(texts) * (len(texts) - 1) // 2
    assert len(texts) > 400 and len(candidates) < 0.05 * everything


# --- the command, on the sample workspace ------------------------------------------------------


def _places(group: dict[str, object]) -> set[tuple[str, int]]:
    keep = group["keep"]
    dups = group["duplicates"]
    assert isinstance(keep, dict) and isinstance(dups, list)
    return {(keep["file"], keep["line"])} | {(d["file"], d["line"]) for d in dups}


def test_dedupe_finds_the_planted_duplicates_and_merges_no_near_miss(cli: Invoke, sample: Path) -> None:
    manifest = json.loads((REPO / "tests" / "data" / "sample_manifest.json").read_text(encoding="utf-8"))
    data = as_json(cli("--json", "-w", str(sample), "--now", NOW, "dedupe"))
    groups = [_places(g) for g in data["groups"]]
    for planted in manifest["exact_duplicates"] + manifest["paraphrase_groups"]:
        want = {(p["file"], p["line"]) for p in planted}
        assert any(want <= g for g in groups), want
    grouped = set().union(*groups)
    for a, b in manifest["near_misses"]:
        together = any({(a["file"], a["line"]), (b["file"], b["line"])} <= g for g in groups)
        assert not together, (a, b)
    for routine in manifest["routine"]:
        days = {(p["file"], p["line"]) for p in routine}
        assert not days & grouped, "routine events must not be merged across days"
    for group in data["groups"]:
        assert all(d["similarity"] >= 0.8 for d in group["duplicates"])
        assert group["mentions"] == len(
            {group["keep"]["date"], *(d["date"] for d in group["duplicates"])} - {None}
        )


def test_dedupe_text_output_and_threshold(cli: Invoke, sample: Path) -> None:
    result = cli("-w", str(sample), "--now", NOW, "dedupe")
    assert result.exit_code == 0 and "keep   memory/2026-09-02.md:14" in result.stdout
    strict = as_json(cli("--json", "-w", str(sample), "--now", NOW, "dedupe", "--threshold", "1.0"))
    assert all(d["similarity"] == 1.0 for g in strict["groups"] for d in g["duplicates"])
    assert len(strict["groups"]) < len(
        as_json(cli("--json", "-w", str(sample), "--now", NOW, "dedupe"))["groups"]
    )


def test_parallel_description_gives_the_same_groups() -> None:
    """Texts described on every core (forked workers: parallel_map's threshold lowered for
    the test, as it is bound when the module is imported) give the groups of one process."""
    from functools import partial

    from memcli.core.similarity import serial_map
    from memcli.parallel import parallel_map

    texts = _random_corpus(random.Random(3), 400)
    on_cores = partial(parallel_map, min_items=10)
    assert on_cores(describe, texts) == serial_map(describe, texts)
    items = [Item(t, D1) for t in texts]
    assert duplicate_groups(items, 0.8, on_cores) == duplicate_groups(items, 0.8)


def test_candidates_judged_on_every_core_give_the_groups_and_verdicts_of_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past JUDGED_HERE candidate pairs, each entry's candidates are judged in forked worker
    processes (the blocking let go first): the groups are those judged in this process, and
    the verdicts kept for the next run are the same, whether the memo knew some or none."""
    from functools import partial

    from memcli.core import similarity
    from memcli.parallel import parallel_map

    texts = _random_corpus(random.Random(11), 500)
    items = [Item(t, D1 if k % 3 else D2) for k, t in enumerate(texts)]
    here_stored: dict[str, Any] = {}
    here = duplicate_groups(items, 0.8, memo=Memo(sink=here_stored.__setitem__))
    assert here, "the corpus holds restatements"
    monkeypatch.setattr(similarity, "JUDGED_HERE", 1)
    on_cores = partial(parallel_map, min_items=2)
    cores_stored: dict[str, Any] = {}
    assert duplicate_groups(items, 0.8, on_cores, memo=Memo(sink=cores_stored.__setitem__)) == here
    assert cores_stored["duplicates.judged"] == here_stored["duplicates.judged"]
    # a memo that knows half the verdicts: the workers judge the rest, and all are kept
    verdicts = here_stored["duplicates.judged"]
    half = dict(list(verdicts.items())[::2])
    again: dict[str, Any] = {}
    memo = Memo(loader={"duplicates.judged": half}.get, sink=again.__setitem__)
    assert duplicate_groups(items, 0.8, on_cores, memo=memo) == here
    assert again["duplicates.judged"] == verdicts


def test_past_judged_here_a_memo_that_knows_most_verdicts_is_read_in_this_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past JUDGED_HERE candidate pairs, a run whose memo leaves fewer than JUDGED_HERE
    verdicts unknown reads the known ones and judges the rest in this process, in one pass
    (`_Verifier.known_pairs`): the groups and the verdicts kept are a run's without a memo,
    and no worker is asked (the mapper given here fails if it is)."""
    from memcli.core import similarity
    from memcli.core.similarity import serial_map

    texts = _random_corpus(random.Random(23), 400)
    items = [Item(t, D1 if k % 3 else D2) for k, t in enumerate(texts)]
    stored: dict[str, Any] = {}
    cold = duplicate_groups(items, 0.8, memo=Memo(sink=stored.__setitem__))
    verdicts = stored["duplicates.judged"]
    assert cold and len(verdicts) > 10

    def no_workers(function: Any, texts: Any) -> Any:
        if function is describe:
            return serial_map(function, texts)
        raise AssertionError("the candidates were sent to workers")

    monkeypatch.setattr(similarity, "JUDGED_HERE", 5)
    for left_out in (0, 1, 4):  # verdicts the memo does not hold: fewer than JUDGED_HERE
        known = dict(list(verdicts.items())[left_out:])
        again: dict[str, Any] = {}
        memo = Memo(loader={"duplicates.judged": known}.get, sink=again.__setitem__)
        assert duplicate_groups(items, 0.8, no_workers, memo=memo) == cold
        if left_out:  # every verdict is kept, those judged here with them
            assert again["duplicates.judged"] == verdicts
        else:  # nothing new: the table is not stored again
            assert "duplicates.judged" not in again
    # as many unknown as JUDGED_HERE: the workers are asked
    memo = Memo(loader={"duplicates.judged": dict(list(verdicts.items())[5:])}.get)
    with pytest.raises(AssertionError, match="sent to workers"):
        duplicate_groups(items, 0.8, no_workers, memo=memo)


def test_a_set_of_values_that_is_its_own_keys_is_handed_back_not_copied() -> None:
    """A decade holds a set of values a text: value_keys gives back the very set when no
    value in it changes, and a new set when one is a concept or words joined by hyphens."""
    own = frozenset({"8080", "atlas-api/v2", "@mia", "gemma3:4b"})
    assert value_keys(own) is own
    assert value_keys(frozenset({"8080", "design-team", "PRs"})) == frozenset({"8080", "PRs"})
    assert value_keys(frozenset({"端口8080", "k8s"})) == frozenset({"端口8080", "kubernetes"})


def test_groups_are_the_same_whether_values_are_held_as_sets_or_sorted_tuples() -> None:
    """A run that holds every text keeps each one's values as a sorted tuple (the note cache
    hands them so); a text described afresh has a set. Either way, or both mixed, the groups
    are the same, in both languages."""
    texts = _random_corpus(random.Random(5), 300)
    items = [Item(t, D1) for t in texts]
    as_sets = {t: describe(t) for t in texts}
    held = {t: (n, held_values(v), neg) for t, (n, v, neg) in as_sets.items()}
    mixed = {t: held[t] if k % 2 else as_sets[t] for k, t in enumerate(as_sets)}
    cold = duplicate_groups(items, 0.8)
    assert cold, "the corpus holds restatements"
    assert duplicate_groups(items, 0.8, described=held) == cold
    assert duplicate_groups(items, 0.8, described=mixed) == cold
    assert all(type(v) is tuple and list(v) == sorted(v) for _, v, _ in held.values())


def test_value_keys_asked_once_for_each_key_are_the_same_and_not_remembered() -> None:
    """The duplicate finder asks the value keys of each of a decade's keys once: it is given
    what value_keys gives, in both languages, and value_keys' memory does not grow by it."""
    from memcli.core.judgement import wording

    sets = [
        frozenset({"8080", "design-team", "PRs"}),
        frozenset({"端口8080", "k8s"}),
        frozenset({"@mia", "2025-03-04"}),
        frozenset({"@PostgreSQL", "v16"}),
    ]
    remembered = len(wording._VALUE_KEYS)
    found = [wording.value_keys_once(frozenset(s)) for s in sets]
    assert len(wording._VALUE_KEYS) == remembered
    assert found == [value_keys(s) for s in sets]
    own = frozenset({"8080", "@mia"})
    assert wording.value_keys_once(own) is own
    # values that carry no name are compared as they are, a name without its mark
    assert wording.values_nest(frozenset({"@mia", "8080"}), frozenset({"8080"}))
    assert not wording.values_nest(frozenset({"@mia", "8080"}), frozenset({"@talia", "8080"}))


def test_a_pair_found_not_the_same_is_remembered_as_one_verdict() -> None:
    """The memo keeps a verdict for every pair judged; how near a pair that is not the same
    came is read nowhere, so all of them are one object (stored once), while a pair that is
    the same keeps its similarity, and the groups are those of a run that remembers nothing."""
    stored: dict[str, dict[Any, Any]] = {}
    memo = Memo(sink=lambda name, table: stored.__setitem__(name, dict(table)))
    texts = [
        "Deployed atlas-api v2.3 to staging on port 8080",
        "Deployed atlas-api v2.3 to staging, port 8080",
        "Deployed atlas-api v2.4 to production on port 8080",
        "部署 atlas-api v2.3 到 staging，端口 8080",
        "Rolled back atlas-api v2.3 on staging, port 8080",
    ]
    items = [Item(t, D1) for t in texts]
    groups = duplicate_groups(items, 0.8, memo=memo)
    memo.finish_all()
    judged = stored["duplicates.judged"]
    differ = [v for v in judged.values() if not v[0]]
    same = [v for v in judged.values() if v[0]]
    assert len(differ) >= 2 and all(v is differ[0] for v in differ) and differ[0] == (False, 0.0)
    assert same and all(0.8 <= v[1] <= 1.0 for v in same)
    assert groups == duplicate_groups(items, 0.8)


def test_a_keys_days_are_a_tuple_up_to_four_then_a_set() -> None:
    """Most duplicate keys are written on a day or two: a tuple holds them in a fifth of a
    set's memory; a fifth day makes it a set, and a day already held is not added again."""
    later = [date(2026, 9, 22), date(2026, 9, 29)]
    days: Collection[date | None] = (D1,)
    for day in (D1, D2, D3, D2, later[0]):
        days = _with_day(days, day)
    assert days == (D1, D2, D3, later[0])
    days = _with_day(days, later[1])
    assert isinstance(days, set) and days == {D1, D2, D3, *later}
    assert _with_day(days, D1) is days and len(days) == 5


_NAMES = st.text(alphabet=st.sampled_from("abcxyz-_:/.0123456789数据库周会端口部署"), min_size=1, max_size=12)
_WEIGHTS = st.sampled_from([0.25, 0.5, 1.0, 1.5]) | st.floats(min_value=0.01, max_value=3, allow_nan=False)


@given(st.lists(st.dictionaries(_NAMES, _WEIGHTS, max_size=30), max_size=12))
def test_a_kept_sketch_reads_back_as_its_features_and_weights_in_order(
    sketches: list[dict[str, float]],
) -> None:
    """A sketch kept by a vocabulary (numbers in one bytes object) reads back as the very
    features and weights, in the sketch's order; pickled, the sketches share one vocabulary
    and still read the same."""
    vocabulary = Vocabulary()
    kept = [vocabulary.kept(s) for s in sketches]
    assert [terms_of(k) for k in kept] == [(tuple(s), tuple(s.values())) for s in sketches]
    assert len(vocabulary.names) == len({name for s in sketches for name in s})
    again = pickle.loads(pickle.dumps(kept))
    assert len({id(k[0]) for k in again}) <= 1
    assert [terms_of(k) for k in again] == [terms_of(k) for k in kept]


def test_a_sketch_numbers_its_weights_in_one_byte_while_they_fit() -> None:
    """A weight's number takes one byte while the vocabulary holds no more than 256 weights
    (the rules weigh by a handful), four after; sketches of both widths read back the same,
    side by side in one vocabulary, and each counts its own features."""
    vocabulary = Vocabulary()
    narrow = vocabulary.kept({"部署": 1.0, "atlas-api": 1.5, "周三": 0.5})
    assert len(narrow[1]) == 3 * 5 + 1
    for k in range(300):  # (weights no rule gives: the vocabulary learns each)
        vocabulary.kept({f"w{k}": 1 + k / 1000})
    wide = vocabulary.kept({"部署": 1.0, "w299": 1 + 299 / 1000})
    assert len(wide[1]) == 2 * 8 + 1
    assert terms_of(narrow) == (("部署", "atlas-api", "周三"), (1.0, 1.5, 0.5))
    assert terms_of(wide) == (("部署", "w299"), (1.0, 1 + 299 / 1000))
    assert [features_in(k) for k in (narrow, wide, vocabulary.kept({}))] == [3, 2, 0]
    again = pickle.loads(pickle.dumps([narrow, wide]))
    assert [terms_of(k) for k in again] == [terms_of(narrow), terms_of(wide)]


def test_a_crowded_vocabulary_is_numbered_again_by_the_names_in_use() -> None:
    """Names of texts that are gone are dropped once a vocabulary holds a quarter more than
    when it was last numbered: the sketches this run asked for then read the same by a
    smaller one, and a sketch of the old numbering still reads the same by the old one."""
    vocabulary = Vocabulary()
    # a text of last time this run did not ask for: not numbered again (it is not kept)
    table = Table(known={"- a text since archived": vocabulary.kept({"archived": 1.0})})
    live = {
        "- deploy atlas-api": {"deploy": 1.0, "atlas-api": 1.5},
        "- 周会改到周三": {"周会": 1.0, "周三": 0.5},
    }
    live["- ok"] = {}  # a text with no features: its sketch is renumbered too
    for text, found in live.items():
        table.get(text, vocabulary.kept, found)
    vocabulary.base = len(vocabulary.names)
    gone = [vocabulary.kept({f"gone{k}": 1.0}) for k in range(2000)]
    assert vocabulary.crowded(in_use=4)
    fresh = vocabulary.compacted(table)
    assert sorted(fresh.names) == sorted({name for found in live.values() for name in found})
    assert not fresh.crowded(in_use=4) and fresh.base == len(fresh.names)
    for text, found in live.items():
        assert terms_of(table.get(text, lambda: None)) == (tuple(found), tuple(found.values()))
        assert table.get(text, lambda: None)[0] is fresh
    assert terms_of(gone[5]) == (("gone5",), (1.0,))
    assert "archived" not in fresh.names
    assert terms_of(table.known["- a text since archived"]) == (("archived",), (1.0,))
    assert list(table.to_store()) == list(live)


def test_a_vocabulary_is_crowded_when_it_grew_or_its_texts_are_gone() -> None:
    """A vocabulary that did not grow is still numbered again once its sketches hold half
    as many features as it has names (a gc archived most texts)."""
    kept = Vocabulary([f"name {k}" for k in range(5000)], [1.0], base=5000)
    assert not kept.crowded(in_use=4000) and kept.crowded(in_use=100)
    grown = Vocabulary([f"name {k}" for k in range(5000)], [1.0], base=3000)
    assert grown.crowded(in_use=20000)
    assert not Vocabulary(["a", "b"], [1.0], base=1).crowded(in_use=0)  # (small: left as it is)


def test_groups_are_the_same_when_the_memo_renumbers_its_sketches() -> None:
    """A run whose sketch vocabulary is crowded numbers it again; its groups are those of a
    run that remembers nothing, and the vocabulary it stores holds only the names in use."""
    stored: dict[str, dict[Any, Any]] = {}
    rng = random.Random(3)
    texts = _reworded(rng, _random_corpus(rng, 60))
    items = [Item(t, D1 if k % 2 else D2) for k, t in enumerate(texts)]
    first = Memo(sink=lambda name, table: stored.__setitem__(name, dict(table)))
    cold = duplicate_groups(items, 0.8, memo=first)
    first.finish_all()
    sketches = stored["duplicates.sketch"]
    vocabulary = next(iter(sketches.values()))[0]
    in_use = len(vocabulary.names)
    for k in range(3 * in_use + 2000):  # names of texts since gone
        vocabulary.kept({f"gone {k}": 1.0})
    again = Memo(loader=stored.get, sink=lambda name, table: stored.__setitem__(name, dict(table)))
    assert duplicate_groups(items, 0.8, memo=again) == cold
    again.finish_all()
    renumbered = {id(v[0]): v[0] for v in stored["duplicates.sketch"].values()}
    assert len(renumbered) == 1 and len(next(iter(renumbered.values())).names) == in_use
    assert duplicate_groups(items, 0.8, memo=Memo(loader=stored.get)) == cold


@given(
    st.lists(
        st.frozensets(
            st.sampled_from(["8080", "@Mia", "design-team", "k8s", "PRs", "TS", "a/b.csv", "用户", "v1.2"])
        ),
        max_size=6,
    )
)
def test_value_keys_read_with_one_dict_of_value_keys_are_as_read_alone(sets: list[frozenset[str]]) -> None:
    # the duplicate finder reads each key's values with one dict of what each value's key
    # is, filled as it goes: each set's keys are the same as read without it
    keyed: dict[str, str | None] = {}
    for found in sets:
        assert value_keys_once(found, keyed) == value_keys_once(found)
        assert value_keys_once(tuple(sorted(found)), keyed) == value_keys_once(tuple(sorted(found)))
    assert set(keyed) == set().union(*sets)
