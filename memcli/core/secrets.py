"""Secrets in memory files, found before they are committed (SPEC §11, `memcli check`).

`find_secrets(text)` reports, in line order, every credential it recognises in one
file's text, redacted: tokens with a known prefix (OpenAI, Anthropic, GitHub, GitLab,
Slack, Stripe, AWS, Google, Telegram bot, JWT, SendGrid, Hugging Face), private key
blocks, passwords in URLs (`scheme://user:password@host`), password assignments in
English and Chinese, and high-entropy strings given as the value of a key, token or
secret. Few false positives matter more than catching exotic forms, so:

- a token with a known prefix needs a plausible length and a body that is not a
  placeholder (`sk-xxxx…`, `your_…`, AWS's `…EXAMPLE` keys, the alphabet in order) nor
  words joined by dashes (`sk-learn-pipeline-for-the-…`); its letters do not matter:
  all lower case, all upper case or letters alone are still a key;
- a password needs a cue word (password, passwd, pwd, passphrase, `ssh pass`, `DB_PASS`,
  密码, 口令), a separator or verb (`:`, `=`, `is`, 是, 为, 保存…) and a value that looks
  typed by a person: not a placeholder, reference, path or plain word (the value ends
  where the Chinese sentence goes on: `密码是 <value>，以后…`);
- a password in a URL is reported unless it is a placeholder (`password`, `<token>`,
  `${VAR}`, `TOKEN`) or the user name again (`postgres:postgres@localhost`, a default);
- a high-entropy string needs a cue just before it (`api_key=`, `Token:`,
  `Bearer`, `?token=`, 密钥：…), 24 or more characters, letters and digits,
  Shannon entropy near that of random text, few dictionary-like chunks, and must
  be no UUID, path, SRI hash or public-key fingerprint. Text without a cue (base64
  in code blocks, data URIs, commit SHAs, identifiers) is never reported.

Zero-width characters are dropped and fullwidth forms (ｓｋ－…, U+FF01–U+FF5E, and the
ideographic space) read as ASCII before matching; findings point into the text as it is.
A line holding `memcli: allow-secret` or `pragma: allowlist secret` is skipped
(for a private key block, its BEGIN line). When two findings overlap, the most
specific kind wins. The module is pure: no I/O, no clock; regexes are compiled
once and each one runs only when a literal it needs occurs in the text.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import pairwise

KINDS: tuple[str, ...] = (
    "openai",
    "anthropic",
    "aws-access-key",
    "aws-secret-key",
    "github",
    "gitlab",
    "slack",
    "stripe",
    "telegram-bot",
    "google-api-key",
    "jwt",
    "sendgrid",
    "huggingface",
    "private-key",
    "url-password",
    "password",
    "high-entropy",
)

ALLOW_MARKERS = ("memcli: allow-secret", "pragma: allowlist secret")

# Which kind wins when two findings overlap: fixed shapes first, then passwords, then entropy.
_PRECEDENCE = {
    kind: rank
    for rank, kind in enumerate(
        (
            "private-key",
            "anthropic",
            "openai",
            "stripe",
            "aws-access-key",
            "aws-secret-key",
            "github",
            "gitlab",
            "slack",
            "telegram-bot",
            "google-api-key",
            "sendgrid",
            "huggingface",
            "jwt",
            "url-password",
            "password",
            "high-entropy",
        )
    )
}


@dataclass(frozen=True, slots=True)
class Secret:
    """One finding, safe to print: where it is and what it is, never the secret itself."""

    kind: str  # one of KINDS
    line: int  # 1-based
    column: int  # 1-based, in characters
    excerpt: str  # redacted: never the whole secret
    label: str  # human words: "OpenAI API key", "password assignment", ...


@dataclass(frozen=True, slots=True)
class _Hit:
    """A finding before it is placed: its span of the text (offsets) instead of line and column."""

    kind: str
    start: int
    end: int
    excerpt: str
    label: str


def find_secrets(text: str) -> list[Secret]:
    """The secrets in `text`, in line order, one finding per secret, never the secret itself."""
    folded, shifts = _fold(text)
    source = _Source.of(folded)
    hits: list[_Hit] = []
    for detector in _DETECTORS:
        hits.extend(detector(source))
    hits = _without_overlaps(hits)
    if shifts:
        hits = [_unfolded(hit, shifts) for hit in hits]
    return _located(text, hits)


# --- folding: zero-width characters dropped, fullwidth forms read as ASCII -----------------------

_ZERO_WIDTH = "\u00ad\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"
_ZERO_WIDTH_RUN = re.compile(f"[{_ZERO_WIDTH}]+")
_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
_FULLWIDTH_RUN = re.compile("[\uff01-\uff5e\u3000]+")


def _ascii_run(run: re.Match[str]) -> str:
    return run[0].translate(_FULLWIDTH)


@dataclass(frozen=True, slots=True)
class _Shifts:
    """Where zero-width runs were dropped: at each folded offset in `at`, the original text is
    ahead by `ahead` characters from there on."""

    at: tuple[int, ...]
    ahead: tuple[int, ...]

    def original(self, offset: int) -> int:
        index = bisect_right(self.at, offset)
        return offset + (self.ahead[index - 1] if index else 0)


def _fold(text: str) -> tuple[str, _Shifts | None]:
    """The text with fullwidth forms as ASCII (same length) and zero-width characters dropped
    (with the shifts that map its offsets back), or the text itself when it has neither."""
    if text.isascii():
        return text, None
    first = _FULLWIDTH_RUN.search(text)
    if first is not None:  # run by run from the first: in Chinese text much faster than translate()
        text = text[: first.start()] + _FULLWIDTH_RUN.sub(_ascii_run, text[first.start() :])
    if not any(char in text for char in _ZERO_WIDTH):  # str's own search: faster than a regex
        return text, None
    parts: list[str] = []
    at: list[int] = []
    ahead: list[int] = []
    dropped = kept = 0
    for run in _ZERO_WIDTH_RUN.finditer(text):
        parts.append(text[kept : run.start()])
        dropped += run.end() - run.start()
        at.append(run.end() - dropped)
        ahead.append(dropped)
        kept = run.end()
    parts.append(text[kept:])
    return "".join(parts), _Shifts(tuple(at), tuple(ahead))


def _unfolded(hit: _Hit, shifts: _Shifts) -> _Hit:
    """A hit on the folded text moved onto the text as it is."""
    start = shifts.original(hit.start)
    end = shifts.original(hit.end - 1) + 1 if hit.end > hit.start else start
    return _Hit(hit.kind, start, end, hit.excerpt, hit.label)


@dataclass(frozen=True, slots=True)
class _Source:
    """A file's text and its lower-cased copy, scanned by case-blind patterns (much faster than re.I)."""

    text: str
    folded: str  # text.lower() when that keeps every offset, else text itself
    aligned: bool  # whether `folded` is lower-cased; if not, case-blind patterns run with re.IGNORECASE

    @classmethod
    def of(cls, text: str) -> _Source:
        folded = text.lower()
        if len(folded) == len(text):  # lower() only ever lengthens characters (İ → i̇)
            return cls(text, folded, True)
        return cls(text, text, False)

    def finditer(self, pattern: _Caseless) -> Iterator[re.Match[str]]:
        """Matches of a case-blind pattern; offsets are the text's, groups are lower-cased."""
        return (pattern.folded if self.aligned else pattern.anycase).finditer(self.folded)


@dataclass(frozen=True, slots=True)
class _Caseless:
    """A case-blind pattern: compiled plain for the lower-cased text; with re.IGNORECASE (on demand,
    from re's own cache) for the rare text whose lower case would move offsets."""

    folded: re.Pattern[str]

    @classmethod
    def compile(cls, pattern: str) -> _Caseless:
        return cls(re.compile(pattern))

    @property
    def anycase(self) -> re.Pattern[str]:
        return re.compile(self.folded.pattern, re.IGNORECASE)


# --- redaction and randomness --------------------------------------------------------------------


def redact(token: str) -> str:
    """First four and last four characters, or only stars when that would show too much."""
    if len(token) < 12:
        return "****"
    return f"{token[:4]}…{token[-4:]}"


_PLACEHOLDER_PARTS = ("xxxx", "XXXX", "example", "EXAMPLE", "your", "YOUR", "placeholder", "PLACEHOLDER")


def _has_placeholder(token: str) -> bool:
    return any(part in token for part in _PLACEHOLDER_PARTS) or "..." in token or "…" in token


def _classes(token: str) -> int:
    """How many of upper case, lower case and digits occur in `token`."""
    return sum(
        (
            any(c.isascii() and c.isupper() for c in token),
            any(c.isascii() and c.islower() for c in token),
            any(c.isdigit() for c in token),
        )
    )


def _random_body(body: str, classes: int = 1) -> bool:
    """A token's variable part: not a placeholder, varied characters (whatever their case, and
    with or without digits unless `classes` asks for more), not the alphabet in order, not
    words joined by dashes."""
    distinct = len(set(body))
    return (
        not _has_placeholder(body)
        and distinct >= min(10, len(body) // 2)
        and _classes(body) >= classes
        and not _in_order(body)
        and not _joined_words(body)
    )


_IN_ORDER_RUN = 7  # `abcdefg`, `1234567`: typed, not drawn (a random body has such a run ~never)


def _in_order(body: str) -> bool:
    """Whether `body` holds a run of characters each one after the last (abcdefg, 3456789)."""
    run = 1
    for before, after in pairwise(body):
        run = run + 1 if ord(after) - ord(before) == 1 else 1
        if run >= _IN_ORDER_RUN:
            return True
    return False


_WORD_SEGMENT = re.compile(r"[A-Z]?[a-z]{3,13}")
_SHORT_SEGMENT = 3  # `v2`, `q4`, `for`, `the`: filler between words


def _joined_words(body: str) -> bool:
    """Words joined by `-`, `_` or `.` (`learn-pipeline-for-the-churn-model-2026`): a name, not a
    key. Most of the body must be in word-like segments or short ones; a random body's segments
    are long and mix cases and digits."""
    segments = _SEPARATORS.split(body)
    if len(segments) < 3:
        return False
    wordy = sum(
        len(s)
        for s in segments
        if len(s) <= _SHORT_SEGMENT
        or (_WORD_SEGMENT.fullmatch(s) and _WORDLIKE.fullmatch(s))
        or (s.isdigit() and len(s) <= 4)
    )
    return wordy >= 0.8 * (len(body) - len(segments) + 1)


def shannon_entropy(token: str) -> float:
    """Bits per character of `token`'s own character distribution."""
    if not token:
        return 0.0
    size = len(token)
    counts = (token.count(char) for char in set(token))
    return -sum(count / size * math.log2(count / size) for count in counts)


# --- vendor tokens with a fixed shape ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _TokenRule:
    kind: str
    label: str
    literals: tuple[str, ...]  # the rule runs only when one of these occurs in the text
    pattern: re.Pattern[str]  # groups: tok (the secret), body (its random part)
    prefix_shown: str = ""  # a non-secret head kept in the excerpt
    body_group: str = "body"  # the group whose characters must look random


_B64URL = "A-Za-z0-9_-"


def _token(literal: str, body: str, edge: str, between: str = "") -> re.Pattern[str]:
    """`literal`, `between`, then the random `body`, with no `edge` character on either side.

    The literal comes first (its left edge is checked by a look-behind after it) so that the
    regex engine searches for it as a string instead of trying the pattern at every position.
    """
    return re.compile(rf"(?P<tok>{literal}(?<![{edge}]{literal}){between}(?P<body>{body}))(?![{edge}])")


_TOKEN_RULES: tuple[_TokenRule, ...] = (
    _TokenRule(
        "anthropic",
        "Anthropic API key",
        ("sk-ant-",),
        _token("sk-ant-", rf"[{_B64URL}]{{32,}}", _B64URL, between=r"(?:[a-z]+\d\d-)?"),
    ),
    _TokenRule(
        "openai",
        "OpenAI API key",
        ("sk-",),
        # sk-or-v1-… is OpenRouter's (a cue makes it high-entropy); sk-ant- is Anthropic's
        _token(
            "sk-", rf"[{_B64URL}]{{32,}}", _B64URL, between=r"(?!ant-|or-)(?:(?:proj|svcacct|admin|None)-)?"
        ),
    ),
    _TokenRule(
        "stripe",
        "Stripe secret key",
        ("sk_live_", "rk_live_", "sk_test_", "rk_test_", "sk_prod_", "rk_prod_"),
        _token("[rs]k_(?:live|test|prod)_", "[A-Za-z0-9]{20,247}", "A-Za-z0-9_"),
    ),
    _TokenRule(
        "aws-access-key",
        "AWS access key ID",
        ("AKIA", "ASIA"),
        _token("A[KS]IA", "[A-Z0-9]{16}", "A-Za-z0-9"),
    ),
    _TokenRule(
        "github",
        "GitHub token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"),
        _token("gh[pousr]_", "[A-Za-z0-9]{36,255}", "A-Za-z0-9_"),
    ),
    _TokenRule(
        "github",
        "GitHub fine-grained token",
        ("github_pat_",),
        _token("github_pat_", "[A-Za-z0-9_]{40,255}", "A-Za-z0-9_"),
    ),
    _TokenRule(
        "gitlab",
        "GitLab personal access token",
        ("glpat-",),
        _token("glpat-", rf"[{_B64URL}]{{20,}}", _B64URL),
    ),
    _TokenRule(
        "slack",
        "Slack token",
        ("xox",),
        _token("xox[a-z]-", "[A-Za-z0-9-]{20,}", "A-Za-z0-9-"),
    ),
    _TokenRule(
        "slack",
        "Slack app token",
        ("xapp-",),
        _token("xapp-", r"\d-[A-Za-z0-9-]{20,}", "A-Za-z0-9-"),
    ),
    _TokenRule(
        "slack",
        "Slack webhook URL",
        ("hooks.slack.com/services/",),
        re.compile(
            r"hooks\.slack\.com/services/(?P<tok>(?P<body>[A-Z0-9_]+/[A-Z0-9_]+/[A-Za-z0-9_]{16,}))(?![A-Za-z0-9_])"
        ),
        prefix_shown="hooks.slack.com/services/",
    ),
    _TokenRule(
        "google-api-key",
        "Google API key",
        ("AIza",),
        _token("AIza", rf"[{_B64URL}]{{35}}", _B64URL),
    ),
    _TokenRule(
        "sendgrid",
        "SendGrid API key",
        ("SG.",),
        _token(r"SG\.", rf"[{_B64URL}]{{22}}\.[{_B64URL}]{{43}}", _B64URL),
    ),
    _TokenRule(
        "huggingface",
        "Hugging Face token",
        ("hf_",),
        _token("hf_", "[A-Za-z0-9]{30,40}", "A-Za-z0-9_"),
    ),
    _TokenRule(
        "jwt",
        "JSON Web Token",
        ("eyJ",),
        # header (base64 of `{"`), payload, signature; the signature is the random body
        _token("eyJ", rf"[{_B64URL}]{{8,}}\.[{_B64URL}]{{8,}}\.(?P<sig>[{_B64URL}]{{16,}})", _B64URL),
        body_group="sig",
    ),
)


def _token_hits(source: _Source) -> Iterator[_Hit]:
    text = source.text
    for rule in _TOKEN_RULES:
        if not any(literal in text for literal in rule.literals):
            continue
        for match in rule.pattern.finditer(text):
            if _random_body(match[rule.body_group]):
                excerpt = rule.prefix_shown + redact(match["tok"])
                yield _Hit(rule.kind, match.start("tok"), match.end("tok"), excerpt, rule.label)


# A Telegram bot token is found from its colon (a literal the regex engine finds fast), then its bot
# id: digits, 8 to 10 of them, or 5 to 12 when the secret starts with AA as every bot token's does.
_TELEGRAM_SECRET = re.compile(rf":(?P<body>[{_B64URL}]{{35}})(?![{_B64URL}])")
_TELEGRAM_BOT_ID = re.compile(r"(?<![A-Za-z0-9_/.-])(?<!\d:)\d{5,12}\Z")  # not `10:30:…`
_TELEGRAM_PLAIN_ID = range(8, 11)


def _telegram_hits(source: _Source) -> Iterator[_Hit]:
    text = source.text
    for match in _TELEGRAM_SECRET.finditer(text):
        colon = match.start()
        bot_id = _TELEGRAM_BOT_ID.search(text, max(0, colon - 12), colon)
        if bot_id is None or not (match["body"].startswith("AA") or len(bot_id[0]) in _TELEGRAM_PLAIN_ID):
            continue
        if _random_body(match["body"]):
            start = colon - len(bot_id[0])
            token = text[start : match.end()]
            yield _Hit("telegram-bot", start, match.end(), redact(token), "Telegram bot token")


# The secret half of an AWS key pair: 40 base64 characters after a cue that names it.
_AWS_SECRET = _Caseless.compile(
    r"(?:aws_?secret_?(?:access_?)?key|secret_?access_?key|secret access key)"
    r"[\"'`*\]]*[ \t]*(?:=>|[:=：＝|])?[ \t]*[\"'`]?"
    r"(?P<tok>[a-z0-9/+]{40})(?![a-z0-9/+=])"
)
_AWS_SECRET_CUES = ("aws_secret", "awssecret", "secret_access", "secretaccess", "secret access")


def _aws_secret_hits(source: _Source) -> Iterator[_Hit]:
    if not any(cue in source.folded for cue in _AWS_SECRET_CUES):
        return
    for match in source.finditer(_AWS_SECRET):
        token = source.text[match.start("tok") : match.end("tok")]
        if _random_body(token, 2) and shannon_entropy(token) >= 3.5:
            start, end = match.span("tok")
            yield _Hit("aws-secret-key", start, end, redact(token), "AWS secret access key")


# --- private key blocks --------------------------------------------------------------------------

_PRIVATE_KEY_BEGIN = re.compile(
    r"-----BEGIN (?:RSA |EC |DSA |OPENSSH |PGP |ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----"
)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/=]{32,}")
_BLOCK_REACH = 20_000  # how far after BEGIN its END line may be
_BODY_REACH = 300  # the base64 body starts within this many characters (after any PEM headers)


def _private_key_hits(source: _Source) -> Iterator[_Hit]:
    text = source.text
    if "PRIVATE KEY" not in text:
        return
    next_end = 0  # the first END marker at or after the current BEGIN (-1: none left)
    for match in _PRIVATE_KEY_BEGIN.finditer(text):
        if 0 <= next_end < match.end():
            next_end = text.find("-----END ", match.end())  # moves forward only: one pass over the text
        end_marker = next_end if 0 <= next_end - match.end() <= _BLOCK_REACH else -1
        body_end = text.find("-----", match.end(), match.end() + _BODY_REACH)  # END, or another BEGIN
        body_end = body_end if body_end >= 0 else match.end() + _BODY_REACH
        if not _BASE64_RUN.search(text, match.end(), body_end):
            continue  # a header quoted in prose or with a placeholder body
        block_end = text.find("-----", end_marker + 9, end_marker + 100) + 5 if end_marker >= 0 else 0
        yield _Hit("private-key", match.start(), max(block_end, match.end()), match[0], "private key block")


# --- password assignments ------------------------------------------------------------------------

_PASSWORD_QUALIFIER = r"(?:[ \t]*[(（][^)）\n]{1,20}[)）])?"  # `password (prod):`, `密码（生产）：`
_PASSWORD_SEPARATOR = (
    r"(?:[ \t]+(?:for|of)[ \t]+[^\n:：=|]{1,30}?)?"  # `password for the router:`
    + _PASSWORD_QUALIFIER
    + r"[\"'`*]*(?:[ \t]*(?::=|=>|->|[:=：＝])[ \t]*|[ \t]*\|[ \t]+"  # `:`, `=`, a table cell
    r"|[ \t]+(?:is now|is|was|set to|changed to|reset to)[ \t]+)"
)
_PASSWORD_EN = _Caseless.compile(
    r"(?P<cue>password|passwd|passphrase|pwd)(?![A-Za-z0-9_])[\"'`*\])]*" + _PASSWORD_SEPARATOR
)
# `pass` alone is a common word (`first pass:`, `CI pass:`): a cue only after what it opens
_PASS_EN = _Caseless.compile(r"(?P<cue>pass)(?![A-Za-z0-9_])[\"'`*\])]*" + _PASSWORD_SEPARATOR)
_PASS_OWNER = re.compile(
    r"(?i)(?<![a-z])(?:ssh|sftp|ftp|scp|rdp|vnc|vpn|wifi|wi-fi|db|database|mysql|postgres|pg|redis|mongo"
    r"|smtp|imap|mail|email|root|sudo|admin|login|user|server|router|account|app)[ _-]?\Z"
)
_PASSWORD_ZH = re.compile(
    r"(?P<cue>密码|密碼|口令)[*\"'`」】]*"
    + _PASSWORD_QUALIFIER
    + r"[*\"'`」】]*[ \t]*(?:[:=：＝|]|是|为|為|设为|设置为|设置成|改为|改成|已保存为|保存)?[ \t]*"
)
_QUOTES = {'"': '"', "'": "'", "`": "`", "“": "”", "‘": "’", "「": "」"}
_BRACKETS = {"(": ")", "（": "）", "[": "]", "【": "】"}
_TRAILING_PUNCTUATION = ".,;:)]}'\"`*，。；：、）】」”’"
_PLACEHOLDER_WORDS = frozenset(
    """none null nil empty required optional hidden redacted masked secret secrets todo tbd na n/a unknown
    changeme default test example sample placeholder password passwd pass pwd string value hunter2
    sha1 sha256 sha512 md5 bcrypt argon2 argon2id pbkdf2 scrypt base64 utf-8 utf8 2fa mfa totp otp""".split()
)
_PASSWORD_REFERENCES = (
    "password", "passwd", "your", "example", "changeme", "placeholder", "redacted", "xxx", "***",
    "...", "…", "1password", "keychain", "vault", "bitwarden", "lastpass", "environ", "getenv",
    "process.env", "${", "{{", "://",
)  # fmt: skip
# `os.environ["X"]`, `config.get(server,`, `settings.DB_PASSWORD`, `getpass()`: code, not a value
_CODE_REFERENCE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:[(\[].*)?|[A-Za-z_]\w*[(\[].*")
# Dates, times, version numbers, hash and cipher names: `2026-10-31`, `v1.2.3`, `SHA-256`, `argon2id`
_NOT_A_PASSWORD = re.compile(
    r"(?i)[\d/:.,+-]*\d[/:.,+-][\d/:.,+tz-]*|v\d+(?:\.\d+)+\S*"
    r"|(?:sha|md|argon|pbkdf|bcrypt|scrypt|aes|rsa|hmac|utf|base|ed|x)[-_]?\d+[a-z\d-]*"
)
_HTML_ENTITY = re.compile(r"&(?:quot|amp|lt|gt|apos|nbsp|#x?[0-9a-f]+)\b", re.IGNORECASE)
_PASSWORD_LENGTH = range(6, 101)
_TYPED = re.compile(r"[!-~]+")  # printable ASCII, no space
_VALUE_REACH = 256  # characters after the cue read for a value (a line may be a whole minified file)


def _password_hits(source: _Source) -> Iterator[_Hit]:
    text = source.text
    matches: list[re.Match[str]] = []
    if "pass" in source.folded or "pwd" in source.folded:
        matches.extend(source.finditer(_PASSWORD_EN))
        matches.extend(source.finditer(_PASS_EN))
    if "密码" in text or "密碼" in text or "口令" in text:
        matches.extend(_PASSWORD_ZH.finditer(text))
    for match in matches:
        if match["cue"].lower() == "password" and text[match.start() - 1 : match.start()] == "1":
            continue  # 1Password, the password manager
        cue = text[match.start("cue") : match.end("cue")]
        if cue.lower() == "pass":
            owner = _PASS_OWNER.search(text, max(0, match.start() - 9), match.start())
            if owner is None:
                continue
            cue = text[owner.start() : match.end("cue")]
        reach = match.end() + _VALUE_REACH
        line_end = text.find("\n", match.end(), reach)
        parsed = _password_value(text[match.end() : line_end if line_end >= 0 else reach])
        if parsed is None or not _plausible_password(parsed[1], parsed[2]):
            continue
        start, value = match.end() + parsed[0], parsed[1]
        excerpt = f"{cue} = ****"
        yield _Hit("password", start, start + len(value), "****" if value in excerpt else excerpt,
                   "password assignment")  # fmt: skip


def _password_value(rest: str) -> tuple[int, str, bool] | None:
    """The value after a password cue: (offset in `rest`, value, whether it was quoted)."""
    rest = rest.rstrip("\r")
    if not rest:
        return None
    opener = rest[0]
    closer = _QUOTES.get(opener) or _BRACKETS.get(opener)
    if closer:
        end = rest.find(closer, 1)
        if end <= 1:
            return None
        return 1, rest[1:end], opener in _QUOTES
    value = _TYPED.match(rest)  # up to a space, or to where a Chinese sentence goes on
    typed = value[0].rstrip(_TRAILING_PUNCTUATION) if value else ""
    return (0, typed, False) if typed else None


def _plausible_password(value: str, quoted: bool) -> bool:
    """True for a value a person would type as a password; False for placeholders and references."""
    if len(value) not in _PASSWORD_LENGTH or not value.isascii() or not value.isprintable():
        return False
    if any(char.isspace() for char in value) or len(set(value)) < 3:
        return False
    return not _is_reference(value) and _password_shaped(value, quoted)


def _is_reference(value: str) -> bool:
    """A placeholder, a pointer to where the password is kept, code, a path, a date or an algorithm."""
    lowered = value.lower()
    if lowered in _PLACEHOLDER_WORDS or any(reference in lowered for reference in _PASSWORD_REFERENCES):
        return True
    if value[0] in "$%<{/~\\" or value.startswith(("./", "../")):
        return True
    return bool(
        _CODE_REFERENCE.fullmatch(value) or _NOT_A_PASSWORD.fullmatch(value) or _HTML_ENTITY.search(value)
    )


def _password_shaped(value: str, quoted: bool) -> bool:
    """Digits only (a PIN), letters with digits or symbols, or letters alone when quoted."""
    has_letter = any(char.isalpha() for char in value)
    has_digit = any(char.isdigit() for char in value)
    has_symbol = any(not char.isalnum() and char != "_" for char in value)  # `user_pass` is a name
    if not has_letter:
        return has_digit and not has_symbol
    if has_digit or has_symbol:
        return True
    return quoted and len(value) >= 8


# --- passwords in URLs ------------------------------------------------------------------------

# `scheme://user:password@host`: found from `://`, then the user info up to the last `@` before the
# host (a password typed into a URL may hold `@`, `#` or `?` unescaped)
_URL_USERINFO = re.compile(
    r"://(?P<user>[^\s:/?#@\[\]\"'`<>]{0,64}):(?P<pw>[^\s/\"'`<>]{1,256})@(?=[A-Za-z0-9\[])"
)
_URL_PLACEHOLDERS = (
    frozenset(
        """pass pw pwd passwd password secret token key apikey api_key api-key accesstoken access_token pat
    user username login auth oauth2 x-oauth-basic x-access-token xxxx""".split()
    )
    | _PLACEHOLDER_WORDS
)
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # `GITHUB_TOKEN`, `DB_PASSWORD`
_NAMED_IN_CAPITALS = ("token", "secret", "key", "pass", "pwd")  # `MYTOKEN`, `APIKEY`: a name
_URL_PASSWORD_LENGTH = range(4, 257)


def _url_password_hits(source: _Source) -> Iterator[_Hit]:
    text = source.text
    if "://" not in text or "@" not in text:
        return
    for match in _URL_USERINFO.finditer(text):
        user, value = match["user"], match["pw"]
        if _url_placeholder(user, value):
            continue
        start, end = match.span("pw")
        user_shown = user if len(user) <= 20 else user[:20] + "…"
        yield _Hit("url-password", start, end, f"://{user_shown}:****@", "password in a URL")


def _url_placeholder(user: str, value: str) -> bool:
    """A password a URL only pretends to hold: a placeholder, a variable, a reference, the user
    name again (`postgres:postgres@localhost`, a well-known default) or anonymous FTP's e-mail."""
    if len(value) not in _URL_PASSWORD_LENGTH or not value.isascii() or len(set(value)) < 3:
        return True
    if value == user or user.lower() in ("anonymous", "anon") or (not user and ":" in value):
        return True  # a default, anonymous FTP, a CVS root (`cvs://:pserver:anoncvs@host`)
    lowered = value.lower()
    if lowered in _URL_PLACEHOLDERS or any(reference in lowered for reference in _PASSWORD_REFERENCES):
        return True
    if value.isupper() and any(word in lowered for word in _NAMED_IN_CAPITALS):
        return True
    return value[0] in "$%<{[*(" or _ENV_NAME.fullmatch(value) is not None or _has_placeholder(value)


# --- high-entropy values after a cue -------------------------------------------------------------

_ENTROPY_CUE = _Caseless.compile(
    r"(?P<cue>key|token|secret|bearer|auth|authorization|credentials?|sig|cookie|密钥|秘钥|令牌|凭证|凭据|私钥)"
    r"(?![A-Za-z0-9_])"
    r"[\"'`*\])]*"
    r"(?:[ \t]*(?::=|=>|->|[:=：＝])[ \t]*|[ \t]*\|[ \t]+|[ \t]+(?:is|was)[ \t]+|[ \t]+)"
    r"[\"'`(（\[]?(?:(?:bearer|basic|token)[ \t]+)?"
    r"(?P<tok>[a-z0-9+/=_.-]{24,})"
)
_ENTROPY_CUE_LITERALS = ("key", "token", "secret", "bearer", "auth", "credential", "sig", "cookie",
                         "密钥", "秘钥", "令牌", "凭证", "凭据", "私钥")  # fmt: skip
_NOT_A_SECRET_CONTEXT = re.compile(
    r"(?i)public|publishable|\bpub\b|fingerprint|\bsha\d*\b|\bhash|commit|checksum|digest|integrity|公钥|指纹"
)
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_SRI = re.compile(r"sha(?:1|256|384|512)-")
_VERSION = re.compile(r"v?\d+\.\d+")
_HEX = re.compile(r"[0-9a-fA-F]+")
_SEPARATORS = re.compile(r"[-_.]")
_WORD_CHUNK = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")
_WORDLIKE = re.compile(r"(?i)(?=.*[aeiouy])(?!.*[^aeiouy]{4}).{4,}")
_PATH_SEGMENT = re.compile(r"[A-Za-z0-9][a-z0-9._-]*|")
_MIN_ENTROPY_LENGTH = 24
_MIN_HEX_LENGTH = 32
_MIN_HEX_ENTROPY = 3.0
_ENTROPY_SHARE = 0.8  # of the most a string of its length and alphabet can have
_MAX_WORDINESS = 0.7
_CONTEXT_BEFORE_CUE = 24


def _entropy_hits(source: _Source) -> Iterator[_Hit]:
    text = source.text
    if not any(literal in source.folded for literal in _ENTROPY_CUE_LITERALS):
        return
    for match in source.finditer(_ENTROPY_CUE):
        token = text[match.start("tok") : match.end("tok")].rstrip(".-=_")
        reach = max(0, match.start() - _CONTEXT_BEFORE_CUE)
        context = text[max(reach, text.rfind("\n", reach, match.start()) + 1) : match.end("cue")]
        if _NOT_A_SECRET_CONTEXT.search(context) or not _looks_random(token):
            continue
        start = match.start("tok")
        yield _Hit("high-entropy", start, start + len(token), redact(token), "high-entropy string")


def _looks_random(token: str) -> bool:
    """A random credential rather than a hash, UUID, path, identifier or version string."""
    if len(token) < _MIN_ENTROPY_LENGTH or _has_placeholder(token):
        return False
    if _UUID.search(token) or _SRI.match(token) or _VERSION.match(token) or _is_path(token):
        return False
    core = _random_core(token)
    if not any(char.isalpha() for char in core) or not any(char.isdigit() for char in core):
        return False
    entropy = shannon_entropy(core)
    if _HEX.fullmatch(core):
        return len(core) >= _MIN_HEX_LENGTH and entropy >= _MIN_HEX_ENTROPY
    most = math.log2(min(len(core), _alphabet_size(core)))
    return entropy >= _ENTROPY_SHARE * most and _wordiness(core) <= _MAX_WORDINESS


def _random_core(token: str) -> str:
    """The longest part between separators when it is long enough alone (`sk-or-v1-<core>`), else all."""
    longest = max(_SEPARATORS.split(token), key=len)
    return longest if len(longest) >= _MIN_ENTROPY_LENGTH else token


def _alphabet_size(token: str) -> int:
    """The size of the alphabet `token` seems drawn from: digits, lower and upper case, symbols."""
    return (
        10 * any(char.isdigit() for char in token)
        + 26 * any(char.islower() for char in token)
        + 26 * any(char.isupper() for char in token)
        + 4 * any(not char.isalnum() for char in token)
    )


def _is_path(token: str) -> bool:
    if token.startswith(("/", "./", "../")):
        return True
    return "/" in token and "+" not in token and all(_PATH_SEGMENT.fullmatch(s) for s in token.split("/"))


def _wordiness(token: str) -> float:
    """Share of `token`'s letters in word-like chunks (`Account`, `name`: four or more letters with a
    vowel and no four consonants in a row); near 1 for identifiers, low for random text."""
    letters = sum(char.isalpha() for char in token)
    in_words = sum(len(chunk) for chunk in _WORD_CHUNK.findall(token) if _WORDLIKE.fullmatch(chunk))
    return in_words / letters if letters else 0.0


# --- assembling the findings ---------------------------------------------------------------------

_DETECTORS: tuple[Callable[[_Source], Iterator[_Hit]], ...] = (
    _private_key_hits,
    _token_hits,
    _telegram_hits,
    _aws_secret_hits,
    _url_password_hits,
    _password_hits,
    _entropy_hits,
)


def _without_overlaps(hits: list[_Hit]) -> list[_Hit]:
    """One hit per stretch of text: in each run of overlapping hits the most specific kinds win."""
    kept: list[_Hit] = []
    for cluster in _overlapping_runs(sorted(hits, key=lambda h: h.start)):
        chosen: list[_Hit] = []
        for hit in sorted(cluster, key=lambda h: (_PRECEDENCE[h.kind], h.start)):
            if all(hit.end <= other.start or other.end <= hit.start for other in chosen):
                chosen.append(hit)
        kept.extend(sorted(chosen, key=lambda h: h.start))
    return kept


def _overlapping_runs(hits: list[_Hit]) -> Iterator[list[_Hit]]:
    """Hits sorted by start, grouped into runs whose spans chain together (almost always one hit)."""
    run: list[_Hit] = []
    run_end = 0
    for hit in hits:
        if run and hit.start >= run_end:
            yield run
            run = []
        run_end = max(run_end, hit.end) if run else hit.end
        run.append(hit)
    if run:
        yield run


def _located(text: str, hits: list[_Hit]) -> list[Secret]:
    """Line and column of each hit (sorted by offset), dropping those on a line with an allow marker.

    Newlines are counted between consecutive hits only, so the text is walked once.
    """
    found: list[Secret] = []
    line, line_start, scanned = 1, 0, 0
    allowed: dict[int, bool] = {}
    for hit in hits:
        newlines = text.count("\n", scanned, hit.start)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", scanned, hit.start) + 1
        scanned = hit.start
        if line not in allowed:
            allowed[line] = _has_allow_marker(text, line_start)
        if not allowed[line]:
            found.append(Secret(hit.kind, line, hit.start - line_start + 1, hit.excerpt, hit.label))
    return found


def _has_allow_marker(text: str, line_start: int) -> bool:
    line_end = text.find("\n", line_start)
    line_end = len(text) if line_end < 0 else line_end
    return any(text.find(marker, line_start, line_end) >= 0 for marker in ALLOW_MARKERS)
