"""Passwords in broker and result-backend URLs (``redis://:secret@host``,
``amqp://user:secret@host//``): found in source text, and masked wherever jobcheck shows
a line of it, so no output repeats a secret (JOB-03 credentials-in-source)."""

from __future__ import annotations

import re
from dataclasses import dataclass

# The URL schemes of Celery's and Kombu's brokers and result backends, and of the Redis
# and RabbitMQ clients RQ, Dramatiq, Huey, arq and taskiq connect with
# (kombu/transport/__init__.py TRANSPORT_ALIASES; celery/app/backends.py BACKEND_ALIASES,
# with ``db+`` for SQLAlchemy URLs).
SCHEMES = (
    r"redis|rediss|sentinel|amqp|amqps|pyamqp|librabbitmq|qpid|sqs|mongodb(?:\+srv)?"
    r"|couchdb|cassandra|elasticsearch|arangodb|dynamodb|(?:db|sqla)\+[a-z0-9+]+"
)
URL = re.compile(
    rf"\b(?P<scheme>{SCHEMES})://(?P<user>[^:/@\s\"'`]*):(?P<password>[^@/\s\"'`]+)@"
    r"(?P<host>\[[^\]\s]*\]|[^/:?#\s\"'`]*)",
    re.IGNORECASE,
)
PREFILTER = rb"(?i)\b(?:" + SCHEMES.encode() + rb")://[^:/@\s\"']*:[^@/\s\"']+@"

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


def mask(text: str) -> str:
    """``text`` with the password of every such URL replaced by asterisks, as many as it
    has characters (a shown line keeps its columns for the underline)."""
    if "://" not in text:
        return text

    def masked(m: re.Match[str]) -> str:
        start, end = m.span("password")
        return m.group(0)[: start - m.start()] + "*" * (end - start) + m.group(0)[end - m.start() :]

    return URL.sub(masked, text)
