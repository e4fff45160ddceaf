"""Supersede: a newer entry retires an older fact only when it gives up what that fact
states (SPEC §7, issue 17). One test per class of mistake, each with an English and a
Chinese case of its own; then gc end to end on real files: the archive and its pointer, no
promotion, the digest, `context`, both sides of a change, and the "at most a few" guard."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from conftest import NOW, Invoke, as_json
from memcli.core.analysis import analyse
from memcli.core.entries import parse
from memcli.core.judgement.candidates import superseded_among
from memcli.core.lifecycle import History, View, plan
from memcli.core.policy import Policy
from memcli.core.roles import MemoryFile, classify
from memcli.core.rules import DEFAULT_RULES
from memcli.core.scoring import scoring_text

TODAY = datetime(2026, 10, 31, 9, 0)  # NOW, naive in the user's time zone
CORE = "# MEMORY.md\n\n## Environment\n\n## Knowledge\n"


def note(day: date, *lines: str) -> str:
    return f"# {day.isoformat()}\n\n" + "".join(f"- {line}\n" for line in lines)


def retired(old: str, new: str, where: str = "note") -> bool:
    """Whether gc's plan retires `old` (in MEMORY.md, or a closed note three days back) for
    `new` (a closed note two days back)."""
    new_day, old_day = TODAY.date() - timedelta(days=2), TODAY.date() - timedelta(days=3)
    files = {f"memory/{new_day}.md": note(new_day, new)}
    if where == "core":
        files["MEMORY.md"] = CORE + f"\n- {old}\n"
    else:
        files["MEMORY.md"] = CORE
        files[f"memory/{old_day}.md"] = note(old_day, old)
    parsed = []
    for rel, text in files.items():
        f = classify(rel)
        assert isinstance(f, MemoryFile)
        parsed.append((f, parse(text, rel, f.date)))
    analysis = analyse(parsed, Policy(), DEFAULT_RULES, TODAY)
    view = View(tuple(parsed), frozenset(), frozenset(files), History())
    p = plan(view, analysis, Policy(), DEFAULT_RULES, TODAY)
    return any(a.action == "supersede" and old in (a.text or "") for a in p.actions)


def check(cases: list[tuple[str, str]], expected: bool) -> None:
    for old, new in cases:
        for where in ("core", "note"):
            assert retired(old, new, where) is expected, (old, new, where)


# --- recall: the cue families -------------------------------------------------------------


def test_a_switch_retires_what_it_switches_from() -> None:
    check(
        [
            ("Team chat is on Slack.", "Team chat switched to Discord."),
            ("调试前端用 Chrome。", "调试前端改用 Firefox 了。"),
            ("I write code in Sublime Text.", "Switched to Zed for everything."),
            ("笔记都记在印象笔记里。", "笔记换成 Obsidian 了。"),
            ("默认模型是 qwen-max。", "默认模型切换为 glm-4.5。"),
        ],
        True,
    )


def test_a_move_retires_where_it_was() -> None:
    check(
        [
            ("The docs are hosted on GitHub Pages.", "Moved the docs to Vercel."),
            ("The data warehouse is in us-east-1.", "We migrated the data warehouse to eu-central-1."),
            ("构建机房在新加坡。", "构建机房迁到了法兰克福。"),
            ("我住在杭州。", "我搬到成都了。"),
            ("家里的 NAS 放在书房。", "NAS 搬到储物间了。"),
        ],
        True,
    )


def test_a_replacement_retires_what_it_replaces() -> None:
    check(
        [
            ("The cache layer is Memcached.", "Replaced Memcached with Redis in the cache layer."),
            ("The API gateway is Kong.", "The API gateway went from Kong to Envoy."),
            ("Release cadence: monthly.", "Release cadence: monthly → weekly, as of today."),
            ("日志用 Logstash 采集。", "日志采集从 Logstash 换到了 Vector。"),
            ("队列用的是 RabbitMQ。", "用 Kafka 替换了 RabbitMQ。"),
        ],
        True,
    )


def test_what_is_given_up_retires_the_entry_that_states_it() -> None:
    check(
        [
            ("We provision infra with Terraform.", "We no longer use Terraform; infra is in Pulumi now."),
            ("Sessions are kept in-memory.", "Sessions are not in-memory anymore, they go to Redis."),
            ("用 yarn 管理依赖。", "不再用 yarn 了，改用 pnpm。"),
            ("周报用 Excel 模板写。", "Excel 模板不用了，周报改在飞书文档写。"),
        ],
        True,
    )


def test_a_correction_retires_the_entry_it_corrects() -> None:
    check(
        [
            ("The SMTP port is 25.", "That's wrong: the SMTP port is 587."),
            ("Max upload size is 10 MB.", "Correction: max upload size is 50 MB."),
            ("会议室在 3 楼。", "刚才说的不对，会议室在 5 楼。"),
            ("截止日期是周三。", "更正：截止日期是周五。"),
        ],
        True,
    )


def test_a_changed_owner_time_port_version_or_count_retires_the_old_one() -> None:
    check(
        [
            ("Tom owns the payments service.", "Payments service ownership passed from Tom to Ada."),
            (
                "Our account manager at Globex is Priya.",
                "Priya left Globex; the new account manager is Omar.",
            ),
            ("Office hours are on Tuesday.", "Office hours moved to Thursday starting next week."),
            ("Node 18 on the build box", "The build box runs Node 22 now"),
            ("运维对接人是老周。", "老周离职了，现在找小孙对接运维。"),
            ("站会在每天早上九点半。", "站会从下周起改到每天上午十点。"),
            ("上线日期定在 5 月 8 日。", "上线推迟到 5 月 20 日。"),
            ("代理端口是 7891。", "代理端口换成 7899 了，7891 不再使用。"),
        ],
        True,
    )


def test_a_value_said_again_replaces_the_old_one_without_a_cue() -> None:
    check(
        [
            ("Redis 6.2 on the cache host.", "Redis 7.2 on the cache host."),
            ("已连续 12 天无故障。", "已连续 15 天无故障。"),
            ("团队人数 8 人", "团队人数 11 人"),
        ],
        True,
    )


def test_a_state_that_ended_is_retired() -> None:
    check(
        [
            ("Payments webhook: DOWN since 09:00", "Payments webhook is back online"),
            ("❌ SSH to the NAS is broken", "SSH to the NAS works again ✅"),
            ("打印机故障，等维修", "打印机已修复，可以正常使用"),
        ],
        True,
    )


def test_a_preference_turned_round_is_retired() -> None:
    check(
        [
            ("Answers should be detailed.", "From now on answers should be brief."),
            ("日志默认详细输出。", "以后日志默认简洁输出。"),
        ],
        True,
    )


def test_a_subject_named_otherwise_still_finds_the_old_fact() -> None:
    """A longer form whose head names the attribute, the owner, a pronoun's home, the
    subject itself swapped, a broader word for the old value, a head both values share."""
    check(
        [
            ("The weekly sync is on Tuesdays at 10:00", "Sync slot moved to 14:00"),
            ("房租每月 5 号交", "房租日改到每月 15 号"),
            ("Rent is €1,200 a month", "Rent went up to €1,350"),
            ("物业费每月 300 元", "物业费涨到 360 元了"),
            ("Alice maintains the CI pipeline", "Bob owns CI now"),
            ("前端由小王负责", "前端现在由小李负责"),
            ("We live in Utrecht", "We moved to Leiden in May"),
            ("Dentist is Dr. Patel on King Street.", "Changed dentists: now going to Dr. Moreau."),
            ("牙医是王医生。", "换了个牙医，现在是李医生。"),
            ("手机套餐在移动办的", "今年手机套餐换到联通了"),
            ("爷爷每天吃二甲双胍降糖", "医生把爷爷的降糖药换成了阿卡波糖"),
            ("报销走邮件审批", "报销流程改成钉钉审批了"),
        ],
        True,
    )


def test_a_habit_given_up_or_a_state_that_is_back_retires_the_old_fact() -> None:
    check(
        [
            ("She goes to the gym every morning", "She gave up the gym"),
            ("He drinks two colas a day", "He doesn't drink cola anymore"),
            ("他每天早上喝一杯咖啡", "他已经不喝咖啡了"),
            ("他每周打两次篮球", "他膝盖受伤后不打篮球了"),
            ("Reports use the old Excel template", "Switched reports to Google Sheets; Excel is out"),
            ("❌ Sync broken on the laptop", "Sync works again after reinstalling the client"),
            ("🔴 NAS 连不上", "NAS 恢复正常了"),
        ],
        True,
    )


def test_a_migration_retires_what_it_was_built_with_and_a_value_in_backticks_is_a_value() -> None:
    check(
        [
            ("The landing page is built with Gatsby", "Moved the landing page to Astro"),
            ("文档站用 VuePress 搭的", "文档站迁到 VitePress 了"),
            ("个人主页用 Jekyll 建的", "个人主页已经迁到 Hugo"),
            ("The API listens on port `8080`", "API port changed to `9090`"),
            ("Redis 端口 `6379`", "Redis 端口改成 `6380`"),
        ],
        True,
    )


def test_a_new_path_or_the_old_thing_replaced_retires_what_it_replaces() -> None:
    check(
        [
            ("Config lives in `C:\\tools\\app\\config.ini`", "New config file: `~/.config/app/config.ini`"),
            ("备份放在 `/mnt/nas/backup`", "新的备份目录：`/mnt/nas2/backup`"),
            ("日志写到 `D:\\logs\\app.log`", "日志改写到 `/var/log/app.log`"),
            ("Project repo: `C:\\code\\helios`", "新项目路径：`/home/lin/code/helios`"),
            ("We deploy with Capistrano", "Kamal replaces the old Capistrano setup"),
            ("定时任务用 crontab 跑", "systemd timer 取代了原来的 crontab"),
        ],
        True,
    )


# --- precision: what is not a change of the older fact ------------------------------------


def test_an_entry_that_only_adds_retires_nothing() -> None:
    check(
        [
            ("I use Neovim.", "I also use VS Code for notebooks."),
            ("Deploys go through GitHub Actions.", "Deploys also post a message to Slack."),
            ("用户喜欢表格。", "用户也喜欢加粗关键结论。"),
        ],
        False,
    )


def test_a_change_word_about_another_subject_retires_nothing() -> None:
    check(
        [
            ("The blog runs on Hugo.", "Moved the landing page to Astro."),
            ("Alice owns the search service.", "Ownership of the billing service moved from Bob to Carol."),
            ("Prod is in us-east-1.", "Switched the staging bucket to eu-west-1."),
            ("Release 3.1 ships on June 2.", "Release 3.2 slipped to July."),
            ("生产库是 PostgreSQL 15。", "把测试库迁到了 MySQL 8。"),
            ("前端用 React。", "后端从 Flask 换成了 FastAPI。"),
            ("项目负责人是老王。", "小陈离职了。"),
        ],
        False,
    )


def test_a_switch_that_names_what_it_gives_up_retires_only_what_states_that() -> None:
    # the new value is a package manager too, but the change gives up Node, not pnpm
    check(
        [
            ("用户偏好用 pnpm，不要用 npm 安装依赖", "改用 Bun 跑内部脚本，不再用 Node"),
            (
                "I prefer pnpm over npm for installing dependencies.",
                "Switched to Bun for internal scripts, no longer Node.",
            ),
        ],
        False,
    )
    check(
        [
            ("用 Node 跑内部脚本，版本 20 LTS", "改用 Bun 跑内部脚本，不再用 Node"),
            ("Internal scripts run on Node 20.", "Switched to Bun for internal scripts, no longer Node."),
            ("周报 17:00 发送到邮箱。", "周报改为 18:00 发到钉钉群，不再发邮箱。"),
        ],
        True,
    )


def test_a_number_or_a_common_word_is_no_subject() -> None:
    check(
        [
            ("The toolchain is Python 3.12 and uv.", "Memory usage moved from 30.6% to 69%."),
            ("MEMORY.md is the core memory file.", "The cache is no longer in-memory."),
            ("工具链是 Go 1.22 和 Bazel。", "内存占用从 30.6% 变成 69%。"),
        ],
        False,
    )


def test_a_restatement_or_a_refinement_retires_nothing() -> None:
    check(
        [
            ("Deploy freeze on Fridays.", "The Friday deploy freeze is still in place."),
            ("The office is in Munich.", "The office moved to the 4th floor, still in Munich."),
            ("报销找财务小刘。", "报销还是找财务小刘。"),
            ("公司在上海。", "公司在上海徐汇区，搬到了 12 楼。"),
        ],
        False,
    )


def test_a_rotated_value_in_the_same_place_retires_nothing() -> None:
    check(
        [
            (
                "The GitHub token is stored in 1Password.",
                "Rotated the GitHub token; still stored in 1Password.",
            ),
            ("数据库密码放在 Vault 里。", "数据库密码换了新的，仍然放在 Vault 里。"),
        ],
        False,
    )


def test_a_scoped_exception_leaves_the_default_alone() -> None:
    check(
        [
            ("Use pnpm for all repos.", "For the legacy repo only, use npm instead."),
            ("回答一律用中文。", "除了代码注释，回答用中文。"),
        ],
        False,
    )


def test_a_pipeline_or_a_range_is_no_change() -> None:
    check(
        [
            ("Ingest runs nightly.", "Ingest → parse → index → publish"),
            ("On-call is Priya this week.", "Priya is away from Monday to Friday."),
            ("学习流程是先读后写。", "学习 → 融合 → 执行"),
        ],
        False,
    )


def test_a_field_of_a_note_or_an_event_of_a_day_is_no_fact() -> None:
    check(
        [
            ("压缩率：54.5%", "压缩率：40.2%"),
            ("~40 lines added to src/index.js", "~25 lines added to src/index.js"),
            ("Session start: 2026-10-27 21:51", "Session start: 2026-10-28 09:05"),
        ],
        False,
    )


def test_a_move_that_keeps_the_old_value_retires_nothing() -> None:
    check(
        [
            ("The office is in Munich", "Moved to a bigger office in Munich"),
            ("我住在杭州", "搬到了杭州的另一个小区"),
        ],
        False,
    )


def test_a_subject_named_otherwise_must_still_be_the_old_facts_subject() -> None:
    """A head is dropped only after what the older entry names; an owner, a pronoun, an
    opening word or a state must be the older entry's own."""
    check(
        [
            ("The NAS backup runs at 02:00", "Moved the offsite backup window to 04:00"),
            ("测试环境端口 15432", "生产环境端口改成了 5433"),
            ("Alice maintains the CI pipeline", "Bob owns the release notes now"),
            ("前端由小王负责", "后端现在由小李负责"),
            ("We live in Utrecht", "They moved the sofa to the other room"),
            ("Tom lives in Berlin", "Tom switched to decaf"),
            ("Demoed SLA reports to Isaac", "From now on we use Elasticsearch for SLA reports"),
            ("cedar-exporter 用 Biome 做库存同步", "孙杰提了 PR，把库存同步挪到 Locust 上"),
            ("分页接口评审定在 12 月 29 日", "把分页接口挪到 Bazel 上"),
            ("Dentist is Dr. Patel", "Changed the toothbrush head: now using soft bristles."),
            ("He drinks a coffee every morning", "He quit sugar entirely"),
            ("❌ Staging DB down", "Prod DB is back up"),
            ("🔴 生产库挂了", "测试库恢复了"),
        ],
        False,
    )


def test_a_word_that_only_looks_like_a_cue_retires_nothing() -> None:
    """A release that is out, a label over a list, a push, a conversion, a new file, a
    protocol named "correction"."""
    check(
        [
            ("Release 3.1 ships on June 2", "Release 3.2 is out"),
            ("**版本对比**:", "新版本：✅ 生效"),
            (
                "The guest Wi-Fi config lives in the wiki",
                "Pushed the wifi config to https://github.com/acme/net",
            ),
            ("所有需要调用的文件转换为 Markdown", "所有需要调用的文件转换为 Markdown 格式"),
            ("Tests: 23 → 42", "New test file: `tests/branchDiff.test.js`"),
            ("Cut releases on Fridays", "Correction protocol: log it, cut it, move on"),
        ],
        False,
    )


def test_superseded_among_finds_the_replaced_ones_in_time_order() -> None:
    texts = [
        "- I use Windows 11.",
        "- Lin switched to a Mac now.",
        "- I switched to a Mac now, no longer Windows.",
    ]
    days = [None, date(2026, 10, 20), date(2026, 10, 21)]
    assert superseded_among([scoring_text(t) for t in texts], days) == {0}


# --- gc end to end ----------------------------------------------------------------------------


def write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def gc(cli: Invoke, root: Path, *args: str) -> Any:
    return as_json(cli("--json", "-w", str(root), "--now", NOW, "gc", *args))


def supersedes(result: Any) -> list[dict[str, str]]:
    return [a for a in result["actions"] if a["action"] == "supersede"]


def test_the_old_fact_moves_to_superseded_md_with_a_pointer_to_the_new_one(
    cli: Invoke, tmp_path: Path
) -> None:
    root = tmp_path / "w"
    write(
        root,
        "MEMORY.md",
        "# MEMORY.md\n\n## Environment\n\n- 编辑器用 Sublime Text\n- Redis 跑在 6379 端口\n",
    )
    write(root, "memory/2026-10-27.md", "# 2026-10-27\n\n- The API base URL is api.acme.io/v1\n")
    write(
        root,
        "memory/2026-10-28.md",
        "# 2026-10-28\n\n- 编辑器改用 Zed 了\n- Moved the API base URL to api.acme.io/v2\n",
    )
    plan = gc(cli, root)
    retired = {a["from"]: a for a in supersedes(plan)}
    assert set(retired) == {"MEMORY.md:5", "memory/2026-10-27.md:3"}
    assert retired["MEMORY.md:5"]["by"] == "memory/2026-10-28.md:3"
    assert retired["memory/2026-10-27.md:3"]["by"] == "memory/2026-10-28.md:4"
    archive = (root / "memory" / "archive" / "superseded.md").read_text(encoding="utf-8")
    assert "- 编辑器用 Sublime Text <!-- memcli: superseded 2026-10-31 by memory/2026-10-28.md:3" in archive
    assert (
        "- The API base URL is api.acme.io/v1 <!-- memcli: superseded 2026-10-31 by memory/2026-10-28.md:4"
        in archive
    )
    memory = (root / "MEMORY.md").read_text(encoding="utf-8")
    assert (
        "Sublime" not in memory and "编辑器改用 Zed 了" in memory and "6379" in memory
    )  # the new side took its place
    assert "api.acme.io/v1" not in (root / "memory" / "2026-10-27.md").read_text(encoding="utf-8")


def test_a_superseded_fact_is_not_promoted(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "w"
    write(root, "MEMORY.md", "# MEMORY.md\n\n## Preferences\n")
    write(root, "memory/2026-10-26.md", "# 2026-10-26\n\n- 我习惯用 Sublime Text 写代码，以后都用它\n")
    write(root, "memory/2026-10-28.md", "# 2026-10-28\n\n- 写代码改用 Zed 了，以后都用 Zed\n")
    plan = gc(cli, root, "--dry-run")
    promoted = [a["text"] for a in plan["actions"] if a["action"] == "promote"]
    assert not any("Sublime" in t for t in promoted)
    assert [a["from"] for a in supersedes(plan)] == ["memory/2026-10-26.md:3"]


def test_a_digest_of_an_archived_week_does_not_present_the_superseded_fact(
    cli: Invoke, tmp_path: Path
) -> None:
    root = tmp_path / "w"
    write(root, "MEMORY.md", "# MEMORY.md\n\n## Environment\n")
    write(
        root,
        "memory/2026-10-05.md",
        "# 2026-10-05\n\n- The staging DB is on port 5433\n- Reviewed PR 12 with Ana\n",
    )
    write(root, "memory/2026-10-07.md", "# 2026-10-07\n\n- Staging DB moved to port 6432 after the upgrade\n")
    plan = gc(cli, root)
    assert [a["from"] for a in supersedes(plan)] == ["memory/2026-10-05.md:3"]
    digest = (root / "memory" / "summaries" / "2026-W41.md").read_text(encoding="utf-8")
    assert "6432" in digest and "5433" not in digest
    # the archived note itself moves unchanged: history is kept, and superseded.md says so
    archived = (root / "memory" / "archive" / "2026" / "10" / "2026-10-05.md").read_text(encoding="utf-8")
    assert "port 5433" in archived
    assert "port 5433 <!-- memcli: superseded" in (root / "memory/archive/superseded.md").read_text(
        encoding="utf-8"
    )


def test_summarize_does_not_present_a_replaced_fact_as_current(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "w"
    write(root, "MEMORY.md", "# MEMORY.md\n")
    write(root, "memory/2026-10-19.md", "# 2026-10-19\n\n- 我们决定数据库用 MySQL 8\n")
    write(root, "memory/2026-10-21.md", "# 2026-10-21\n\n- 决定数据库改用 PostgreSQL 16，不再用 MySQL\n")
    out = cli("-w", str(root), "--now", NOW, "summarize", "--period", "2026-W43", "--output", "-")
    assert out.exit_code == 0, out.stderr
    assert "PostgreSQL 16" in out.stdout and "我们决定数据库用 MySQL 8" not in out.stdout


def test_context_does_not_recall_a_superseded_fact(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "w"
    write(root, "MEMORY.md", "# MEMORY.md\n\n## Environment\n\n- Lin uses Windows 11 at home\n")
    write(root, "memory/2026-10-20.md", "# 2026-10-20\n\n- The NAS backup runs at 02:00\n")
    write(root, "memory/2026-10-24.md", "# 2026-10-24\n\n- Changed the NAS backup schedule to 04:30\n")
    write(
        root,
        "memory/2026-10-26.md",
        "# 2026-10-26\n\n- Lin switched to a MacBook now, no longer on Windows\n",
    )
    before = as_json(
        cli("--json", "-w", str(root), "--now", NOW, "context", "--budget", "2000", "--query", "NAS backup")
    )
    assert "04:30" in before["text"] and "02:00" not in before["text"]  # a newer piece replaces it, gc or not
    gc(cli, root)
    after = as_json(
        cli("--json", "-w", str(root), "--now", NOW, "context", "--budget", "2000", "--query", "backup")
    )
    assert "02:00" not in after["text"] and "superseded" not in after["text"]
    windows = as_json(
        cli("--json", "-w", str(root), "--now", NOW, "context", "--budget", "2000", "--query", "Windows")
    )
    assert "Windows 11 at home" not in windows["text"]  # its copy in superseded.md is not recalled either


def test_memory_md_never_holds_both_sides_of_a_change(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "w"
    write(
        root,
        "MEMORY.md",
        "# MEMORY.md\n\n## Environment\n\n- Our CI runs on Jenkins #pin\n- 部署用 Ansible\n",
    )
    write(root, "memory/2026-10-27.md", "# 2026-10-27\n\n- Our CI moved to GitHub Actions, remember this\n")
    write(root, "memory/2026-10-28.md", "# 2026-10-28\n\n- 部署改用 Terraform 了，记住\n")
    plan = gc(cli, root)
    memory = (root / "MEMORY.md").read_text(encoding="utf-8")
    # the pinned side stays, so the newer side does not go up beside it; the other is replaced
    assert "Jenkins" in memory and "GitHub Actions" not in memory
    assert "Ansible" not in memory and "部署改用 Terraform 了" in memory
    assert any("is pinned; not retired" in n for n in plan["notes"])


def test_an_entry_that_would_retire_more_than_a_few_is_reported_not_applied(
    cli: Invoke, tmp_path: Path
) -> None:
    root = tmp_path / "w"
    write(root, "MEMORY.md", "# MEMORY.md\n")
    facts = [
        "- 我们的 Jenkins 跑在 ci-01 上",
        "- 我们的 Jenkins 插件都锁了版本",
        "- 我们的 Jenkins 每晚备份一次",
        "- 我们的 Jenkins 只有管理员能登录",
        "- 我们的 Jenkins 用 LDAP 登录",
    ]
    for n, fact in enumerate(facts):
        write(root, f"memory/2026-10-2{n}.md", f"# 2026-10-2{n}\n\n{fact}\n")
    write(root, "memory/2026-10-27.md", "# 2026-10-27\n\n- 我们的 Jenkins 不再用了\n")
    plan = gc(cli, root, "--dry-run")
    assert supersedes(plan) == []
    notes = " ".join(plan["notes"])
    assert "memory/2026-10-27.md:3 (5)" in notes and "misreading" in notes


@pytest.mark.parametrize("placement", ["core", "note"])
def test_the_judgement_works_wherever_the_old_fact_lives(placement: str) -> None:
    assert retired("The blog is hosted on Netlify.", "Moved the blog to Cloudflare Pages.", placement)
    assert retired("博客部署在 Netlify。", "博客已经迁到 Cloudflare Pages。", placement)


def test_a_plan_reads_as_json(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "w"
    write(root, "MEMORY.md", "# MEMORY.md\n\n- 默认模型是 qwen-max\n")
    write(root, "memory/2026-10-28.md", "# 2026-10-28\n\n- 默认模型切换为 glm-4.5\n")
    result = cli("--json", "-w", str(root), "--now", NOW, "gc", "--dry-run")
    action = supersedes(json.loads(result.stdout))[0]
    assert (
        action["reason"].startswith("replaced: memory/2026-10-28.md:3 gives up")
        and "默认模型" in action["reason"]
    )
