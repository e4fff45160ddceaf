"""`memcli score TEXT`: the importance of one text, with every rule that fired."""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from memcli.cli.common import options, output, runtime
from memcli.clock import parse_now, to_local
from memcli.config import config_path, load_policy
from memcli.core.judgement.importance import judge
from memcli.core.rules import build_rules
from memcli.core.scoring import score_text, tier_of
from memcli.errors import UsageError
from memcli.runtime import user_timezone


def score(
    ctx: typer.Context,
    text: Annotated[str, typer.Argument(help="The text to score, or - to read it from stdin.")],
    kind: Annotated[
        str, typer.Option("--kind", help="Entry kind: bullet, task, paragraph (tasks count as goals).")
    ] = "bullet",
) -> None:
    """Score a text 0-10 with the bilingual rules and show why (SPEC §3), with the label gc
    judges it by (core, log, transient, routine or noise) and the rule that decided it.

    Uses the workspace's [rules] from memcli.toml when a workspace is found.
    """
    body = sys.stdin.read() if text == "-" else text
    if not body.strip():
        raise UsageError("nothing to score: the text is empty")
    out = output(ctx)
    try:
        run = runtime(ctx)
        policy, today = run.policy, run.today
    except UsageError:
        opts = options(ctx)
        policy = load_policy(config_path(opts.config, os.environ, None), os.environ)
        tz = user_timezone(policy)
        today = to_local(parse_now(opts.now or os.environ.get("MEMCLI_NOW"), tz), tz).date()
    rules = build_rules(policy.rules)
    scored = score_text(body, rules, kind=kind, today=today)
    tier = tier_of(scored, policy)
    verdict = judge(body, scored, rules, policy, kind=kind)
    if out.json_mode:
        out.json(
            {
                "text": body,
                "score": scored.score,
                "tier": tier.value,
                "label": verdict.label.value,
                "why": verdict.why,
                "reasons": [{"rule": r.rule, "points": r.points, "cue": r.cue} for r in scored.reasons],
            }
        )
        return
    out.line(f"score {scored.score:g}   tier {tier.value}   label {verdict.why}")
    for r in scored.reasons:
        out.line(f"  {r.points:+g}  {r.rule:<17} {r.cue}")
    if not scored.reasons:
        out.line("  (no rule fired)")
