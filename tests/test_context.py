"""memcli context (SPEC §10): core memory first, today and yesterday, then recall, within budget."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import NOW, SAMPLE, Invoke, as_json, copy_tree
from memcli.core.tokens import estimate_tokens


def context(cli: Invoke, root: Path, *args: str) -> dict[str, object]:
    return as_json(cli("--json", "-w", str(root), "--now", NOW, "context", *args))  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_tree(SAMPLE, tmp_path_factory.mktemp("ctx") / "sample")


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(budget=st.integers(1, 6000))
def test_context_never_exceeds_its_budget(cli: Invoke, shared: Path, budget: int) -> None:
    report = context(cli, shared, "--budget", str(budget))
    assert report["tokens"] == estimate_tokens(str(report["text"])) <= budget
    assert report["budget"] == budget


def test_core_preferences_come_first_then_today_then_recall_in_time_order(cli: Invoke, shared: Path) -> None:
    small = context(cli, shared, "--budget", "40")
    assert str(small["text"]).startswith("## Core memory (MEMORY.md)\n\n- Lin 喜欢简洁的回答")
    assert small["left_out"] > 0  # type: ignore[operator]
    full = context(cli, shared, "--budget", "4000")
    text = str(full["text"])
    core, rest = text.split("\n## Today and yesterday\n", 1)
    assert "Lin 喜欢简洁的回答" in core and "<!--" not in text
    recent, recalled = rest.split("\n## Recalled\n", 1)
    assert "(2026-10-30)" in recent or "(2026-10-31)" in recent
    days = [line[3:13] for line in recalled.splitlines() if line.startswith("- (")]
    assert days == sorted(days) and days  # recalled entries in time order
    sections = [i["section"] for i in full["included"]]  # type: ignore[attr-defined]
    assert sections == sorted(sections, key=["core", "recent", "recalled"].index)


def test_a_query_recalls_what_it_is_about(cli: Invoke, shared: Path) -> None:
    report = context(cli, shared, "--budget", "3000", "--query", "周会")
    recalled = str(report["text"]).split("\n## Recalled\n", 1)[1]
    assert "周会" in recalled
