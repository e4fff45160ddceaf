"""Summaries (SPEC §8): templates, the extractive summariser, transcripts, --summarizer-cmd."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from conversation import DECISIONS, PREFERENCES, jsonl, twenty_turns
from hypothesis import given
from hypothesis import strategies as st

from conftest import NOW, REPO, Invoke, as_json, tree_bytes
from memcli.core.conversation import Message, parse_transcript
from memcli.core.summarize import compress, message_items, select, session_budget, transcript_tokens

GOLDEN = REPO / "tests" / "data"
SESSION = "agent:main:main"


def summarize(cli: Invoke, root: Path, *args: str) -> dict[str, object]:
    return as_json(cli("--json", "-w", str(root), "--now", NOW, "summarize", *args))  # type: ignore[no-any-return]


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def live(root: Path) -> dict[str, bytes]:
    return {k: v for k, v in tree_bytes(root).items() if not k.startswith(".memcli/")}


# --- golden summaries of the sample workspace -------------------------------------------------


def test_the_golden_week_of_the_sample(cli: Invoke, sample: Path) -> None:
    result = cli("-w", str(sample), "--now", NOW, "summarize", "--period", "2026-W43", "--output", "-")
    assert result.exit_code == 0, result.stderr
    golden("summary_sample_2026-W43.md", result.stdout)
    assert result.stdout.startswith(
        "---\nkind: weekly-digest\nperiod: 2026-W43\nsources:\n  - memory/2026-10-19.md"
    )
    assert "用户偏好用 pnpm，不要用 npm 安装依赖" in result.stdout  # a preference of that week
    assert "heartbeat" not in result.stdout  # routine events never make it in


def test_the_golden_session_of_the_sample(cli: Invoke, sample: Path) -> None:
    result = cli("-w", str(sample), "--now", NOW, "summarize", "--session", SESSION, "--output", "-")
    assert result.exit_code == 0, result.stderr
    golden("summary_sample_session_main.md", result.stdout)
    assert "## 核心目标" in result.stdout  # the workspace is mostly Chinese: the seed headings
    assert "定了：we will use Redis for the job queue" in result.stdout  # its decision


def test_summarize_writes_the_file_as_a_transaction_undo_takes_back(cli: Invoke, sample: Path) -> None:
    before = live(sample)
    report = summarize(cli, sample, "--period", "2026-W43")
    assert report["output"] == "memory/summaries/2026-W43.md"
    text = (sample / "memory/summaries/2026-W43.md").read_text(encoding="utf-8")
    assert text == report["text"] and text.startswith("---\nkind: weekly-digest\n")
    assert "generated: 2026-10-31T09:00:00" in text
    assert report["tokens_out"] < report["tokens_in"]  # type: ignore[operator]
    again = cli("-w", str(sample), "--now", NOW, "summarize", "--period", "2026-W43")
    assert again.exit_code == 3 and "already holds this summary" in again.stderr
    assert cli("-w", str(sample), "--now", NOW, "undo").exit_code == 0
    assert live(sample) == before


def test_headings_follow_the_language_or_the_setting(cli: Invoke, sample: Path) -> None:
    zh = summarize(cli, sample, "--session", SESSION, "-o", "-")["text"]
    assert "## 已完成" in str(zh) or "## 决策" in str(zh)
    (sample / "memcli.toml").write_text('timezone = "Asia/Shanghai"\nsummary_language = "en"\n')
    en = summarize(cli, sample, "--session", SESSION, "-o", "-")["text"]
    assert "# Session summary\n" in str(en) and "## Decisions" in str(en)
    (sample / "memcli.toml").write_text('summary_language = "fr"\n')
    bad = cli("-w", str(sample), "--now", NOW, "summarize", "--session", SESSION, "-o", "-")
    assert bad.exit_code == 3 and "summary_language" in bad.stderr and "'zh'" in bad.stderr


def test_compaction_summary_has_openclaws_layout(cli: Invoke, sample: Path) -> None:
    text = str(
        summarize(cli, sample, "--session", SESSION, "--template", "compaction-summary", "-o", "-")["text"]
    )
    body = text.split("\n---\n", 1)[1]
    headings = [line for line in body.splitlines() if line.startswith("#")]
    assert headings == [
        "## Goal",
        "## Constraints & Preferences",
        "## Progress",
        "### Done",
        "### In Progress",
        "### Blocked",
        "## Key Decisions",
        "## Next Steps",
        "## Critical Context",
    ]
    assert "<read-files>" in body and "docs/design/job-queue.md" in body
    assert "<modified-files>" in body


# --- templates ------------------------------------------------------------------------------


def test_a_workspace_template_comes_before_the_shipped_one_and_gc_uses_it(cli: Invoke, sample: Path) -> None:
    (sample / "templates").mkdir()
    (sample / "templates" / "weekly-digest.md.j2").write_text(
        "# Our week {{ period }}\n"
        "{% for s in sections %}{{ s.title }}: {{ s['items'] | length }}\n{% endfor %}"
    )
    text = str(summarize(cli, sample, "--period", "2026-W43", "-o", "-")["text"])
    assert "# Our week 2026-W43" in text and "Preferences: " in text
    plan = as_json(cli("--json", "-w", str(sample), "--now", NOW, "gc", "--diff", "--dry-run"))
    assert "+# Our week 2026-W40" in plan["diff"]


def test_templates_dir_is_searched_after_the_workspace(cli: Invoke, sample: Path, tmp_path: Path) -> None:
    folder = tmp_path / "shared-templates"
    folder.mkdir()
    (folder / "mine.md.j2").write_text("{{ kind }} {{ period }} {{ decision | length }}\n")
    (sample / "memcli.toml").write_text(f'timezone = "Asia/Shanghai"\ntemplates_dir = "{folder}"\n')
    text = str(summarize(cli, sample, "--session", SESSION, "--template", "mine", "-o", "-")["text"])
    assert text.split("\n---\n", 1)[1].lstrip("\n").startswith("session-summary agent:main:main ")
    missing = cli("-w", str(sample), "--now", NOW, "summarize", "--template", "nope", "-o", "-")
    assert (
        missing.exit_code == 3
        and "no template 'nope'" in missing.stderr
        and "weekly-digest" in missing.stderr
    )


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("{{ ''.__class__.__mro__[1].__subclasses__() }}\n", "line 1: unsafe"),
        ("{% for s in sections %}\n{{ s.title.__globals__ }}\n{% endfor %}\n", "line 2"),
        ("ok\n{{ cycler.__init__.__globals__.os.system('touch pwned') }}\n", "line 2"),
        ("fine\n{% for x in %}\n", "line 2: Expected an expression"),
        ("one\ntwo\n{{ no_such_name }}\n", "line 3: 'no_such_name' is undefined"),
    ],
)
def test_a_template_cannot_reach_python_internals_and_its_errors_name_the_line(
    cli: Invoke, sample: Path, source: str, says: str
) -> None:
    (sample / "templates").mkdir()
    (sample / "templates" / "weekly-digest.md.j2").write_text(source)
    before = live(sample)
    result = cli("-w", str(sample), "--now", NOW, "summarize", "--period", "2026-W43")
    assert result.exit_code == 3, result.stdout
    assert "templates/weekly-digest.md.j2" in result.stderr and says in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert live(sample) == before and not (sample / "pwned").exists()


# --- --summarizer-cmd -----------------------------------------------------------------------


def test_a_summarizer_command_gets_the_prompt_and_its_output_is_the_summary(
    cli: Invoke, sample: Path, tmp_path: Path
) -> None:
    script = tmp_path / "summarizer.py"
    script.write_text(
        "import sys\nprompt = sys.stdin.read()\n"
        "print('## Digest')\nprint(f'- prompt of {len(prompt.splitlines())} lines')\n"
        "print('- asked for decisions' if 'decision' in prompt.lower() or '决策' in prompt else '- ?')\n"
    )
    report = summarize(
        cli, sample, "--period", "2026-W43", "-o", "-", "--summarizer-cmd", f"{sys.executable} {script}"
    )
    assert report["summarizer"] == "command"
    text = str(report["text"])
    assert text.startswith("---\nkind: weekly-digest\n") and "## Digest\n- prompt of " in text
    assert "- asked for decisions" in text


@pytest.mark.parametrize(
    ("command", "why"),
    [
        ("exit 3", "exited with 3"),
        ("true", "printed nothing"),
        ("sleep 5", "did not finish within 1 s"),
    ],
)
def test_a_failing_summarizer_falls_back_to_the_extractive_summary(
    cli: Invoke, sample: Path, command: str, why: str
) -> None:
    (sample / "memcli.toml").write_text('timezone = "Asia/Shanghai"\nsummarizer_timeout_seconds = 1\n')
    result = cli("--json", "-w", str(sample), "--now", NOW, "summarize", "--period", "2026-W43", "-o", "-",
                 "--summarizer-cmd", command)  # fmt: skip
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["summarizer"] == "extractive" and "## Preferences" in report["text"]
    assert why in result.stderr and "used the extractive summary" in result.stderr


# --- bad input ------------------------------------------------------------------------------


def test_usage_errors(cli: Invoke, sample: Path) -> None:
    for args, says in [
        (("--period", "2026-44"), "not an ISO week"),
        (("--since", "yesterday"), "not a date"),
        (("--period", "2026-W43", "--since", "2026-10-19"), "either --period or --since"),
        (("--session", SESSION, "--period", "2026-W43"), "--session summarises a transcript"),
        (("--session", "agent:nope"), "no session 'agent:nope'"),
        (("--period", "2020-W01"), "no daily notes between"),
        (("--output", "/tmp/elsewhere.md"), "outside the workspace"),
    ]:
        result = cli("-w", str(sample), "--now", NOW, "summarize", *args)
        assert result.exit_code in (2, 3), (args, result.stdout)
        assert says in result.stderr, (args, result.stderr)


def test_a_transcript_with_broken_and_strange_lines_is_read_and_the_problem_reported(
    cli: Invoke, sample: Path
) -> None:
    transcript = sample / "sessions" / "557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl"
    lines = transcript.read_text(encoding="utf-8").splitlines()
    body = lines[1:]  # no header
    body.insert(3, json.dumps({"type": "brand_new_kind", "id": "ffff0000", "parentId": None}))
    transcript.write_text("\n".join(body) + '\n{"type":"message","id":"dead', encoding="utf-8")  # truncated
    result = cli("--json", "-w", str(sample), "--now", NOW, "summarize", "--session", SESSION, "-o", "-")
    assert result.exit_code == 0, result.stderr
    assert "not a JSON line" in result.stderr
    assert "定了：we will use Redis" in json.loads(result.stdout)["text"]


def test_an_empty_transcript_gives_an_empty_summary(cli: Invoke, sample: Path) -> None:
    (sample / "sessions" / "557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl").write_bytes(b"")
    text = str(summarize(cli, sample, "--session", SESSION, "-o", "-")["text"])
    assert "Nothing in this session was worth keeping." in text  # no words: no language either


def test_a_session_file_outside_the_sessions_folder_is_refused(cli: Invoke, sample: Path) -> None:
    store = json.loads((sample / "sessions.json").read_text())
    store[SESSION]["sessionFile"] = "../../etc/passwd"
    (sample / "sessions.json").write_text(json.dumps(store))
    result = cli("-w", str(sample), "--now", NOW, "summarize", "--session", SESSION, "-o", "-")
    assert result.exit_code == 3 and "outside" in result.stderr


# --- the extractive summariser --------------------------------------------------------------


def msg(role: str, text: str, error: bool = False, call: bool = False) -> Message:
    from memcli.core.conversation import ToolCall

    return Message(
        f"{hash((role, text)) & 0xFFFFFFFF:08x}",
        role,
        text,
        None,
        (ToolCall("bash", None),) if call else (),
        error,
    )


def test_a_tool_call_and_its_result_leave_only_the_conclusion() -> None:
    kept = compress(
        [
            msg("user", "跑一下测试"),
            msg("assistant", "", call=True),
            msg("toolResult", "Tests: 48 passed\n" + "x\n" * 200),
            msg("assistant", "测试全部通过。"),
        ]
    )
    assert [m.text for m in kept] == ["跑一下测试", "测试全部通过。"]


def test_an_error_and_its_retries_leave_only_the_fix_that_worked() -> None:
    kept = compress(
        [
            msg("user", "deploy it"),
            msg("assistant", "", call=True),
            msg("toolResult", "Error: permission denied", error=True),
            msg("assistant", "That failed, retrying with sudo.", call=True),
            msg("toolResult", "Error: no tty", error=True),
            msg("assistant", "Still failing; trying the deploy key instead."),
            msg("assistant", "", call=True),
            msg("toolResult", "deployed v1.2"),
            msg("assistant", "Deployed v1.2 with the deploy key."),
        ]
    )
    assert [m.text for m in kept] == ["deploy it", "Deployed v1.2 with the deploy key."]


def test_an_error_with_no_retry_keeps_what_the_assistant_said_about_it() -> None:
    kept = compress(
        [
            msg("user", "x"),
            msg("assistant", "", call=True),
            msg("toolResult", "failed", error=True),
            msg("assistant", "It failed: the disk is full. I stopped there."),
        ]
    )
    assert kept[-1].text == "It failed: the disk is full. I stopped there."


def conversation_messages() -> list[Message]:
    return list(parse_transcript(jsonl(twenty_turns()).splitlines()).messages)


def test_a_twenty_turn_conversation_shrinks_by_70_percent_keeping_every_preference_and_decision() -> None:
    from datetime import datetime

    from memcli.core.summarize import digest_of_session, plain_render

    messages = conversation_messages()
    assert sum(m.role == "user" for m in messages) == 20
    digest = digest_of_session(
        "session-summary", "conv-20", messages, ["conv.jsonl"], datetime(2026, 10, 31), 800
    )
    out = plain_render(digest).split("\n---\n", 1)[1]
    tokens_in = transcript_tokens(messages)
    from memcli.core.tokens import estimate_tokens

    assert estimate_tokens(out) <= 0.30 * tokens_in, (estimate_tokens(out), tokens_in)
    for said in (*PREFERENCES, *DECISIONS):
        assert said in out, said
    assert "ECONNREFUSED" not in out and "Redis 没有启动" not in out  # the failed attempts
    assert "Fixed: tests pass after starting Redis" in out  # the fix that worked
    assert "line 17: export_jobs" not in out  # tool results


def test_the_sample_transcripts_shrink_by_70_percent_keeping_their_decisions(
    cli: Invoke, sample: Path
) -> None:
    for key in json.loads((sample / "sessions.json").read_text()):
        result = cli("--json", "-w", str(sample), "--now", NOW, "summarize", "--session", key, "-o", "-")
        if result.exit_code == 3 and "no transcript" in result.stderr:
            continue
        report = as_json(result)
        assert report["tokens_out"] <= 0.30 * report["tokens_in"], (
            key,
            report["tokens_out"],
            report["tokens_in"],
        )


SAYINGS = [*PREFERENCES, *DECISIONS, "好的", "跑一下测试", "What port is it on?", "done"]


@given(st.lists(st.sampled_from(SAYINGS), max_size=30), st.integers(50, 2000))
def test_select_never_exceeds_its_budget_and_keeps_preferences_before_anything_else(
    texts: list[str], budget: int
) -> None:
    messages = [msg("user" if n % 2 else "assistant", t) for n, t in enumerate(texts)]
    items = message_items(messages)
    kept = select(items, budget)
    assert sum(i.tokens for i in kept) <= budget
    # preferences and decisions are chosen first: one is left out only when it did not fit
    # beside the preferences and decisions already kept
    first = [i for i in kept if i.kind in ("preference", "decision")]
    said = {" ".join(i.text.casefold().split()) for i in kept}
    for i in items:
        if i.kind in ("preference", "decision") and " ".join(i.text.casefold().split()) not in said:
            assert sum(k.tokens for k in first) + i.tokens > budget
    assert session_budget(800, 400) == 80 and session_budget(800, 100_000) == 800


def test_a_week_gc_archived_is_summarised_from_the_archive(cli: Invoke, sample: Path) -> None:
    assert cli("-w", str(sample), "--now", NOW, "gc").exit_code == 0
    assert not (sample / "memory/2026-09-29.md").exists()
    report = summarize(cli, sample, "--period", "2026-W40", "-o", "-")
    assert "memory/archive/2026/09/2026-09-29.md" in report["sources"]  # type: ignore[operator]
    assert "## Preferences" in str(report["text"])


def test_a_digest_files_only_standing_rules_and_decisions_under_those_headings(
    cli: Invoke, tmp_path: Path
) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# MEMORY.md\n", encoding="utf-8")
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n', encoding="utf-8")
    (root / "memory" / "2026-10-20.md").write_text(
        "# 2026-10-20\n\n"
        "- 以后提交信息一律用英文写\n"
        "- Always run the migrations on a copy of production first\n"
        "- 版本发好了，他说下一步要先想清楚密钥放哪里\n"
        "- Ana wants the budget settled before Friday's review\n",
        encoding="utf-8",
    )
    result = cli("-w", str(root), "--now", NOW, "summarize", "--period", "2026-W43", "--output", "-")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    sections = {part.split("\n", 1)[0]: part for part in text.split("\n## ")[1:]}
    standing = sections.get("Preferences", "") + sections.get("Decisions", "")
    assert "以后提交信息一律用英文写" in standing
    assert "Always run the migrations on a copy of production first" in standing
    # news of the week with a preference's cue ("要先", "wants … before"): filed elsewhere
    assert "密钥放哪里" in text and "密钥放哪里" not in standing
    assert "budget settled" in text and "budget settled" not in standing
