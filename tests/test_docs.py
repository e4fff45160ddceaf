"""The README documents what exists: every command and every configuration key."""

from __future__ import annotations

from typer.main import get_command

from conftest import REPO
from memcli.cli.app import app
from memcli.config import POLICY_FIELDS


def test_every_config_key_is_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    missing = [name for name in POLICY_FIELDS if f"| `{name}` |" not in readme]
    assert missing == []


def test_every_command_is_in_the_readme() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    group = get_command(app)
    names = group.list_commands(None)  # type: ignore[attr-defined, arg-type]
    assert names
    assert [n for n in names if f"`memcli {n}" not in readme] == []


def test_ci_runs_the_readme_test_command() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert ".venv/bin/python -m pytest" in readme
    assert '"$venv/bin/python" -m pytest' in ci
