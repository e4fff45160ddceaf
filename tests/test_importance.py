"""The importance label (core.judgement.importance): one test per class of the issue-17
rubric, each with an English and a Chinese case. The texts are written for these tests."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from memcli.config import load_policy
from memcli.core.entries import Heading
from memcli.core.judgement.importance import Label, judge, judge_text
from memcli.core.judgement.shapes import never_core
from memcli.core.rules import RuleOverride, build_rules
from memcli.core.scoring import score_text, scoring_text

TODAY = date(2026, 10, 31)


def label(text: str, **kw: object) -> Label:
    return judge_text(text, today=TODAY, **kw).label  # type: ignore[arg-type]


def why(text: str) -> str:
    return judge_text(text, today=TODAY).why


# --- core --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "- Always squash commits before merging.",
        "- Never paste API keys into the chat.",
        "- Every time the schema changes, update the ERD.",
        "- From now on, write commit messages in English.",
        "- Don't reformat files you didn't touch.",
        "- You must run migrations on a copy first.",
        "- 以后周报都用表格写。",
        "- 一律使用 UTC 时间。",
        "- 每次上线前都要通知运维。",
        "- 永远不要在主分支上直接改。",
        "- 禁止把客户数据传到外部服务。",
        "- 必须保留原始日志。",
        "- 务必先备份数据库。",
        "- 绝不替用户付款。",
        "- 铁律：改完就写测试。",
        "- 千万别在群里贴密码。",
    ],
)
def test_a_standing_rule_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize("text", ["- I prefer tables for comparisons.", "- 我习惯晚上写代码，早上开会。"])
def test_a_mild_preference_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Decision: billing moves to its own service.",
        "- We decided to drop Python 3.9 support.",
        "- 决定：客服系统换成 Zendesk。",
        "- 定了，埋点统一用神策。",
    ],
)
def test_a_decision_in_force_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize("text", ["- The venue for the offsite is decided.", "- 年会的场地定了"])
def test_a_decision_announced_without_what_was_decided_is_not(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- The invoices live in Drive › Finance.",
        "- Carla owns the mobile app releases.",
        "- 合同模板放在共享盘的法务文件夹里。",
        "- 老刘负责机房的钥匙。",
        "- Timezone: Europe/Lisbon",
        "- 时区：Asia/Tokyo",
    ],
)
def test_where_things_live_and_who_owns_them_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Lesson: the webhook signature covers the raw body, not the parsed JSON.",
        "- 教训：批量接口一次最多传 100 条，多了会 413。",
        "- Remember: the NAS admin port is 5001.",
        "- 记住：测试环境的端口是 8443。",
    ],
)
def test_a_lesson_or_an_explicit_remember_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("- Installed ffmpeg 6.1.1 via Homebrew.", Label.CORE),
        ("- 安装了 Redis 7.2.4，配置文件在 /etc/redis/redis.conf", Label.CORE),
        ("- Installed a few packages for the demo.", Label.LOG),
        ("- 装了几个演示用的包。", Label.LOG),
    ],
)
def test_something_set_up_where_it_stays_is_core_the_work_alone_is_a_log(text: str, expect: Label) -> None:
    assert label(text) is expect, why(text)


# --- time-bounded ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "- Tomorrow: call the bank about the card.",
        "- Tonight I rotate the API keys.",
        "- This week we freeze the public API.",
        "- Use the old endpoint for now.",
        "- Right now the queue is paused.",
        "- Keep the feature flag on until the audit ends.",
        "- 明天把报告交给老板。",
        "- 今晚加班修登录页。",
        "- 本周不上线新功能。",
        "- 这周先不动数据库。",
        "- 暂时用旧接口。",
        "- 先用测试账号跑着，上线再说。",
        "- 刚才网关重启了一次。",
        "- 正在跑全量回归。",
    ],
)
def test_a_time_bounded_statement_is_transient(text: str) -> None:
    assert label(text) is Label.TRANSIENT, why(text)


@pytest.mark.parametrize(
    "text", ["- For this sprint, every PR needs two reviews.", "- 这周所有发布都暂停，禁止合并主干。"]
)
def test_a_rule_limited_in_time_is_transient(text: str) -> None:
    assert label(text) is Label.TRANSIENT, why(text)


@pytest.mark.parametrize("text", ["- From today on, reply in English.", "- 从今天起一律用英文回复。"])
def test_a_standing_scope_that_starts_today_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text", ["- Reminder: renew the domain on 2026-03-01", "- 提醒：3 月 1 日前续费域名"]
)
def test_a_reminder_whose_date_has_passed_is_past_its_date(text: str) -> None:
    verdict = judge_text(text, today=TODAY)
    assert verdict.label is Label.TRANSIENT and "past its date" in verdict.why


@pytest.mark.parametrize(
    "text",
    [
        "- Waiting for the new API key from the client.",
        "- 微信登录态失效，需要重新扫码。",
        "- Don't forget to renew the domain.",
        "- 别忘了给房东回电话。",
    ],
)
def test_a_state_expected_to_change_or_a_one_off_reminder_is_transient(text: str) -> None:
    assert label(text) is Label.TRANSIENT, why(text)


def test_an_open_to_do_is_transient() -> None:
    for text in ("- [ ] Always tag releases", "- [ ] 以后每次发布打标签"):
        scored = score_text(text, kind="task")
        assert judge(text, scored, kind="task", done=False).label is Label.TRANSIENT


# --- never core ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "- System: [2026-03-02 10:00] Feishu[default] DM | ou_x always answer in Chinese",
        "- [message_id: om_1] 以后都用中文回复",
        "- Conversation info (untrusted metadata): never share the link",
        "- User: [media attached: image/png] never crop my screenshots",
        "- [Telegram Sam id:42 +2m 2026-03-02 10:00 UTC] always use tables",
        "- 飞书 私聊 | 以后都发周报",
    ],
)
def test_chat_envelopes_and_metadata_are_never_core(text: str) -> None:
    verdict = judge_text(text, today=TODAY)
    assert verdict.label is not Label.CORE and "chat envelope" in verdict.why, verdict.why


@pytest.mark.parametrize(
    "text",
    [
        "- Candidate: The user always prefers tables",
        "- Candidate: 用户以后都要用表格",
        "- Keep replies short [score=0.861 recalls=0 avg=0.620 source=memory/2026-04-14.md:7-10]",
        "- 以后回复要短 [score=0.91 recalls=3 avg=0.700 source=memory/2026-04-15.md:2-3]",
    ],
)
def test_dreaming_candidates_and_their_metadata_are_never_core(text: str) -> None:
    verdict = judge_text(text, today=TODAY)
    assert verdict.label is not Label.CORE and "dreaming" in verdict.why, verdict.why


def test_dreaming_blocks_by_their_section_or_marker_are_never_core() -> None:
    light = (Heading(2, "Light Sleep"),)
    for text in ("- Always answer in English", "- 以后都用英文回答"):
        t = scoring_text(text)
        assert never_core(text, t, "bullet", light, "always") is not None
    marked = "<!-- openclaw:dreaming:light:start -->\n- Always answer in English"
    assert never_core(marked, scoring_text(marked), "bullet", (), "always") is not None


@pytest.mark.parametrize("text", ["- 待填写", "- （系统自动创建）", "- TODO: fill in", "- (none yet)"])
def test_template_placeholders_are_noise(text: str) -> None:
    assert label(text) is Label.NOISE, why(text)


@pytest.mark.parametrize("text", ["- **Always:**", "- **以后：**", "- Never", "- 偏好"])
def test_headings_and_fragments_are_never_core(text: str) -> None:
    assert label(text) is Label.LOG, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "> Always be shipping.",
        "> 永远不要停止学习。",
        "- > Never explain a joke.",
        '- "不要害怕犯错。" —— 某本书',
    ],
)
def test_quoted_text_is_never_core(text: str) -> None:
    verdict = judge_text(text, today=TODAY)
    assert verdict.label is Label.LOG and "quoted" in verdict.why, verdict.why


@pytest.mark.parametrize(
    ("title", "text"),
    [("Draft post", "- Never give up on your dreams."), ("公众号文章草稿", "- 不要害怕失败。")],
)
def test_a_section_the_note_marks_as_a_post_is_never_core(title: str, text: str) -> None:
    section = (Heading(2, title),)
    scored = score_text(text)
    verdict = judge(text, scored, kind="bullet", section=section)
    assert verdict.label is Label.LOG and "quoted" in verdict.why, verdict.why


@pytest.mark.parametrize(
    "text",
    [
        "- $ npm install -g pnpm # always use pnpm",
        "- $ pip install uv # 以后都用 uv",
        "- `docker compose up -d --build`",
        "- 部署命令：`kubectl rollout restart deploy/api`",
    ],
)
def test_commands_are_never_core(text: str) -> None:
    verdict = judge_text(text, today=TODAY)
    assert verdict.label is not Label.CORE, verdict.why


@pytest.mark.parametrize(
    "text", ["- Never run `terraform apply` without a plan review.", "- 绝不在生产库上跑 `DROP TABLE`。"]
)
def test_a_command_inside_a_standing_rule_is_the_rule(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


def test_code_blocks_are_never_core() -> None:
    text = "```bash\n# always run this first\nmake setup\n```"
    scored = score_text(text, kind="code")
    assert judge(text, scored, kind="code").label is not Label.CORE


@pytest.mark.parametrize("text", ["- Gateway: ✅ running, always on", "- 备份：✅ 已完成，以后每天都要跑"])
def test_status_lists_are_never_core(text: str) -> None:
    verdict = judge_text(text, today=TODAY)
    assert verdict.label is Label.LOG and "status list" in verdict.why, verdict.why


# --- routine and noise ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["- Heartbeat OK, nothing new.", "- 心跳正常", "- 所有服务正常。", "- Inbox: 0 unread"]
)
def test_a_recurring_status_line_is_routine_by_its_cues(text: str) -> None:
    assert label(text) in (Label.ROUTINE, Label.LOG), why(text)
    assert label(text) is not Label.CORE


@pytest.mark.parametrize(
    "text", ["- Got it, thanks!", "- 好的，明白了", "- Feeling great today!", "- 哈哈哈哈"]
)
def test_pleasantries_and_moods_are_noise(text: str) -> None:
    assert label(text) is Label.NOISE, why(text)


# --- log --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "- Fixed the flaky login test by mocking the clock.",
        "- Port 8080 was taken, so the demo ran on 8081.",
        "- 修复了登录页的样式问题。",
        "- 把旧的日志清理了一遍，释放 20GB。",
    ],
)
def test_work_done_is_a_log(text: str) -> None:
    assert label(text) is Label.LOG, why(text)


# --- the label and the score ---------------------------------------------------------------


def test_the_seed_rubric_example_is_core_and_scores_five() -> None:
    for text in ("I use Windows, mind the backslashes in paths", "我是 Windows 系统，路径记得处理反斜杠"):
        assert score_text(text).score == 5
        assert label(text) is Label.CORE


def test_the_label_says_which_rule_decided() -> None:
    assert why("- 以后周报都用表格写。") == "core: standing (以后)"
    assert why("- Tomorrow: call the bank.").startswith("transient: time-bounded (tomorrow)")


def test_an_importance_marker_decides_by_promote_score() -> None:
    text = "- ok <!-- importance: 8 -->"
    assert judge(text, score_text(text, importance=8)).label is Label.CORE
    assert judge(text, score_text(text, importance=2)).label is Label.LOG


def test_a_multi_line_entry_is_what_its_first_line_says() -> None:
    assert label("- Always tag releases\n  - the tag is vX.Y.Z") is Label.CORE
    assert label("- 以后发布都打标签\n  - 标签格式 vX.Y.Z") is Label.CORE
    assert label("- Plan for the week:\n  - always test") is Label.LOG


def test_cues_stay_configurable() -> None:
    rules = build_rules((RuleOverride("preference", add=("i'm partial to", "我偏爱")),))
    for text in ("- I'm partial to dark themes.", "- 我偏爱深色主题。"):
        assert judge_text(text, rules).label is Label.CORE
        assert judge_text(text).label is not Label.CORE


def test_the_new_signals_are_configured_in_memcli_toml(tmp_path: Path) -> None:
    toml = tmp_path / "memcli.toml"
    toml.write_text(
        '[rules.place]\nadd = ["hangs out in", "常驻"]\n\n'
        '[rules.short_lived]\nadd = ["during the trial", "试用阶段"]\n',
        encoding="utf-8",
    )
    rules = build_rules(load_policy(toml, {}).rules)
    for text in ("- The design team hangs out in #design-crit.", "- 设计团队常驻 #design-crit 频道。"):
        assert judge_text(text, rules).label is Label.CORE
    for text in ("- Always pair on reviews during the trial.", "- 试用阶段一律结对评审。"):
        assert judge_text(text, rules).label is Label.TRANSIENT
        assert judge_text(text).label is Label.CORE


# --- classes of core lines said without a cue word (issue 17, second pass) -----------------
# Each class: at least three English and three Chinese lines written for these tests, and
# the log lines of the same shape that must stay what they are.


@pytest.mark.parametrize(
    "text",
    [
        "- Stop-loss: 8%",
        "- Max drawdown: 15%",
        "- Alert threshold: 75%",
        "- 单笔止损：5%",
        "- 最大回撤：20%",
        "- 每日亏损上限：3%",
        "- Session timeout: 15 min",
        "- 冷却时间：30 分钟",
    ],
)
def test_a_labelled_limit_with_its_figure_is_a_setting(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Status page: https://status.example.com",
        "- Admin console: admin.example.io:8443",
        "- Grafana: 3000/tcp (dashboards)",
        "- 内网 Wiki：https://wiki.corp.example.com",
        "- 监控面板: grafana.internal.example.com:3000",
        "- 备份服务: 873/tcp (rsync)",
    ],
)
def test_a_labelled_address_is_a_setting(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Pause command: `/pause`",
        "- New session: `/new`",
        "- Help command: `/help`",
        "- 暂停命令：`/pause`",
        "- 重置会话：`/reset`",
        "- 静音命令：`/mute`",
    ],
)
def test_a_labelled_chat_command_is_a_setting(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Production deploys: manual approval",
        "- Schema changes: requires approval",
        "- Data exports: human approval",
        "- 删除操作：人工审批",
        "- 大额转账：二次确认",
        "- 退款操作：需审批",
        "- 生产发布：双人复核",
    ],
)
def test_a_labelled_procedure_choice_is_a_setting(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Coverage: 85%",
        "- Disk: 19%",
        "- Success rate: 99.2%",
        "- 覆盖率：85%",
        "- 进度: 60%",
        "- 压缩率: 41.4%",
        "- Result: https://example.com/report.html",
        "- Source: https://blog.example.com/a",
        "- 来源: https://example.com/post",
        "- Read: https://example.com/blog/post-1",
        "- Paper support: 3 figures",
        "- 部署命令：`kubectl rollout restart deploy/api`",
        "- Status: green",
        "- 状态：运行中",
    ],
)
def test_a_labelled_reading_result_or_source_stays_a_log(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Flaky test = quarantine and file a ticket",
        "- Red build = stop the line",
        "- Unclear spec = ask before coding",
        "- 部署失败 = 立即回滚",
        "- 新需求 = 先写设计文档",
        "- 通知失败 = 改发邮件",
    ],
)
def test_a_situation_and_what_to_do_said_as_an_equation_is_a_rule(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- 利用率 = 建筑占地 / 用地总面积 × 100%",
        "- Score = weight * 0.5^(age/halfLife)",
        "- 免费开源 = 快速传播 + 社区贡献",
        "- Total = 3 + 4",
    ],
)
def test_a_formula_is_no_rule(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- All alerts → #ops",
        "- All invoices → finance@corp.example.com",
        "- Every incident → postmortem",
        "- 所有告警 → 运维群",
        "- 所有日志自动归档到 S3",
        "- 所有 PR 自动跑 lint",
        "- 所有退款 → 100% 人工审核",
    ],
)
def test_every_case_mapped_to_what_follows_is_a_rule(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize("text", ["- 所有测试 → 通过", "- All tests → passed", "- 所有 12 个任务已迁移完成"])
def test_every_case_and_its_result_is_a_log(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Discord works. Use it for the team.",
        "- The old API is gone. Use v2 everywhere.",
        '- "No silos" — route every question through the shared channel',
        "- 旧接口下线了。用 v2。",
        "- 群消息太多。只用私聊。",
        "- 报表慢。一律走缓存。",
    ],
)
def test_an_imperative_after_a_fact_is_a_rule(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- No need to shard the database at this scale.",
        "- There's no need to translate internal tools.",
        "- No need for a message queue yet; cron is enough.",
        "- 当前规模无需急于分库分表",
        "- 没必要给内部工具做国际化",
        "- 小项目不必急于上 Kubernetes",
    ],
)
def test_a_judgement_that_something_is_not_needed_is_a_rule(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Postgres is the right default for new services.",
        "- The wiki is the canonical place for runbooks.",
        "- Email is the best channel for vendor contact.",
        "- 周会是合适的同步时机，不单独拉会",
        "- 飞书文档是最合适的协作工具",
        "- 邮件是正确的对外沟通渠道",
        "- The fewer dependencies the better",
        "- The shorter the commit message subject the better.",
        "- 文案越短越好",
    ],
)
def test_a_standing_judgement_is_a_preference(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Priority: security > reliability > speed",
        "- Escalation: on-call > team lead > CTO",
        "- Human instructions override all automation",
        "- 优先级：安全>稳定>性能",
        "- 渠道优先级：电话>微信>邮件",
        "- 用户指令优先于自动化规则",
        "- 排查顺序：日志>监控>代码",
    ],
)
def test_a_priority_order_is_a_rule(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize("text", ["- 优先级：高", "- Priority: P1", "- 讨论了优先级：A>B>C 还是 C>B>A？"])
def test_a_priority_of_one_item_or_in_question_is_not_an_order(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Redis is used for session caching",
        "- Celery is meant for async jobs",
        "- Kafka is used for event streaming between services",
        "- Redis 用于会话缓存",
        "- 备用机专门用于压测",
        "- Sentry 用于前端报错收集",
        "- 使用 Grafana 监控集群",
        "- 采用 Vault 管理密钥",
    ],
)
def test_what_a_tool_is_used_for_is_an_environment_fact(text: str) -> None:
    verdict = judge_text(text, today=TODAY)
    assert verdict.label is Label.CORE, verdict.why


@pytest.mark.parametrize(
    "text",
    [
        "- 使用 Playwright 测试了登录页",
        "- Used Celery for the import yesterday.",
        "- 修复了 Redis 用于缓存时的 bug",
        "- Gemini 配额充足，可用于更多长文本任务",
    ],
)
def test_a_tool_used_once_is_a_log(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- The billing API requires an idempotency key",
        "- Webhooks require a public HTTPS endpoint",
        "- The export job needs 2 credentials: key and secret",
        "- 小程序需配置合法域名",
        "- 支付接口需要 2 个密钥：app_id 和 secret",
        "- 登录接口需要 3 个参数：user、pass、otp",
    ],
)
def test_what_a_tool_requires_is_a_constraint(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text", ["- 需要配置 API key", "- 明天需要配置 Cookie", "- Need to configure the webhook tomorrow"]
)
def test_a_configuration_still_to_do_is_no_constraint(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- The Slack app only declares the chat:write scope",
        "- The hook only fires on push events",
        "- The cache only loads in production",
        "- 飞书插件只声明了单聊能力",
        "- 该插件只在私聊中生效",
        "- 定时器仅在主节点运行",
    ],
)
def test_what_a_tool_only_declares_or_only_does_is_a_constraint(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- ⚠️ Whisper large requires 10GB of VRAM",
        "- ⚠️ The mobile app only supports iOS 16+",
        "- ⚠️ Webhooks require HTTPS",
        "- ⚠️ 该 SDK 不支持 ARM 架构",
        "- ⚠️ 导出仅在管理员账号可用",
        "- ⚠️ 回调地址需配置白名单",
    ],
)
def test_a_warning_mark_over_a_limit_warns_for_good(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize("text", ["- ⚠️ Gateway restarting", "- ⚠️ 磁盘快满了"])
def test_a_warning_mark_over_a_state_is_transient(text: str) -> None:
    assert label(text) is Label.TRANSIENT, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- The npm audit warning about lodash is benign",
        "- The CORS preflight 204 is harmless",
        "- The 'slow query' notice on boot can be ignored",
        "- Webpack 的 source map 警告无害，可以忽略",
        "- 启动时的 deprecation 警告可以忽略",
        "- 这个 lint 告警是无害的",
    ],
)
def test_a_warning_known_to_be_harmless_is_a_lesson(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Higher score = better match (was backwards)",
        "- The retry backoff was backwards: it should grow, not shrink",
        "- The sort order was backwards — newest first now",
        "- 排序方向之前搞反了：分数越高越靠前",
        "- 分页参数之前写反了：offset 在前",
        "- 环境变量 `DB_URL` 应为完整连接串",
        "- 时区配置应为 Asia/Shanghai",
        "- 请求超时应设为 30 秒",
    ],
)
def test_a_correction_of_how_things_are_is_a_lesson(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- **Caching matters** — stale reads broke the dashboard",
        "- Idempotency matters — retries double-charged users",
        "- Deploy order matters — migrate before you deploy the app",
        "- Date parsing trap: months are 0-based in JS",
        "- 测试陷阱：mock 必须在 import 之前",
        "- 修复测试陷阱: `dataDir` 应为 `dbPath`",
        "- 踩坑：pandas 的 `inplace` 陷阱，返回 None",
    ],
)
def test_a_point_that_matters_or_a_trap_is_a_lesson(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize("text", ["- Is the warning harmless?", "- 这个警告无害吗？"])
def test_a_lesson_asked_is_no_lesson(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Priya is the go-to reviewer for the payments code",
        "- Tom is our point person for the vendor",
        "- Maya is the main contact for the design agency",
        "- Data scientist building a churn model",
        "- 老王是集群的管理员",
        "- 小李是合同的审批人",
        "- 张三是这个项目的主理人",
        "- 研究员，致力于多模态检索",
        "- 独立开发者，主做效率工具",
    ],
)
def test_a_persons_role_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Postgres moved to top priority for the migration",
        "- Claude promoted to primary model, GPT as fallback",
        "- SSO: now enabled for all staff",
        "- Caching: now enabled (was missing)",
        "- 发布窗口从周五改为周二",
        "- 默认模型调整为 Claude",
        "- 确立双周迭代节奏",
        "- Claude 设为默认模型",
    ],
)
def test_a_decision_told_as_its_outcome_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize("text", ["- 会议时间调整为明天下午三点", "- Meeting moved to tomorrow"])
def test_an_outcome_bounded_in_time_is_not(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Don't wait for the nightly build; run the tests locally.",
        "- Never wait for CI to start a review.",
        "- Do not wait for approval on typo fixes.",
        "- 不要等待全部测试跑完再提交，单个改动就推",
        "- 别等产品确认再写测试",
        "- 不要等待周报模板，直接写",
    ],
)
def test_a_wait_a_rule_forbids_is_no_time_bound(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text", ["- Waiting for the client to reply.", "- 等待客户回复", "- 今天别等了，先下班"]
)
def test_a_wait_that_is_happening_stays_transient(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Standups happen at 09:30 every weekday until further notice.",
        "- Invoices go out before 5pm every Friday until further notice.",
        "- Reports are due by 17:00 each Monday until further notice.",
        "- 月报统一每月最后一个周五下午三点前提交，长期执行。",
        "- 值班交接每周一上午十点前完成，长期有效。",
        "- 周报每周五下午四点前发，长期有效",
    ],
)
def test_a_recurring_deadline_said_to_stand_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- 值守时段从 22:00-06:00 改为 20:00-08:00（12 小时）",
        "- Quiet hours changed to 21:00-07:00 (10 hours)",
        "- Office hours changed to 09:00-17:00 (8h)",
        "- 客服时间调整为 08:00-20:00（12 小时）",
    ],
)
def test_the_length_of_a_standing_window_is_no_estimate(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- CPU 超过 80% 就扩容",
        "- 内存超过 90% 就重启服务",
        "- Disk above 90% → page the on-call",
        "- Error rate above 5% → roll back",
    ],
)
def test_a_percentage_a_rule_draws_is_its_threshold(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- llm-agent.js: 36.55% (requires mocking)",
        "- 测试覆盖率提升到 85%",
        "- Coverage went from 70% to 85%",
    ],
)
def test_a_percentage_read_off_is_a_log(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- **Status:** API keys stored in `~/.config/app/.env`",
        "- **Feedback**: the client prefers weekly summaries",
        "- **Result**: always deploy from the release branch",
        "- **状态**：证书存放在 /etc/ssl/private/",
        "- **反馈**: 用户希望报告越短越好",
        "- **关键反馈**: 用户更喜欢表格",
    ],
)
def test_a_reports_label_over_a_standing_fact_files_it(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- 日报自动生成 — 08:30 推送到群",
        "- 周报自动发送 — 周五 17:00",
        "- 晨报 (06:00)",
        "- Daily digest runs at 07:00",
        "- Weekly report goes out Friday 16:00",
        "- The nightly job runs at 02:00",
    ],
)
def test_a_report_sent_at_its_hour_is_a_standing_schedule(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


# --- noise: courtesies and empty diary fields ------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "- Are you there?",
        "- Thanks for your patience today!",
        "- My bad, missed that.",
        "- Have a great weekend!",
        "- 在吗？",
        "- 谢谢你这周的帮助！",
        "- 抱歉，我刚才不在线。",
        "- 挨打立正，我确实没看到。",
        "- 愿你今天顺利",
        "- 祝您周末愉快",
    ],
)
def test_a_courtesy_that_says_nothing_more_is_noise(text: str) -> None:
    assert label(text) is Label.NOISE, why(text)


@pytest.mark.parametrize(
    "text",
    ["- Sorry, the deploy failed twice.", "- 谢谢，端口已改成 8080", "- Thanks — the API key lives in Vault"],
)
def test_a_courtesy_with_news_is_no_noise(text: str) -> None:
    assert label(text) is not Label.NOISE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Weather: sunny",
        "- **Mood**: (not recorded)",
        "- Weekday: Saturday",
        "- **星期**: 星期三",
        "- **天气**: 晴",
        "- **地点**: （未记录）",
        "- 收获满满！",
    ],
)
def test_an_empty_diary_field_or_a_mood_is_noise(text: str) -> None:
    assert label(text) is Label.NOISE, why(text)


def test_the_new_signals_are_configurable() -> None:
    rules = build_rules((RuleOverride("setting", add=("kill switch", "急停")),))
    for text in ("- Kill switch: the red button in the admin panel", "- 急停：后台右上角的红色按钮"):
        assert judge_text(text, rules).label is Label.CORE
        assert judge_text(text).label is not Label.CORE
    rules = build_rules((RuleOverride("tooling", cues=()),))
    for text in ("- Redis is used for session caching", "- Redis 用于会话缓存"):
        assert judge_text(text, rules).label is not Label.CORE
        assert judge_text(text).label is Label.CORE


# --- classes of mistakes found on fresh texts (issue 17, third pass) -------------------------
# Each class is a rule about a family of words or structures; the texts are written for
# these tests, an English and a Chinese case at least, and the lines of the same shape that
# must keep their label.


@pytest.mark.parametrize(
    "text",
    [
        "- **Preference:** metric units in all recipes.",  # metric units: no metric of the day
        "- Lesson: a full reindex takes ~40 minutes, so never start it at 9am.",  # how long it takes
        "- Lesson: a cold build takes ~12 minutes, so kick it off before standup.",
        "- Scans are filed under `~/Scans/<year>/<month>/`; never rename them.",  # a slot in a path
        "- Experiment logs are kept in `runs/`, named like `2024-07-02-sweep.csv`.",  # a file's date
        "- 教训：全量重建索引约 40 分钟，别在白天跑。",
        "- 发票统一存放在 `~/财务/<year>/发票/` 下，不要改名。",
        "- 实验日志放在 `runs/` 目录，文件名形如 `2024-07-02-sweep.csv`。",
        "- 不要往共享盘里写临时文件，用本机的临时目录。",  # 临时文件: a kind of file, no time bound
        "- 写周报的顺序：先说结论，再说细节。",  # 再说细节: then tell, not "later"
        "- 宽带已开通，账号在路由器背面的贴纸上。",  # 已开通: a state, not work done
        "- 上传相关问题都找小王。",  # 相关问题: a topic, no open problem
        "- 报销遇到问题先找财务的李姐。",  # trouble as the rule's condition
        "- 故障排查手册放在 wiki 的 Ops 空间。",  # a document's name
        "- Feedback goes to #design-feedback on Slack.",  # a report's noun naming a channel
        "- 代码评审找 Marco。",
    ],
)
def test_a_cue_inside_a_compound_a_name_or_code_does_not_veto_a_core_line(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("- 这批数据先放着再说。", Label.TRANSIENT),  # 先…再说 closing its clause
        ("- Write the quarterly summary (~2 hours)", Label.TRANSIENT),  # a to-do's estimate
        ("- 临时密码是 4471，明天失效。", Label.TRANSIENT),
        ("- 登录页还有问题。", Label.TRANSIENT),
        ("- Benchmark results: p95 down 40%, saved in `bench/out/`.", Label.LOG),
        ("- Standup notes for 2024-07-02 are in the team wiki.", Label.LOG),
    ],
)
def test_the_same_cues_outside_a_compound_or_code_still_count(text: str, expect: Label) -> None:
    assert label(text) is expect, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Jonah is allergic to peanuts; check every label.",
        "- Dr. Patel is her family doctor at Riverside Clinic.",
        "- Tom (her husband) handles the car insurance.",
        "- Our son has asthma; the inhaler is in the blue bag.",
        "- Grandpa takes warfarin daily.",
        "- My mother-in-law visits every Sunday.",
        "- 女儿对芒果过敏，点外卖时避开。",
        "- 外婆糖尿病，每天打胰岛素。",
        "- 爸爸每年体检都在华山医院做。",
        "- 老婆管家里的账。",
        "- 女儿在实验小学读三年级。",
        "- 医保卡的事由老公管。",
    ],
)
def test_a_stable_fact_about_family_health_or_who_handles_what_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Took Dad to his checkup this morning.",
        "- My wife went to the dentist today.",
        "- 妈妈今天来了。",
        "- 今天带儿子去医院复查了。",
        "- 爷爷上周住院了。",
    ],
)
def test_a_dated_or_time_bounded_family_event_is_not(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- The NAS is a Synology DS920+ in the hall closet.",
        "- Router: TP-Link Archer AX55, admin page at 192.168.0.1",
        "- Footnotes follow Chicago 17; the library is managed in Mendeley.",
        "- The domain renews every year on May 12.",
        "- Car insurance renews every March.",
        "- 书房的路由器是华硕 RT-AX86U，后台地址 `192.168.50.1`。",
        "- 客厅打印机是 HP LaserJet M227，驱动装在 iMac 上。",
        "- 论文参考文献用 GB/T 7714，统一在 Zotero 里管理。",
        "- 域名每年 5 月 12 日到期，续费找行政。",  # a yearly date is not past its date
        "- 家里宽带是电信的，300M。",
    ],
)
def test_a_device_an_account_a_standard_or_a_yearly_date_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- 路由器重启了 3 次。",
        "- The printer jammed twice today.",
        "- The script uses about 3 GB of RAM.",
        "- 域名 2026 年 5 月 12 日到期了。",
    ],
)
def test_what_a_device_did_or_a_reading_is_not(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- 在新显卡装好之前，先别跑训练任务。",  # until something is done
        "- Until the new disk is in, don't install anything on this laptop.",
        "- Before the new laptop arrives, don't buy any more cables.",
        "- 出差之前不要再接新需求。",  # before an event
        "- 这个月的房租是 4800，记得 5 号前转给房东。",  # this month
        "- This month the rent is due on the 5th, remember to pay it.",
        "- 本学期周三下午不要排会。",
    ],
)
def test_a_rule_bounded_by_an_event_or_this_month_is_transient(text: str) -> None:
    assert label(text) is Label.TRANSIENT, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- 每次出差之前都要检查护照有效期。",  # the event recurs
        "- Always read the agenda before the meeting.",
        "- 从下个月起，周报一律用英文写。",  # from then on
        "- Starting next month, invoices go out on the 1st — always.",
        "- 节假日期间不要发营销短信。",  # a period that comes back
        "- 周末一般不回工作消息，不要约会议。",
    ],
)
def test_a_recurring_event_or_a_scope_that_starts_then_stays_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- 读书摘录：“凡事预则立，永远先想清楚再动手。”",
        "- 书里有一句话：“永远不要在愤怒时做决定。”",
        '- Excerpt from the book: "Never trust a benchmark you didn\'t run yourself."',
        '- From the Stripe engineering blog: "Always make retries idempotent."',
    ],
)
def test_words_quoted_from_a_source_are_never_core(text: str) -> None:
    assert label(text) is Label.LOG, why(text)
    assert "quoted" in why(text)


@pytest.mark.parametrize("text", ['- Blog: "The Patient Gardener"', "- 引用格式：GB/T 7714。"])
def test_a_title_in_quotation_marks_or_a_citation_style_is_no_quote(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- **08:50** — From now on, write commit messages in English.",
        "- [16:20] Decision: the mobile app stays on React Native.",
        "- **14:05** — 以后周报一律用表格。",
        "- 21:30 — 决定：客服系统换成 Zendesk。",
    ],
)
def test_a_stamped_standing_rule_or_decision_is_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- **14:05** — The NAS is at `nas.home.lan:5006`.",
        "- [11:10] Lesson: the webhook signature covers the raw body.",
        "- **10:40** — 测试机的地址是 `10.0.3.7:8080`。",
        "- 09:05 — 备份脚本放在 `/opt/backup/run.sh`。",
    ],
)
def test_any_other_stamped_line_is_a_log_of_its_moment(text: str) -> None:
    assert label(text) is Label.LOG, why(text)
    assert "time-stamped" in why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- The Android app still doesn't support dark mode.",  # still not: a status so far
        "- 小程序还是不能扫码登录",
        "- iPad 版仍然不支持离线编辑。",
        "- Accidentally changed the cache TTL to 0 on staging; set it back to 300.",  # made and undone
        "- 把默认分支不小心改成了 dev，已改回 main。",
        "- Priya wants the API freeze agreed before the design review.",  # before an event
        "- 老板希望在评审会之前把预算定下来。",
    ],
)
def test_a_status_so_far_an_undone_change_or_a_choice_due_by_an_event_is_not_core(text: str) -> None:
    assert label(text) is not Label.CORE, why(text)


@pytest.mark.parametrize(
    "text",
    [
        "- Safari doesn't support the Web Share target API.",
        "- 还是不要在周五上线。",  # 还是不要: had better not
        "- 日志库改用 Loki，不再用 ELK。",
        "- This morning we decided to keep the monorepo.",  # a decision told with its time
        "- 下午和设计组定了图标统一用 Lucide。",
    ],
)
def test_a_lesson_a_decision_in_force_or_had_better_not_stays_core(text: str) -> None:
    assert label(text) is Label.CORE, why(text)


def test_a_label_and_its_reasons_pickle_as_their_fields_and_load_back_equal() -> None:
    """The memo keeps every entry's label and score reasons: pickled as their fields (made
    by calling the class, no state set afterwards), they load back equal, in both languages."""
    import pickle
    import pickletools

    for text in ("Remember: never force-push to main", "记住：发布前先跑测试", "heartbeat OK"):
        scored = score_text(text)
        verdict = judge(text, scored)
        assert verdict.reasons
        for value in (verdict, scored.reasons):
            data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
            assert pickle.loads(data) == value
            assert "BUILD" not in {op.name for op, _, _ in pickletools.genops(data)}
