"""Which older facts each newer entry of a workspace replaces (core.judgement.replacements):
the rules across pairs, on entries given as plain data. (tests/test_supersede.py judges
pairs, and runs gc end to end.)"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Iterable, Sequence
from datetime import date

from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.core.judgement import replacements
from memcli.core.judgement.profiles import Profile
from memcli.core.judgement.replacements import CORE, NOTE, Fact, Found, find_replacements
from memcli.core.judgement.supersede import AT_MOST
from memcli.core.memo import Memo
from memcli.core.scoring import scoring_text
from memcli.parallel import parallel_map


def facts(*entries: tuple[str, date | None] | tuple[str, date | None, str]) -> list[Fact]:
    """Each entry (text, day[, kind]) alone in its file: MEMORY.md's when it has no day."""
    out = []
    for n, (text, day, *kind) in enumerate(entries):
        file = "MEMORY.md" if day is None else f"memory/{day}.md"
        where = CORE if day is None else NOTE
        out.append(Fact(text, kind[0] if kind else "bullet", where, day, file, 3 + n, 3 + n, None))
    return out


def replaced(found: Found) -> dict[int, list[int]]:
    return {n: [o for o, _ in olds] for n, olds in found.replaced}


def never(o: int, n: int) -> bool:
    return False


def run(entries: Iterable[Fact], repeated: object = never) -> Found:
    return find_replacements(list(entries), scoring_text, repeated)  # type: ignore[arg-type]


D1, D2, D3, D4 = date(2026, 10, 20), date(2026, 10, 21), date(2026, 10, 22), date(2026, 10, 23)


def test_a_switch_replaces_the_fact_it_gives_up() -> None:
    found = run(facts(("Team chat is on Slack.", D1), ("Team chat switched to Discord.", D2)))
    assert replaced(found) == {1: [0]}
    assert found.superseded == {0}
    assert found.replaced[0][1][0][1].family == "switch"


def test_a_value_said_again_replaces_the_one_said_last() -> None:
    """Each newer value replaces the one before it; an older fact is replaced once."""
    found = run(
        facts(("已连续 12 天无故障。", D1), ("已连续 13 天无故障。", D2), ("已连续 15 天无故障。", D3))
    )
    assert replaced(found) == {1: [0], 2: [1]}
    assert found.superseded == {0, 1}


def test_which_is_newer_goes_by_the_day_written_not_by_the_order_given() -> None:
    found = run(facts(("Team chat switched to Discord.", D2), ("Team chat is on Slack.", D1)))
    assert replaced(found) == {0: [1]}
    found = run(facts(("Team chat switched to Discord.", D1), ("Team chat is on Slack.", D2)))
    assert found.replaced == ()  # the switch came first: the later entry is news again


def test_a_memory_md_entry_a_note_repeats_since_is_no_older_news() -> None:
    entries = facts(("Redis 6.2 on the cache host.", None), ("Redis 7.2 on the cache host.", D2))
    assert replaced(run(entries)) == {1: [0]}
    found = run(entries, lambda o, n: (o, n) == (0, 1))
    assert found.replaced == ()
    assert found.held_back == {1}  # and the newer one does not go up beside it


def test_an_entry_that_would_retire_more_than_a_few_is_a_misreading() -> None:
    days = [date(2026, 10, d) for d in range(10, 15)]
    olds = [
        "我们的 Jenkins 跑在 ci-01 上",
        "我们的 Jenkins 插件都锁了版本",
        "我们的 Jenkins 每晚备份一次",
        "我们的 Jenkins 只有管理员能登录",
        "我们的 Jenkins 用 LDAP 登录",
    ]
    entries = facts(*zip(olds, days, strict=True), ("我们的 Jenkins 不再用了", D4))
    found = run(entries)
    assert found.replaced == () and found.superseded == frozenset()
    assert found.misread == ((5, 5),) and AT_MOST < 5


def test_only_facts_take_part() -> None:
    """A task, or an entry too long to state one fact, neither replaces nor is replaced."""
    long = "Team chat is on Slack. " + "It has many channels and a long history. " * 10
    assert (
        run(facts(("Team chat is on Slack.", D1, "task"), ("Team chat switched to Discord.", D2))).replaced
        == ()
    )
    assert run(facts((long, D1), ("Team chat switched to Discord.", D2))).replaced == ()
    assert (
        run(facts(("Team chat is on Slack.", D1), ("Team chat switched to Discord.", D2, "task"))).replaced
        == ()
    )


def test_a_correction_retires_the_entry_it_refers_to() -> None:
    found = run(facts(("The SMTP port is 25.", D1), ("That's wrong: the SMTP port is 587.", D2)))
    assert replaced(found) == {1: [0]}
    assert found.replaced[0][1][0][1].family == "correction"


def test_copies_of_one_text_are_read_once_and_never_replace_each_other() -> None:
    found = run(facts(("Team chat is on Slack.", D1), ("Team chat is on Slack.", D2)))
    assert found.replaced == ()


def test_a_new_path_replaces_every_fact_of_the_old_one_whatever_it_is_called() -> None:
    """The MEMORY.md entry in English and the note in Chinese both give the old path; the
    new path, said in Chinese, replaces both (MEMORY.md never holds both sides)."""
    found = run(
        facts(
            ("Photo library: `D:\\media\\photos`, synced nightly", None),
            ("照片库在 `D:\\media\\photos`", D1),
            ("新的照片库路径：`/Volumes/media/photos`", D2),
            ("Bought a new lens for the camera", D3),
        )
    )
    assert replaced(found) == {2: [0, 1]}


def test_a_label_over_a_list_states_no_fact_to_replace() -> None:
    found = run(
        facts(("**Until the VPN is restored:**", D1), ("VPN works again after the router reboot", D2))
    )
    assert found.replaced == ()


# --- going on from last run's search (issue 20) ----------------------------------------

# Lines of facts and of their changes, both languages, that replace each other in many ways.
POOL = (
    "Lin uses Windows 11 on the desktop",
    "Lin switched to a MacBook now, no longer on Windows",
    "数据库用 MySQL 8",
    "数据库改用 PostgreSQL 16，不再用 MySQL",
    "周会时间是每周二下午三点",
    "周会时间改成每周三上午 10 点",
    "atlas-api runs on port 8080",
    "atlas-api moved to port 9090",
    "atlas-api runs on port 7070",
    "Correction: the staging host is staging-2, not staging-1",
    "staging host: staging-1",
    "备份脚本放在 /opt/scripts/backup.sh",
    "备份脚本移到了 /srv/backup/run.sh",
    "the nightly build is broken",
    "the nightly build is fixed and green again",
    "我们的 Jenkins 跑在 ci-01 上",
    "我们的 Jenkins 每晚备份一次",
    "我们的 Jenkins 只有管理员能登录",
    "我们的 Jenkins 用 LDAP 登录",
    "我们的 Jenkins 不再用了",
    "That's wrong.",
    "deployed build 4121",
)


def workspace_facts(core: list[int], notes: dict[int, list[int]], groups: int) -> list[Fact]:
    """MEMORY.md's lines and each day's note (day number -> lines of POOL), as the planner
    gives them; the entries of a text share a duplicate group when `groups` says so."""
    out = []
    files = [("MEMORY.md", None, core)] + [
        (f"memory/2026-10-{d:02d}.md", date(2026, 10, d), lines) for d, lines in sorted(notes.items())
    ]
    for file, day, lines in files:
        for n, line in enumerate(lines):
            group = line if (groups >> (line % 8)) & 1 else None
            out.append(
                Fact(POOL[line], "bullet", CORE if day is None else NOTE, day, file, 3 + n, 3 + n, group)
            )
    return out


class Stored:
    """A memo kept between runs the way the cache keeps it, with what each run stored."""

    def __init__(self) -> None:
        self.tables: dict[str, dict[object, object]] = {}
        self.stored: list[str] = []

    def memo(self) -> Memo:
        self.stored = []
        return Memo(loader=self.tables.get, sink=self.sink)  # type: ignore[arg-type]

    def sink(self, name: str, table: dict[object, object]) -> None:
        self.stored.append(name)
        self.tables[name] = dict(table)


def repeats(lines: frozenset[int], entries: list[Fact]) -> Callable[[int, int], bool]:
    """`repeated(o, n)`: a note repeats these lines of MEMORY.md after any newer entry."""
    return lambda o, n: POOL.index(entries[o].text) in lines


line = st.integers(0, len(POOL) - 1)
notes = st.dictionaries(st.integers(1, 28), st.lists(line, min_size=1, max_size=5), max_size=8)
repeated_lines = st.frozensets(line, max_size=4)


@settings(max_examples=120)
@given(
    core=st.lists(line, max_size=4),
    before=notes,
    after=notes,
    groups=st.tuples(st.integers(0, 255), st.integers(0, 255)),
    pairs=st.tuples(repeated_lines, repeated_lines),
)
def test_a_search_that_goes_on_from_the_last_finds_what_a_search_from_nothing_does(
    core: list[int],
    before: dict[int, list[int]],
    after: dict[int, list[int]],
    groups: tuple[int, int],
    pairs: tuple[frozenset[int], frozenset[int]],
) -> None:
    """Whatever changed between two runs (notes added, edited or gone anywhere in time,
    other duplicate groups, a MEMORY.md entry repeated since), the second run finds what
    a run without a memo finds; and a third run over the same entries too."""
    stored = Stored()
    first = workspace_facts(core, before, groups[0])
    find_replacements(first, scoring_text, repeats(pairs[0], first), stored.memo())
    second = workspace_facts(core, {**before, **after}, groups[1])
    cold = find_replacements(second, scoring_text, repeats(pairs[1], second))
    for _ in range(2):
        assert find_replacements(second, scoring_text, repeats(pairs[1], second), stored.memo()) == cold


def test_a_new_note_is_searched_alone_and_a_changed_memory_md_starts_over() -> None:
    stored = Stored()
    notes = {1: [0, 2, 4], 2: [6, 10, 13], 3: [15, 16, 17, 18]}
    first = workspace_facts([0, 6], notes, 0)
    find_replacements(first, scoring_text, never, stored.memo())
    assert "replacements.keys" in stored.stored and "replacements.resume" in stored.stored

    later = workspace_facts([0, 6], {**notes, 4: [1, 7], 5: [3, 19]}, 0)
    found = find_replacements(later, scoring_text, never, stored.memo())
    assert stored.stored == ["replacements.resume"]  # no text of the notes before was read again
    assert found == find_replacements(later, scoring_text, never)
    assert replaced(found) and len(found.misread) == 1  # a switch, a move, and a misreading

    assert find_replacements(later, scoring_text, never, stored.memo()) == found
    assert stored.stored == []  # nothing changed: nothing to store

    changed = workspace_facts([0, 6, 2], {**notes, 4: [1, 7], 5: [3, 19]}, 0)
    found = find_replacements(changed, scoring_text, never, stored.memo())
    assert "replacements.keys" in stored.stored  # MEMORY.md comes first: all is searched again
    assert found == find_replacements(changed, scoring_text, never)


def test_last_runs_finds_are_not_taken_when_what_they_rest_on_changed() -> None:
    """A note repeated a MEMORY.md entry since, or the duplicate groups now count the facts
    an entry replaces otherwise (a misreading or not): the search starts over."""
    jenkins = {10: [15], 11: [16], 12: [17], 13: [15], 14: [16], 15: [19], 16: [19]}
    notes = {1: [7], **jenkins}
    for repeated_since, groups in ((frozenset({6}), 0), (frozenset(), 0b1000_0001)):  # (copies of one fact)
        stored = Stored()
        first = workspace_facts([6], notes, 0)
        found = find_replacements(first, scoring_text, never, stored.memo())
        assert replaced(found) == {1: [0]} and found.misread == ((7, 5), (8, 5))

        later = workspace_facts([6], {**notes, 20: [8]}, groups)
        repeated = repeats(repeated_since, later)
        found = find_replacements(later, scoring_text, repeated, stored.memo())
        assert found == find_replacements(later, scoring_text, repeated)
        if repeated_since:
            assert found.held_back == {1} and 1 not in replaced(found)
        else:  # the Jenkins facts: three, retired
            assert found.misread == () and 7 in replaced(found)


def as_stored(tables: dict[str, dict[object, object]]) -> list[tuple[str, list[tuple[object, object]]]]:
    """The tables, in the order stored, a profile by what it was read from (a profile is
    equal only to itself)."""
    return [
        (name, [(k, (v.scanned, v.readings) if isinstance(v, Profile) else v) for k, v in table.items()])
        for name, table in tables.items()
    ]


def forked(function: Callable[[str], object], texts: Sequence[str]) -> list[object]:
    """A mapper that reads in forked worker processes, whatever how few the texts."""
    return parallel_map(function, texts, min_items=1)


@settings(max_examples=60)
@given(core=st.lists(line, max_size=4), before=notes, after=notes, groups=st.integers(0, 255))
def test_texts_read_ahead_on_every_core_change_neither_the_search_nor_the_memo(
    core: list[int], before: dict[int, list[int]], after: dict[int, list[int]], groups: int
) -> None:
    """A first run that reads its texts in worker processes first finds what a run reading
    each as it goes finds, and leaves the memo the same tables; so does a run after it."""
    first = workspace_facts(core, before, groups)
    second = workspace_facts(core, {**before, **after}, groups)
    was = replacements.READ_AHEAD_FROM
    replacements.READ_AHEAD_FROM = 1  # (a real first run reads ahead from 2,000 new texts)
    try:
        runs = []
        for mapper in (None, forked):
            stored = Stored()
            found = find_replacements(first, scoring_text, never, stored.memo(), mapper)
            again = find_replacements(second, scoring_text, never, stored.memo(), mapper)
            runs.append((found, again, as_stored(stored.tables)))
    finally:
        replacements.READ_AHEAD_FROM = was
    assert runs[0] == runs[1]
    assert runs[0][0] == find_replacements(first, scoring_text, never)


def test_a_first_run_reads_its_texts_ahead_only_when_many_are_new() -> None:
    """Read ahead, every text of the search is read in the workers; a run whose memo knows
    them, or with few new ones, reads them as it goes."""
    read: list[str] = []

    def counting(function: Callable[[str], object], texts: Sequence[str]) -> list[object]:
        read.extend(texts)
        return [function(t) for t in texts]

    entries = workspace_facts([0, 1], {1: [2, 3, 4], 2: [5, 6, 7], 3: [8, 9, 10, 11]}, 0)
    stored = Stored()
    find_replacements(entries, scoring_text, never, stored.memo(), counting)
    assert read == []  # (fewer than READ_AHEAD_FROM new texts)
    was = replacements.READ_AHEAD_FROM
    replacements.READ_AHEAD_FROM = 5
    try:
        find_replacements(entries, scoring_text, never, Stored().memo(), counting)
        assert sorted(t[1:] for t in read) == sorted({scoring_text(f.text) for f in entries})
        assert {t[0] for t in read} == {"C", "N"}  # (MEMORY.md's entries are looked up their own way)
        read.clear()
        find_replacements(entries, scoring_text, never, stored.memo(), counting)
        assert read == []  # (the memo knows them all)
    finally:
        replacements.READ_AHEAD_FROM = was


def test_a_text_the_workers_could_not_read_is_read_again_when_asked_for() -> None:
    """What a worker failed to read (None) is read when the search asks for it: the same
    finds and the same memo as without reading ahead."""

    def failing_half(function: Callable[[str], object], texts: Sequence[str]) -> list[object]:
        return [None if n % 2 else function(t) for n, t in enumerate(texts)]

    entries = workspace_facts([0, 1], {1: [2, 3, 4], 2: [5, 6, 7], 3: [8, 9, 10, 11]}, 0)
    was = replacements.READ_AHEAD_FROM
    replacements.READ_AHEAD_FROM = 1
    try:
        runs = []
        for mapper in (None, failing_half):
            stored = Stored()
            runs.append(
                (
                    find_replacements(entries, scoring_text, never, stored.memo(), mapper),
                    as_stored(stored.tables),
                )
            )
    finally:
        replacements.READ_AHEAD_FROM = was
    assert runs[0] == runs[1]
    assert runs[0][0].replaced  # (the entries replace some: the search has something to find)


def judged_ahead_from(least: int) -> Callable[[], None]:
    """Judge pairs ahead from `least` newer entries with candidates (a real first run: from
    2,000); what puts it back."""
    was = replacements.JUDGED_AHEAD_FROM
    replacements.JUDGED_AHEAD_FROM = least

    def back() -> None:
        replacements.JUDGED_AHEAD_FROM = was

    return back


@settings(max_examples=20)
@given(
    core=st.lists(line, max_size=4),
    before=notes,
    after=notes,
    groups=st.integers(0, 255),
    said=repeated_lines,
)
def test_pairs_judged_ahead_on_every_core_change_neither_the_search_nor_the_memo(
    core: list[int],
    before: dict[int, list[int]],
    after: dict[int, list[int]],
    groups: int,
    said: frozenset[int],
) -> None:
    """A first run that judges its pairs in worker processes first finds what a run that
    judges each as it asks finds, and leaves the memo the same tables in the same order,
    profiles too; so does the run after it (which goes on from the first, judging nothing
    ahead)."""
    first = workspace_facts(core, before, groups)
    second = workspace_facts(core, {**before, **after}, groups)
    back = judged_ahead_from(1)
    try:
        runs = []
        for mapper in (None, forked):
            stored = Stored()
            found = find_replacements(first, scoring_text, repeats(said, first), stored.memo(), mapper)
            again = find_replacements(second, scoring_text, repeats(said, second), stored.memo(), mapper)
            runs.append((found, again, as_stored(stored.tables)))
    finally:
        back()
    assert runs[0] == runs[1]
    assert runs[0][0] == find_replacements(first, scoring_text, repeats(said, first))


def test_a_first_run_judges_its_pairs_ahead_only_when_there_are_many() -> None:
    """Judged ahead: each newer entry's candidates, every one of an entry that states a
    change, and of one that does not, the newest few; the search then judges no pair
    itself. A run whose memo holds verdicts, or with few newer entries, judges as it asks."""
    asked: list[list[str]] = []
    judged: list[tuple[str, str]] = []
    in_mapper: list[int] = []  # how many pairs were judged when the mapper was done

    def counting(function: Callable[[str], object], items: Sequence[str]) -> list[object]:
        asked.append(list(items))
        out = [function(t) for t in items]
        in_mapper.append(len(judged))
        return out

    entries = workspace_facts([0, 6], {1: [0, 2, 4], 2: [1, 3, 6], 3: [5, 7, 8], 4: [15, 16, 17, 18, 19]}, 0)
    stored = Stored()
    find_replacements(entries, scoring_text, never, stored.memo(), counting)
    assert asked == []  # (fewer than JUDGED_AHEAD_FROM newer entries; texts: READ_AHEAD_FROM)
    back = judged_ahead_from(3)
    real_judge = replacements.judge

    def counted(old: Profile, new: Profile, **how: bool) -> object:
        judged.append((old.scanned, new.scanned))
        return real_judge(old, new, **how)

    try:
        fresh = Stored()
        replacements.judge = counted  # type: ignore[assignment]
        found = find_replacements(entries, scoring_text, never, fresh.memo(), counting)
        assert len(asked) == 1 and len(asked[0]) >= 3 and all(item.isdigit() for item in asked[0])
        verdicts = fresh.tables["replacements.judged"]
        assert len(judged) == in_mapper[0]  # judged ahead (here: the mapper runs here), and only then
        assert len(judged) >= len(verdicts) >= 3  # (every pair the search asked about, and more)
        assert found == find_replacements(entries, scoring_text, never)
        judged.clear()
        asked.clear()
        assert find_replacements(entries, scoring_text, never, fresh.memo(), counting) == found
        assert asked == [] and judged == []  # (the memo holds the verdicts: nothing judged ahead)
    finally:
        replacements.judge = real_judge
        back()
    assert replaced(found)  # (the pairs replace some: there was something to judge)


def test_a_pair_the_workers_could_not_judge_is_judged_again_when_asked_about() -> None:
    """What a worker failed to find or judge (left out of its answer) is found or judged
    when the search asks for it: the same finds and the same memo as without judging ahead."""

    def failing_half(function: Callable[[str], object], items: Sequence[str]) -> list[object]:
        """Every other entry's candidates not found, and of the rest every other pair not judged."""
        out: list[object] = []
        for n, item in enumerate(items):
            ahead = function(item)
            assert isinstance(ahead, tuple)
            before, judged = ahead
            out.append(None if n % 2 else (before, judged[::2]))
        return out

    entries = workspace_facts([0, 6], {1: [0, 2, 4], 2: [1, 3, 6], 3: [5, 7, 8], 4: [15, 16, 17, 18, 19]}, 0)
    back = judged_ahead_from(1)
    try:
        runs = []
        for mapper in (None, failing_half):
            stored = Stored()
            found = find_replacements(entries, scoring_text, never, stored.memo(), mapper)
            runs.append((found, as_stored(stored.tables)))
    finally:
        back()
    assert runs[0] == runs[1]
    assert replaced(runs[0][0])


def test_a_profile_is_kept_by_its_text_and_readings_whatever_was_read_of_it() -> None:
    """A profile that judged a pair (and so read its words) is stored as one that did not."""
    text = scoring_text("数据库改用 PostgreSQL 16，不再用 MySQL")
    read, unread = Profile(text), Profile(text)
    assert read.words and read.slots is not None  # (parts read: kept on the object)
    assert pickle.dumps(read) == pickle.dumps(unread)
    again = pickle.loads(pickle.dumps(read))
    assert (again.scanned, again.readings, again.words) == (text, read.readings, read.words)
