"""Secrets in text: passwords in URLs (``redis://:secret@host``, ``amqp://user:secret@host//``),
``password=``/``token=`` settings and ``--password``/``redis-cli -a`` arguments.

:func:`find` reads broker and result-backend URLs with a password in source (JOB-03
credentials-in-source); :func:`mask` is the one masking every output applies to text
taken from the project (messages, source lines, review and job listings, baselines), so
no output repeats a secret.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# The URL schemes of Celery's and Kombu's brokers and result backends, and of the Redis
# and RabbitMQ clients RQ, Dramatiq, Huey, arq and taskiq connect with
# (kombu/transport/__init__.py TRANSPORT_ALIASES; celery/app/backends.py BACKEND_ALIASES,
# with ``db+`` for SQLAlchemy URLs).
SCHEMES = (
    r"redis|rediss|sentinel|amqp|amqps|pyamqp|librabbitmq|qpid|sqs|mongodb(?:\+srv)?"
    r"|couchdb|couchbase|cassandra|elasticsearch|arangodb|dynamodb|riak|consul|etcd"
    r"|kafka|confluentkafka|zookeeper|sqlalchemy|(?:db|sqla)\+[a-z0-9+]+"
)
# The password is everything between the user's colon and the last "@" before the host
# (``redis://:p@ss@host``): a password with an unescaped "@" is still one password.
# Bounded (a user of 128 characters, a password of 256): an unbounded run would be
# rescanned from every "scheme://" in a hostile line, quadratic in its length.
_USERINFO = r"(?P<user>[^\s:/?#\"'`<>]{0,128}):(?P<password>[^\s\"'`<>]{0,256})@"
URL = re.compile(
    rf"\b(?P<scheme>{SCHEMES})://{_USERINFO}(?P<host>\[[^\]\s]*\]|[^/:?#@\s\"'`<>]*)",
    re.IGNORECASE,
)
# Whitespace spelled out (not ``\s``): the prefilter matches this with RE2 too.
PREFILTER = rb"(?i)\b(?:" + SCHEMES.encode() + rb")://[^:/@ \t\n\r\f\v\"']*:[^ \t\n\r\f\v\"']*@"

LOCAL_HOSTS = frozenset({"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]", ""})
# Passwords that stand for one in a template, a README or a developer's machine.
PLACEHOLDER_WORDS = (
    "guest",
    "password",
    "passwd",
    "pass",
    "pwd",
    "secret",
    "changeme",
    "change-me",
    "change_me",
    "example",
    "test",
    "dev",
    "admin",
    "root",
    "redis",
    "rabbit",
    "celery",
    "user",
    "default",
    "dummy",
    "fake",
    "local",
    "mypass",
    "foo",
    "bar",
)
_TEMPLATE = re.compile(r"[{}<>$%*]|^x+$|^\.+$", re.IGNORECASE)
MASK = "****"


@dataclass(frozen=True)
class CredentialURL:
    line: int
    column: int
    """1-based, where the URL starts."""
    end_column: int
    masked: str
    """The URL up to its host, its password masked (``redis://:****@cache.internal``)."""
    local: bool
    """On a local host (localhost, a loopback address, a compose service's bare name)."""
    placeholder: bool
    """Its password is a word that stands for one (``guest``, ``changeme``)."""
    templated: bool
    """Its password is filled in elsewhere (``{password}``, ``%(pw)s``, ``$PW``, ``***``)."""


def find(text: str) -> list[CredentialURL]:
    """Every URL with a password in ``text``, outside comment lines."""
    found = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "://" not in line or line.lstrip().startswith("#"):
            continue
        for match in URL.finditer(line):
            host = match.group("host").lower()
            password = match.group("password")
            found.append(
                CredentialURL(
                    line=number,
                    column=match.start() + 1,
                    end_column=match.end() + 1,
                    masked=_masked(match),
                    local=host in LOCAL_HOSTS or ("." not in host and not host[:1].isdigit()),
                    placeholder=is_placeholder(password, match.group("user")),
                    templated=_TEMPLATE.search(password) is not None,
                )
            )
    return found


def is_placeholder(password: str, user: str) -> bool:
    if password == user:
        return True
    lowered = password.lower()
    return any(word in lowered for word in PLACEHOLDER_WORDS)


def _masked(match: re.Match[str]) -> str:
    return f"{match.group('scheme')}://{match.group('user')}:{MASK}@{match.group('host')}"


# -- masking ------------------------------------------------------------------------------

# Any scheme: a password in a URL is a secret whatever the service (couchbase://,
# mongodb+srv://, https://user:token@host).
_ANY_URL = re.compile(rf"\b[A-Za-z][A-Za-z0-9+.-]{{0,31}}://{_USERINFO}", re.IGNORECASE)
# A URL shortened in a message (``redis://:s3c...``): what is left of its password.
_CUT_URL = re.compile(
    r"\b[A-Za-z][A-Za-z0-9+.-]{0,31}://[^\s:/?#\"'`<>@]{0,128}:(?P<password>[^\s\"'`<>@]{0,256}?)(?:\.\.\.|…)"
    r"(?=[\s\"'`<>]|$)"
)
_KEY_WORDS = r"password|passwd|passphrase|pwd|secret|token|(?:secret|access|api|private)[_-]?key"
_VALUE = r"(?P<value>\"(?:[^\"\\\n]|\\.)*\"|'[^'\n]*'|[^\s\"'`,;&|(){}\[\]<>]+)"
# ``password=s3cret``, ``PGPASSWORD=s3cret``, ``--token='s3cret'``, ``db_pass=s3cret``.
_ASSIGNED = re.compile(
    rf"(?<![\w.-])[\w.-]*(?:{_KEY_WORDS}|(?<![^\W_])pass)[\"']?[ \t]*=[ \t]*{_VALUE}",
    re.IGNORECASE,
)
# ``"password": "s3cret"`` (JSON), ``REDIS_PASSWORD: s3cret`` (YAML, at a line's start);
# not prose ("has no password: set one").
_COLON = re.compile(
    rf"(?:[\"'][\w.-]*(?:{_KEY_WORDS})[\"']|^[ \t-]*[\w.-]*(?:{_KEY_WORDS}))[ \t]*:[ \t]*{_VALUE}",
    re.IGNORECASE | re.MULTILINE,
)
# ``--password s3cret``, and a command written as a list: ``"--password", "s3cret"``.
_SEPARATOR = r"(?:[ \t]+|[\"'][ \t]*,[ \t]*)"
_FLAG = re.compile(
    rf"(?<![\w-])--(?:[\w-]*[_-])?(?:password|passwd|passphrase|pass|pwd|secret|token)"
    rf"(?![\w-]){_SEPARATOR}(?!-){_VALUE}",
    re.IGNORECASE,
)
# Short options that take a password: ``redis-cli -a s3cret``, ``mysql -ps3cret``.
_SHORT_FLAG = re.compile(
    rf"\bredis-cli\b[^|;&\n]*?(?<![\w-])-a{_SEPARATOR}(?!-){_VALUE}"
    r"|\bmysql(?:dump|admin)?\b[^|;&\n]*?(?<![\w-])-p(?P<attached>[^\s\"'`,;&|]+)"
)
# Values that name a secret rather than hold one: ``$REDIS_PASSWORD``, ``${PW}``,
# ``%(password)s``, ``{password}``, ``<password>``, ``settings.PASSWORD``, ``****``.
_REFERENCE = re.compile(
    r"\$\{?[A-Za-z_]\w*\}?|\$\(.*|%\(\w+\)s|\{[\w.]*\}|<[^<>]*>|\*+"
    r"|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"
)
_HINTS = ("://", "pass", "pwd", "secret", "token", "key", "-a", "-p")


def secret_spans(text: str) -> list[tuple[int, int]]:
    """The ``[start, end)`` spans of ``text`` that hold a secret, merged and in order:
    the password of a URL with any scheme, the value of a ``password=``/``token=``/
    ``secret=`` setting (quotes kept outside the span) and of a ``--password``-like
    option, and whatever is left of a URL's password where a message cut it short."""
    lowered = text.lower()
    if not any(hint in lowered for hint in _HINTS):
        return []
    spans = [m.span("password") for m in _ANY_URL.finditer(text)]
    spans += [m.span("password") for m in _CUT_URL.finditer(text)]
    for pattern in (_ASSIGNED, _COLON, _FLAG, _SHORT_FLAG):
        for match in pattern.finditer(text):
            spans.extend(_value_span(text, match))
    return _merged([(start, end) for start, end in spans if end > start])


def _value_span(text: str, match: re.Match[str]) -> list[tuple[int, int]]:
    if match.groupdict().get("attached"):
        return [match.span("attached")]
    start, end = match.span("value")
    if start < 0:
        return []
    if text[start] in "\"'":
        start, end = start + 1, end - 1
    value = text[start:end]
    if not value or _REFERENCE.fullmatch(value):
        return []
    if text[end : end + 1] in ("(", "[") and text[start - 1 : start] not in "\"'":
        return []  # a call or a subscript: code that fetches the secret
    return [(start, end)]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def mask(text: str) -> str:
    """``text`` with every secret :func:`secret_spans` finds replaced by ``****``, the rest
    kept so the setting stays recognizable (``redis://:****@cache.internal``)."""
    spans = secret_spans(text)
    if not spans:
        return text
    out, position = [], 0
    for start, end in spans:
        out += [text[position:start], MASK]
        position = end
    out.append(text[position:])
    return "".join(out)
