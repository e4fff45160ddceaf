"""The secret detector behind `memcli check` (memcli.core.secrets).

Every fake secret is assembled from pieces at run time, from a seeded generator, so
that this file itself holds nothing a secret scanner would flag.
"""

from __future__ import annotations

import random
import string
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from conftest import SAMPLE, corpus_workspaces
from memcli.core.secrets import KINDS, Secret, find_secrets, redact

ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
UPPER_ALNUM = string.ascii_uppercase + string.digits


def rand(n: int, alphabet: str = ALNUM, seed: int = 0) -> str:
    """A random-looking string, the same on every run."""
    rng = random.Random(f"{seed}:{n}:{alphabet}")
    return "".join(rng.choice(alphabet) for _ in range(n))


def only(text: str) -> Secret:
    found = find_secrets(text)
    assert len(found) == 1, found
    return found[0]


def kinds(text: str) -> list[str]:
    return [secret.kind for secret in find_secrets(text)]


# --- one positive per kind -----------------------------------------------------------------------

OPENAI_PROJ = "sk-" + "proj-" + rand(48, ALNUM + "_-", seed=1)
OPENAI_LEGACY = "sk-" + rand(48, seed=11)
OPENAI_SERVICE = "sk-" + "svcacct-" + rand(60, seed=12)
ANTHROPIC = "sk-" + "ant-" + "api03-" + rand(93, ALNUM + "_-", seed=2) + "AA"
ANTHROPIC_SHORT = "sk-" + "ant-" + rand(40, seed=13)
AWS_ID = "AK" + "IA" + rand(16, UPPER_ALNUM, seed=3)
AWS_TEMPORARY_ID = "AS" + "IA" + rand(16, UPPER_ALNUM, seed=14)
AWS_SECRET = rand(40, ALNUM + "/+", seed=4)
GITHUB = "gh" + "p_" + rand(36, seed=5)
GITHUB_PAT = "github_" + "pat_" + rand(22) + "_" + rand(59, seed=15)
SLACK = (
    "xo" + "xb-" + rand(12, string.digits, seed=6) + "-" + rand(13, string.digits, seed=7) + "-" + rand(24)
)
SLACK_APP = "xa" + "pp-1-" + rand(11, UPPER_ALNUM) + "-" + rand(13, string.digits) + "-" + rand(64, HEX)
SLACK_HOOK = "T" + rand(8, UPPER_ALNUM) + "/B" + rand(10, UPPER_ALNUM) + "/" + rand(24)
TELEGRAM = rand(9, string.digits, seed=8).replace("0", "1") + ":" + "AA" + rand(33, ALNUM + "_-", seed=9)
GOOGLE = "AI" + "za" + rand(35, ALNUM + "_-", seed=10)
RANDOM_32 = rand(32, seed=16)
PASSWORD = "hunter" + "2x"
STRIPE = "sk_" + "live_" + rand(24, seed=17)
GITLAB = "gl" + "pat-" + rand(20, ALNUM + "_-", seed=18)
JWT = (
    "ey"
    + "J"
    + rand(33, ALNUM + "_-", seed=19)
    + ".eyJ"
    + rand(60, ALNUM + "_-", seed=20)
    + "."
    + rand(43, seed=21)
)
SENDGRID = "S" + "G." + rand(22, ALNUM + "_-", seed=22) + "." + rand(43, ALNUM + "_-", seed=23)
HUGGING_FACE = "h" + "f_" + rand(34, string.ascii_letters, seed=24)
URL_PASSWORD = rand(16, seed=25)

POSITIVES = [
    ("openai", "OpenAI API key", f"OPENAI_API_KEY={OPENAI_PROJ}", OPENAI_PROJ),
    ("openai", "OpenAI API key", f"legacy key {OPENAI_LEGACY} retired", OPENAI_LEGACY),
    ("openai", "OpenAI API key", f"svc: {OPENAI_SERVICE}", OPENAI_SERVICE),
    ("anthropic", "Anthropic API key", f"ANTHROPIC_API_KEY={ANTHROPIC}", ANTHROPIC),
    ("anthropic", "Anthropic API key", f"old: {ANTHROPIC_SHORT}", ANTHROPIC_SHORT),
    ("aws-access-key", "AWS access key ID", f"aws_access_key_id = {AWS_ID}", AWS_ID),
    ("aws-access-key", "AWS access key ID", f"temp {AWS_TEMPORARY_ID}", AWS_TEMPORARY_ID),
    ("aws-secret-key", "AWS secret access key", f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET),
    ("aws-secret-key", "AWS secret access key", f"Secret access key: `{AWS_SECRET}`", AWS_SECRET),
    ("github", "GitHub token", f"GITHUB_TOKEN={GITHUB}", GITHUB),
    ("github", "GitHub fine-grained token", f"pat {GITHUB_PAT}", GITHUB_PAT),
    ("slack", "Slack token", f"bot token {SLACK}", SLACK),
    ("slack", "Slack app token", f"socket mode {SLACK_APP}", SLACK_APP),
    ("slack", "Slack webhook URL", f"post to https://hooks.slack.com/services/{SLACK_HOOK}", SLACK_HOOK),
    ("telegram-bot", "Telegram bot token", f"TELEGRAM_BOT_TOKEN={TELEGRAM}", TELEGRAM),
    ("google-api-key", "Google API key", f"maps key {GOOGLE}", GOOGLE),
    ("password", "password assignment", f"password: {PASSWORD}", PASSWORD),
    ("high-entropy", "high-entropy string", f'api_key = "{RANDOM_32}"', RANDOM_32),
    ("stripe", "Stripe secret key", f"STRIPE_SECRET_KEY={STRIPE}", STRIPE),
    ("gitlab", "GitLab personal access token", f"GITLAB_TOKEN={GITLAB}", GITLAB),
    ("jwt", "JSON Web Token", f"Authorization: Bearer {JWT}", JWT),
    ("sendgrid", "SendGrid API key", f"mail key {SENDGRID}", SENDGRID),
    ("huggingface", "Hugging Face token", f"HF_TOKEN={HUGGING_FACE}", HUGGING_FACE),
    (
        "url-password",
        "password in a URL",
        f"DATABASE_URL=postgres://app:{URL_PASSWORD}@db:5432/prod",
        URL_PASSWORD,
    ),
]


@pytest.mark.parametrize(("kind", "label", "text", "token"), POSITIVES, ids=[p[1] for p in POSITIVES])
def test_each_kind_is_found_labelled_and_redacted(kind: str, label: str, text: str, token: str) -> None:
    secret = only(text)
    assert (secret.kind, secret.label, secret.line, secret.column) == (kind, label, 1, text.index(token) + 1)
    assert kind in KINDS
    assert token not in secret.excerpt


def test_every_kind_has_a_positive_test() -> None:
    assert {kind for kind, *_ in POSITIVES} | {"private-key"} == set(KINDS)


@pytest.mark.parametrize("prefix", ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])
def test_every_github_token_prefix(prefix: str) -> None:
    assert kinds(f"token {prefix}{rand(36, seed=20)} revoked") == ["github"]


@pytest.mark.parametrize("prefix", ["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxc-", "xoxe-"])
def test_every_slack_token_prefix(prefix: str) -> None:
    assert kinds(f"{prefix}{rand(11, string.digits)}-{rand(24, seed=21)}") == ["slack"]


# --- a known prefix is enough: the letters of the body do not matter (issue 16, point 5) ---------

LETTERS = {
    "lower": string.ascii_lowercase,
    "upper": string.ascii_uppercase,
    "letters": string.ascii_letters,
    "digits": string.digits,
}
KNOWN_PREFIXES = [  # (kind, prefix, body length, letter styles that are plausible for it)
    ("openai", "sk-" + "proj-", 40, ("lower", "upper", "letters")),
    ("openai", "sk-", 48, ("lower", "upper", "letters")),
    ("openai", "sk-" + "svcacct-", 48, ("lower", "letters")),
    ("anthropic", "sk-" + "ant-api03-", 93, ("lower", "letters")),
    ("github", "gh" + "p_", 36, ("lower", "upper", "letters")),
    ("github", "gh" + "o_", 36, ("lower", "letters")),
    ("github", "gh" + "s_", 36, ("upper", "letters")),
    ("github", "github_" + "pat_", 82, ("lower", "letters")),
    ("gitlab", "gl" + "pat-", 20, ("lower", "upper", "letters")),
    ("slack", "xo" + "xb-", 40, ("lower", "letters", "digits")),
    ("stripe", "sk_" + "live_", 24, ("lower", "letters")),
    ("stripe", "rk_" + "live_", 24, ("upper", "letters")),
    ("aws-access-key", "AK" + "IA", 16, ("upper",)),
    ("aws-access-key", "AS" + "IA", 16, ("upper",)),
    ("google-api-key", "AI" + "za", 35, ("lower", "upper", "letters")),
    ("huggingface", "h" + "f_", 34, ("lower", "upper", "letters")),
]


@pytest.mark.parametrize(
    ("kind", "prefix", "size", "style"),
    [(k, p, n, s) for k, p, n, styles in KNOWN_PREFIXES for s in styles],
    ids=lambda v: str(v),
)
def test_a_known_prefix_key_is_found_whatever_its_letters(
    kind: str, prefix: str, size: int, style: str
) -> None:
    """`sk-proj-` and 40 letters passed: the rule wanted upper case, lower case and a digit."""
    token = prefix + rand(size, LETTERS[style], seed=size)
    secret = only(f"- 新 key：{token}，别外传")
    assert (secret.kind, secret.column) == (kind, len("- 新 key：") + 1)
    assert token not in secret.excerpt


def test_sk_proj_and_forty_letters_is_an_openai_key() -> None:
    assert kinds("OPENAI_API_KEY=sk-" + "proj-" + rand(40, string.ascii_letters, seed=3)) == ["openai"]


@pytest.mark.parametrize(
    "text",
    [
        f"TELEGRAM_BOT_TOKEN={rand(7, '123456789')}:AA{rand(33, ALNUM + '_-', seed=26)}",  # a short bot id
        # lower case, after a colon
        f"token:{rand(10, '123456789')}:AA{rand(33, string.ascii_lowercase, seed=27)}",
    ],
)
def test_a_telegram_bot_token_starting_with_aa_is_found_whatever_its_id_length(text: str) -> None:
    assert kinds(text) == ["telegram-bot"]


@pytest.mark.parametrize(
    "text",
    [
        "- sk-learn-pipeline-for-the-churn-model-2026-retrain",
        "sk-" + "proj-roadmap-q4-planning-notes-and-followups",
        "github_" + "pat_rotation_reminder_for_the_ci_runner_2026",
        "xoxo-see-you-at-the-offsite-next-week-everyone",
        "OPENAI_API_KEY=sk-" + "proj-abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN",  # the alphabet in order
        "STRIPE_KEY=sk_" + "live_your_stripe_secret_key_here",
        "HF_TOKEN=h" + "f_" + "x" * 34,
        "GITLAB_TOKEN=gl" + "pat-" + "x" * 20,
        "- Stripe publishable key pk_" + "live_" + rand(24, seed=28) + " is public",
        "hf_hub_download(repo_id='BAAI/bge-m3')",
        'the header of a JWT starts with eyJ (base64 of {")',
        "SG.1 of the runbook; SG.Ops owns it",
        "12345:ABC 是楼号和单元",
        "chat 123456789:Alice said the build is green again",
    ],
)
def test_words_placeholders_and_prose_after_a_known_prefix_are_not_keys(text: str) -> None:
    assert find_secrets(text) == []


def test_anthropic_keys_are_not_reported_as_openai() -> None:
    assert kinds(f"{ANTHROPIC} and {OPENAI_PROJ}") == ["anthropic", "openai"]


def test_excerpts_keep_four_characters_on_each_side() -> None:
    assert only(f"k {OPENAI_PROJ}").excerpt == f"sk-p…{OPENAI_PROJ[-4:]}"
    assert redact("short") == "****"


# --- one finding per secret: the most specific kind wins -----------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"OPENAI_API_KEY={OPENAI_PROJ}",  # also a cue followed by a random value
        f"password = {OPENAI_PROJ}",  # also a password assignment
        f'"apiKey": "{GOOGLE}"',
        f"secret: {GITHUB}",
    ],
)
def test_a_token_is_reported_once_under_its_specific_kind(text: str) -> None:
    assert len(find_secrets(text)) == 1
    assert find_secrets(text)[0].kind not in ("password", "high-entropy")


def test_aws_secret_key_beats_high_entropy() -> None:
    assert kinds(f"AWS_SECRET_ACCESS_KEY={AWS_SECRET}") == ["aws-secret-key"]


# --- vendor look-alikes --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "skills: sk-desktop-installed, sk-desktop-authorized, sk-monitor-v2",  # names, not keys
        "sk-orchestrator-monitor-report-for-the-weekly-digest-v2",
        "OPENAI_API_KEY=sk-" + "x" * 48,
        "OPENAI_API_KEY=sk-" + "proj-" + "A1b2" * 10,  # too regular to be a key
        "OPENAI_API_KEY=sk-...",
        "AWS docs use AK" + "IAIOSFODNN7" + "EXAMPLE as the example key id",
        "aws_secret_access_key = wJalrXUtnFEMI" + "/K7MDENG/bPxRfiCY" + "EXAMPLE" + "KEY",
        "SLACK_BOT_TOKEN=xo" + "xb-your-token-here",
        "https://hooks.slack.com/services/T00000000/B00000000/" + "X" * 24,
        "ghp_" + "x" * 36,
        "ticket ABCD-1234: fixed",
    ],
)
def test_placeholders_and_look_alikes_are_not_vendor_tokens(text: str) -> None:
    assert find_secrets(text) == []


# --- private key blocks --------------------------------------------------------------------------


def pem(kind: str, lines: int = 3, seed: int = 0) -> str:
    header = f"{kind} PRIVATE KEY".strip()
    body = "\n".join(rand(64, ALNUM + "+/", seed=seed + i) for i in range(lines))
    return f"-----BEGIN {header}-----\n{body}\n-----END {header}-----\n"


@pytest.mark.parametrize("kind", ["", "RSA", "EC", "OPENSSH", "DSA", "ENCRYPTED"])
def test_private_key_block_is_one_finding(kind: str) -> None:
    secret = only("Deploy key:\n\n" + pem(kind, lines=12))
    assert (secret.kind, secret.line, secret.column) == ("private-key", 3, 1)
    assert secret.excerpt == f"-----BEGIN {f'{kind} PRIVATE KEY'.strip()}-----"


def test_pgp_private_key_block() -> None:
    body = "\n".join(rand(64, ALNUM + "+/", seed=i) for i in range(5))
    text = f"-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n{body}\n-----END PGP PRIVATE KEY BLOCK-----\n"
    assert kinds(text) == ["private-key"]


def test_two_blocks_two_findings() -> None:
    found = find_secrets(pem("RSA", seed=1) + "\nand\n" + pem("EC", seed=9))
    assert [(s.kind, s.line) for s in found] == [("private-key", 1), ("private-key", 8)]


@pytest.mark.parametrize(
    "text",
    [
        "The file starts with -----BEGIN RSA PRIVATE KEY----- and must never be committed.",
        "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
        "-----BEGIN PUBLIC KEY-----\n" + rand(64, ALNUM + "+/") + "\n-----END PUBLIC KEY-----",
    ],
)
def test_private_key_mentions_and_public_keys_are_not_reported(text: str) -> None:
    assert find_secrets(text) == []


# --- passwords -----------------------------------------------------------------------------------

# Each value is marked ⟨like this⟩, marks no detector takes for part of a password (so this file
# stays clean); the test removes them and expects the finding where the value starts.
PASSWORDS = [
    "password: ⟨hunter2x⟩",
    "passwd=⟨Tr0ub4dor&3⟩",
    "pwd = ⟨9fj2k3l⟩",
    'PASSWORD="⟨supersecretvalue⟩"',
    "the db password is ⟨s3cr3t!⟩",
    '{"user": "lin", "password": "⟨hunter2x⟩"}',
    "| password | ⟨Xk9mP2qL⟩ |",
    "**Password**: ⟨Hunter2024⟩",
    "DB_PASSWORD=⟨Xk9mP2qL⟩",
    "dbPassword: '⟨Xk9mP2qL#⟩'",
    "password for the router: ⟨Tp9!kdk3⟩",
    "password (prod): ⟨Qm7#vv2Lr⟩",
    "passphrase = ⟨7-horses-Run⟩",
    "Wi-Fi password is ⟨84467230⟩.",
    "密码：⟨abc123456⟩",
    "密码是 ⟨Abc@2024⟩",
    "口令: ⟨Zx81!qpa⟩",
    "数据库密码=⟨Pg2024db!⟩",
    "登录密码 ⟨Lg8842kq⟩",
    "WiFi 密码 ⟨guest2024⟩",
    "- ✅ Sudo 密码保存 (⟨202027⟩)",
    "密码（生产）：⟨Abc@2024⟩",
    "新密码设为 `⟨Np-2026-x⟩`",
    "数据库密码是 ⟨Zq8#pLw2vR⟩，以后部署都用它",  # issue 16: the value ends where the sentence goes on
    "- VPN 密码是⟨Vp9x2Lq7⟩，每月更换",
    "root 的密码：⟨Rt5#kq2m⟩（别外传）",
    "ssh pass: ⟨Sx7#mq2Lp⟩",  # issue 16
    "sftp pass = ⟨Ft4!qz9w⟩",
    "DB_PASS=⟨Db8%kq2x⟩",
    "MYSQL_ROOT_PASS: ⟨My6&pw3z⟩",
    "password: ⟨hunter2x⟩，然后重启",
]


def unmarked(case: str) -> tuple[str, str]:
    """The text without its ⟨⟩ marks, and the marked value."""
    value = case[case.index("⟨") + 1 : case.index("⟩")]
    return case.replace("⟨", "").replace("⟩", ""), value


@pytest.mark.parametrize("case", PASSWORDS)
def test_password_assignments_in_english_and_chinese(case: str) -> None:
    text, value = unmarked(case)
    secret = only(text)
    assert (secret.kind, secret.label) == ("password", "password assignment")
    assert secret.column == text.index(value) + 1
    assert secret.excerpt.endswith("= ****")
    assert value not in secret.excerpt


NOT_PASSWORDS = [
    "password:",
    "password: ***",
    "password: xxx",
    "password: XXXXXXXX",
    "password: <password>",
    "password: ${DB_PASSWORD}",
    "password=$PASSWORD",
    "password: {{ password }}",
    "password: '{{ vault_db_password }}'",
    "password = os.environ['DB_PASSWORD']",
    'password = os.getenv("DB_PASS")',
    "password = getpass()",
    "password = request.form['password']",
    "password = user_input",
    "password = None",
    "password: your_password",
    "password: <your-password-here>",
    "password: changeme",
    "password: password",
    "password: example",
    "password: Example123",
    "password: hunter",  # a plain word, unquoted
    "Password: Required",
    "| Password | Status |",
    "password: 12345",  # too short
    "password: 8+ characters",
    "password: SHA-256 hashed",
    "password: argon2id",
    "password: 2026-10-31",
    "password: v1.2.3",
    "pwd: /home/lin/work",
    "`pwd` → /tmp/build",
    "password_hash: $2b$12$" + rand(53, ALNUM + "./"),
    "1Password: Work vault",
    "password stored in 1Password",
    "password: stored in Keychain",
    "password: (see 1Password)",
    "the password is in the vault",
    "the password reset flow is broken",
    "use a password manager",
    "no password needed for localhost",
    "password policy: see docs",
    "Forgot password: click the link",
    "printf(&quot;Password is correct.&quot;);",
    "passwords: rotate every 90 days",
    "密码：（见 1Password）",
    "密码：见密码管理器",
    "密码错误",
    "忘记密码了",
    "密码 policy 需要更新",
    "密码学签名",
    "A2A v1.0 引入 JWS (RFC 7515) 密码学签名",
    "| **密码** | 设置密码 |",
    "密码长度至少 12 位",
    "发现问题：密码未加密 → 修复",
    "**教训：** 永远不要私钥/密码",
    "密码：已配置",
    "密码为空",
    "- 密码",
    "first pass: rough-draft done, second pass tomorrow",  # `pass` alone is a word
    "CI pass: test_login_v2 green",
    "bypass: route-53-failover",
    "user pass rate: 98%",
    "ssh pass: see 1Password",
    "数据库密码是 ${DB_PASSWORD}，从环境变量读",
    "密码长度至少 12 位，必须含符号",
    "- 密码是什么来着？问一下 Lin",
]


@pytest.mark.parametrize("text", NOT_PASSWORDS)
def test_placeholders_references_and_prose_are_not_passwords(text: str) -> None:
    assert find_secrets(text) == []


# --- passwords in URLs ---------------------------------------------------------------------------

URL_PASSWORDS = [  # (scheme and user, password alphabet, the rest)
    ("postgres://app:", ALNUM, "@db.internal:5432/prod"),
    ("mongodb+srv://admin:", ALNUM + "#@!%", "@cluster0.abcde.mongodb.net/?retryWrites=true"),
    ("https://lin:", string.ascii_lowercase, "@git.example.com/team/repo.git"),
    ("redis://:", string.ascii_letters, "@cache.example.net:6379/0"),
    ("amqp://ops:", string.digits, "@mq.local:5672"),
    ("smtp://mailer:", string.ascii_uppercase, "@smtp.example.com:587"),
]


@pytest.mark.parametrize(("head", "alphabet", "tail"), URL_PASSWORDS, ids=[u[0] for u in URL_PASSWORDS])
def test_a_password_in_a_url_is_found(head: str, alphabet: str, tail: str) -> None:
    value = rand(12, alphabet, seed=len(head))
    text = f"- 连接串 {head}{value}{tail}"
    secret = only(text)
    assert (secret.kind, secret.label, secret.column) == (
        "url-password",
        "password in a URL",
        text.index(value) + 1,
    )
    assert value not in secret.excerpt and secret.excerpt.endswith(":****@")


@pytest.mark.parametrize(
    "text",
    [
        "https://github.com/openclaw/openclaw/blob/main/docs/concepts/memory.md",
        "postgres://app@db.internal:5432/prod",
        "git@github.com:lin/notes.git",
        "ssh://git@git.example.com:2222/team/repo.git",
        "https://x-access-token:${GIT_TOKEN}@github.com/lin/notes.git",
        "https://oauth2:TOKEN@gitlab.com/team/repo.git",
        "https://ci:MY_CI_TOKEN@gitlab.com/team/repo.git",
        "https://bot:MYAPIKEY@git.example.com/repo.git",
        "https://{user}:{password}@git.example.com/repo.git",
        "https://user:password@example.com/docs",
        "postgresql://user:pass@localhost/db",
        "postgres://postgres:postgres@localhost:5432/dev",  # the user name again: a default
        "ftp://anonymous:lin@example.com@ftp.gnu.org/gnu/",
        "cvs -d cvs://:pserver:anoncvs@sources.redhat.com:/cvs/src login",
        "https://medium.com/@lin/notes-on-agents-123",
        "redis://:<password>@cache:6379",
    ],
)
def test_urls_without_a_real_password_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []


# --- zero-width and fullwidth characters are folded before matching -------------------------------


def fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def test_a_key_in_fullwidth_characters_is_found_where_it_stands() -> None:
    token = "sk-" + "proj-" + rand(40, string.ascii_letters, seed=29)
    text = f"- 记一下 {fullwidth(token)}\n"
    secret = only(text)
    assert (secret.kind, secret.line, secret.column) == ("openai", 1, len("- 记一下 ") + 1)
    assert token not in secret.excerpt and fullwidth(token) not in secret.excerpt


def test_zero_width_characters_inside_a_key_do_not_hide_it() -> None:
    token = "gh" + "p_" + rand(36, seed=30)
    hidden = "\u200b".join(token[i : i + 4] for i in range(0, len(token), 4))
    text = f"a\u200d\nGITHUB_TOKEN=\ufeff{hidden} ok\npassword: {PASSWORD}\n"
    found = find_secrets(text)
    assert [(s.kind, s.line, s.column) for s in found] == [
        ("github", 2, len("GITHUB_TOKEN=\ufeff") + 1),
        ("password", 3, len("password: ") + 1),
    ]


@given(
    st.sampled_from([(k, p, n) for k, p, n, _ in KNOWN_PREFIXES]),
    st.integers(0, 10**6),
    st.data(),
)
def test_any_known_prefix_key_survives_zero_width_and_fullwidth_disguise(
    rule: tuple[str, str, int], seed: int, data: st.DataObject
) -> None:
    kind, prefix, size = rule
    alphabet = string.ascii_uppercase + string.digits if kind == "aws-access-key" else ALNUM
    token = prefix + rand(size, alphabet, seed=seed)
    assume(kind in kinds(token))
    disguised = "".join(
        data.draw(st.sampled_from(["", "", "\u200b", "\u200c", "\u2060", "\ufeff"]))
        + (fullwidth(c) if data.draw(st.booleans()) else c)
        for c in token
    )
    text = f"备忘：{disguised}\n"
    found = find_secrets(text)
    assert [s.kind for s in found] == [kind]
    start = text.index(disguised)
    while text[start] in "\u200b\u200c\u2060\ufeff":
        start += 1
    assert (found[0].line, found[0].column) == (1, start + 1)


# --- high-entropy strings ------------------------------------------------------------------------

HIGH_ENTROPY = [
    f'api_key = "{rand(32, seed=30)}"',
    f"Authorization: Bearer {rand(40, ALNUM + '-_', seed=31)}",
    f"callback https://example.com/cb?token={rand(32, seed=32)}&state=1",
    f"webhook secret: {rand(40, HEX, seed=33)}",
    f"密钥：{rand(30, seed=34)}",
    f"令牌 {rand(28, seed=35)}",
    f"### ClawHub\n- Key: `clh_{rand(5, seed=36)}_{rand(37, ALNUM, seed=37)}`",
    f'{{"clientSecret": "{rand(36, ALNUM, seed=38)}"}}',
    f"OPENROUTER_API_KEY=sk-or-v1-{rand(64, HEX, seed=39)}",
    f"SESSION_COOKIE={rand(26, string.ascii_lowercase + string.digits, seed=40)}",
]


@pytest.mark.parametrize("text", HIGH_ENTROPY)
def test_random_values_after_a_cue_are_high_entropy(text: str) -> None:
    secret = only(text)
    assert (secret.kind, secret.label) == ("high-entropy", "high-entropy string")
    assert "…" in secret.excerpt


SHA = rand(40, HEX, seed=50)
UUID = "019d1b31-787e-7829-87b7-f8382effbab2"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
NOT_HIGH_ENTROPY = [
    f"commit {SHA}",
    f"Merged {SHA[:7]} into main; see {SHA}",
    f"commit sha: {SHA}",
    f"sha256 key: {rand(64, HEX, seed=51)}",
    f"token of the fix: `{SHA[:12]}`",
    f"| **API Key** | `{UUID}` |",  # UUID-shaped keys are left alone, as UUIDs
    f'{{"sessionId": "{UUID}", "sessionKey": "agent:main:telegram:direct:5550123"}}',
    "key docs: https://github.com/openclaw/openclaw/blob/main/docs/concepts/memory-compaction.md",
    "token file: /home/lin/.config/openclaw/credentials/telegram-bot-token-2026",
    "key file: ~/.ssh/id_ed25519_work_laptop_2026",
    "key: docs/design/job-queue-v3-notification-routing.md",
    f"![chart](data:image/png;base64,{PNG})",
    f"```\n{rand(76, ALNUM + '+/', seed=52)}\n{rand(76, ALNUM + '+/', seed=53)}\n```",
    f'"integrity": "sha512-{rand(86, ALNUM + "+/", seed=54)}=="',
    f'"key": "sha512-{rand(86, ALNUM + "+/", seed=55)}=="',
    "token: getUserAccountSettingsHandlerV2",
    "api key: OPENROUTER_API_KEY_PRODUCTION_2",
    "secret: my_super_long_variable_name_2024",
    "auth: thisIsAVeryLongCamelCaseName1",
    "token budget: MemoryFlushCompactionCount2",
    "token expires 2026-10-31T09:00:00.000+08:00",
    "auth: v2.3.1-beta.4+build.20260330",
    "token: @openclaw/memory-plugin-2.0.1",
    "key: claude-sonnet-4-5-20250929",
    "key: 2026-03-30-polymarket-data-base-compressed",
    "密钥管理系统：统一存储所有 API Key，集中加密",
    "## 🔑 Ed25519 密钥对 (2026-03-30 生成)",
    f"| **#1** | `MCowBQYDK2VwAyEA{rand(43, ALNUM + '+/', seed=56)}=` | 2026-03-30 |",
    f"public key: MCowBQYDK2VwAyEA{rand(43, ALNUM + '+/', seed=57)}=",
    f"ssh key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{rand(43, ALNUM + '+/', seed=58)} lin@mac",
    f"GPG key fingerprint: {rand(40, '0123456789ABCDEF', seed=59)}",
    f'{{"type":"toolCall","id":"toolu_01{rand(22, seed=60)}","name":"exec"}}',
    f'{{"type":"thinking","thinkingSignature":"{rand(300, ALNUM + "+/", seed=61)}"}}',
    "OPENROUTER_API_KEY=sk-or-v1-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
    'curl -d \'{"api_key": "tvly-xxx", "query": "..."}\'',
    '"Authorization": "Bearer YOUR_OPENCLAW_API_KEY"',
    "原始 Tokens: 1,446 → 压缩后 Tokens: 126",
]


@pytest.mark.parametrize("text", NOT_HIGH_ENTROPY)
def test_hashes_ids_paths_identifiers_and_public_keys_are_not_secrets(text: str) -> None:
    assert find_secrets(text) == []


# --- allow markers, positions, line endings ------------------------------------------------------


@pytest.mark.parametrize("marker", ["memcli: allow-secret", "pragma: allowlist secret"])
def test_allow_marker_silences_its_line_only(marker: str) -> None:
    text = f"password: {PASSWORD}  <!-- {marker} -->\npassword: {PASSWORD}\n"
    assert [(s.line, s.kind) for s in find_secrets(text)] == [(2, "password")]


def test_allow_marker_on_the_begin_line_silences_a_private_key_block() -> None:
    block = pem("RSA", lines=4)
    allowed = block.replace("-----\n", "----- # memcli: allow-secret\n", 1)
    assert find_secrets(allowed) == []
    marked_body = block.replace("\n", "\n# memcli: allow-secret\n", 2)  # marker on a body line only
    assert kinds(marked_body) == ["private-key"]


def test_lines_and_columns_count_characters_from_one() -> None:
    text = f"# 笔记\n\n- 今天换了 key：{GITHUB}\n- password: {PASSWORD}\n"
    found = find_secrets(text)
    assert [(s.kind, s.line, s.column) for s in found] == [
        ("github", 3, len("- 今天换了 key：") + 1),
        ("password", 4, len("- password: ") + 1),
    ]


def test_findings_come_in_line_order_whatever_their_kind() -> None:
    text = f"password: {PASSWORD}\n{pem('EC')}\nkey {GOOGLE}\napi_key={rand(30, seed=70)}\n{AWS_ID}\n"
    found = find_secrets(text)
    assert [s.kind for s in found] == [
        "password",
        "private-key",
        "google-api-key",
        "high-entropy",
        "aws-access-key",
    ]
    assert [s.line for s in found] == sorted(s.line for s in found)


def test_crlf_text_gives_the_same_findings_as_lf() -> None:
    text = f"notes\npassword: {PASSWORD}\n密码：{PASSWORD}\nkey {GOOGLE}\ntoken: {rand(30, seed=71)}\n" + pem(
        "RSA"
    )
    lf = find_secrets(text)
    crlf = find_secrets(text.replace("\n", "\r\n"))
    assert len(lf) == 5
    assert crlf == lf
    assert all("\r" not in s.excerpt for s in crlf)


def test_text_without_secrets_and_empty_text() -> None:
    assert find_secrets("") == []
    assert find_secrets("# 2026-10-31\n\n- 决定：队列用 BullMQ\n- Lin prefers tea\n") == []


def test_text_whose_lower_case_is_longer_still_gives_exact_columns() -> None:
    text = f"İstanbul İzmir: password: {PASSWORD}, key {GOOGLE}"  # "İ".lower() is two characters
    found = find_secrets(text)
    assert [(s.kind, s.column) for s in found] == [
        ("password", text.index(PASSWORD) + 1),
        ("google-api-key", text.index(GOOGLE) + 1),
    ]


# --- properties ----------------------------------------------------------------------------------

FRAGMENTS = [
    "password", "密码", "口令", ": ", "=", " is ", "key", "token", "Bearer ", "sk-", "sk-ant-", "AKIA",
    "ghp_", "xoxb-", "AIza", "-----BEGIN RSA PRIVATE KEY-----", "-----END", "\n", "\r\n", "`", '"', "(",
    "（", "memcli: allow-secret", "İ", "😀", "hooks.slack.com/services/", "123456789:",
]  # fmt: skip
FUZZ_TEXT = st.one_of(
    st.text(),
    st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(ALNUM + "+/_-.=", max_size=50)), max_size=30).map(
        "".join
    ),
)


@given(FUZZ_TEXT)
def test_never_raises_and_positions_are_in_range(text: str) -> None:
    lines = text.split("\n")
    for secret in find_secrets(text):
        assert secret.kind in KINDS
        assert 1 <= secret.line <= len(lines)
        assert 1 <= secret.column <= len(lines[secret.line - 1])


PREFIXES = ["sk-", "sk-proj-", "sk-ant-api03-", "ghp_", "github_pat_", "xoxb-123456789012-", "AIza", "", "x"]
SEEDED_BODY = st.builds(
    lambda seed, n: rand(n, ALNUM + "_-", seed=seed), st.integers(0, 10**9), st.integers(20, 120)
)
ANY_BODY = st.text(ALNUM + "_-/+=", min_size=1, max_size=120)


@given(
    st.sampled_from(PREFIXES),
    st.one_of(SEEDED_BODY, ANY_BODY),
    st.sampled_from(["", "key: ", "token=", "密钥："]),
)
def test_an_excerpt_never_holds_the_whole_token(prefix: str, body: str, cue: str) -> None:
    token = prefix + body
    for secret in find_secrets(f"{cue}{token}\n"):
        assert token not in secret.excerpt
        assert len(secret.excerpt) < len(token) or secret.kind in ("password", "private-key")


@given(st.text(string.ascii_letters + string.digits + "!@#%^&*-_+?.", min_size=6, max_size=40))
def test_a_password_never_appears_in_its_excerpt(value: str) -> None:
    for text in (f"password: {value}", f"密码：{value}", f'PASSWORD="{value}"'):
        for secret in find_secrets(text):
            assert value not in secret.excerpt


@given(SEEDED_BODY.filter(lambda body: len(body) >= 40), st.integers(0, 5), st.text("abc 中文", max_size=10))
def test_a_key_is_found_where_it_was_put(body: str, blank_lines: int, before: str) -> None:
    assume(
        len(set(body)) >= 10
        and all(any(test(c) for c in body) for test in (str.isupper, str.islower, str.isdigit))
    )
    token = "sk-" + "proj-" + body
    text = "# notes\n" + "\n" * blank_lines + f"{before} {token}\n- more\n"
    found = find_secrets(text)
    assert [(s.kind, s.line, s.column) for s in found] == [("openai", 2 + blank_lines, len(before) + 2)]


# --- the real workspaces -------------------------------------------------------------------------

# What the detector reports on the public workspaces (each finding reviewed by hand, see the commit):
# a sudo password written into a daily note (twice: the note and its compressed copy) and a ClawHub
# API key under "API Keys" in TOOLS.md. Everything else is clean.
EXPECTED_IN_CORPUS = {
    "AmitabhainArunachala__clawd": [("TOOLS.md", 33, "high-entropy")],
    "nicola-king__openclaw-workspace": [
        ("memory/2026-04-08-compressed.md", 70, "password"),
        ("memory/2026-04-08.md", 95, "password"),
    ],
    "robertsong2019__openclaw-workspace": [],
}


def findings_in(root: Path) -> list[tuple[str, int, str]]:
    found = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [(path.relative_to(root).as_posix(), s.line, s.kind) for s in find_secrets(text)]
    return found


@pytest.mark.parametrize("workspace", corpus_workspaces(), ids=lambda p: p.name)
def test_real_workspaces_give_only_the_reviewed_findings(workspace: Path) -> None:
    assert findings_in(workspace) == EXPECTED_IN_CORPUS[workspace.name]


def test_the_sample_workspace_holds_no_secrets() -> None:
    assert findings_in(SAMPLE) == []


def test_this_file_and_the_detector_hold_nothing_it_would_report() -> None:
    module = Path(__file__).resolve().parent.parent / "memcli" / "core" / "secrets.py"
    assert find_secrets(Path(__file__).read_text(encoding="utf-8")) == []
    assert find_secrets(module.read_text(encoding="utf-8")) == []
