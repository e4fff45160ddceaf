"""memcli.toml, MEMCLI_* variables and flags over the defaults of SPEC §12."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from memcli.config import POLICY_FIELDS, Policy, default_toml, load_policy, values_from_toml
from memcli.errors import ConfigError


def test_defaults_are_the_spec_table() -> None:
    p = Policy()
    assert (p.half_life_days, p.stale_below, p.short_term_days, p.core_unused_days) == (30, 1.0, 7, 30)
    assert (p.task_archive_hours, p.promote_score, p.task_score, p.session_score) == (24, 5, 2, 0)
    assert (p.promote_mentions, p.promote_tasks, p.dedupe_threshold) == (3, 3, 0.80)
    assert (p.core_max_chars, p.max_removal_share) == (12_000, 0.25)
    assert (p.context_window, p.reserve_tokens_floor, p.soft_threshold_tokens) == (200_000, 20_000, 4_000)
    assert (p.reserve_tokens, p.keep_recent_tokens) == (20_000, 20_000)
    assert p.force_flush_transcript_bytes == 2 * 1024 * 1024
    assert (p.gc_every_turns, p.summary_every_turns) == (10, 20)
    assert p.timezone == ""


def test_precedence_defaults_file_env_flags(tmp_path: Path) -> None:
    path = tmp_path / "memcli.toml"
    path.write_text("half_life_days = 14\nstale_below = 0.5\ncore_max_chars = 8000\n")
    env = {"MEMCLI_STALE_BELOW": "0.75", "MEMCLI_WORKSPACE": "/ignored", "PATH": "/bin"}
    policy = load_policy(path, env, {"core_max_chars": 9000})
    assert policy.half_life_days == 14.0  # file
    assert policy.stale_below == 0.75  # environment over file
    assert policy.core_max_chars == 9000  # flag over file
    assert policy.short_term_days == 7  # default


def test_policy_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        Policy().half_life_days = 1  # type: ignore[misc]


def test_unknown_keys_are_named(tmp_path: Path) -> None:
    path = tmp_path / "memcli.toml"
    path.write_text("half_life = 10\nhalf_life_days = 10\ncolour = 'red'\n")
    with pytest.raises(ConfigError, match="unknown settings colour, half_life"):
        load_policy(path, {})
    with pytest.raises(ConfigError, match="MEMCLI_HALFLIFE"):
        load_policy(None, {"MEMCLI_HALFLIFE": "3"})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("half_life_days = = 3", "not valid TOML"),
        ("half_life_days = 'long'", "must be a number"),
        ("short_term_days = 2.5", "whole number"),
        ("dedupe_threshold = 1.5", "at most 1"),
        ("core_max_chars = 0", "at least 1"),
        ("timezone = 'Mars/Olympus'", "not a known IANA time zone"),
        ("timezone = 8", "must be a string"),
        ("stale_below = true", "must be a number"),
    ],
)
def test_bad_values_are_config_errors(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "memcli.toml"
    path.write_text(text + "\n")
    with pytest.raises(ConfigError, match=message):
        load_policy(path, {})


def test_bad_environment_value() -> None:
    with pytest.raises(ConfigError, match="MEMCLI_SHORT_TERM_DAYS must be a number"):
        load_policy(None, {"MEMCLI_SHORT_TERM_DAYS": "a week"})


def test_default_toml_lists_every_key_commented_and_parses_back_to_the_defaults() -> None:
    text = default_toml()
    for name in POLICY_FIELDS:
        assert f"# {name} = " in text
    assert tomllib.loads(text) == {}
    settings = [
        line[2:]
        for line in text.splitlines()
        if re.match(r"# (\w+) = ", line) and line[2:].split()[0] in POLICY_FIELDS
    ]
    assert len(settings) == len(POLICY_FIELDS)
    uncommented = "\n".join(settings)
    assert Policy(**values_from_toml(uncommented, "t")) == Policy()
