"""Generate realistic, reproducible benchmark workspaces for memcli.

A workspace is what an OpenClaw-style agent leaves behind: a bilingual
(Chinese/English) ``MEMORY.md`` and one ``memory/YYYY-MM-DD.md`` daily note per
day, written in the style of ``sample-workspace/``: ``##`` sections, bullets,
``**HH:MM** —`` timeline items, ``- [ ]``/``- [x]`` tasks, nested sub-bullets,
the occasional paragraph, fenced code block or table.

Entries are built from templates whose slots are drawn from large vocabularies
(projects, people, tools, versions, ports, paths, hosts, dates, amounts), so
that unrelated entries are not near-duplicates of one another by accident.
Into that background the generator plants, and records in a manifest:

- exact duplicate groups: one entry pasted verbatim on 2-12 different days;
- paraphrase groups: 2-4 rewordings of one fact on different days, each pair
  scoring >= 85 with ``rapidfuzz.fuzz.ratio`` on normalised text;
- near misses: pairs that differ in exactly one value (a number, date, port,
  version, path or name) and must *not* be merged by a correct dedupe;
- routine events ("heartbeat OK", "看了一下日志，没有异常") recurring on many
  days, and pleasantries ("好的", "got it"), each listed separately.

The manifest is written beside the workspace (``OUT_DIR.with_suffix(".manifest.json")``),
never inside it, and every file/line it names is checked by re-reading the files.
The same arguments always give byte-identical output. Its keys:

- ``days``, ``seed``, ``start``, ``entries_per_day``; ``entries`` = every entry written
  (each top-level bullet, task, paragraph, code block or table counts once; MEMORY.md
  included), split into ``daily_entries`` and ``core_entries``; ``multi_line_entries``,
  ``files``, ``bytes``, ``persona``;
- ``exact_groups`` and ``paraphrase_groups``: lists of groups, each a list of copies
  ``{"file", "line", "text"}`` (workspace-relative path, 1-based first line, raw entry text);
- ``near_miss_pairs``: ``[a, b]`` pairs of such copies, each also naming the kind of
  value that differs (``"differs"``: date, port, version, path, name, number, amount, host);
- ``routine``: one group per recurring event; ``noise``: a flat list of pleasantries.

Usage::

    python bench/generate.py OUT_DIR [--preset year|decade|long] [--days N]
        [--entries-per-day N] [--seed N] [--start YYYY-MM-DD] [--force] [--verify]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import partial
from pathlib import Path
from random import Random
from string import Formatter
from typing import Any

from rapidfuzz import fuzz

GENERATOR_VERSION = 1
DEFAULT_START = date(2016, 1, 1)
PRESETS: dict[str, tuple[int, int]] = {"year": (365, 60), "decade": (3650, 60)}

# Shares of all daily entries.
EXACT_SHARE = 0.03
PARAPHRASE_SHARE = 0.02
NEAR_MISS_SHARE = 0.01
ROUTINE_SHARE = 0.06
NOISE_SHARE = 0.03

PARAPHRASE_MIN_RATIO = 85.0
NEAR_MISS_MIN_RATIO = 80.0
CORE_MAX_CHARS = 10_000

Json = dict[str, Any]

# --------------------------------------------------------------------------------------------
# Normalisation (the same one the benchmark's fuzzy checks use)
# --------------------------------------------------------------------------------------------

_LIST_LEAD = re.compile(r"^[ \t]*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]*)?", re.MULTILINE)
_TIME_LEAD = re.compile(r"^[ \t]*\**(?:[01]?\d|2[0-3]):[0-5]\d\**[ \t]*[—–-]*[ \t]*", re.MULTILINE)
_NON_WORD = re.compile(r"[\W_]+")


def normalise(text: str) -> str:
    """Lower-case text without list markers, checkboxes, leading times, markup or punctuation."""
    text = unicodedata.normalize("NFKC", text)
    text = _LIST_LEAD.sub("", text)
    text = _TIME_LEAD.sub("", text)
    return " ".join(_NON_WORD.sub(" ", text.casefold()).split())


# --------------------------------------------------------------------------------------------
# Vocabularies
# --------------------------------------------------------------------------------------------


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


PROJECT_BASES = _words(
    "atlas aurora basalt beacon borealis cedar cinder cobalt comet condor coral cypress delta dune echo "
    "ember falcon fjord flint garnet glacier granite gryphon harbor helix heron indigo iris jasper juniper "
    "kestrel krypton lantern lotus lumen magnet maple meridian mistral nebula nimbus nova oasis onyx orbit "
    "osprey pebble pylon prism quartz quill raven redwood saffron sequoia sierra sparrow talon thistle "
    "tundra umbra vesper vortex willow wren xenon yarrow zenith zephyr notes tidal lichen marlin puffin"
)
PROJECT_PARTS = _words(
    "api web worker sync cli gateway admin etl bot mobile infra docs search billing auth scheduler "
    "exporter ingest console"
)
PERSONA_NAMES = ("Lin", "Mei", "Jun", "Hao", "Yan", "Wen", "Kai", "Rui")
EN_NAMES = _words(
    "Priya Marco Anna Tom Sofia Lukas Emma Noah Olivia Liam Chloe Mateo Nina Omar Sara Felix Julia Ivan "
    "Elena Hugo Maya Leo Zoe Ravi Aisha Kenji Yuki Diego Clara Arjun Hannah Pavel Ines Tariq Greta Mohan "
    "Lena Bruno Nadia Oscar Freya Dmitri Amara Jonas Keiko Samir Talia Viktor Wanda Henrik Alice Ben "
    "Carla Daniel Erik Fatima George Helen Isaac Jack Karen Louis Mia Nathan Paula Quentin Rosa Simon "
    "Tanya Umar Vera William Xavier Yasmin Zack Abby Boris Cyrus Dana Eli Farah Gwen Hassan Iris Jade "
    "Kofi Lars Marta Nils Otto Petra Rafael Selma Theo Ulla Vikram Wes Ximena Yara Zane Adele Bianca "
    "Colin Dora Emil Flora Gustav Hedda Igor Jin Kira Lionel Mara Nico Orla Pablo Rhea Stefan Tilda"
)
EN_INITIALS = "ABCDFGHJKLMNPRSTVW"
CN_NICKS = _words(
    "小周 小唐 小王 小李 小陈 小赵 小孙 小吴 小郑 小冯 小何 "
    "小许 老王 老张 老刘 老陈 阿杰 阿明 阿珍 阿飞 大刘 大鹏 "
    "小林 小梅 小乔 小胡 小罗 小宋 小高 小谢"
)
CN_SURNAMES = _words(
    "张 王 李 赵 刘 陈 杨 黄 周 吴 徐 孙 马 朱 胡 郭 何 林 罗 高 梁 宋 郑 谢 韩 唐 冯 于 董 萧"
)
CN_GIVEN = _words(
    "伟 芳 娜 敏 静 磊 洋 艳 勇 军 杰 娟 涛 明 超 秀英 霞 平 刚 桂英 浩然 子涵 梓萱 一鸣 思远 欣怡 宇航 晨曦 "
    "雨桐 嘉怡 俊杰 佳琪 志强 海燕 文博 晓东 婉婷 建华 立新 春雷"
)
TOOLS = _words(
    "PostgreSQL MySQL Redis Kafka RabbitMQ NATS Nginx Caddy Traefik Envoy HAProxy Docker Podman Kubernetes "
    "Helm Terraform Pulumi Ansible Prometheus Grafana Loki Tempo Jaeger Sentry Jenkins Buildkite Drone "
    "ArgoCD Flux pnpm npm yarn Vite webpack esbuild Rollup Next.js Nuxt Remix SvelteKit Django FastAPI "
    "Flask Spring-Boot Gin Echo Fiber Fastify Express NestJS Prisma SQLAlchemy Alembic Celery BullMQ "
    "Temporal Airflow Dagster dbt ClickHouse Elasticsearch OpenSearch Meilisearch MinIO etcd Consul Vault "
    "Keycloak Playwright Cypress Jest Vitest pytest ruff mypy ESLint Prettier Biome tmux Neovim Obsidian "
    "Tailscale WireGuard Cloudflare Vercel Netlify Bun Deno Node.js Go Rust Python Java Kotlin Gradle "
    "Maven Bazel Poetry uv pipenv conda Terraform-CDK Supabase Firebase SQLite DuckDB Polars Pandas "
    "Spark Flink Trino Superset Metabase Redash Logstash Fluentd Vector Renovate Dependabot SonarQube "
    "Snyk Trivy Cosign Harbor Nexus Artifactory gRPC GraphQL Protobuf OpenAPI Swagger Postman k6 Locust "
    "Gatling JMeter Ollama LangChain Qdrant Milvus Weaviate Chroma"
)
TOOLS = tuple(t.replace("-", " ") if t == "Spring-Boot" else t for t in TOOLS)
TOPICS_EN = (
    "report export",
    "billing webhook",
    "search index",
    "login flow",
    "rate limiter",
    "audit log",
    "push notifications",
    "tenant settings",
    "invoice PDFs",
    "image resizing",
    "session cleanup",
    "password reset",
    "feature flags",
    "CSV import",
    "email digest",
    "usage metering",
    "SSO callback",
    "cache warm-up",
    "retry policy",
    "job queue",
    "data retention",
    "backup restore",
    "schema migration",
    "permission model",
    "onboarding wizard",
    "dark mode",
    "i18n strings",
    "error pages",
    "health checks",
    "log shipping",
    "alert routing",
    "cost dashboard",
    "API pagination",
    "file uploads",
    "webhook signatures",
    "token refresh",
    "price calculator",
    "shipping labels",
    "inventory sync",
    "refund flow",
    "coupon codes",
    "user avatars",
    "activity feed",
    "comment threads",
    "markdown preview",
    "offline mode",
    "deep links",
    "crash reports",
    "release notes",
    "canary deploys",
    "blue-green switch",
    "DNS failover",
    "TLS renewal",
    "secret rotation",
    "GDPR export",
    "account deletion",
    "two-factor auth",
    "captcha checks",
    "geo routing",
    "thumbnail cache",
    "video transcoding",
    "chat widget",
    "survey results",
    "A/B test buckets",
    "quota alerts",
    "partner API",
    "sandbox tenants",
    "nightly ETL",
    "warehouse sync",
    "churn model",
    "recommendation feed",
    "vector search",
    "prompt templates",
    "embedding cache",
    "OCR pipeline",
    "calendar sync",
    "timezone handling",
    "currency rounding",
    "tax rules",
    "SLA reports",
)
TOPICS_CN = _words(
    "报表导出 计费回调 搜索索引 登录流程 限流器 审计日志 消息推送 "
    "租户配置 发票生成 图片压缩 会话清理 密码重置 功能开关 "
    "批量导入 邮件摘要 用量计费 单点登录 缓存预热 重试策略 "
    "任务队列 数据保留 备份恢复 表结构迁移 权限模型 新手引导 "
    "暗色模式 多语言文案 错误页面 健康检查 日志采集 告警路由 "
    "成本看板 分页接口 文件上传 签名校验 令牌刷新 价格计算 "
    "物流面单 库存同步 退款流程 优惠券 用户头像 动态流 评论区 "
    "预览渲染 离线模式 深度链接 崩溃上报 发布说明 金丝雀发布 "
    "蓝绿切换 域名切换 证书续期 密钥轮换 数据导出 账号注销 "
    "双因素认证 验证码 地域路由 缩略图缓存 视频转码 客服挂件 "
    "问卷统计 灰度分桶 配额告警 合作方接口 沙箱租户 夜间同步 "
    "数仓同步 流失预测 推荐流 向量检索 提示词模板 向量缓存 "
    "票据识别 日历同步 时区处理 汇率换算 税率规则 服务报告"
)
REASONS_EN = (
    "it is already in our stack",
    "the license is simpler",
    "ops cost is lower",
    "the team knows it well",
    "it has better docs",
    "it handles retries for us",
    "benchmarks were 3x better",
    "it runs on ARM out of the box",
    "the managed offering is cheaper",
    "upgrades are less painful",
    "it supports multi-tenancy natively",
    "the SDK is typed",
)
REASONS_CN = (
    "技术栈里已经有了",
    "许可证更简单",
    "运维成本更低",
    "团队都比较熟",
    "文档更全",
    "自带重试",
    "压测结果好三倍",
    "原生支持 ARM",
    "托管版更便宜",
    "升级没那么痛苦",
    "原生支持多租户",
    "SDK 有类型",
)
ENVS_EN = ("staging", "production", "dev", "QA", "the sandbox", "pre-prod", "the demo cluster", "local")
ENVS_CN = ("预发环境", "生产环境", "测试环境", "开发环境", "沙箱环境", "演示集群", "本地环境", "灰度环境")
HOST_WORDS = _words(
    "db cache mq app web api build ci runner gpu edge lb proxy batch etl search vault nas backup log "
    "metrics bastion jump kafka redis pg mysql minio"
)
DOMAINS = (
    "internal",
    "prod.lan",
    "corp.lan",
    "home.lan",
    "example.com",
    "svc.cluster.local",
    "dc1.acme.io",
    "cn-east-2.acme.io",
    "eu-west-1.acme.io",
)
DIRS = _words(
    "src lib config scripts deploy docs internal cmd pkg tests migrations infra charts k8s tools bin app "
    "services handlers models utils jobs templates static assets fixtures e2e ops terraform ansible sql "
    "reports billing auth search export notify"
)
FILE_STEMS = _words(
    "main server client worker config settings routes schema models handlers reports export billing "
    "auth session cache queue retry limiter audit tenants users invoices webhooks metrics logging "
    "health backup restore seed fixtures deploy release build docker compose values defaults local"
)
EXTS = ("ts", "py", "go", "rs", "yaml", "yml", "toml", "json", "sql", "sh", "md", "tsx", "ini", "env", "conf")
REGISTRIES = (
    "registry.example.com",
    "ghcr.io/acme",
    "harbor.corp.lan",
    "docker.io/lindev",
    "registry.cn-hangzhou.aliyuncs.com/acme",
)
VAULTS = ("1Password", "Vault", "AWS Secrets Manager", "Bitwarden", "SOPS", "Doppler")
COMMANDS = (
    "pnpm test",
    "pnpm lint",
    "make lint",
    "make check",
    "go vet ./...",
    "go test -race ./...",
    "pytest -x",
    "cargo clippy",
    "cargo test",
    "terraform plan",
    "helm lint",
    "ruff check .",
    "npm run build",
    "docker compose up -d",
    "kubectl diff -f k8s/",
    "pre-commit run -a",
    "mvn -q verify",
    "gradle check",
    "tox -e py311",
    "just ci",
    "task test",
    "yarn typecheck",
    "deno task test",
    "bun test",
    "mypy --strict",
    "alembic upgrade head",
)
OSES = (
    "macOS 14",
    "macOS 15",
    "Ubuntu 22.04",
    "Ubuntu 24.04",
    "Windows 11",
    "Debian 12",
    "Fedora 40",
    "Arch",
)
SHELLS = ("zsh", "bash", "fish", "PowerShell 7", "nushell")
FORMATS_EN = ("tables", "bullet lists", "short summaries", "numbered steps", "plain text", "diagrams")
FORMATS_CN = ("表格", "列表", "简短摘要", "分步骤", "纯文本", "流程图")
STYLES_EN = (
    "small PRs under 300 lines",
    "squash merges",
    "review comments in Chinese",
    "one commit per logical change",
    "screenshots in the PR description",
    "draft PRs for early feedback",
)
HTTP_CODES = ("500", "502", "503", "504", "429", "401", "403", "409", "413", "422")
ROOMS = (
    "3F 会议室 A",
    "5F 会议室 B",
    "Zoom",
    "飞书会议",
    "腾讯会议",
    "Room 4.12",
    "Room 2.07",
    "the big room",
)
METRICS_EN = ("error rate", "p95 latency", "CPU usage", "memory usage", "queue depth", "cache hit rate")
METRICS_CN = ("错误率", "p95 延迟", "CPU 使用率", "内存占用", "队列积压", "缓存命中率")
CITIES = (
    "杭州",
    "深圳",
    "上海",
    "北京",
    "成都",
    "苏州",
    "南京",
    "武汉",
    "Berlin",
    "Singapore",
    "Tokyo",
    "London",
)
WEEKDAYS_EN = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
WEEKDAYS_CN = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")
MONTHS_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
VERBS = _words(
    "load build parse render fetch sync flush resolve merge split encode decode index rank score check "
    "apply compute export import"
)
NOUNS = _words(
    "Rows Index Report Tenant Session Invoice Token Cache Queue Batch Page Query Schema Event Metric Job "
    "User Order Payment Config Plan Chunk Frame Record Digest Bucket Shard Lease Slot Snapshot"
)
KEY_SECTIONS = _words(
    "cache export queue auth billing search http db redis worker mail upload report limits feature "
    "retention backup audit sso metrics log"
)
KEY_NAMES = _words(
    "ttlSeconds maxRows perMinute timeoutMs retries concurrency batchSize poolSize maxBytes window "
    "idleTimeout keepAlive bufferSize threshold maxAge minReplicas sampleRate flushEvery region bucket"
)
ENV_WORDS = _words(
    "EXPORT WORKER CACHE QUEUE DB REDIS HTTP AUTH MAIL UPLOAD REPORT SEARCH BILLING AUDIT SSO LOG "
    "METRICS FEATURE RETRY LIMIT"
)
ENV_TAILS = _words("CONCURRENCY TTL TIMEOUT URL POOL_SIZE MAX_ROWS BATCH REGION ENABLED SAMPLE_RATE RETRIES")
TABLE_SUFFIXES = ("events", "items", "logs", "rows", "jobs", "stats", "history", "settings", "queue", "links")
COLUMNS = (
    "tenant_id",
    "user_id",
    "status",
    "updated_at",
    "region",
    "plan",
    "locale",
    "external_id",
    "deleted_at",
    "score",
    "priority",
    "checksum",
)
TEAMS = ("infra", "data", "platform", "frontend", "mobile", "SRE", "security", "growth", "前端组", "数据组")

ROUTINE_EN = (
    "heartbeat OK",
    "checked the build, all green",
    "CI green on main",
    "nightly backup finished without errors",
    "no new alerts overnight",
    "synced notes with the NAS, no conflicts",
    "dependency bot PRs reviewed, nothing urgent",
    "disk usage normal on all hosts",
    "ran the smoke tests, all passed",
    "daily standup, nothing blocking",
)
ROUTINE_CN = (
    "看了一下日志，没有异常",
    "巡检完成，一切正常",
    "例行检查：服务都在线",
    "备份任务正常完成",
    "监控面板没有告警",
    "早会照常开，没有阻塞",
    "同步了一下笔记，没有冲突",
    "CI 全绿",
)
NOISE = (
    "好的",
    "明白了",
    "谢谢",
    "收到",
    "好的，明白了",
    "明白了，谢谢",
    "嗯嗯",
    "👍 收到",
    "ok thanks",
    "got it",
    "thanks!",
    "sounds good",
    "ok",
    "cool, thanks",
)

# --------------------------------------------------------------------------------------------
# Templates. Slots: see Slots.generators. A trailing digit (tool2, n2) asks for a second,
# different value of the same kind.
# --------------------------------------------------------------------------------------------

EN: dict[str, tuple[str, ...]] = {
    "progress": (
        "[[Refactored|Reworked|Restructured]] the {topic} "
        "[[module|code|layer]] in {proj}[[; | — |, ]]{n} files "
        "[[touched|changed]]",
        "[[Pushed|Published]] `{branch}` to {proj} and [[opened|raised]] PR #{pr} for {person}",
        "{person} [[finished|wrapped up|completed]] a first pass [[of|on]] {topic} for {proj}, {n} commits",
        "[[Paired|Worked]] with {person} on {topic}: {n} of the open "
        "items in {ticket} [[done|closed|resolved]]",
        "[[Merged|Landed]] PR #{pr} into {proj}, so {topic} [[now "
        "goes through|is handled by|runs on]] {tool}",
        "[[Wrote|Started|Drafted]] [[a draft of |]]the {topic} design doc [[at|in]] `{path}`",
        "[[Reproduced|Managed to reproduce]] {ticket} [[locally|on my machine]] with {proj}; "
        "[[fails only|only breaks]] with {tool} {ver}",
        "[[Cleaned up|Deleted|Pruned]] {n} stale branches [[in|from]] {proj} "
        "[[with {person}|for {person}|after asking {person}]]"
        "[[, oldest from|, the oldest dating from|; oldest one is from]] {date}",
        "[[Migrated|Moved|Ported]] {topic} in {proj} from {tool} to {tool2}[[, | — ]]{n} call sites "
        "[[left|to go|remaining]]",
        "[[Deployed|Shipped|Rolled out]] {proj} {ver} to {env}[[; rollout took| in| — took]] {n} minutes",
        "{person} [[reviewed|looked at]] PR #{pr} on {proj}[[ and asked for|, wants]] tests around {topic}",
        "[[Split|Broke]] {ticket} into {n} [[smaller tickets|sub-tasks|pieces]] so {person} can "
        "[[take|own]] {topic}",
        "[[Profiled|Profiling]] {proj}: {topic} spends {pct} [[of its time|of CPU]] in `{func}`",
        "[[Moved|Migrated]] the {topic} cron [[job|task]] from {host} to {host2}",
        "[[Added|Wrote]] {n} [[integration|end-to-end|unit]] tests for {topic} [[under|in]] `{path}`",
        "[[Load test|Stress test|k6 run]] of {proj} [[against|on]] {env}: {big} requests, p95 {ms} ms",
        "[[Fixed|Stabilised]] the flaky `{testfile}` in {proj}[[, it "
        "was racing on|; root cause was a race in]] "
        "{topic}",
        "[[Synced|Caught up|Checked in]] with {person} [[about|on]] {topic} for {proj}"
        "[[; next check-in|, again]] on {wd}",
        "[[Rewrote|Updated|Reworked]] the {topic} section of the {proj} docs[[, see| in]] `{path}`",
        "[[Rebased|Rebasing]] `{branch}` onto main[[ and resolved|, fixed]] {n} conflicts in `{file}`",
        "[[Spent the afternoon|Most of the day went]] on {topic} in "
        "{proj}, [[roughly|about|maybe]] {pct} done",
        "{person} [[says|thinks|expects]] {topic} in {proj} [[can go "
        "to QA|is ready for testing|lands]] by {wd}",
        "[[Demoed|Showed]] {topic} to {person} and {person2}[[; feedback in|, notes in]] {ticket}",
        "[[Traced|Tracked down]] a memory leak in {proj} to `{func}` holding {topic} buffers",
    ),
    "environment": (
        "{proj} [[runs on|is on|uses]] {tool} {ver}[[; config in|, "
        "config lives in|, configured via]] `{path}`",
        "{proj} [[listens on|serves on|binds]] port {port} [[on|at]] {host}",
        "[[The |]]{env} [[database|DB]] for {proj} [[is at|lives at|is]] `{host}:{port}`",
        "[[Images|Container images|Builds]] for {proj} [[are pushed "
        "to|go to|land in]] `{registry}/{proj}:{ver}`",
        "`{envvar}` [[controls|sets|toggles]] {topic} in {proj}[[, "
        "default|; defaults to|, default value]] {n}",
        "[[Config key|Setting|Key]] `{key}` in `{path}` [[sets|controls|caps]] the {topic} limit",
        "{user}'s [[machine|laptop|workstation]]: {os}, {tool} {ver}, {shell}",
        "{proj} [[logs go to|writes logs to|logs to]] `{path}`[[, rotated "
        "every| and rotates every|; rotation every]] "
        "{n} days",
        "[[The |]]{proj} dashboard [[is at|lives at|is]] {url}",
        "{proj} [[uses|pairs|combines]] {tool} {ver} [[with|and]] {tool2} {ver2} for {topic}",
        "CI for {proj} [[runs on|is on|uses]] {tool}[[; pipeline in|, "
        "the pipeline file is|, defined in]] `{path}`",
        "[[Secrets|Credentials|API keys]] for {proj} [[are "
        "kept|live|are stored]] in {vault} under `{secret}`",
        "{host} [[has|comes with]] {gb} GB RAM and {n} cores[[, "
        "reserved for|, used for| — dedicated to]] {topic}",
        "SSH to {host} [[goes through|uses|needs]] the bastion on port {port}[[, user| as]] `{login}`",
        "{proj} [[talks to|calls|connects to]] {tool} at {url}[[, timeout via|; timeout is]] `{key}`",
    ),
    "data": (
        "{proj} [[served|handled|saw]] {big} requests [[yesterday|last "
        "night|on {wd}]], {metric} [[at|was]] {pct}",
        "[[The |]]{tool} [[invoice|bill]] [[this month is|for {month} came to|was]] {money}"
        "[[, last month it was|; the month before:|, vs.]] {money2}",
        "{ticket} [[is estimated at|got]] {n} points[[, {person} "
        "thinks|; {person} says|, but {person} guesses]] {n2}",
        "[[The |]]{topic} table in {proj} [[holds|has|is at]] {big} rows[[, | / |; ]]{gb} GB "
        "[[on disk|in total|with indexes]]",
        "Sprint {n} [[closed|ended|finished]] with {n2} points "
        "[[done|delivered|completed]] [[for|on]] {proj}",
        "{proj} latency [[on|for]] {date}: p95 {ms} ms, p99 {ms2} ms",
        "[[Cloud spend|AWS bill|Infra cost]] for {env} in {month}: {money}",
        "{n} [[customers|tenants|accounts]] still [[call|use|hit]] the old {topic} endpoint of {proj}",
        "[[Build time|CI time|Pipeline duration]] of {proj} went from {n} min to {n2} min "
        "[[after caching|thanks to caching|once we cached]] {tool}",
        "{person} [[filed|submitted]] an expense of {money} for {topic}[[, reference|, ref| —]] {ticket}",
        "{proj} [[crash-free sessions|crash-free rate]] [[at|is]] "
        "{pct} this week[[, | over |; ]]{big} sessions",
    ),
    "decision": (
        "[[We decided to use|Decided to use|We'll go with]] {tool} for {topic} in {proj}, not {tool2}",
        "[[Decided|Decision]]: {proj} [[moves|migrates|switches]] to {tool} {ver} [[before|by]] {date}",
        "[[We will use|From now on we use|Going forward we use]] {tool} for {topic}; {person} owns "
        "[[the migration|migrating {proj}|the rollout]]",
        "[[Chose|Picked|Went with]] {tool} over {tool2} for {proj}[[ because|, since|:]] {reason}",
        "{proj} [[drops|will drop|ends]] support for {tool} {ver} on {date}",
        "[[Going with|Settled on|Agreed on]] {n} replicas for {proj} in {env} after the {topic} review",
        "[[Agreed with {person}|{person} and I agreed|Decided with {person}]] that {topic} stays in {proj}"
        "[[, not in| and not in| rather than]] {proj2}",
    ),
    "preference": (
        "{user} [[prefers|likes|would rather use]] {tool} over {tool2} for {topic} in {proj}",
        "[[I prefer|I like|I want]] {style} [[when reviewing|for]] {proj} [[changes|PRs|code]]",
        "[[Always|Always remember to|Must always]] run `{cmd}` before "
        "[[pushing to|merging into|releasing]] {proj}",
        "[[Never|Don't ever|Do not]] deploy {proj} on [[a {wd}|{wd}s]] after {time}",
        "{user} [[likes|prefers|wants]] {format} [[when I report "
        "on|for updates about|in summaries of]] {topic}",
        "[[Don't|Do not|Never]] [[ping|message|call]] {person} about {topic} before {time}",
        "[[I like|I prefer|I want]] {proj} alerts [[routed to|sent to|in]] the {team} channel"
        "[[, not to email|, never email| rather than email]]",
    ),
    "lesson": (
        "[[TIL|Today I learned]]: {tool} {ver} changed the default of "
        "`{key}`[[, which broke|; it broke|, breaking]] "
        "{proj}",
        "[[lesson|Lesson|Lesson learned]]: {topic} in {proj} needs a "
        "timeout[[, otherwise|; without one|, or else]] "
        "{tool} hangs",
        "[[Gotcha|Careful|Note to self]]: `{cmd}` on {host} "
        "[[silently ignores|skips|does not read]] `{path}`",
        "[[Note|NB|Heads-up]]: {tool} caches {topic} for {n} "
        "minutes[[, clear it with|; flush with|, reset via]] "
        "`{cmd}`",
        "[[Lesson learned|Takeaway]] from {ticket}: test {topic} with {big} rows, not {n}",
    ),
    "urgent": (
        "[[URGENT|Urgent]]: {proj} in {env} [[returns|throws]] {code} on {topic}, {person} "
        "[[is on it|is looking|is handling it]]",
        "[[Critical|CRITICAL]]: {host} disk at {pct}[[, writes from|; writes by|, so writes from]] {proj} "
        "[[are failing|fail]]",
        "[[Important|IMPORTANT]]: {proj} must [[be on|run]] {tool} {ver} "
        "[[before|by]] {date}[[ per|, see|,]] {ticket}",
    ),
    "meeting": (
        "[[Design review|Review]] for {topic} ({proj}) [[moved to|is now on|rescheduled to]] {wd} {time}",
        "1:1 with {person}[[ on {wd}| this {wd}|]]: [[talked about|covered|discussed]] {topic} and {topic2}",
        "{person} is [[out|away|on leave]] from {date} to {date2}, "
        "{person2} [[covers|handles|takes over]] {topic}",
        "[[Planning|Sprint planning]] for {proj} sprint {n} [[set for|is on|moved to]] {wd} in {room}",
        "{person} from {team} [[joins|will help with|picks up]] the {topic} work on {proj} "
        "[[next week|from {wd}|soon]]",
    ),
    "task": (
        "[[write|add]] tests for {topic} in `{path}`",
        "ask {person} about {topic} on {proj} ({ticket})",
        "[[bump|upgrade]] {tool} to {ver} in {proj}",
        "review PR #{pr} on {proj} ({topic})",
        "update `{path}` with the new {topic} steps",
        "close {ticket} once {person} confirms the {topic} fix",
        "[[renew|rotate|replace]] the [[TLS cert|certificate]] for {host} [[before|by]] {date} ({proj})",
        "move `{envvar}` for {proj} into {vault} [[and tell|after checking with]] {person}",
        "benchmark {topic} in {proj} with {tool} on {host}",
        "[[follow up with|ping]] {person} on {ticket} ({topic})",
        "[[set up|configure]] {tool} {ver} on {host} for {proj}",
        "[[draft|write]] the {topic} runbook for {proj} in `{path}`",
    ),
}
CN: dict[str, tuple[str, ...]] = {
    "progress": (
        "把 {proj} 的{ctopic}重构了一遍，改了 {n} 个文件，测试都过了",
        "{person} 提了 PR #{pr}，把{ctopic}挪到 {tool} 上，等我 review",
        "和 {person} 一起排查 {ticket}，定位到 `{file}` 里的{ctopic}逻辑",
        "{proj} {ver} 已经发到{cenv}，先灰度 {pct} 的流量",
        "给 {proj} 补了 {n} 个{ctopic}相关的单元测试，覆盖率到 {pct}",
        "{ctopic}的设计文档初稿写完了，放在 `{path}`",
        "在 {host} 上复现了 {ticket}，只在 {tool} {ver} 下出现",
        "[[和 {person} 一起|帮 {person} ]]清理了 {proj} 里 {n} 个过期分支，最早[[一个|的]]是{cndate}建的",
        "{person} 把 {proj} 的{ctopic}从 {tool} 换成了 {tool2}，还剩 {n} 处调用",
        "压测 {proj}：{big} 次请求，p95 {ms} ms，{cmetric}正常",
        "{ticket} 拆成了 {n} 个子任务，{ctopic}部分交给 {person}",
        "跟 {person} 对了一下 {proj} {ctopic}的进度，{cnwd}再碰一次",
        "修了 `{testfile}` 的偶发失败，原因是{ctopic}有竞态",
        "把{ctopic}的定时任务从 {host} 迁到了 {host2}",
        "重写了 {proj} 文档里{ctopic}那一节，见 `{path}`",
        "`{branch}` rebase 到 main，解决了 `{file}` 里 {n} 处冲突",
        "今天主要在弄 {proj} 的{ctopic}，进度大概 {pct}",
        "{person} 说 {proj} 的{ctopic}{cnwd}之前能提测",
        "给 {person} 和 {person2} 演示了{ctopic}，反馈记在 {ticket}",
        "查到 {proj} 内存泄漏是 `{func}` 一直持有{ctopic}的缓冲区",
        "{proj} 的{ctopic}接口加了缓存，响应从 {ms2} ms 降到 {ms} ms",
        "下午帮 {person} 看 {proj} 的{ctopic}问题，{tool} 版本不对，换成 {ver} 就好了",
    ),
    "environment": (
        "{proj} 跑在 {tool} {ver} 上，配置文件在 `{path}`",
        "{proj} 的服务端口是 {port}，部署在 {host}",
        "{cenv}的 {proj} 数据库地址：`{host}:{port}`",
        "{proj} 的镜像推到 `{registry}/{proj}:{ver}`",
        "环境变量 `{envvar}` 控制 {proj} 的{ctopic}，默认 {n}",
        "`{path}` 里的 `{key}` 决定{ctopic}的上限",
        "{proj} 的日志在 `{path}`，每 {n} 天轮转一次",
        "{proj} 的监控面板：{url}",
        "{proj} 用 {tool} {ver} 加 {tool2} {ver2} 做{ctopic}",
        "{host} 配置是 {gb} GB 内存、{n} 核，专门跑{ctopic}",
        "{proj} 的 CI 在 {tool} 上，流水线定义在 `{path}`",
        "{proj} 的密钥放在 {vault} 的 `{secret}` 下面",
        "{user} 的电脑是 {os}（{host}），{tool} {ver}，shell 用 {shell}",
        "登录 {host} 要走跳板机，端口 {port}，用户 `{login}`",
    ),
    "data": (
        "{proj} 昨天处理了 {big} 次请求，{cmetric} {pct}",
        "{tool} 这个月的账单 {money}，上个月是 {money2}",
        "{ticket} 估了 {n} 个点，{person} 觉得要 {n2} 个",
        "{proj} 的{ctopic}表有 {big} 行，占 {gb} GB",
        "{proj} 第 {n} 个 sprint 完成了 {n2} 个点",
        "{proj} 在{cndate}的 p95 延迟 {ms} ms，p99 {ms2} ms",
        "{cenv}这个月云费用 {money}，主要是 {tool}",
        "还有 {n} 个客户在用 {proj} 旧版的{ctopic}接口",
        "{proj} 构建时间从 {n} 分钟降到 {n2} 分钟，缓存了 {tool}",
        "{person} 的{ctopic}报销 {money} 已提交，单号 {ticket}",
        "{proj} 本周崩溃率 {pct}，共 {big} 个会话",
    ),
    "decision": (
        "决定 {proj} 的{ctopic}改用 {tool}，不再用 {tool2}",
        "定了：{cndate}之前 {proj} 升级到 {tool} {ver}",
        "我们决定{ctopic}统一走 {tool}，{person} 负责迁移 {proj}",
        "选择 {tool} 而不是 {tool2} 做 {proj}，原因是{creason}",
        "{proj} 改用 {tool} 做{ctopic}，{ticket} 跟踪",
        "{cenv}的 {proj} 副本数定为 {n}，{person} 拍板的",
        "和 {person} 说好了，{ctopic}留在 {proj}，不放进 {proj2}",
    ),
    "preference": (
        "我喜欢用 {tool} 做{ctopic}，{tool2} 太重了，{proj} 里也一样",
        "我习惯先在 {host} 上试 {proj}，再推到{cenv}",
        "不要在{cnwd} {time} 之后发布 {proj}",
        "{user} 偏好用{cformat}汇报 {proj} {ctopic}的进展",
        "提交 {proj} 之前一定要跑 `{cmd}`",
        "别在 {time} 之前找 {person} 聊{ctopic}",
        "{proj} 的{ctopic}告警我习惯发到 {team} 群里，[[不要|别]]发邮件给 {person}",
    ),
    "lesson": (
        "踩坑：{tool} {ver} 改了 `{key}` 的默认值，{proj} 因此挂了 {n} 分钟",
        "学到：{proj} 的{ctopic}必须加超时，不然 {tool} 会一直卡住",
        "注意：`{cmd}` 在 {host} 上会忽略 `{path}`",
        "踩坑记录：{ticket} 的根因是{ctopic}没加索引，{tool} 全表扫描了 {big} 行",
        "TIL：{tool} 默认把{ctopic}缓存 {n} 分钟，要用 `{cmd}` 清掉",
    ),
    "urgent": (
        "紧急：{cenv}的 {proj} {ctopic}报 {code}，{person} 在处理",
        "重要：{cndate}之前必须把 {proj} 升到 {tool} {ver}，见 {ticket}",
        "紧急：{host} 磁盘用了 {pct}，{proj} 写不进去了",
    ),
    "meeting": (
        "{ctopic}评审改到{cnwd} {time}，{person} 主持",
        "和 {person} 的 1:1：聊了{ctopic}和{ctopic2}",
        "{person} {cndate}到{cndate2}请假，{ctopic}找 {person2}",
        "{cndate}去{city}出差，{proj} 的事找 {person}",
        "{proj} 第 {n} 个 sprint 的计划会定在{cnwd}，地点 {room}，{person} 主持",
    ),
    "task": (
        "给 {proj} 的{ctopic}补测试，放在 `{path}`",
        "问一下 {person} {ctopic}的进度（{ticket}）",
        "把 {proj} 的 {tool} 升到 {ver}",
        "review PR #{pr}：{proj} 的{ctopic}",
        "更新 `{path}` 里{ctopic}的步骤",
        "[[{cndate}前|赶在{cndate}之前]]续签 {host} 的[[证书|TLS 证书]]，{proj} 在用，找 {person} 要权限",
        "整理 {proj} {ctopic}的会议纪要发给 {person}，抄送 {person2}",
        "把 {proj} 的 `{envvar}` 挪到 {vault}，先跟 {person} 确认{ctopic}不受影响",
    ),
}
CATEGORY_WEIGHTS: dict[str, float] = {
    "progress": 30,
    "environment": 14,
    "data": 12,
    "decision": 8,
    "preference": 7,
    "lesson": 6,
    "urgent": 3,
    "meeting": 7,
}
CODE_HEADS = (
    "{topic} for {proj} ({person}, {date})",
    "{ticket}: {topic} on {host}",
    "run on {host} before {date}, ask {person} first",
    "{ctopic}：{proj} {ver}，{person}",
    "{cenv} {proj}，见 {ticket}",
    "from the {topic} runbook, `{path}`",
)
CODE_LINES: dict[str, tuple[str, ...]] = {
    "bash": (
        "docker build -t {registry}/{proj}:{ver} .",
        "docker push {registry}/{proj}:{ver}",
        "kubectl -n {team} rollout restart deploy/{proj}",
        "kubectl -n {team} scale deploy/{proj} --replicas={n}",
        "ssh {login}@{host} -p {port}",
        "tail -n {n} {path}",
        "pg_dump -h {host} -p {port} -Fc {tbl} > {tbl}-{date}.dump",
        "redis-cli -h {host} -p {port} --scan --pattern '{key}:*' | wc -l",
        "curl -fsS {url}/healthz",
        "export {envvar}={n}",
        "{cmd}",
        "git checkout -b {branch}",
        "helm upgrade {proj} charts/{proj} --set image.tag={ver}",
        "terraform apply -target=module.{tbl}",
        "rsync -av {path} {login}@{host}:/srv/{proj}/",
    ),
    "sql": (
        "CREATE INDEX CONCURRENTLY idx_{tbl}_{col} ON {tbl} ({col}, created_at);",
        "ANALYZE {tbl};",
        "SELECT count(*) FROM {tbl} WHERE tenant_id = {n};",
        "ALTER TABLE {tbl} ADD COLUMN {col} text;",
        "DELETE FROM {tbl} WHERE created_at < '{date}';",
        "UPDATE {tbl} SET {col} = NULL WHERE id = {big};",
        "SELECT {col}, count(*) FROM {tbl} GROUP BY 1 ORDER BY 2 DESC LIMIT {n};",
        "VACUUM (VERBOSE) {tbl};",
    ),
    "yaml": (
        "{name}: {n}",
        'upstream: "{host}:{port}"',
        "image: {registry}/{proj}:{ver}",
        "timeout: {ms}ms",
        "owner: {person}",
        "path: {path}",
        "ticket: {ticket}",
    ),
}
DETAILS_EN = (
    "; {person} [[saw|got|hit]] {code}s from {host} [[while testing|during the test run|in QA]]",
    "; the fix [[touches|changes|is in]] `{file}` and `{func}`",
    "; {n} [[tenants|customers|accounts]] affected, [[the slowest at|worst case|peak]] {ms} ms",
    "; {person} wants [[numbers|data|metrics]] from {env} first",
    "[[, blocked until {person} merges PR #{pr}|; waiting for PR #{pr} "
    "from {person}|, needs PR #{pr} ({person}) first]]",
    "[[ after {person} hit {ticket} on {tool} {ver}|; {person} ran into {ticket} with {tool} {ver}"
    "|, found via {ticket} ({tool} {ver}, {person})]]",
    "[[; next step is|; next:|, then]] `{cmd}` on {host}",
    "[[; notes at|; write-up:|, details at]] {url}",
    "[[ — {person} signed off on {wd}|; {person} approved it {wd}|, OK'd by {person} on {wd}]]",
    "[[; costs about|; roughly|, about]] {money} a month in {env}",
    "[[, because|, since|; reason:]] {reason}",
    "; {metric} [[went from|moved from|changed from]] {pct} to {pct2}",
    "[[; rollback would be|; fallback is|, rollback target]] {proj} {ver}",
    "[[; {person} pairs with {person2} on it|; {person} and {person2} share it|, {person2} helps {person}]]",
    "[[, reported by {person} in|; {person} filed|, raised by {person} as]] {ticket}",
    "[[; settings under|; knob is|, configured by]] `{key}` in `{path}`",
    "[[; only {env} is affected, {proj} is fine|; {proj} is "
    "unaffected, just {env}|, limited to {env} ({proj} OK)]]",
    "; {big} rows [[touched|rewritten|migrated]] in {n} minutes",
    "[[; {person} raised it at the {team} sync on {wd}|; came up in the {team} sync ({wd}, {person})"
    "|, {person} flagged it to {team} on {wd}]]",
    "[[; talked it through with {person} in {room}|; discussed with {person} ({room})"
    "|, {person} and I went over it in {room}]]",
    "[[, same as|, looks like|; duplicate of]] {ticket} from {month}",
    "; {person} found [[the|an]] `{envvar}` override on {host}",
    "; the {topic} part [[waits for|needs|depends on]] {tool} {ver}",
    "; {person} measured {ms} ms on {host} with {big} rows",
    "; {person} will [[write it up|document it|summarise it]] in `{path}`",
    "; {tool} logs show {n} retries around {time}",
    "[[; budget owner is {person}, {money} approved|; {person} "
    "approved {money}|, {money} signed off by {person}]]",
    "; it also unblocks {topic} for {person}",
    "[[, {person} double-checked on {env} at {time}|; verified on {env} by {person} at {time}]]",
    "; branch `{branch}`",
    "; {person} suspects `{func}` in `{file}`",
    "; {n} alerts fired on {host} between {time} and {time2}",
    "; p99 {ms} ms on {env}, was {ms2} ms",
    "[[; ETA {date}, owner {person}|; {person} owns it, ETA {date}]]",
    "; touches {n} files across {proj} and {proj2}",
    "; repro steps in {ticket}, logs at `{path}`",
    "; {person} pinned {tool} to {ver} [[meanwhile|for now|in the meantime]]",
    "; [[the cost is|that is]] {money} for {big} calls",
    "; {person} asked to keep `{envvar}` at {n}",
    "[[; see|; cf.|, compare]] {url} and {ticket}",
)
DETAILS_CN = (
    "，{person} 测试时看到 {host} 返回 {code}",
    "，改动涉及 `{file}` 和 `{func}`",
    "，影响 {n} 个租户，最慢 {ms} ms",
    "，{person} 想先看{cenv}的数据",
    "，要等 {person} 合并 PR #{pr}",
    "，是 {person} 在 {tool} {ver} 上发现的（{ticket}）",
    "，下一步在 {host} 上跑 `{cmd}`",
    "，记录在 {url}",
    "，{person} {cnwd}已经确认",
    "，{cenv}每月大概 {money}",
    "，原因是{creason}",
    "，{cmetric}从 {pct} 变成 {pct2}",
    "，回滚方案是退回 {proj} {ver}",
    "，{person} 和 {person2} 一起弄",
    "，{person} 通过 {ticket} 反馈的",
    "，配置 `{key}` 在 `{path}` 里",
    "，只影响{cenv}，{proj} 没问题",
    "，涉及 {big} 行数据，跑了 {n} 分钟",
    "，{person} 在{team}周会上提的",
    "，在{room}和 {person} 讨论过",
    "，和{cndate}的 {ticket} 是同一个问题",
    "，{person} 在 {host} 上发现了 `{envvar}` 的覆盖配置",
    "，{ctopic}那部分要等 {tool} {ver}",
    "，{person} 在 {host} 上用 {big} 行数据测出 {ms} ms",
    "，{person} 会整理到 `{path}`",
    "，{tool} 日志里 {time} 前后重试了 {n} 次",
    "，预算 {money}，{person} 批的",
    "，顺便解决了 {person} 的{ctopic}问题",
    "，{person} {time} 在{cenv}复查过",
    "，分支 `{branch}`",
)
TAILS_EN = (
    ", see {ticket}",
    " (PR #{pr})",
    ", {person} to follow up",
    " — took {n} min",
    ", ETA {wd}",
    ", details in `{file}`",
    ", tracked in {ticket}",
    ", cc {person}",
)
TAILS_CN = (
    "，见 {ticket}",
    "（PR #{pr}）",
    "，{person} 跟进",
    "，花了 {n} 分钟",
    "，预计{cnwd}完成",
    "，细节在 `{file}`",
    "，{ticket} 跟踪",
    "，抄送 {person}",
)
SUBS_EN = (
    "{proj} {ver} on {host}",
    "p95 {ms} ms over {big} rows",
    "see {ticket} and PR #{pr}",
    "config: `{key}` = {n}",
    "owner: {person}, due {date}",
    "path: `{path}`",
    "{tool} {ver}, port {port}",
    "{person} disagrees, prefers {tool}",
    "cost estimate {money} per month",
    "blocked on {person2} for {topic}",
)
SUBS_CN = (
    "负责人：{person}，截止{cndate}",
    "路径 `{path}`",
    "{tool} {ver}，端口 {port}",
    "见 {ticket} 和 PR #{pr}",
    "配置 `{key}` 设为 {n}",
    "{big} 行数据，p95 {ms} ms",
    "{person} 有不同意见，想用 {tool}",
    "预算每月 {money}",
    "卡在 {person2} 那边的{ctopic}",
    "{proj} 在 {host} 上复现",
)
CONT_EN = (
    "Context: {person} hit this while working on {topic} in {proj}.",
    "Root cause was `{func}` retrying {n} times without backoff.",
    "Follow-up in {ticket}, {person} owns it.",
)
CONT_CN = (
    "背景：{person} 在做 {proj} 的{ctopic}时遇到的。",
    "根因是 `{func}` 没有退避，重试了 {n} 次。",
    "后续在 {ticket} 里跟，{person} 负责。",
)

# Paraphrase templates: [[a|b|...]] are interchangeable wordings that carry the same facts.
PARA_EN = (
    "[[I prefer|{user} prefers|I'd rather use]] {tool} over {tool2} for {topic} in {proj}",
    "[[We decided to|Decided to|We've decided to]] move {proj} to {tool} {ver} [[before|by]] {date}",
    "{proj} [[listens|runs]] on port {port} [[on|at]] {host}[[| in {env}]]",
    "[[The |]]{topic} job for {proj} runs [[every night|nightly]] at {time} on {host}",
    "[[Remember to|Don't forget to|Always]] run `{cmd}` before [[deploying|shipping]] {proj}",
    "{person} [[is out|is off|will be away]] from {date} to {date2}, [[ask|ping]] {person2} about {topic}",
    "[[Lesson|Lesson learned|TIL]]: {tool} {ver} [[changes|changed]] the default of `{key}` "
    "[[in|for]] {proj}",
    "[[The |]]{topic} limit for {proj} is [[now |]]{n} per minute, [[set in|configured in]] `{key}`",
    "[[We will|We'll]] use {tool} for {topic} [[from now on|going forward]], "
    "{person} owns [[the|this]] migration",
    "[[On {env}, {proj} uses {tool} {ver}|{proj} uses {tool} {ver} on {env}]][[| now]]",
    "{user} [[always |]][[wants|asks for]] {format} in {proj} [[release notes|changelogs]], "
    "[[reviewed by|signed off by]] {person}",
    "[[The |]]{env} backups of {proj} [[run|are taken]] [[nightly|every night]] at {time}, kept {n} days",
    "{proj} [[config|configuration]] [[lives|is]] in `{path}`[[ on {host}|, on {host}]]",
)
PARA_CN = (
    "[[我|{user}]][[比较|]]喜欢用 {tool} 做 {proj} 的{ctopic}，[[不要|别]]用 {tool2}",
    "[[我们|]]决定[[把|将]] {proj} [[迁|迁移]]到 {tool} {ver}，{cndate}[[前|之前]]完成",
    "{proj} 的服务端口[[是|为]] {port}，部署在 {host}[[ 上|]]",
    "{proj} 的{ctopic}[[定时任务|定时任务每天]]在 {host} 上 {time} 跑[[一次|]]",
    "[[记得|一定要|务必]]在发布 {proj} [[之前|前]]跑 `{cmd}`",
    "{person} {cndate}到{cndate2}请假[[了|]]，{ctopic}[[的事|]]找 {person2}",
    "踩坑[[：|记录：]]{tool} {ver} 改[[了|掉了]] `{key}` 的默认值，{proj} [[因此|所以]]出了问题",
    "{proj} 的{ctopic}限流[[是|设为|现在是]]每分钟 {n} 次，配置[[项|]]是 `{key}`",
    "{ctopic}评审[[定在|安排在]]{cndate} {time}，[[由 |]]{person} 主持",
    "[[在{cenv}，{proj} 用的是 {tool} {ver}|{proj} 在{cenv}用的是 {tool} {ver}]]",
    "{proj} 的配置[[文件|]][[放在|在]] `{path}`[[，{person} 维护|，由 {person} 维护]]",
    "{cenv}的 {proj} [[每天|每晚]] {time} 备份[[一次|]]，保留 {n} 天",
    "{proj} 的{ctopic}[[改成|改为|换成]]异步[[的|]]了，{person} [[负责|在跟]]",
)

# Near-miss templates: (template, slot that differs, kind of value).
NEAR_MISS: tuple[tuple[str, str, str], ...] = (
    ("{ctopic}评审定在 {cndate}，{person} 主持，地点 {room}", "cndate", "date"),
    ("The {topic} review for {proj} is on {date}, {person} presents", "date", "date"),
    ("{proj} 上线日期定在 {cndate}，{ticket} 跟踪", "cndate", "date"),
    ("{proj} listens on port {port} on {host} in {env}", "port", "port"),
    ("{proj} 的服务端口是 {port}，部署在 {host}，{person} 负责", "port", "port"),
    ("{proj} pins {tool} to {ver} in `{path}`", "ver", "version"),
    ("{proj} 锁定 {tool} 版本 {ver}，见 `{path}`", "ver", "version"),
    ("upgraded {tool} to {ver} on {host} for {proj}", "ver", "version"),
    ("Config for {proj} lives in `{path}` on {host}", "path", "path"),
    ("{proj} 的配置文件在 `{path}`，{person} 维护", "path", "path"),
    ("{ticket} ({topic}) is assigned to {person}, due {date}", "person", "name"),
    ("{ctopic}交给 {person} 负责，{cndate}前完成，{ticket}", "person", "name"),
    ("{proj} 的{ctopic}超时设为 {n} 秒，配置项 `{key}`", "n", "number"),
    ("The {topic} limit in {proj} is {n} requests per minute (`{key}`)", "n", "number"),
    ("{cenv}的 {proj} 副本数是 {n}，跑在 {host} 上", "n", "number"),
    ("Budget for {tool} in {env}: {money} per month, approved by {person}", "money", "amount"),
    ("{proj} 的{ctopic}预算每月 {money}，{person} 批的", "money", "amount"),
    ("{proj} in {env} connects to {tool} at `{host}:{port}`", "host", "host"),
)

# --------------------------------------------------------------------------------------------
# Slots
# --------------------------------------------------------------------------------------------

_FORMATTER = Formatter()


def fields_of(text: str) -> tuple[str, ...]:
    """The distinct replacement fields of a str.format template, in order."""
    seen: dict[str, None] = {}
    for _, name, _, _ in _FORMATTER.parse(text):
        if name:
            seen.setdefault(name, None)
    return tuple(seen)


_ALT = re.compile(r"\[\[(.*?)\]\]")
_CJK = re.compile(r"[\u4e00-\u9fff]")


def _is_cn(text: str) -> bool:
    """Whether a template is written in Chinese (its fixed words contain CJK)."""
    return bool(_CJK.search(re.sub(r"\{[^}]*\}", "", text)))


@dataclass(frozen=True, slots=True)
class Template:
    """A str.format template with ``[[a|b]]`` groups of interchangeable wordings."""

    parts: tuple[str | tuple[str, ...], ...]
    fields: tuple[str, ...]
    cn: bool

    @classmethod
    def of(cls, text: str) -> Template:
        parts: list[str | tuple[str, ...]] = []
        pos = 0
        for m in _ALT.finditer(text):
            parts.append(text[pos : m.start()])
            parts.append(tuple(m.group(1).split("|")))
            pos = m.end()
        parts.append(text[pos:])
        flat = _ALT.sub(lambda m: " ".join(m.group(1).split("|")), text)
        return cls(tuple(parts), fields_of(flat), _is_cn(text))

    @property
    def groups(self) -> list[int]:
        """How many options each [[...]] group has."""
        return [len(p) for p in self.parts if isinstance(p, tuple)]

    def choose(self, rng: Random) -> list[int]:
        """A random wording: one option index per [[...]] group."""
        return [rng.randrange(n) for n in self.groups]

    def render(self, choice: Sequence[int], values: dict[str, str]) -> str:
        it = iter(choice)
        out = "".join(p if isinstance(p, str) else p[next(it)] for p in self.parts)
        return out.format_map(values)


class Slots:
    """Draws slot values for one day from the vocabularies."""

    def __init__(self, rng: Random, persona: str, main_projects: Sequence[str]) -> None:
        self.rng = rng
        self.persona = persona
        self.main_projects = tuple(main_projects)
        self.day = DEFAULT_START
        self.cn_people = CN_NICKS + tuple(s + g for s in CN_SURNAMES for g in CN_GIVEN[:24])
        self.cn = False  # language of the template being filled: picks mostly matching names
        self.generators: dict[str, Callable[[], str]] = {
            "proj": self.project,
            "person": self.person,
            "user": lambda: persona,
            "tool": lambda: rng.choice(TOOLS),
            "ver": self.version,
            "port": self.port,
            "path": self.path,
            "file": self.file,
            "testfile": self.testfile,
            "host": self.host,
            "url": self.url,
            "ticket": self.ticket,
            "pr": lambda: str(rng.randint(12, 9999)),
            "n": lambda: str(rng.choice((rng.randint(2, 60), rng.randint(2, 500)))),
            "big": self.big,
            "ms": lambda: str(rng.randint(8, 2400)),
            "pct": self.pct,
            "gb": lambda: str(rng.choice((4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512))),
            "money": self.money,
            "date": lambda: self.some_date().isoformat(),
            "cndate": lambda: self.cn_date(self.some_date()),
            "month": lambda: rng.choice(MONTHS_EN) + f" {self.day.year}",
            "time": self.clock,
            "wd": lambda: rng.choice(WEEKDAYS_EN),
            "cnwd": lambda: rng.choice(WEEKDAYS_CN),
            "topic": lambda: rng.choice(TOPICS_EN),
            "ctopic": lambda: rng.choice(TOPICS_CN),
            "reason": lambda: rng.choice(REASONS_EN),
            "creason": lambda: rng.choice(REASONS_CN),
            "env": lambda: rng.choice(ENVS_EN),
            "cenv": lambda: rng.choice(ENVS_CN),
            "key": lambda: f"{rng.choice(KEY_SECTIONS)}.{rng.choice(KEY_NAMES)}",
            "envvar": lambda: f"{rng.choice(ENV_WORDS)}_{rng.choice(ENV_TAILS)}",
            "branch": self.branch,
            "func": lambda: (
                rng.choice(VERBS) + rng.choice(NOUNS) + rng.choice(("", "", "Async", "V2", "Batch"))
            ),
            "registry": lambda: rng.choice(REGISTRIES),
            "vault": lambda: rng.choice(VAULTS),
            "secret": lambda: f"{rng.choice(ENVS_EN[:4]).lower()}/{self.project()}/{rng.choice(FILE_STEMS)}",
            "cmd": self.command,
            "os": lambda: rng.choice(OSES),
            "shell": lambda: rng.choice(SHELLS),
            "format": lambda: rng.choice(FORMATS_EN),
            "cformat": lambda: rng.choice(FORMATS_CN),
            "style": lambda: rng.choice(STYLES_EN),
            "code": lambda: rng.choice(HTTP_CODES),
            "room": lambda: rng.choice(ROOMS),
            "metric": lambda: rng.choice(METRICS_EN),
            "cmetric": lambda: rng.choice(METRICS_CN),
            "city": lambda: rng.choice(CITIES),
            "team": lambda: rng.choice(TEAMS),
            "login": lambda: rng.choice(("deploy", "ops", "admin", "ci", "app")) + str(rng.randint(1, 99)),
            "tbl": lambda: f"{rng.choice(FILE_STEMS)}_{rng.choice(TABLE_SUFFIXES)}",
            "col": lambda: rng.choice(COLUMNS),
            "name": lambda: rng.choice(KEY_NAMES),
        }

    # -- individual kinds --------------------------------------------------------------------

    def person(self) -> str:
        rng = self.rng
        if rng.random() < (0.85 if self.cn else 0.2):
            return rng.choice(self.cn_people)
        name = rng.choice(EN_NAMES)
        return f"{name} {rng.choice(EN_INITIALS)}." if rng.random() < 0.3 else name

    def project(self) -> str:
        rng = self.rng
        if self.main_projects and rng.random() < 0.06:
            return rng.choice(self.main_projects)
        return f"{rng.choice(PROJECT_BASES)}-{rng.choice(PROJECT_PARTS)}"

    def clock(self) -> str:
        rng = self.rng
        minute = rng.randint(0, 59) if rng.random() < 0.6 else rng.choice((0, 15, 30, 45))
        return f"{rng.randint(7, 23):02d}:{minute:02d}"

    def version(self) -> str:
        rng = self.rng
        major = rng.choice((0, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 18, 20, 22))
        minor = rng.randint(0, 40)
        if rng.random() < 0.3:
            return f"{major}.{minor}"
        return f"{'v' if rng.random() < 0.3 else ''}{major}.{minor}.{rng.randint(0, 30)}"

    def port(self) -> str:
        rng = self.rng
        if rng.random() < 0.3:
            return str(
                rng.choice((3000, 5000, 5432, 6379, 8000, 8080, 8443, 9000, 9090, 9200, 27017))
                + rng.randint(0, 9)
            )
        return str(rng.randint(1025, 65000))

    def path(self) -> str:
        rng = self.rng
        parts = [rng.choice(DIRS) for _ in range(rng.randint(1, 3))]
        name = f"{rng.choice(FILE_STEMS)}.{rng.choice(EXTS)}"
        roll = rng.random()
        if roll < 0.15:
            return "C:\\Users\\" + self.persona.lower() + "\\" + "\\".join([*parts, name])
        if roll < 0.35:
            return f"/srv/{self.project()}/" + "/".join([*parts, name])
        if roll < 0.45:
            return "~/" + "/".join([".config", self.project(), name])
        return "/".join([*parts, name])

    def file(self) -> str:
        return f"{self.rng.choice(FILE_STEMS)}_{self.rng.choice(FILE_STEMS)}.{self.rng.choice(EXTS[:4])}"

    def testfile(self) -> str:
        rng = self.rng
        stem = f"{rng.choice(FILE_STEMS)}-{rng.choice(FILE_STEMS)}"
        return rng.choice((f"{stem}.spec.ts", f"test_{stem.replace('-', '_')}.py", f"{stem}_test.go"))

    def host(self) -> str:
        rng = self.rng
        return f"{rng.choice(HOST_WORDS)}{rng.randint(1, 40):02d}.{rng.choice(DOMAINS)}"

    def url(self) -> str:
        rng = self.rng
        sub = rng.choice(("grafana", "kibana", "status", "admin", "docs", "ci", "sentry", "wiki", "console"))
        proj = self.project()
        return f"https://{sub}.{rng.choice(DOMAINS[3:])}/{rng.choice(('d', 'p', 'view', 'app'))}/{proj}"

    def ticket(self) -> str:
        base = self.rng.choice(PROJECT_BASES).upper()[:6]
        return f"{base}-{self.rng.randint(10, 4999)}"

    def big(self) -> str:
        value = self.rng.randint(1_200, 9_800_000)
        return f"{value:,}" if self.rng.random() < 0.5 else str(value)

    def pct(self) -> str:
        rng = self.rng
        return (
            f"{rng.randint(1, 99)}%" if rng.random() < 0.6 else f"{rng.randint(0, 99)}.{rng.randint(1, 9)}%"
        )

    def money(self) -> str:
        rng = self.rng
        amount = rng.randint(20, 90_000)
        return rng.choice(("¥", "$", "€")) + (f"{amount:,}" if amount > 999 else str(amount))

    def branch(self) -> str:
        rng = self.rng
        kind = rng.choice(("feature", "fix", "chore", "refactor", "spike"))
        return f"{kind}/{rng.choice(FILE_STEMS)}-{rng.choice(FILE_STEMS)}-{rng.randint(1, 999)}"

    def command(self) -> str:
        rng = self.rng
        cmd = rng.choice(COMMANDS)
        return f"{cmd} {rng.choice(DIRS)}/" if rng.random() < 0.4 and "." not in cmd else cmd

    def some_date(self) -> date:
        return self.day + timedelta(days=self.rng.randint(-20, 75))

    @staticmethod
    def cn_date(d: date) -> str:
        return f" {d.month} 月 {d.day} 日"

    # -- filling templates -------------------------------------------------------------------

    def values(self, fields: Iterable[str]) -> dict[str, str]:
        """Values for each field; fields of one kind (tool, tool2) get different values."""
        out: dict[str, str] = {}
        for name in sorted(fields, key=lambda f: f[-1].isdigit()):  # tool before tool2
            kind = name.rstrip("0123456789")
            if kind in ("date", "cndate") and name != kind:
                first = self.day + timedelta(days=self.rng.randint(-20, 75))
                later = first + timedelta(days=self.rng.randint(1, 14))
                out[kind] = first.isoformat() if kind == "date" else self.cn_date(first)
                out[name] = later.isoformat() if kind == "date" else self.cn_date(later)
                continue
            if name in out:
                continue
            if kind == "ms" and name != kind and "ms" in out:  # a second latency is the larger one
                out[name] = str(int(out["ms"]) + self.rng.randint(5, 900))
                continue
            if kind == "money" and name != kind and "money" in out:  # same currency
                out[name] = out["money"][0] + self.money()[1:]
                continue
            gen = self.generators[kind]
            value = gen()
            for _ in range(8):
                if value not in out.values():
                    break
                value = gen()
            out[name] = value
        return out

    def fill(self, template: Template, fragment: bool = False) -> str:
        """The template in a random wording with fresh slot values.

        A fragment (detail, tail) keeps its leading blank; a head is stripped."""
        self.cn = template.cn
        text = tidy(template.render(template.choose(self.rng), self.values(template.fields)))
        return text if fragment else text.strip()


_SPACES = re.compile(r"(?<=[\u3000-\u303f\uff00-\uffef]) | (?=[\u3000-\u303f\uff00-\uffef])|  +")


def tidy(text: str) -> str:
    """Drop the blanks that slot values leave next to CJK punctuation, collapse double spaces."""
    return _SPACES.sub(lambda m: " " if len(m.group(0)) > 1 else "", text)


# --------------------------------------------------------------------------------------------
# Entries and days
# --------------------------------------------------------------------------------------------


@dataclass(slots=True)
class Item:
    """One entry to write: its lines (no trailing newline) and what it was planted as."""

    kind: str  # bullet, task, timed, paragraph, code, table
    lines: list[str]
    label: tuple[str, int] | None = None  # (category, group index)
    clock: str = ""
    where: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class Day:
    day: date
    target: int
    planted: list[Item] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Compiled:
    en: dict[str, tuple[Template, ...]]
    cn: dict[str, tuple[Template, ...]]
    details_en: tuple[Template, ...]
    details_cn: tuple[Template, ...]
    tails_en: tuple[Template, ...]
    tails_cn: tuple[Template, ...]
    subs_en: tuple[Template, ...]
    subs_cn: tuple[Template, ...]
    cont_en: tuple[Template, ...]
    cont_cn: tuple[Template, ...]
    code_heads: tuple[Template, ...]
    code_lines: dict[str, tuple[Template, ...]]
    para: tuple[Template, ...]
    near: tuple[tuple[Template, str, str], ...]


def compile_templates() -> Compiled:
    def many(texts: Iterable[str]) -> tuple[Template, ...]:
        return tuple(Template.of(t) for t in texts)

    return Compiled(
        en={k: many(v) for k, v in EN.items()},
        cn={k: many(v) for k, v in CN.items()},
        details_en=many(DETAILS_EN),
        details_cn=many(DETAILS_CN),
        tails_en=many(TAILS_EN),
        tails_cn=many(TAILS_CN),
        subs_en=many(SUBS_EN),
        subs_cn=many(SUBS_CN),
        cont_en=many(CONT_EN),
        cont_cn=many(CONT_CN),
        code_heads=many(CODE_HEADS),
        code_lines={k: many(v) for k, v in CODE_LINES.items()},
        para=tuple(Template.of(t) for t in PARA_EN + PARA_CN),
        near=tuple((Template.of(t), slot, kind) for t, slot, kind in NEAR_MISS),
    )


class Writer:
    """Builds the entries of a workspace with one seeded random.Random."""

    def __init__(self, rng: Random, slots: Slots, compiled: Compiled) -> None:
        self.rng = rng
        self.slots = slots
        self.t = compiled
        self.seen: set[str] = set()
        cats = list(CATEGORY_WEIGHTS)
        self.categories = cats
        self.cat_weights = [CATEGORY_WEIGHTS[c] for c in cats]

    # -- sentences ---------------------------------------------------------------------------

    def sentence(self, category: str, cn: bool, tail: bool = True, detail: float | None = None) -> str:
        """A head clause of `category`, usually a detail clause, sometimes a short tail."""
        rng = self.rng
        if detail is None:  # English heads resemble each other more: they nearly always get a detail
            detail = 0.92 if cn else 0.97
        table = self.t.cn if cn else self.t.en
        text = self.slots.fill(rng.choice(table[category]))
        if rng.random() < detail:
            text += self.detail(cn)
        if tail and rng.random() < 0.3:
            text += self.slots.fill(rng.choice(self.t.tails_cn if cn else self.t.tails_en), fragment=True)
        return text

    def task_text(self, cn: bool) -> str:
        table = self.t.cn if cn else self.t.en
        text = self.slots.fill(self.rng.choice(table["task"]))
        return text + self.detail(cn) if self.rng.random() < (0.85 if cn else 0.95) else text

    def detail(self, cn: bool) -> str:
        return self.slots.fill(self.rng.choice(self.t.details_cn if cn else self.t.details_en), fragment=True)

    def fresh(self, make: Callable[[], list[str]]) -> list[str]:
        """Lines from `make` whose normalised text was not produced before."""
        lines = make()
        for _ in range(20):
            key = normalise("\n".join(lines))
            if key not in self.seen:
                self.seen.add(key)
                return lines
            lines = make()
        raise RuntimeError("could not produce a fresh entry; vocabularies too small")

    def bullet_lines(self, category: str, cn: bool, multi: bool) -> list[str]:
        rng = self.rng
        lines = ["- " + self.sentence(category, cn)]
        if multi:
            if rng.random() < 0.25:
                lines.append("  " + self.slots.fill(rng.choice(self.t.cont_cn if cn else self.t.cont_en)))
            else:
                subs = rng.sample(self.t.subs_cn if cn else self.t.subs_en, rng.randint(1, 3))
                lines.extend("  - " + self.slots.fill(s) for s in subs)
        return lines

    def category(self) -> str:
        return self.rng.choices(self.categories, self.cat_weights)[0]

    # -- entry kinds -------------------------------------------------------------------------

    def unique_item(self) -> Item:
        rng = self.rng
        cn = rng.random() < 0.5
        roll = rng.random()
        if roll < 0.003:
            return Item("code", self.fresh(self.code_block))
        if roll < 0.006:
            return Item("table", self.fresh(lambda: self.table(cn)))
        if roll < 0.026:
            return Item("paragraph", self.fresh(lambda: self.paragraph(cn)))
        if roll < 0.136:
            done = rng.random() < 0.4
            box = "[x]" if done else "[ ]"
            return Item("task", self.fresh(lambda: [f"- {box} " + self.task_text(cn)]))
        category = self.category()
        multi = rng.random() < 0.13
        lines = self.fresh(lambda: self.bullet_lines(category, cn, multi))
        if not multi and rng.random() < 0.11:
            clock = f"{rng.randint(7, 23):02d}:{rng.randint(0, 59):02d}"
            lines[0] = f"- **{clock}** — " + lines[0][2:]
            return Item("timed", lines, clock=clock)
        return Item("bullet", lines)

    def repeatable_item(self) -> Item:
        """An entry fit to be pasted again on other days (a fact, not a log line)."""
        rng = self.rng
        cn = rng.random() < 0.5
        if rng.random() < 0.1:
            return Item("task", self.fresh(lambda: ["- [ ] " + self.task_text(cn)]))
        category = rng.choice(("preference", "decision", "environment", "environment", "lesson", "data"))
        multi = rng.random() < 0.2
        return Item("bullet", self.fresh(lambda: self.bullet_lines(category, cn, multi)))

    def paragraph(self, cn: bool) -> list[str]:
        rng = self.rng
        sentences = []
        for _ in range(rng.randint(2, 3)):
            cat = rng.choice(("progress", "decision", "data", "meeting", "lesson"))
            s = self.sentence(cat, cn, tail=False, detail=0.5)
            sentences.append(s[0].upper() + s[1:] if not cn else s)
        while not sentences[0][0].isalpha():
            s = self.sentence("progress", cn, tail=False)
            sentences[0] = s[0].upper() + s[1:]
        end = "。" if cn else "."
        joiner = "" if cn else " "
        if len(sentences) > 1 and rng.random() < 0.5:
            cut = rng.randint(1, len(sentences) - 1)
            return [
                joiner.join(s + end for s in sentences[:cut]),
                joiner.join(s + end for s in sentences[cut:]),
            ]
        return [joiner.join(s + end for s in sentences)]

    def code_block(self) -> list[str]:
        """A fenced block of 2-5 shell, SQL or YAML lines with a comment naming what it is for."""
        rng = self.rng
        lang = rng.choice(("bash", "bash", "sql", "yaml"))
        pool = self.t.code_lines[lang]
        comment = "--" if lang == "sql" else "#"
        head = self.slots.fill(rng.choice(self.t.code_heads))
        body = [self.slots.fill(t) for t in rng.sample(pool, rng.randint(2, 4))]
        if lang == "yaml":
            body = [f"{rng.choice(KEY_SECTIONS)}:"] + ["  " + line for line in body]
        return [f"```{lang}", f"{comment} {head}", *body, "```"]

    def table(self, cn: bool) -> list[str]:
        rng = self.rng
        header = "| 服务 | 版本 | 端口 | 负责人 |" if cn else "| service | version | port | owner |"
        rows = [header, "|---|---|---|---|"]
        for _ in range(rng.randint(2, 4)):
            v = self.slots.values(("proj", "ver", "port", "person"))
            rows.append(f"| {v['proj']} | {v['ver']} | {v['port']} | {v['person']} |")
        return rows

    # -- planted groups ----------------------------------------------------------------------

    def paraphrase_group(self, size: int) -> list[str]:
        """2..size wordings of one fact, every pair scoring >= PARAPHRASE_MIN_RATIO."""
        rng = self.rng
        for _ in range(200):
            tpl = rng.choice(self.t.para)
            groups = tpl.groups
            self.slots.cn = tpl.cn
            values = self.slots.values(tpl.fields)
            suffix = self.detail(tpl.cn)
            base = [rng.randrange(n) for n in groups]
            texts = [tidy(tpl.render(base, values)).strip() + suffix]
            norms = [normalise(texts[0])]
            choices = [base]
            for _ in range(40):
                if len(texts) >= size:
                    break
                cand = list(rng.choice(choices))
                for g in rng.sample(range(len(groups)), min(len(groups), rng.randint(1, 2))):
                    cand[g] = rng.randrange(groups[g])
                text = tidy(tpl.render(cand, values)).strip() + suffix
                norm = normalise(text)
                if norm in norms or norm in self.seen:
                    continue
                if all(fuzz.ratio(norm, other) >= PARAPHRASE_MIN_RATIO for other in norms):
                    texts.append(text)
                    norms.append(norm)
                    choices.append(cand)
            if len(texts) >= 2 and norms[0] not in self.seen:
                self.seen.update(norms)
                return ["- " + t for t in texts]
        raise RuntimeError("could not build a paraphrase group")

    def near_miss_pair(self) -> tuple[str, str, str]:
        """Two entries identical but for one value; returns (a, b, kind)."""
        rng = self.rng
        for _ in range(200):
            tpl, slot, kind = rng.choice(self.t.near)
            self.slots.cn = tpl.cn
            values = self.slots.values(tpl.fields)
            other = self.vary(kind, values[slot])
            suffix = self.detail(tpl.cn)
            choice = tpl.choose(rng)
            a = tidy(tpl.render(choice, values)).strip() + suffix
            b = tidy(tpl.render(choice, {**values, slot: other})).strip() + suffix
            na, nb = normalise(a), normalise(b)
            if na == nb or na in self.seen or nb in self.seen:
                continue
            if fuzz.ratio(na, nb) < NEAR_MISS_MIN_RATIO:
                continue
            self.seen.update((na, nb))
            return "- " + a, "- " + b, kind
        raise RuntimeError("could not build a near-miss pair")

    def vary(self, kind: str, value: str) -> str:
        """A different value of the same kind, close to `value` in form."""
        rng = self.rng
        slots = self.slots
        for _ in range(50):
            if kind == "date":
                if "月" in value:
                    m = re.search(r"(\d+) 月 (\d+) 日", value)
                    assert m is not None
                    year = slots.day.year
                    try:
                        d = date(year, int(m.group(1)), int(m.group(2)))
                    except ValueError:
                        d = date(year, int(m.group(1)), 28)
                    new = slots.cn_date(d + timedelta(days=rng.choice((-14, -7, -2, -1, 1, 2, 7, 14))))
                else:
                    d = date.fromisoformat(value)
                    new = (d + timedelta(days=rng.choice((-7, -1, 1, 2, 7, 14, 30)))).isoformat()
            elif kind == "port":
                new = (
                    str(int(value) + rng.choice((-10, -1, 1, 2, 10, 100)))
                    if rng.random() < 0.6
                    else slots.port()
                )
            elif kind == "version":
                parts = value.lstrip("v").split(".")
                i = rng.randrange(len(parts))
                parts[i] = str(max(0, int(parts[i]) + rng.choice((-2, -1, 1, 1, 2, 3))))
                new = ("v" if value.startswith("v") else "") + ".".join(parts)
            elif kind == "path":
                sep = "\\" if "\\" in value else "/"
                parts = value.split(sep)
                i = rng.randrange(1 if len(parts) == 1 else 0, len(parts))
                if i == len(parts) - 1:
                    parts[i] = f"{rng.choice(FILE_STEMS)}.{parts[i].rsplit('.', 1)[-1]}"
                elif parts[i] not in ("", "~", "srv", "C:", "Users", ".config", slots.persona.lower()):
                    parts[i] = rng.choice(DIRS)
                new = sep.join(parts)
            elif kind == "name":
                new = slots.generators["person"]()
            elif kind == "number":
                n = int(value)
                new = str(rng.choice((n * 2, n + 5, n + 10, max(1, n - 5), n * 10, max(1, n // 2))))
            elif kind == "amount":
                digits = int(re.sub(r"\D", "", value))
                cur = value[0]
                amt = rng.choice((digits * 2, digits + 500, max(10, digits - 200), digits * 3 // 2))
                new = cur + (f"{amt:,}" if amt > 999 else str(amt))
            elif kind == "host":
                new = slots.host()
            else:
                raise ValueError(kind)
            if new != value:
                return new
        raise RuntimeError(f"could not vary {kind} value {value!r}")


# --------------------------------------------------------------------------------------------
# Layout of a daily file
# --------------------------------------------------------------------------------------------

SECTIONS_GENERAL = (
    "Notes",
    "Progress",
    "Work log",
    "Infra",
    "Meetings",
    "Environment",
    "Ops",
    "Review",
    "今日进展",
    "笔记",
    "会议",
    "环境",
    "运维",
    "踩坑记录",
    "杂项",
    "评审",
    "Notes / 笔记",
    "Environment / 环境",
    "Decisions / 决策",
    "进展 / Progress",
)
SECTIONS_TASKS = ("待办 / Tasks", "Tasks", "待办", "TODO")
SECTIONS_TIMELINE = ("Timeline", "时间线", "Log")
TITLE_SUFFIX_EN = (" Daily Notes", "")
TITLE_SUFFIX_CN = (" 日志",)


def layout(rng: Random, day: date, items: list[Item]) -> list[str]:
    """Arrange a day's items under 2-4 sections; record each item's first line (1-based)."""
    roll = rng.random()
    if roll < 0.65:
        title = f"# {day.isoformat()}"
    elif roll < 0.8:
        title = f"# {day.isoformat()}{rng.choice(TITLE_SUFFIX_EN)}"
    elif roll < 0.9:
        title = f"# {day.isoformat()}{TITLE_SUFFIX_CN[0]}"
    else:
        title = f"# {day.isoformat()} {WEEKDAYS_CN[day.weekday()]}"

    tasks = [it for it in items if it.kind == "task" and rng.random() < 0.85]
    task_ids = {id(it) for it in tasks}
    timed = sorted((it for it in items if it.kind == "timed"), key=lambda it: it.clock)
    rest = [it for it in items if id(it) not in task_ids and it.kind != "timed"]

    n_sections = rng.randint(2, 4)
    sections: list[tuple[str, list[Item]]] = []
    use_timeline = bool(timed) and n_sections >= 3
    n_general = max(1, n_sections - (1 if tasks else 0) - (1 if use_timeline else 0))
    if use_timeline:
        sections.append((rng.choice(SECTIONS_TIMELINE), timed))
    general: list[tuple[str, list[Item]]] = [(t, []) for t in rng.sample(SECTIONS_GENERAL, n_general)]
    for it in rest:
        general[rng.randrange(n_general)][1].append(it)
    if not use_timeline and timed:
        general[0][1][:0] = timed
    sections.extend(general)
    if tasks:
        sections.append((rng.choice(SECTIONS_TASKS), tasks))

    lines = [title, ""]
    for heading, section_items in sections:
        if not section_items:
            continue
        lines.append(f"## {heading}")
        lines.append("")
        for it in section_items:
            standalone = it.kind in ("paragraph", "code", "table")
            if standalone and lines[-1] != "":
                lines.append("")
            it.where = {"line": len(lines) + 1}
            lines.extend(it.lines)
            if standalone:
                lines.append("")
        if lines[-1] != "":
            lines.append("")
    while lines and lines[-1] == "":
        lines.pop()
    return lines


# --------------------------------------------------------------------------------------------
# MEMORY.md
# --------------------------------------------------------------------------------------------


def core_memory(rng: Random, writer: Writer, persona: str, main_projects: Sequence[str]) -> tuple[str, int]:
    """A bilingual MEMORY.md of about 40 entries, under CORE_MAX_CHARS characters."""
    sections: list[tuple[str, list[list[str]]]] = []

    def entries(category: str, count: int) -> list[list[str]]:
        def one(cn: bool) -> list[str]:
            return ["- " + writer.sentence(category, cn, tail=False, detail=0.5)]

        return [writer.fresh(partial(one, i % 2 == 1)) for i in range(count)]

    prefs = entries("preference", 9)
    prefs[1][0] += " #pin"
    sections.append(("## Preferences / 偏好", prefs))
    env = entries("environment", 9)
    tools = rng.sample(TOOLS, 3)
    env.append(
        ["- Toolchain / 工具链:"]
        + [f"  - {t} {writer.slots.version()}" for t in tools]
        + [f"  - 编辑器 {rng.choice(('VS Code', 'Neovim', 'JetBrains', 'Zed', 'Helix'))}"]
    )
    sections.append(("## Environment / 环境", env))
    decisions = entries("decision", 8)
    decisions[0][0] += " <!-- importance: 8 -->"
    sections.append(("## Decisions / 决策", decisions))
    sections.append(("## Knowledge / 知识", entries("lesson", 8)))
    v = writer.slots.values(("person", "person2", "path", "tool", "ver", "host", "cnwd"))
    projects = [
        [f"- {main_projects[0]} 是 {persona} 的主项目，和 {v['person']} 一起维护，仓库在 `{v['path']}`"],
        [f"- {main_projects[1]}: side project, runs on {v['tool']} {v['ver']}, deployed to {v['host']}"],
        [f"- {main_projects[2]}：{v['person2']} 牵头，{persona} 负责 review，每{v['cnwd']}发版"],
    ]
    sections.append(("## Projects / 项目", projects))

    head = [
        "# MEMORY.md",
        "",
        f"{persona} 的长期记忆（core memory）。This file keeps only long-lived facts; "
        "day-to-day notes go to `memory/YYYY-MM-DD.md`.",
        "",
    ]

    def render() -> str:
        lines = list(head)
        for title, items in sections:
            lines.append(title)
            lines.append("")
            for item in items:
                lines.extend(item)
            lines.append("")
        return "\n".join(lines).rstrip("\n") + "\n"

    text = render()
    while len(text) > CORE_MAX_CHARS - 200:
        longest = max(sections, key=lambda s: len(s[1]))
        longest[1].pop()
        text = render()
    count = 1 + sum(len(items) for _, items in sections)
    return text, count


# --------------------------------------------------------------------------------------------
# The generator
# --------------------------------------------------------------------------------------------


def _group_days(rng: Random, n_days: int, size: int, window_max: int) -> list[int]:
    """`size` distinct day indexes, clustered in a window of up to `window_max` days."""
    size = min(size, n_days)
    window = min(n_days, max(size, rng.choice((14, 30, 60, 120, window_max))))
    start = rng.randint(0, n_days - window)
    return sorted(start + i for i in rng.sample(range(window), size))


def _ref(path: str, item: Item) -> Json:
    return {"file": path, "line": item.where["line"], "text": "\n".join(item.lines)}


def _begin(out: Path, seed: int, force: bool) -> tuple[Random, str, list[str], Slots, Writer]:
    """The empty workspace folder and what every preset draws from: its random stream, the
    persona, the main projects, the slots and the writer."""
    prepare_dir(out, force)
    rng = Random(seed)
    persona = rng.choice(PERSONA_NAMES)
    main_projects = [f"{b}-{rng.choice(PROJECT_PARTS)}" for b in rng.sample(PROJECT_BASES, 6)]
    slots = Slots(rng, persona, main_projects)
    return rng, persona, main_projects, slots, Writer(rng, slots, compile_templates())


def _write_notes(out: Path, core_text: str, files: Sequence[tuple[str, str]]) -> int:
    """MEMORY.md and the notes written out; their bytes in all."""
    (out / "memory").mkdir(parents=True, exist_ok=True)
    write_text(out / "MEMORY.md", core_text)
    size = len(core_text.encode("utf-8"))
    for rel, text in files:
        write_text(out / rel, text)
        size += len(text.encode("utf-8"))
    return size


def _finish(out: Path, manifest: Json, verify: bool) -> Json:
    """Check the manifest against the files (and memcli's parser with `verify`), write it."""
    check_manifest(out, manifest)
    if verify:
        verify_with_parser(out, manifest)
    manifest_path(out).write_text(json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return manifest


def generate(
    out: Path,
    days: int,
    entries_per_day: int,
    seed: int,
    start: date = DEFAULT_START,
    *,
    force: bool = False,
    verify: bool = False,
) -> Json:
    """Write a workspace to `out` and its manifest beside it; return the manifest."""
    if days < 1 or entries_per_day < 1:
        raise ValueError("days and entries_per_day must be at least 1")
    out = Path(out)
    rng, persona, main_projects, slots, writer = _begin(out, seed, force)

    # Per-day entry counts: weekdays busier than weekends, mean entries_per_day.
    plan: list[Day] = []
    for i in range(days):
        d = start + timedelta(days=i)
        factor = 1.12 if d.weekday() < 5 else 0.7
        plan.append(Day(d, max(1, round(entries_per_day * factor * rng.uniform(0.75, 1.25)))))
    total = sum(p.target for p in plan)

    slots.day = start
    core_text, core_count = core_memory(rng, writer, persona, main_projects)

    exact: list[list[Item]] = []
    copies = 0
    while copies < EXACT_SHARE * total and days >= 2:
        size = rng.choices(range(2, 13), (30, 22, 14, 9, 6, 5, 4, 3, 3, 2, 2))[0]
        idx = _group_days(rng, days, size, 365)
        if len(idx) < 2:
            break
        slots.day = plan[idx[0]].day
        proto = writer.repeatable_item()
        group = []
        for i in idx:
            item = Item(proto.kind, list(proto.lines), ("exact", len(exact)))
            plan[i].planted.append(item)
            group.append(item)
        exact.append(group)
        copies += len(group)

    para: list[list[Item]] = []
    copies = 0
    while copies < PARAPHRASE_SHARE * total and days >= 2:
        size = rng.choice((2, 2, 3, 3, 4))
        idx = _group_days(rng, days, size, 180)
        slots.day = plan[idx[0]].day
        texts = writer.paraphrase_group(len(idx))
        group = []
        for i, text in zip(idx, texts, strict=False):
            item = Item("bullet", [text], ("para", len(para)))
            plan[i].planted.append(item)
            group.append(item)
        para.append(group)
        copies += len(group)

    near: list[tuple[Item, Item, str]] = []
    while 2 * len(near) < NEAR_MISS_SHARE * total and days >= 2:
        a_day = rng.randrange(days)
        b_day = a_day + rng.randint(1, min(60, days - 1))
        if b_day >= days:
            a_day, b_day = b_day - days, a_day
            if a_day == b_day:
                continue
        slots.day = plan[a_day].day
        a, b, kind = writer.near_miss_pair()
        ia = Item("bullet", [a], ("near", len(near)))
        ib = Item("bullet", [b], ("near", len(near)))
        plan[a_day].planted.append(ia)
        plan[b_day].planted.append(ib)
        near.append((ia, ib, kind))

    routine_texts = ROUTINE_EN + ROUTINE_CN
    routine: list[list[tuple[str, Item]]] = [[] for _ in routine_texts]
    noise: list[tuple[str, Item]] = []
    daily_count = 0
    files: list[tuple[str, str]] = []
    multi_line = 0

    for p in plan:
        slots.day = p.day
        items = list(p.planted)
        n_routine = min(len(routine_texts), _rounded(rng, p.target * ROUTINE_SHARE))
        for k in rng.sample(range(len(routine_texts)), n_routine):
            text = routine_texts[k]
            if rng.random() < 0.2:
                clock = f"{rng.randint(7, 10):02d}:{rng.randint(0, 59):02d}"
                item = Item("timed", [f"- **{clock}** — {text}"], ("routine", k), clock=clock)
            else:
                item = Item("bullet", [f"- {text}"], ("routine", k))
            items.append(item)
        for _ in range(_rounded(rng, p.target * NOISE_SHARE)):
            items.append(Item("bullet", [f"- {rng.choice(NOISE)}"], ("noise", 0)))
        while len(items) < p.target:
            items.append(writer.unique_item())
        rng.shuffle(items)
        lines = layout(rng, p.day, items)
        rel = f"memory/{p.day.isoformat()}.md"
        for it in items:
            it.where["file"] = rel
            if len(it.lines) > 1:
                multi_line += 1
            if it.label and it.label[0] == "routine":
                routine[it.label[1]].append((rel, it))
            elif it.label and it.label[0] == "noise":
                noise.append((rel, it))
        daily_count += len(items)
        files.append((rel, "\n".join(lines) + "\n"))

    size = _write_notes(out, core_text, files)

    def refs(group: Iterable[Item]) -> list[Json]:
        return [_ref(it.where["file"], it) for it in group]

    manifest: Json = {
        "generator": f"bench/generate.py v{GENERATOR_VERSION}",
        "seed": seed,
        "start": start.isoformat(),
        "days": days,
        "entries_per_day": entries_per_day,
        "entries": daily_count + core_count,
        "daily_entries": daily_count,
        "core_entries": core_count,
        "multi_line_entries": multi_line,
        "files": len(files) + 1,
        "bytes": size,
        "persona": persona,
        "exact_groups": [refs(g) for g in exact],
        "paraphrase_groups": [refs(g) for g in para],
        "near_miss_pairs": [
            [{**_ref(a.where["file"], a), "differs": k}, {**_ref(b.where["file"], b), "differs": k}]
            for a, b, k in near
        ],
        "routine": [[_ref(rel, it) for rel, it in group] for group in routine if group],
        "noise": [_ref(rel, it) for rel, it in noise],
    }
    return _finish(out, manifest, verify)


def _rounded(rng: Random, expected: float) -> int:
    """An integer with the given expectation."""
    base = int(expected)
    return base + (1 if rng.random() < expected - base else 0)


def manifest_path(out: Path) -> Path:
    return out.with_suffix(".manifest.json")


def write_text(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)


def prepare_dir(out: Path, force: bool) -> None:
    """Refuse to write into a non-empty folder, unless `force` and it looks like a workspace."""
    if out.exists() and any(out.iterdir()):
        looks_generated = (out / "MEMORY.md").is_file() and (out / "memory").is_dir()
        if not force:
            raise FileExistsError(f"{out} is not empty; remove it or pass --force")
        if not looks_generated:
            raise FileExistsError(f"{out} is not empty and does not look like a workspace; not removing it")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)


def _all_refs(manifest: Json) -> Iterable[Json]:
    for group in manifest["exact_groups"] + manifest["paraphrase_groups"] + manifest["routine"]:
        yield from group
    for pair in manifest["near_miss_pairs"]:
        yield from pair
    yield from manifest["noise"]


def check_manifest(out: Path, manifest: Json) -> None:
    """Re-read the written files: every recorded copy sits at its recorded line."""
    cache: dict[str, list[str]] = {}
    for ref in _all_refs(manifest):
        lines = cache.get(ref["file"])
        if lines is None:
            with open(out / ref["file"], encoding="utf-8", newline="") as fh:
                lines = fh.read().split("\n")
            cache[ref["file"]] = lines
        want = ref["text"].split("\n")
        got = lines[ref["line"] - 1 : ref["line"] - 1 + len(want)]
        if got != want:
            raise RuntimeError(f"manifest mismatch at {ref['file']}:{ref['line']}: {got!r} != {want!r}")


def verify_with_parser(out: Path, manifest: Json) -> None:
    """Cross-check entry counts and start lines with memcli's own parser."""
    from memcli.core.entries import parse  # optional: only this check needs memcli

    starts: set[tuple[str, int]] = set()
    count = 0
    for path in [out / "MEMORY.md", *sorted((out / "memory").glob("*.md"))]:
        rel = path.relative_to(out).as_posix()
        with open(path, encoding="utf-8", newline="") as fh:
            doc = parse(fh.read(), rel)
        count += len(doc.entries)
        starts.update((rel, e.first_line) for e in doc.entries)
    if count != manifest["entries"]:
        raise RuntimeError(f"parser counts {count} entries, manifest says {manifest['entries']}")
    for ref in _all_refs(manifest):
        if (ref["file"], ref["line"]) not in starts:
            raise RuntimeError(f"{ref['file']}:{ref['line']} is not the first line of an entry")


# --------------------------------------------------------------------------------------------
# Long notes: ~90 daily notes of 2,000-4,000 lines each, as agents that log everything write
# --------------------------------------------------------------------------------------------

LONG_DAYS = 90
LONG_LINES = (2000, 3100)  # target lines of one note; the last entry may add a few more
LONG_START = date(2026, 1, 5)
LONG_EXACT_GROUPS = 40  # standing checklists and environment tables pasted on 2-6 days

NODES_EN = (
    "status: {st}",
    "owner: {person}",
    "`{file}`",
    "{tool} {ver}",
    "port {port}",
    "took {n} min",
    "{pct} pass",
    "{ticket}",
    "PR #{pr}",
    "p95 {ms} ms",
    "{n} files",
    "`{cmd}`",
    "{env}",
    "{big} rows",
    "`{key}` = {n}",
    "`{func}`",
    "{money}/month",
    "{metric} {pct}",
    "ask {person}",
    "done {wd}",
    "{st}",
    "ok",
    "{n} retries",
    "{code}",
)
NODES_CN = (
    "状态：{cst}",
    "负责人：{person}",
    "`{file}`",
    "{tool} {ver}",
    "端口 {port}",
    "耗时 {n} 分钟",
    "通过率 {pct}",
    "{ticket}",
    "PR #{pr}",
    "p95 {ms} ms",
    "{n} 个文件",
    "`{cmd}`",
    "{cenv}",
    "{big} 行",
    "`{key}` = {n}",
    "`{func}`",
    "每月 {money}",
    "{cmetric} {pct}",
    "问 {person}",
    "{cnwd}完成",
    "{cst}",
    "没问题",
    "重试 {n} 次",
)
LABELS = (
    ("Context", "背景"),
    ("Steps", "步骤"),
    ("Findings", "发现"),
    ("Changes", "改动"),
    ("Numbers", "数据"),
    ("Open questions", "待确认"),
    ("Next", "下一步"),
    ("Risks", "风险"),
    ("Commands run", "执行的命令"),
    ("Checked", "已检查"),
)
STATES_EN = ("done", "in progress", "blocked", "todo", "verified", "rolled back", "on hold")
STATES_CN = ("完成", "进行中", "卡住了", "待办", "已验证", "已回滚", "暂停")
SUBHEADS = ("Context / 背景", "Work / 过程", "Results / 结果", "Notes", "记录", "Follow-ups / 后续", "Log")
TABLE_SCHEMAS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("service", "version", "status"), ("proj", "ver", "st")),
    (("时间", "操作", "结果"), ("time", "ctopic", "cst")),
    (("test", "before", "after"), ("func", "ms", "ms2")),
    (("file", "lines", "change"), ("file", "n", "st")),
    (("指标", "昨天", "今天", "变化"), ("cmetric", "pct", "pct2", "cst")),
    (("CPU", "RAM", "disk"), ("pct", "gb", "pct2")),
    (("step", "ms"), ("func", "ms")),
    (("ticket", "owner", "due"), ("ticket", "person", "date")),
    (("项", "值"), ("name", "n")),
    (("环境", "服务", "版本", "负责人"), ("cenv", "proj", "ver", "person")),
)
PY_FUNCS = (
    (
        "def {func}(rows, limit={n}):",
        '    """{topic}: {ticket}."""',
        "    out = []",
        "    for row in rows[:limit]:",
        "        if row.{col} is None:",
        "            continue",
        "        out.append(row.{col})",
        "    return out",
    ),
    (
        "async def {func}(client):",
        "    for attempt in range({n}):",
        "        try:",
        "            return await client.get(",
        '                "/api/{name}",',
        "                timeout={n2},",
        "            )",
        "        except TimeoutError:",
        '            log.warning("retry %d", attempt)',
        '    raise RuntimeError("{code}")',
    ),
    (
        "def test_{name}():",
        "    data = load({n})",
        "    assert len(data) == {n}",
        '    assert data[0]["{col}"]',
    ),
    (
        "class {func}:",
        "    def __init__(self, size={n}):",
        "        self.size = size",
        "        self.items = []",
        "",
        "    def add(self, item):",
        "        self.items.append(item)",
        "        return len(self.items)",
    ),
    ("import {name}", "from {name} import {func}"),
)
LOG_LINES = (
    "{time}:{ss} INFO  {func} ok {ms}ms",
    "{time}:{ss} WARN  retry {n}/5",
    "{time}:{ss} ERROR {code} /api/{name}",
    "{time}:{ss} DEBUG miss {key}",
    "{time}:{ss} INFO  {big} rows",
    "",
)
JSON_LINES = (
    '  "{name}": {n},',
    '  "host": "{host}",',
    '  "port": {port},',
    '  "image": "{proj}:{ver}",',
    '  "ok": false,',
    '  "retries": {n},',
    '  "owner": "{person}",',
    '  "path": "{path}",',
)
DIFF_LINES = (
    "@@ -{n},7 +{n},9 @@",
    "-    timeout = {n}",
    "+    timeout = {n2}",
    "     return {func}(rows)",
    "-import {name}",
    "+from {name} import {func}",
    "+    # {ticket}",
)
SHORT_BASH = ("cd {name}", "git status", "make test", "ls -la {name}/", "{cmd}", "git pull", "echo $?", "")
LONG_CODE: dict[str, tuple[str, ...]] = {
    "text": LOG_LINES,
    "json": JSON_LINES,
    "diff": DIFF_LINES,
    **CODE_LINES,
    "bash": CODE_LINES["bash"] + SHORT_BASH * 2,
}


class LongWriter:
    """The entries of a long note: bullet trees 3-4 levels deep, tables, fenced code blocks,
    numbered steps, paragraphs and checklists, in English and Chinese."""

    def __init__(self, writer: Writer, indent: int = 2) -> None:
        self.w = writer
        self.rng = writer.rng
        self.slots = writer.slots
        self.indent = indent
        self.nodes_en = tuple(Template.of(t) for t in NODES_EN)
        self.nodes_cn = tuple(Template.of(t) for t in NODES_CN)
        self.code = {k: tuple(Template.of(t) for t in v) for k, v in LONG_CODE.items()}
        extra = {
            "st": lambda: self.rng.choice(STATES_EN),
            "cst": lambda: self.rng.choice(STATES_CN),
            "ss": lambda: f"{self.rng.randint(0, 59):02d}",
        }
        self.slots.generators.update(extra)

    def node(self, cn: bool) -> str:
        """A short node of a tree, now and then a whole sentence."""
        if self.rng.random() < 0.03:
            return self.w.sentence(self.w.category(), cn, tail=False, detail=0.3)
        return self.slots.fill(self.rng.choice(self.nodes_cn if cn else self.nodes_en))

    def tree(self, cn: bool) -> list[str]:
        """`- head` with 2-5 labelled branches, their nodes, and leaves under some nodes."""
        rng, pad = self.rng, " " * self.indent
        topic = f"**{self.slots.fill(Template.of('{ctopic}' if cn else '{topic}'))}**"
        roll = rng.random()
        if roll < 0.5:
            head = topic
        else:
            head = self.w.sentence(self.w.category(), cn, tail=False, detail=0.1)
            head = f"{topic} — {head}" if roll < 0.6 else head
        lines = [f"- {head}"]
        for label in rng.sample(LABELS, rng.randint(2, 5)):
            lines.append(f"{pad}- {label[1] if cn else label[0]}:")
            for _ in range(rng.randint(1, 5)):
                lines.append(f"{pad * 2}- {self.node(cn)}")
                if rng.random() < 0.35:
                    lines.extend(f"{pad * 3}- {self.node(cn)}" for _ in range(rng.randint(1, 3)))
            if label[0] == "Commands run" and rng.random() < 0.5:
                lines.extend(f"{pad * 2}{line}" for line in self.code_block(("bash",), (3, 6)))
        return lines

    def steps(self, cn: bool) -> list[str]:
        """A numbered list of steps, some with nested notes."""
        rng, lines = self.rng, []
        for i in range(1, rng.randint(4, 12) + 1):
            lines.append(f"{i}. {self.node(cn)}")
            if rng.random() < 0.4:
                pad = " " * len(f"{i}. ")
                lines.extend(f"{pad}- {self.node(cn)}" for _ in range(rng.randint(1, 3)))
        return lines

    def checklist(self, cn: bool) -> list[str]:
        lines = []
        for _ in range(self.rng.randint(3, 10)):
            box = "[x]" if self.rng.random() < 0.5 else "[ ]"
            lines.append(f"- {box} {self.w.task_text(cn) if self.rng.random() < 0.1 else self.node(cn)}")
        return lines

    def table(self, rows: tuple[int, int] = (5, 40)) -> list[str]:
        header, fields = self.rng.choice(TABLE_SCHEMAS)
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for _ in range(self.rng.randint(*rows)):
            self.slots.cn = "时间" in header or "指标" in header or "环境" in header
            values = self.slots.values(tuple(dict.fromkeys(fields)))
            lines.append("| " + " | ".join(values[f].strip() for f in fields) + " |")
        return lines

    def code_block(self, langs: Sequence[str] = (), size: tuple[int, int] = (8, 70)) -> list[str]:
        rng = self.rng
        if not langs and rng.random() < 0.3:
            return self.python()
        lang = rng.choice(langs or ("text", "text", "text", "bash", "bash", "sql", "yaml", "json", "diff"))
        pool = self.code[lang]
        body = [self.slots.fill(rng.choice(pool)) for _ in range(rng.randint(*size))]
        if lang == "yaml":
            body = [f"{rng.choice(KEY_SECTIONS)}:"] + ["  " + line for line in body]
        if lang == "json":
            body = ["{", *body, '  "ok": true', "}"]
        return [f"```{lang}", *body, "```"]

    def python(self) -> list[str]:
        """Functions and classes, blank lines between them, as pasted from an editor."""
        body: list[str] = []
        for _ in range(self.rng.randint(1, 5)):
            if body:
                body += ["", ""]
            body += [self.slots.fill(Template.of(line)) for line in self.rng.choice(PY_FUNCS)]
        return ["```python", *body, "```"]

    def paragraph(self, cn: bool) -> list[str]:
        return self.w.paragraph(cn)

    def item(self) -> Item:
        rng = self.rng
        cn = rng.random() < 0.5
        roll = rng.random()
        if roll < 0.42:
            return Item("bullet", self.tree(cn))
        if roll < 0.50:
            return Item("table", self.table())
        if roll < 0.60:
            return Item("code", self.code_block())
        if roll < 0.68:
            return Item("bullet", self.steps(cn))  # a numbered list is one entry per step
        if roll < 0.76:
            return Item("task", self.checklist(cn))
        if roll < 0.82:
            return Item("paragraph", self.paragraph(cn))
        if rng.random() < 0.5:
            clock = self.slots.clock()
            return Item("timed", [f"- **{clock}** — " + self.w.sentence(self.w.category(), cn)], clock=clock)
        return Item("bullet", self.w.bullet_lines(self.w.category(), cn, rng.random() < 0.4))


def _long_entries(item: Item) -> int:
    """How many entries an item is: each top-level list item of it counts once."""
    if item.kind in ("table", "code", "paragraph"):
        return 1
    return sum(1 for line in item.lines if not line.startswith(" ") and line.strip())


def long_layout(
    rng: Random, lw: LongWriter, day: date, target: int, planted: list[Item]
) -> tuple[list[str], list[Item]]:
    """A note of about `target` lines: a summary, then sessions (`## HH:MM — topic`) with
    `###` parts, each holding items; planted items go in at random places."""
    slots = lw.slots
    title = rng.choice(
        (f"# {day.isoformat()}", f"# {day.isoformat()} 工作日志", f"# {day.isoformat()} Daily log")
    )
    lines = [title, ""]
    items: list[Item] = []

    def put(item: Item) -> None:
        standalone = item.kind in ("paragraph", "code", "table")
        if lines[-1] != "":
            lines.append("")
        item.where = {"line": len(lines) + 1}
        lines.extend(item.lines)
        if standalone or item.kind != "timed":
            lines.append("")
        items.append(item)

    lines += ["## Summary / 今日摘要", ""]
    for _ in range(rng.randint(4, 9)):
        put(Item("bullet", [f"- {lw.node(rng.random() < 0.5)}"]))
    routine_texts = ROUTINE_EN + ROUTINE_CN
    for k in rng.sample(range(len(routine_texts)), rng.randint(1, 3)):
        put(Item("bullet", [f"- {routine_texts[k]}"], ("routine", k)))
    pending = list(planted)
    minute = rng.randint(7 * 60, 9 * 60)
    while len(lines) < target:
        minute = min(minute + rng.randint(5, 40), 23 * 60 + 59)
        slots.cn = rng.random() < 0.5
        topic = slots.fill(Template.of("{ctopic}（{proj}）" if slots.cn else "{topic} ({proj})"))
        lines += [f"## {minute // 60:02d}:{minute % 60:02d} — {topic}", ""]
        for sub in rng.sample(SUBHEADS, rng.randint(1, 3)):
            lines += [f"### {sub}", ""]
            for _ in range(rng.randint(2, 8)):
                if pending and rng.random() < 0.1:
                    put(pending.pop())
                else:
                    put(lw.item())
                if rng.random() < 0.02:
                    put(Item("bullet", [f"- {rng.choice(NOISE)}"], ("noise", 0)))
                if len(lines) >= target:
                    break
            if len(lines) >= target:
                break
    for item in pending:
        put(item)
    while lines[-1] == "":
        lines.pop()
    return lines, items


def generate_long(
    out: Path,
    days: int = LONG_DAYS,
    seed: int = 1,
    start: date = LONG_START,
    *,
    force: bool = False,
    verify: bool = False,
) -> Json:
    """Write a workspace of long daily notes to `out` and its manifest beside it."""
    if days < 1:
        raise ValueError("days must be at least 1")
    out = Path(out)
    rng, persona, main_projects, slots, writer = _begin(out, seed, force)
    lw = LongWriter(writer)
    slots.day = start
    core_text, core_count = core_memory(rng, writer, persona, main_projects)

    plan = [Day(start + timedelta(days=i), rng.randint(*LONG_LINES)) for i in range(days)]
    exact: list[list[Item]] = []
    for _ in range(LONG_EXACT_GROUPS if days >= 2 else 0):
        idx = _group_days(rng, days, rng.randint(2, 6), 60)
        slots.day = plan[idx[0]].day
        cn = rng.random() < 0.5
        proto = Item("table", lw.table((4, 12))) if rng.random() < 0.4 else Item("bullet", lw.tree(cn))
        group = []
        for i in idx:
            item = Item(proto.kind, list(proto.lines), ("exact", len(exact)))
            plan[i].planted.append(item)
            group.append(item)
        exact.append(group)

    routine_texts = ROUTINE_EN + ROUTINE_CN
    routine: list[list[tuple[str, Item]]] = [[] for _ in routine_texts]
    noise: list[tuple[str, Item]] = []
    files: list[tuple[str, str]] = []
    daily_count = multi_line = 0
    for p in plan:
        slots.day = p.day
        lw.indent = 4 if rng.random() < 0.2 else 2  # some agents indent by four
        lines, items = long_layout(rng, lw, p.day, p.target, p.planted)
        rel = f"memory/{p.day.isoformat()}.md"
        for it in items:
            it.where["file"] = rel
            multi_line += len(it.lines) > 1
            daily_count += _long_entries(it)
            if it.label and it.label[0] == "routine":
                routine[it.label[1]].append((rel, it))
            elif it.label and it.label[0] == "noise":
                noise.append((rel, it))
        files.append((rel, "\n".join(lines) + "\n"))

    size = _write_notes(out, core_text, files)
    manifest: Json = {
        "generator": f"bench/generate.py v{GENERATOR_VERSION}",
        "preset": "long",
        "seed": seed,
        "start": start.isoformat(),
        "days": days,
        "lines_per_day": list(LONG_LINES),
        "entries": daily_count + core_count,
        "daily_entries": daily_count,
        "core_entries": core_count,
        "multi_line_entries": multi_line,
        "files": len(files) + 1,
        "bytes": size,
        "lines": sum(text.count("\n") for _, text in files) + core_text.count("\n"),
        "persona": persona,
        "exact_groups": [[_ref(it.where["file"], it) for it in g] for g in exact],
        "paraphrase_groups": [],
        "near_miss_pairs": [],
        "routine": [[_ref(rel, it) for rel, it in group] for group in routine if group],
        "noise": [_ref(rel, it) for rel, it in noise],
    }
    return _finish(out, manifest, verify)


# --------------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="generate.py",
        description="Generate a reproducible benchmark workspace (MEMORY.md + memory/YYYY-MM-DD.md) "
        "and its manifest OUT_DIR.manifest.json.",
    )
    parser.add_argument("out", type=Path, metavar="OUT_DIR", help="workspace folder to create")
    parser.add_argument(
        "--preset",
        choices=[*sorted(PRESETS), "long"],
        help="year = 365 days, decade = 3,650 days; long = 90 notes of 2,000-4,000 lines each",
    )
    parser.add_argument("--days", type=int, help="number of daily notes (default 365)")
    parser.add_argument("--entries-per-day", type=int, help="mean entries per daily note (default 60)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument(
        "--start",
        type=date.fromisoformat,
        help="first day, YYYY-MM-DD (default 2016-01-01; 2026-01-05 for long)",
    )
    parser.add_argument("--force", action="store_true", help="replace an existing generated workspace")
    parser.add_argument("--verify", action="store_true", help="also cross-check with memcli's parser")
    args = parser.parse_args(argv)

    long = args.preset == "long"
    days, per_day = (LONG_DAYS, 0) if long else PRESETS.get(args.preset or "year", PRESETS["year"])
    days = args.days if args.days is not None else days
    per_day = args.entries_per_day if args.entries_per_day is not None else per_day
    start = args.start or (LONG_START if long else DEFAULT_START)
    began = time.perf_counter()
    try:
        if long:
            manifest = generate_long(args.out, days, args.seed, start, force=args.force, verify=args.verify)
        else:
            manifest = generate(
                args.out, days, per_day, args.seed, start, force=args.force, verify=args.verify
            )
    except (FileExistsError, ValueError, ImportError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - began
    print(
        f"{args.out}: {manifest['files']} files, {manifest['entries']:,} entries, "
        f"{manifest['bytes'] / 1e6:.1f} MB in {elapsed:.1f} s; manifest {manifest_path(args.out)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
