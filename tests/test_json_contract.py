"""One JSON contract (SPEC §13): every command's --json output, and every error under --json,
validated against the one schema in docs/memcli.schema.json; the same entry the same in every
command that shows it; the README's JSON section generated from the schema.

The schema uses a small part of JSON Schema (2020-12), which `validate` below implements (memcli
does not depend on a validator); `test_the_schema_uses_only_what_the_validator_knows` keeps it
so. `python tests/test_json_contract.py` writes the README's section again from the schema.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from conftest import GIT, NOW, REPO, SAMPLE, copy_tree
from memcli.cli.app import COMMANDS, app, load_command
from memcli.cli.contract import ENTRY_KEYS

SCHEMA_PATH = REPO / "docs" / "memcli.schema.json"
README = REPO / "README.md"
BEGIN = "<!-- json:begin (generated from docs/memcli.schema.json by `python tests/test_json_contract.py`) -->"
END = "<!-- json:end -->"
RUNNER = CliRunner()


def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


# --- the validator: the part of JSON Schema the schema uses ---------------------------------

KEYWORDS = {
    *("$schema", "$defs", "$ref", "title", "description"),
    *("type", "properties", "required", "additionalProperties", "items"),
    *("enum", "pattern", "minimum", "maximum", "anyOf", "allOf"),
}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def resolve(root: dict[str, Any], ref: str) -> dict[str, Any]:
    assert ref.startswith("#/"), ref
    node: Any = root
    for part in ref[2:].split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node  # type: ignore[no-any-return]


def validate(value: Any, node: dict[str, Any], root: dict[str, Any], at: str = "$") -> list[str]:
    """What in `value` breaks `node` (empty: it is valid)."""
    errors: list[str] = []
    if "$ref" in node:
        errors += validate(value, resolve(root, node["$ref"]), root, at)
    for sub in node.get("allOf", ()):
        errors += validate(value, sub, root, at)
    if "anyOf" in node:
        tried = [validate(value, sub, root, at) for sub in node["anyOf"]]
        if all(tried):
            best = min(tried, key=len)
            errors.append(f"{at}: matches none of anyOf (nearest: {'; '.join(best[:3])})")
    if "type" in node:
        kinds = node["type"] if isinstance(node["type"], list) else [node["type"]]
        if not any(TYPES[k](value) for k in kinds):
            return [*errors, f"{at}: {value!r:.80} is not {' or '.join(kinds)}"]
    if "enum" in node and value not in node["enum"]:
        errors.append(f"{at}: {value!r} is not one of {node['enum']}")
    if "pattern" in node and isinstance(value, str) and not re.search(node["pattern"], value):
        errors.append(f"{at}: {value!r} does not match {node['pattern']}")
    if "minimum" in node and TYPES["number"](value) and value < node["minimum"]:
        errors.append(f"{at}: {value} < {node['minimum']}")
    if "maximum" in node and TYPES["number"](value) and value > node["maximum"]:
        errors.append(f"{at}: {value} > {node['maximum']}")
    if isinstance(value, dict):
        properties = node.get("properties", {})
        errors += [f"{at}: no {key!r}" for key in node.get("required", ()) if key not in value]
        extra = node.get("additionalProperties", True)
        for key, item in value.items():
            if key in properties:
                errors += validate(item, properties[key], root, f"{at}.{key}")
            elif extra is False:
                errors.append(f"{at}: {key!r} is not in the schema")
            elif isinstance(extra, dict):
                errors += validate(item, extra, root, f"{at}.{key}")
    if isinstance(value, list) and "items" in node:
        for n, item in enumerate(value):
            errors += validate(item, node["items"], root, f"{at}[{n}]")
    return errors


def walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every schema inside `node` (not the names of properties or $defs)."""
    if isinstance(node, dict):
        yield node
        for key, value in node.items():
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from walk(sub)
            elif key in ("items", "additionalProperties") and isinstance(value, dict):
                yield from walk(value)
            elif key in ("anyOf", "allOf"):
                for sub in value:
                    yield from walk(sub)


def test_the_schema_uses_only_what_the_validator_knows() -> None:
    root = schema()
    for node in walk(root):
        assert set(node) <= KEYWORDS, set(node) - KEYWORDS
        if "$ref" in node:
            resolve(root, node["$ref"])  # every reference leads somewhere
    assert validate({"error": "x", "fix": None, "exit": 3}, root, root) == []
    assert validate({"error": "x"}, root, root)  # nothing matches a broken error


def test_the_validator_finds_what_breaks_a_schema() -> None:
    root = schema()
    entry = {"$ref": "#/$defs/entry"}
    good = {
        "id": "0123456789",
        "file": "memory/2026-10-31.md",
        "line": 3,
        "text": "- x",
        "tier": "core",
        "score": 5.0,
        "decayed": 4.9,
        "date": "2026-10-31",
        "mentions": 1,
        "last_seen": "2026-10-31",
    }
    assert validate(good, entry, root) == []
    assert validate({**good, "tier": "gold"}, entry, root)
    assert validate({**good, "line": "3"}, entry, root)
    assert validate({**good, "surprise": 1}, entry, root)
    assert validate({k: v for k, v in good.items() if k != "last_seen"}, entry, root)
    assert validate({**good, "date": "31/10/2026"}, entry, root)
    archive = {"action": "archive", "reason": "r", "from": "memory/2026-09-01.md", "to": "x", "files": ["x"]}
    assert validate(archive, {"$ref": "#/$defs/action"}, root)  # `from` is a place
    assert validate({**archive, "from": "memory/2026-09-01.md:1"}, {"$ref": "#/$defs/action"}, root) == []


# --- every command, run on a copy of the sample ---------------------------------------------


def invoke(root: Path, *args: str, input: str | None = None) -> Result:
    return RUNNER.invoke(app, ["--json", "-w", str(root), "--now", NOW, *args], input=input)


def command_names() -> list[str]:
    names = [n for n in COMMANDS if n != "hook"]
    return names + [f"hook {sub}" for sub in load_command("hook").commands]


# (the command's schema, its arguments, the exit statuses it may end with); in this order, on one
# copy of the sample: show, restore and undo work on what gc did
RUNS: list[tuple[str, list[str], tuple[int, ...]]] = [
    ("status", ["status"], (0,)),
    ("doctor", ["doctor"], (0, 1)),
    ("score", ["score", "记得用 pnpm，不要用 npm"], (0,)),
    ("list", ["list"], (0,)),
    ("dedupe", ["dedupe"], (0,)),
    ("search", ["search", "周会"], (0,)),
    ("search", ["search", "Redis", "-n", "20"], (0,)),
    ("context", ["context", "--budget", "3000"], (0,)),
    ("context", ["context", "--query", "部署"], (0,)),
    ("entities", ["entities"], (0,)),
    ("check", ["check"], (0, 1)),
    ("schedule", ["schedule"], (0,)),
    ("schedule", ["schedule", "--systemd"], (0,)),
    ("hook status", ["hook", "status"], (0,)),
    ("hook install", ["hook", "install"], (0,)),
    ("hook uninstall", ["hook", "uninstall"], (0,)),
    ("flush", ["flush", "--prompt"], (0,)),
    ("flush", ["flush", "--dry-run"], (0,)),
    ("compact", ["compact", "--dry-run"], (0,)),
    ("summarize", ["summarize", "--output", "-"], (0,)),
    ("gc", ["gc", "--dry-run"], (0,)),
    ("gc", ["gc", "--dry-run", "--diff"], (0,)),
    ("gc", ["gc", "--force"], (0,)),
    ("show", ["show", "got it"], (0,)),
    ("restore", ["restore", "got it"], (0,)),
    ("undo", ["undo"], (0,)),
    ("undo", ["undo"], (0,)),
    ("undo", ["undo"], (0,)),  # nothing left to undo
    ("purge", ["purge", "--older-than", "0", "--dry-run"], (0,)),
    ("summarize", ["summarize", "--period", "2026-W43"], (0,)),
    ("add", ["add", "记得：发布前先在 staging 跑一遍 e2e"], (0,)),
    ("watch", ["watch", "--once"], (0,)),
    ("flush", ["flush"], (0,)),
    ("compact", ["compact", "--force"], (0, 3)),
]


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[tuple[list[str], Any]]]:
    home = tmp_path_factory.mktemp("home")
    root = copy_tree(SAMPLE, tmp_path_factory.mktemp("json") / "ws")
    shutil.rmtree(root / ".memcli", ignore_errors=True)
    subprocess.run([*GIT, "init", "-q", str(root)], check=True)
    mp = pytest.MonkeyPatch()
    mp.setenv("HOME", str(home))
    mp.chdir(root)
    found: dict[str, list[tuple[list[str], Any]]] = {}
    try:
        new = tmp_path_factory.mktemp("init") / "new"
        result = RUNNER.invoke(app, ["--json", "init", str(new)])
        assert result.exit_code == 0, result.stderr
        found["init"] = [(["init"], json.loads(result.stdout))]
        for name, args, codes in RUNS:
            result = invoke(root, *args)
            assert result.exit_code in codes, (args, result.exit_code, result.stdout, result.stderr)
            found.setdefault(name, []).append((args, json.loads(result.stdout)))
    finally:
        mp.undo()
    return found


def test_every_command_is_run(outputs: dict[str, list[tuple[list[str], Any]]]) -> None:
    assert set(command_names()) <= set(outputs), set(command_names()) - set(outputs)


def test_the_schema_has_one_definition_a_command() -> None:
    defined = {k.removeprefix("command.") for k in schema()["$defs"] if k.startswith("command.")}
    assert defined == {n.replace(" ", "-") for n in command_names()}


@pytest.mark.parametrize("name", command_names())
def test_a_command_prints_what_the_schema_says(
    outputs: dict[str, list[tuple[list[str], Any]]], name: str
) -> None:
    root = schema()
    node = {"$ref": f"#/$defs/command.{name.replace(' ', '-')}"}
    for args, data in outputs[name]:
        assert validate(data, node, root) == [], (args, validate(data, node, root)[:5])
        assert validate(data, root, root) == []  # the schema as a whole takes it too


def test_the_runs_reach_every_shape(outputs: dict[str, list[tuple[list[str], Any]]]) -> None:
    """The runs are worth validating: entries of every kind of action, hits, items."""
    applied = next(d for a, d in outputs["gc"] if "--force" in a)
    kinds = {a["action"] for a in applied["actions"]}
    assert {"merge", "drop", "promote", "supersede", "summarize", "archive"} <= kinds
    assert all(a["from"].endswith(":1") for a in applied["actions"] if a["action"] == "archive")
    assert all(a["to"] == a["into"] for a in applied["actions"] if a["action"] == "merge")
    assert outputs["show"][0][1]["events"]
    assert [d.get("nothing") for _, d in outputs["undo"]] == [None, None, True]
    assert all(d["hits"] for _, d in outputs["search"]) and all(d["included"] for _, d in outputs["context"])


# --- one entry, one shape -------------------------------------------------------------------


def by_place(items: list[dict[str, Any]]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(e["file"], e["line"]): e for e in items}


def test_an_entry_is_the_same_in_every_command(outputs: dict[str, list[tuple[list[str], Any]]]) -> None:
    """gc's entries are list's own; search hits and context items name the entry list names
    at that place, by the same id and date (their scores come from the index: see the schema)."""
    listed = by_place(outputs["list"][0][1]["entries"])
    planned = outputs["gc"][0][1]["actions"]
    for a in planned:
        if "entry" in a:
            entry = a["entry"]
            assert entry == listed[(entry["file"], entry["line"])], a
            assert a["from"] == f"{entry['file']}:{entry['line']}" and a["id"] == entry["id"]
    for name in ("search", "context"):
        items = [i for _, d in outputs[name] for i in d.get("hits", d.get("included", []))]
        for item in items:
            same = listed.get((item["file"], item["line"]))
            if same is None:  # not a note list reads (a summary)
                continue
            for key in ("id", "file", "line", "date"):
                assert item[key] == same[key], (name, key, item, same)
    for group in outputs["dedupe"][0][1]["groups"]:
        for e in (group["keep"], *group["duplicates"]):
            assert {k: e[k] for k in ENTRY_KEYS} == {k: listed[(e["file"], e["line"])][k] for k in ENTRY_KEYS}


def test_add_prints_the_entry_as_list_shows_it(tmp_path: Path) -> None:
    root = copy_tree(SAMPLE, tmp_path / "ws")
    added = json.loads(invoke(root, "add", "--pin", "以后部署窗口改到周四晚上").stdout)
    listed = by_place(json.loads(invoke(root, "list", "--file", added["file"]).stdout)["entries"])
    assert {k: added[k] for k in ENTRY_KEYS} == {
        k: listed[(added["file"], added["line"])][k] for k in ENTRY_KEYS
    }


# --- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["-w", "/no/such/folder", "status"], 2),
        (["stauts"], 2),
        (["list", "--sort", "sideways"], 2),
        (["restore", "nothing like this was ever written"], 3),
        (["summarize", "--since", "yesterday"], 2),
    ],
    ids=lambda v: " ".join(v) if isinstance(v, list) else str(v),
)
def test_an_error_under_json_is_a_json_object_on_stdout_too(
    tmp_path: Path, args: list[str], code: int
) -> None:
    root = copy_tree(SAMPLE, tmp_path / "ws")
    result = RUNNER.invoke(app, ["--json", "-w", str(root), "--now", NOW, *args])
    assert result.exit_code == code, (result.stdout, result.stderr)
    data = json.loads(result.stdout)
    assert validate(data, {"$ref": "#/$defs/error"}, schema()) == []
    assert data["exit"] == code
    line = result.stderr.strip()
    assert line.startswith("memcli: error: ") and data["error"] in line
    assert data["fix"] is None or data["fix"].split("`")[0] in line
    plain = RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])
    assert plain.exit_code == code and plain.stdout == "" and plain.stderr == result.stderr


def test_json_after_the_command_name_makes_errors_json_too(tmp_path: Path) -> None:
    result = RUNNER.invoke(app, ["-w", str(tmp_path / "nowhere"), "status", "--json"])
    assert result.exit_code == 2 and json.loads(result.stdout)["exit"] == 2


# --- the README -----------------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _listed(node: dict[str, Any], root: dict[str, Any]) -> str:
    """An object's keys for the README: those it always has, then (in brackets) those it
    may have; an entry's as "an entry's keys"; alternatives apart."""
    if "$ref" in node:
        return _listed(resolve(root, node["$ref"]), root)
    if "allOf" in node:  # an entry, and more
        extra = [k for sub in node["allOf"][1:] for k in sub.get("required", ())]
        return "an entry's keys" + "".join(f", `{k}`" for k in extra)
    if "anyOf" in node and "properties" not in node:
        return "; or ".join(_listed(sub, root) for sub in node["anyOf"])
    required = list(node.get("required", ()))
    optional = [k for k in node.get("properties", {}) if k not in required]
    return ", ".join([*(f"`{k}`" for k in required), *(f"(`{k}`)" for k in optional)])


def _table(node: dict[str, Any], root: dict[str, Any], keys: list[str]) -> list[str]:
    lines = ["| key | meaning |", "|---|---|"]
    for key in keys:
        prop = node["properties"][key]
        text = prop.get("description") or resolve(root, prop["$ref"])["description"]
        lines.append(f"| `{key}` | {_cell(text)} |")
    return lines


def readme_section() -> str:
    """The README's JSON section, made from the schema."""
    root = schema()
    defs = root["$defs"]
    entry, action, error = defs["entry"], defs["action"], defs["error"]
    always = list(entry["required"])
    lines = [
        "### JSON output",
        "",
        f"{root['description']} Every shape is in [`docs/memcli.schema.json`](docs/memcli.schema.json)"
        " (JSON Schema); `tests/test_json_contract.py` validates every command's output against it.",
        "",
        entry["description"],
        "",
        *_table(entry, root, always),
        "",
        "and, as the command has them:",
        "",
        *_table(entry, root, [k for k in entry["properties"] if k not in always]),
        "",
        action["description"],
        "",
        *_table(action, root, list(action["properties"])),
        "",
        error["description"],
        "",
        *_table(error, root, list(error["properties"])),
        "",
        "| command | `--json` prints | keys (in brackets: when it applies) |",
        "|---|---|---|",
    ]
    for name in command_names():
        node = defs[f"command.{name.replace(' ', '-')}"]
        lines.append(f"| `{name}` | {_cell(node['description'])} | {_listed(node, root)} |")
    return "\n".join([BEGIN, *lines, END])


def current_section() -> str:
    text = README.read_text(encoding="utf-8")
    assert BEGIN in text and END in text, "the README has no generated JSON section"
    return text[text.index(BEGIN) : text.index(END) + len(END)]


def test_the_readme_json_section_is_the_schema() -> None:
    assert current_section() == readme_section(), "run `python tests/test_json_contract.py`"


def write_readme() -> None:
    text = README.read_text(encoding="utf-8")
    README.write_text(text.replace(current_section(), readme_section()), encoding="utf-8")


if __name__ == "__main__":  # run from anywhere: its folder, with conftest, is on sys.path
    write_readme()
