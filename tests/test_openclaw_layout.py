"""Where OpenClaw keeps its agents and their sessions (SPEC §1): found as a new user's
default install has them, each agent's sessions flushed into its own workspace only.

HOME is a fresh folder in every test (conftest.isolated_env): `~/.openclaw` here is that
fake home's, never the developer's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import NOW, SAMPLE, Invoke, as_json, tree_bytes
from memcli.workspace.openclaw import load_openclaw, parse_json5, state_folder

MAIN = "agent:main:main"
OPS = "agent:ops:main"
TODAY = "memory/2026-10-31.md"
TRANSCRIPT = SAMPLE / "sessions" / "557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl"


def agent_store(state: Path, agent: str, key: str, said: str) -> Path:
    """agents/<agent>/sessions/: a due session whose transcript says `said`, with the
    absolute sessionFile OpenClaw writes."""
    folder = state / "agents" / agent / "sessions"
    folder.mkdir(parents=True)
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines()
    last = json.loads(lines[-1])
    message = {
        "type": "message",
        "id": "f0000001",
        "parentId": last["id"],
        "timestamp": "2026-10-31T00:30:00.000Z",
        "message": {"role": "user", "content": [{"type": "text", "text": said}], "timestamp": 1},
    }
    (folder / f"{agent}-1.jsonl").write_text(
        "\n".join([*lines, json.dumps(message)]) + "\n", encoding="utf-8"
    )
    store = {
        key: {
            "sessionId": f"{agent}-1",
            "updatedAt": 1793408000000,
            "sessionFile": str(folder / f"{agent}-1.jsonl"),
            "totalTokens": 190_000,
            "contextTokens": 200_000,
            "compactionCount": 0,
        }
    }
    (folder / "sessions.json").write_text(json.dumps(store, indent=2), encoding="utf-8")
    return folder / "sessions.json"


def workspace(path: Path) -> Path:
    (path / "memory").mkdir(parents=True)
    (path / "MEMORY.md").write_text(
        "# MEMORY.md\n\n## Preferences\n\n- I prefer dark mode\n", encoding="utf-8"
    )
    (path / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n', encoding="utf-8")
    return path


@pytest.fixture
def default_install(isolated_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """OpenClaw as a new user has it: ~/.openclaw/workspace (main's) and ~/.openclaw/agents/
    {main,ops}/, no openclaw.json, no OPENCLAW_STATE_DIR; memcli run from a folder that is
    no workspace."""
    state = isolated_env / ".openclaw"
    workspace(state / "workspace")
    workspace(state / "workspace-ops")
    agent_store(state, "main", MAIN, "We decided to ship the atlas export on Fridays only.")
    agent_store(state, "ops", OPS, "We decided to page the on-call engineer only after 5 minutes.")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return state


def flush(cli: Invoke, *args: str) -> dict[str, dict[str, Any]]:
    report = as_json(cli("--json", "--now", NOW, *args, "flush"))
    return {s["session"]: s for s in report["sessions"]}


def test_a_default_install_is_found_without_any_setting_and_each_agent_flushes_into_its_own_workspace(
    cli: Invoke, default_install: Path
) -> None:
    state = default_install
    ops_before = tree_bytes(state / "workspace-ops")
    main = flush(cli)  # no -w, no --state-dir, no environment: ~/.openclaw/workspace and main's store
    assert set(main) == {MAIN} and main[MAIN]["recorded"] and main[MAIN]["agent"] == "main"
    assert "Fridays only" in (state / "workspace" / TODAY).read_text(encoding="utf-8")
    assert tree_bytes(state / "workspace-ops") == ops_before  # not a line of main's in ops's notes
    assert "memoryFlushAt" not in json.loads((state / "agents/ops/sessions/sessions.json").read_text())[OPS]
    main_note = (state / "workspace" / TODAY).read_bytes()
    ops = flush(cli, "--agent", "ops")  # ops's sessions, into ops's workspace
    assert set(ops) == {OPS} and ops[OPS]["recorded"] and ops[OPS]["note"] == TODAY
    ops_note = (state / "workspace-ops" / TODAY).read_text(encoding="utf-8")
    assert "after 5 minutes" in ops_note and "Fridays only" not in ops_note
    assert (state / "workspace" / TODAY).read_bytes() == main_note


def test_openclaw_json_names_each_agents_workspace(
    cli: Invoke, default_install: Path, tmp_path: Path
) -> None:
    state = default_install
    elsewhere = workspace(tmp_path / "ops-notes")
    config = (
        "{\n  // JSON5, as OpenClaw's config may be\n"
        "  agents: {list: [{id: 'main'}, {id: 'ops', workspace: '%s',},],},\n}\n"
    )
    (state / "openclaw.json").write_text(config % elsewhere, encoding="utf-8")
    ops = flush(cli, "-w", str(elsewhere))
    assert set(ops) == {OPS} and "after 5 minutes" in (elsewhere / TODAY).read_text(encoding="utf-8")
    assert not (state / "workspace-ops" / TODAY).exists()


def test_an_agent_of_another_workspace_is_refused_exit_2(cli: Invoke, default_install: Path) -> None:
    state = default_install
    result = cli("-w", str(state / "workspace"), "--now", NOW, "--agent", "ops", "flush")
    assert result.exit_code == 2
    assert (
        "is not the workspace of agent 'ops'" in result.stderr
        and str(state / "workspace-ops") in result.stderr
    )
    result = cli("--now", NOW, "--agent", "nobody", "flush")
    assert result.exit_code == 2 and "no agent 'nobody'" in result.stderr and "main" in result.stderr
    assert not (state / "workspace" / TODAY).exists() and not (state / "workspace-ops" / TODAY).exists()


@pytest.mark.parametrize("command", [["flush"], ["watch", "--once"]])
def test_no_store_says_where_it_looked_and_exits_3(
    cli: Invoke, isolated_env: Path, tmp_path: Path, command: list[str]
) -> None:
    ws = workspace(tmp_path / "ws")
    before = tree_bytes(ws)
    result = cli("-w", str(ws), "--now", NOW, *command)
    assert result.exit_code == 3, result.stdout
    error = result.stderr
    assert "no session store found" in error and str(ws / "sessions.json") in error
    assert str(isolated_env / ".openclaw") in error and "does not exist" in error
    assert "--state-dir" in error and "--sessions" in error
    assert tree_bytes(ws) == before and not (ws / ".memcli").exists()  # nothing written


def test_a_workspace_of_no_agent_is_told_so(cli: Invoke, default_install: Path, tmp_path: Path) -> None:
    ws = workspace(tmp_path / "ws")
    result = cli("-w", str(ws), "--now", NOW, "flush")
    assert result.exit_code == 3
    assert "is the workspace of no OpenClaw agent" in result.stderr
    assert f"main → {default_install / 'workspace'}" in result.stderr


def test_state_dir_comes_before_the_environment_which_comes_before_home(
    cli: Invoke, isolated_env: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = isolated_env
    assert state_folder(None, {}, home) == (home / ".openclaw", "~/.openclaw")
    assert state_folder(None, {"OPENCLAW_STATE_DIR": "~/oc"}, home) == (home / "oc", "$OPENCLAW_STATE_DIR")
    assert state_folder(str(tmp_path / "x"), {"OPENCLAW_STATE_DIR": "/y"}, home) == (
        tmp_path / "x",
        "--state-dir",
    )
    named, env = tmp_path / "named", tmp_path / "env"
    for state, said in ((named, "from --state-dir"), (env, "from the environment")):
        workspace(state / "workspace")
        agent_store(state, "main", MAIN, f"We decided to trust the store {said}.")
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(env))
    flush(cli, "--state-dir", str(named))  # its default workspace is <state>/workspace
    assert "from --state-dir" in (named / "workspace" / TODAY).read_text(encoding="utf-8")
    assert not (env / "workspace" / TODAY).exists()


def test_agents_come_from_the_config_and_from_their_folders(tmp_path: Path) -> None:
    state = tmp_path / "state"
    for agent in ("main", "ops", "Odd Name"):
        (state / "agents" / agent).mkdir(parents=True)
    config = {
        "agents": {
            "defaults": {"workspace": "~/agents"},
            "list": [{"id": "main"}, {"id": "Research", "workspace": "~/research"}, {"id": "ops"}],
        }
    }
    (state / "openclaw.json").write_text(json.dumps(config))
    found = load_openclaw(state, {}, tmp_path / "home")
    assert {a.id: (a.workspace, a.source) for a in found.agents} == {
        "main": (tmp_path / "home" / "agents", "default"),  # defaults.workspace is main's
        "research": (tmp_path / "home" / "research", "openclaw.json"),
        "ops": (tmp_path / "home" / "agents" / "ops", "default"),  # and the others' parent
    }
    assert [a.id for a in found.agents_of(tmp_path / "home" / "research")] == ["research"]
    plain = load_openclaw(state, {"OPENCLAW_CONFIG_PATH": str(tmp_path / "none.json")}, tmp_path / "home")
    assert {a.id: a.workspace for a in plain.agents} == {
        "main": state / "workspace",
        "ops": state / "workspace-ops",
    }


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('{"a": 1}', {"a": 1}),
        ("{a: 1, b: 'two', c: [1, 2,], /* c */ d: null, // line\n e: 0x1F,}", {
            "a": 1, "b": "two", "c": [1, 2], "d": None, "e": 31}),
        ("{'it\\'s': \"x//y\", n: -.5, m: +3}", {"it's": "x//y", "n": -0.5, "m": 3}),
    ],
)  # fmt: skip
def test_openclaw_json_is_read_as_json5(text: str, value: Any) -> None:
    assert parse_json5(text) == value


def test_a_broken_openclaw_json_is_bad_data_naming_it(cli: Invoke, default_install: Path) -> None:
    (default_install / "openclaw.json").write_text("{agents: {list: [}", encoding="utf-8")
    result = cli("--now", NOW, "flush")
    assert result.exit_code == 3 and "openclaw.json is not JSON5 memcli can read" in result.stderr
    assert not (default_install / "workspace" / TODAY).exists()


def test_status_shows_only_the_sessions_of_this_workspaces_agents(cli: Invoke, default_install: Path) -> None:
    rows = as_json(cli("--json", "--now", NOW, "status"))["sessions"]
    assert [(r["session"], r["agent"]) for r in rows] == [(MAIN, "main")]
    rows = as_json(cli("--json", "--now", NOW, "--agent", "ops", "status"))["sessions"]
    assert [(r["session"], r["agent"]) for r in rows] == [(OPS, "ops")]


def test_a_workspace_store_linked_to_its_agents_store_is_one_store(
    cli: Invoke, default_install: Path
) -> None:
    ws = default_install / "workspace"
    (ws / "sessions.json").symlink_to(default_install / "agents" / "main" / "sessions" / "sessions.json")
    main = flush(cli)
    assert list(main) == [MAIN] and main[MAIN]["recorded"]
    assert (ws / TODAY).read_text(encoding="utf-8").count("Fridays only") == 1


def test_the_sample_workspace_keeps_its_own_store(cli: Invoke, tmp_path: Path) -> None:
    ws = shutil.copytree(SAMPLE, tmp_path / "sample")
    assert MAIN in flush(cli, "-w", str(ws))  # no OpenClaw at all: the workspace's own sessions.json
