"""Regressions of the bugs the reliability suite found in templates, summaries and the
configuration: render-time errors and endless renders are bad data naming the template
(exit 3), a summary over max_file_bytes is never written, day and size counts have
maxima, and no setting or rule takes nan or infinity."""

from __future__ import annotations

import shutil
import signal
import sys
import threading
from pathlib import Path

import pytest

from conftest import NOW, SAMPLE, Invoke, as_json, tree_bytes
from memcli.config import load_policy, values_from_env, with_flags
from memcli.core.policy import POLICY_FIELDS, Policy
from memcli.errors import ConfigError, DataError
from memcli.workspace import templates
from memcli.workspace.templates import render_template


def render(
    tmp_path: Path, source: str, max_bytes: int = templates.MAX_RENDER_BYTES, **context: object
) -> str:
    path = tmp_path / "t.md.j2"
    path.write_text(source, encoding="utf-8")
    return render_template(path, dict(context), max_bytes)


def refused(tmp_path: Path, source: str, max_bytes: int = templates.MAX_RENDER_BYTES) -> str:
    with pytest.raises(DataError) as caught:
        render(tmp_path, source, max_bytes)
    line = caught.value.one_line()
    assert "t.md.j2" in line and "\n" not in line
    return line


# --- 1. render-time errors ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("ok\n{{ 1 / 0 }}\n", "line 2: ZeroDivisionError"),
        ("{{ 1 // 0 }}", "line 1: ZeroDivisionError"),
        ("{{ 2.0 ** 5000 }}", "line 1: OverflowError"),
        ("\n\n{% for i in range(10**9) %}x{% endfor %}", "line 3: OverflowError: Range too big"),
        ("{% macro m() %}{{ m() }}{% endmacro %}{{ m() }}", "calls itself without end"),
        ("{{ 'x' + 1 }}", "line 1"),
        ("{{ [1][5] }}", "line 1"),
        ("{{ ''.__class__ }}", "line 1"),
    ],
)
def test_a_render_time_error_names_the_template_and_line(tmp_path: Path, source: str, said: str) -> None:
    assert said in refused(tmp_path, source)


# --- 2. bounds on rendering ---------------------------------------------------------------------


def test_nested_loops_stop_at_the_step_limit(tmp_path: Path) -> None:
    source = "a\n{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}\n"
    line = refused(tmp_path, source)
    assert f"{templates.MAX_RENDER_STEPS:,} loop turns and calls" in line and "line 2" in line


def test_a_macro_that_fans_out_is_stopped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(templates, "RENDER_SECONDS", 0.2)
    monkeypatch.setattr(templates, "MAX_RENDER_STEPS", 50_000)
    source = "{% macro m(n) %}{% if n %}{{ m(n-1) }}{{ m(n-1) }}{% endif %}{% endmacro %}{{ m(40) }}"
    assert "(the limit)" in refused(tmp_path, source)


def test_slow_steps_stop_at_the_time_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(templates, "RENDER_SECONDS", 0.05)
    source = "{% for i in range(100000) %}{{ range(100000)|sum }}{% endfor %}"
    assert "0.05 s of rendering" in refused(tmp_path, source)


def test_the_output_stops_at_max_bytes_naming_the_line(tmp_path: Path) -> None:
    line = refused(tmp_path, "head\n{% for i in range(1000) %}{{ 'x' * 100 }}{% endfor %}\n", 20_000)
    assert "line 2" in line and "20,000" in line
    assert render(tmp_path, "{{ 'x' * 100 }}", 100) == "x" * 100 + "\n"


@pytest.mark.parametrize(
    "source",
    [
        "{{ 'a' * 10**12 }}",
        "{{ 10**12 * 'a' }}",
        "{{ [0] * 10**12 }}",
        "{{ 7 ** 1000000000 }}",
        "{{ (-3) ** 100000 }}",
    ],
)
def test_huge_single_operations_are_refused_before_they_run(tmp_path: Path, source: str) -> None:
    assert "the limit)" in refused(tmp_path, source, 1000)


def test_loops_behave_as_before(tmp_path: Path) -> None:
    source = (
        "{% for x in items %}{{ loop.index }}/{{ loop.length }}/{{ loop.revindex }}:{{ x }} {% endfor %}\n"
        "{% for x in [] %}no{% else %}empty{% endfor %}\n"
        "{% for k, v in table|dictsort %}{{ k }}={{ v }} {% endfor %}\n"
        "{% for x in gen if x > 1 %}{{ x }}{{ loop.cycle('a', 'b') }}{% endfor %}\n"
        "{% for n in tree recursive %}{{ n.name }}"
        "{% if n.kids %}({{ loop(n.kids) }}){% endif %}{% endfor %}\n"
    )
    tree = [{"name": "a", "kids": [{"name": "b", "kids": []}]}, {"name": "c", "kids": []}]
    text = render(tmp_path, source, items=["x", "y"], table={"b": 2, "a": 1}, gen=iter([1, 2, 3]), tree=tree)
    assert text == "1/2/2:x 2/2/1:y emptya=1 b=2 2a3ba(b)c\n"  # trim_blocks: no newline after a tag


def test_a_loop_over_an_undefined_name_is_still_refused(tmp_path: Path) -> None:
    assert "line 1" in refused(tmp_path, "{% for x in missing %}{{ x }}{% endfor %}")


def test_rendering_on_another_thread_is_bounded_too(tmp_path: Path) -> None:
    source = "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}"
    errors: list[BaseException] = []

    def work() -> None:
        try:
            render(tmp_path, source)
        except DataError as exc:
            errors.append(exc)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join(60)
    assert not worker.is_alive() and len(errors) == 1 and "loop turns" in str(errors[0])


def test_rendering_leaves_sigalrm_alone(tmp_path: Path) -> None:
    before = signal.getsignal(signal.SIGALRM)
    assert render(tmp_path, "{% for i in range(3) %}{{ i }}{% endfor %}") == "012\n"
    assert signal.getsignal(signal.SIGALRM) == before
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


# --- 3. summaries over max_file_bytes -----------------------------------------------------------


def test_a_summariser_output_over_max_file_bytes_is_not_written(tmp_path: Path, cli: Invoke) -> None:
    root = shutil.copytree(SAMPLE, tmp_path / "ws")
    (root / "memcli.toml").write_text("max_file_bytes = 20000\n")
    before = tree_bytes(root)
    command = f"{sys.executable} -c \"print('a' * 30000)\""
    result = cli("-w", str(root), "--now", NOW, "summarize", "--summarizer-cmd", command)
    assert result.exit_code == 3, result.stderr
    assert "over max_file_bytes (20,000)" in result.stderr and "nothing was written" in result.stderr
    assert tree_bytes(root) == before


def test_a_summary_within_max_file_bytes_is_written(tmp_path: Path, cli: Invoke) -> None:
    root = shutil.copytree(SAMPLE, tmp_path / "ws")
    (root / "memcli.toml").write_text("max_file_bytes = 20000\n")
    assert cli("-w", str(root), "--now", NOW, "summarize").exit_code == 0
    written = list((root / "memory" / "summaries").glob("*.md"))
    assert written and all(p.stat().st_size <= 20000 for p in written)


# --- 4. maxima of day and size counts -----------------------------------------------------------


@pytest.mark.parametrize(
    "setting",
    [
        "short_term_days = 9223372036854775807",
        "open_days = 1e308",
        "core_unused_days = 36501",
        "half_life_days = 1e300",
        "task_archive_hours = 1e20",
        "max_file_bytes = 9223372036854775807",
        "lock_timeout_seconds = 1e300",
        "summarizer_timeout_seconds = 1e300",
        "context_window = 9223372036854775807",
        "gc_every_turns = 9223372036854775807",
    ],
)
def test_a_count_past_its_maximum_is_refused_naming_the_key(tmp_path: Path, setting: str) -> None:
    path = tmp_path / "memcli.toml"
    path.write_text(setting + "\n")
    with pytest.raises(ConfigError) as caught:
        load_policy(path, {})
    line = caught.value.one_line()
    key = setting.split("=")[0].strip()
    assert f"memcli.toml: {key} must be at most" in line and len(line) < 200


def test_the_maximum_itself_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "memcli.toml"
    path.write_text("short_term_days = 36500\nopen_days = 36500\nlock_timeout_seconds = 86400\n")
    policy = load_policy(path, {})
    assert (policy.short_term_days, policy.open_days, policy.lock_timeout_seconds) == (36500, 36500, 86400.0)


def test_every_number_setting_has_a_maximum_or_is_a_score() -> None:
    scores = {"stale_below", "promote_score", "task_score", "session_score"}
    for name, f in POLICY_FIELDS.items():
        if isinstance(f.default, int | float) and name not in scores:
            assert f.metadata["max"] is not None, name
            assert f.default <= f.metadata["max"], name


def test_maxima_hold_for_variables_and_flags() -> None:
    with pytest.raises(ConfigError, match="MEMCLI_OPEN_DAYS must be at most 36500"):
        values_from_env({"MEMCLI_OPEN_DAYS": "9223372036854775807"})
    with pytest.raises(ConfigError, match="--short-term-days must be at most 36500"):
        with_flags(Policy(), {"short_term_days": 10**20})


def test_a_huge_day_count_is_refused_by_commands(tmp_path: Path, cli: Invoke) -> None:
    root = shutil.copytree(SAMPLE, tmp_path / "ws")
    (root / "memcli.toml").write_text("open_days = 9223372036854775807\n")
    result = cli("-w", str(root), "--now", NOW, "context")
    assert result.exit_code == 3
    assert "open_days must be at most 36500" in result.stderr


# --- 5. numbers that are not finite -------------------------------------------------------------


@pytest.mark.parametrize("points", ["nan", "inf", "-inf", "+inf", "1e308"])
def test_rule_points_that_are_not_finite_or_huge_are_refused(tmp_path: Path, points: str) -> None:
    path = tmp_path / "memcli.toml"
    path.write_text(f"[rules.preference]\npoints = {points}\n")
    with pytest.raises(ConfigError, match=r"memcli.toml: rules.preference.points must be"):
        load_policy(path, {})


def test_finite_rule_points_still_load(tmp_path: Path, cli: Invoke) -> None:
    root = shutil.copytree(SAMPLE, tmp_path / "ws")
    (root / "memcli.toml").write_text("[rules.preference]\npoints = -2.5\n[rules.decision]\npoints = 100\n")
    out = as_json(cli("-w", str(root), "--json", "score", "I prefer vim"))
    assert 0 <= out["score"] <= 10


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
@pytest.mark.parametrize("key", [k for k, f in POLICY_FIELDS.items() if isinstance(f.default, float)])
def test_float_settings_refuse_what_is_not_finite(tmp_path: Path, key: str, value: str) -> None:
    path = tmp_path / "memcli.toml"
    path.write_text(f"{key} = {value}\n")
    with pytest.raises(ConfigError, match=f"memcli.toml: {key} must be a finite number"):
        load_policy(path, {})


# --- the TOML error at the end of the document ---------------------------------------------------


@pytest.mark.parametrize(("text", "hint"), [("open_days =", "last line"), ("x = 1\ny", "last line")])
def test_a_toml_error_at_the_end_says_so(tmp_path: Path, text: str, hint: str) -> None:
    path = tmp_path / "memcli.toml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_policy(path, {})
    line = caught.value.one_line()
    assert "(at end of document)" in line and hint in line and "line it names" not in line


def test_a_toml_error_on_a_line_still_names_it(tmp_path: Path) -> None:
    path = tmp_path / "memcli.toml"
    path.write_text("open_days = 2\nx = = 1\n")
    with pytest.raises(ConfigError) as caught:
        load_policy(path, {})
    assert (
        "(at line 2, column" in caught.value.one_line() and "fix the line it names" in caught.value.one_line()
    )


def test_a_loop_over_a_literal_is_counted_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a literal string or list is a constant Jinja2 could fold at compile time, uncounted
    monkeypatch.setattr(templates, "MAX_RENDER_STEPS", 3)
    assert "3 loop turns" in refused(tmp_path, "{% for c in 'abcdef' %}{{ c }}{% endfor %}")
    assert "3 loop turns" in refused(tmp_path, "{% for c in [1, 2, 3, 4] %}{{ c }}{% endfor %}")
    assert render(tmp_path, "{% for c in 'ab' %}{{ c }}{% endfor %}") == "ab\n"
