"""Which older facts each newer entry of a workspace replaces (core.judgement.replacements):
the rules across pairs, on entries given as plain data. (tests/test_supersede.py judges
pairs, and runs gc end to end.)"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from memcli.core.judgement.replacements import CORE, NOTE, Fact, Found, find_replacements
from memcli.core.judgement.supersede import AT_MOST
from memcli.core.scoring import scoring_text


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
