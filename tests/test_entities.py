"""memcli entities (SPEC §10): people, projects, tools and places, in Chinese and English."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conftest import NOW, Invoke, as_json
from memcli.core.entities import Note, people_named, projects_named, tally


def entities(cli: Invoke, root: Path, *args: str) -> list[dict[str, object]]:
    report = as_json(cli("--json", "-w", str(root), "--now", NOW, "entities", *args))
    return report["entities"]  # type: ignore[no-any-return]


def named(found: list[dict[str, object]]) -> dict[tuple[object, object], dict[str, object]]:
    return {(e["kind"], e["name"]): e for e in found}


def test_the_sample_workspace_names_its_people_projects_tools_and_places(cli: Invoke, sample: Path) -> None:
    found = named(entities(cli, sample, "--limit", "100"))
    for key in [
        ("person", "Lin"),
        ("person", "小周"),
        ("person", "Priya"),
        ("person", "Marco"),
        ("project", "Atlas"),
        ("project", "notes-sync"),
        ("tool", "pnpm"),
        ("tool", "Redis"),
        ("place", "Shanghai"),
    ]:
        assert key in found, key
    lin = found[("person", "Lin")]
    assert lin["count"] >= 50 and lin["first_seen"] == "2026-09-01" and lin["last_seen"] == "2026-10-30"
    assert all(e["count"] >= 2 for e in found.values())  # recurring only, by default
    assert not [k for k in found if k[1] in ("at", "Sep", "路径")]  # words the cues could mistake


def test_kind_min_and_limit_narrow_the_list(cli: Invoke, sample: Path) -> None:
    people = entities(cli, sample, "--kind", "person")
    assert people and {e["kind"] for e in people} == {"person"}
    counts = [e["count"] for e in people]
    assert counts == sorted(counts, reverse=True)
    assert len(entities(cli, sample, "-n", "3")) == 3
    assert all(e["count"] >= 20 for e in entities(cli, sample, "--min", "20"))
    result = cli("-w", str(sample), "entities", "--kind", "animal")
    assert result.exit_code == 2 and "person, project, tool, place" in result.stderr


def test_an_entity_counts_each_entry_once_and_dates_come_from_its_entries(tmp_path: Path) -> None:
    notes = [
        Note("- 和小周一起排查，小周说是缓存问题", "memory/2026-10-01.md:3", "2026-10-01"),
        Note("- 小周 fixed the Redis cache; redis is on 6379", "memory/2026-10-05.md:3", "2026-10-05"),
        Note("- 时区 Asia/Shanghai；下个月去上海出差", "MEMORY.md:9", None),
        Note("- booked the Shanghai office for the offsite", "memory/2026-10-03.md:4", "2026-10-03"),
    ]
    found = {(e.kind, e.name): e for e in tally(notes)}
    zhou = found[("person", "小周")]
    assert (zhou.count, zhou.first_seen, zhou.last_seen) == (2, "2026-10-01", "2026-10-05")
    assert found[("tool", "Redis")].count == 1  # Redis and redis in one entry: once
    shanghai = found[("place", "Shanghai")]  # 上海 and Shanghai are one place
    assert (shanghai.count, shanghai.first_seen, shanghai.last_seen) == (2, "2026-10-03", "2026-10-03")
    assert zhou.where[0] == "memory/2026-10-05.md:3"


def test_people_are_learnt_from_how_notes_speak_of_them() -> None:
    assert people_named("Priya said the export is fixed") == {"Priya"}
    assert people_named("ask Marco about the VPN; cc Dana") == {"Marco", "Dana"}
    assert people_named("Lin 让我把规范链接发给他") == {"Lin"}
    assert people_named("新来的实习生小唐，mentor 是小周") == {"小唐", "小周"}
    assert people_named("王总同意了预算，李老师下周来") == {"王总", "李老师"}
    assert people_named("排查后小周说是缓存问题，老王会来") == {"小周", "老王"}
    assert people_named("ping @priya-k on the PR") == {"@priya-k"}
    assert people_named("Team: Lin (lead), 小周, Priya, Marco (infra)") == {"Lin", "小周", "Priya", "Marco"}
    assert people_named("团队成员：张伟、李娜") == {"张伟", "李娜"}


def test_words_that_look_like_names_are_not_people() -> None:
    for text in [
        "等了两个小时，老师说明天再来",  # 小时, 老师
        "做了一个小程序，每周总结发群里",  # 小程序, 周总结
        "works with Docker and Chroma; imported from Proton",  # with/from name products
        "libp2p 和 Gossip 协议应用",  # 和 is "and"
        "wiped 3 commits from Sep 30; Monday said nothing",  # months, days
        "use `@dataclass` and @start() in code",  # decorators
        "mail lin@example.com about it",
        "The build said nothing",
    ]:
        assert people_named(text) == set(), text


def test_projects_are_learnt_from_cues_headings_and_github() -> None:
    assert projects_named("project: Atlas is late") == {"Atlas"}
    assert projects_named("notes-sync 项目改用 Go") == {"notes-sync"}
    assert projects_named("「星火」项目下周立项") == {"星火"}
    assert projects_named("see https://github.com/lin-dev/notes-sync.git for it") == {"lin-dev/notes-sync"}
    assert projects_named("- v3.0 计划 10 月上线", "## Projects / 项目 > ### Atlas") == {"Atlas"}
    assert projects_named("- slow", "## 项目进展 > ### 技术栈") == set()  # not a list of projects
    for text in ["pushed to the atlas repo at 11:40", "新仓库路径：`/Users/lin/atlas`", "my side project"]:
        assert projects_named(text) == set(), text


def test_ambiguous_words_count_only_as_written() -> None:
    notes = [
        Note("- go home early; open the windows", "a:1", "2026-10-01"),
        Note("- Linux box, Go 1.22 on Windows 11", "a:2", "2026-10-02"),
        Note("- Lin said hi", "a:3", "2026-10-03"),
    ]
    found = {(e.kind, e.name): e.count for e in tally(notes)}
    assert found[("tool", "Go")] == 1 and found[("tool", "Windows")] == 1
    assert found[("person", "Lin")] == 1  # Lin is not in Linux


words = st.sampled_from(
    [
        "Lin",
        "said",
        "小周",
        "说",
        "Atlas",
        "project:",
        "上海",
        "Shanghai",
        "redis",
        "go",
        "@x1",
        "Team:",
        "，",
    ]
)


@given(st.lists(st.tuples(st.lists(words, max_size=12), st.one_of(st.none(), st.dates())), max_size=8))
def test_counts_never_exceed_the_entries_and_dates_are_ordered(raw: list[tuple[list[str], object]]) -> None:
    notes = [Note(" ".join(w), f"f:{i}", d.isoformat() if d else None) for i, (w, d) in enumerate(raw)]  # type: ignore[attr-defined]
    for entity in tally(notes):
        assert 1 <= entity.count <= len(notes)
        if entity.first_seen:
            assert entity.last_seen and entity.first_seen <= entity.last_seen
