"""Words in identifiers: ``sendPasswordReset_email`` is "send password reset email".

Checks that judge a job by its name (SCL-20) match configured words on word
boundaries, so "report" matches ``build_report`` and ``weekly_reports`` but not
``reporter_id``, and "sign_in" matches ``signin_link`` as well as ``SignInCode``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

_PARTS = re.compile(r"[^A-Za-z0-9]+")
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+[a-z]*")


@functools.lru_cache(maxsize=4096)
def _identifier_words(name: str) -> tuple[str, ...]:
    """Lower-cased words of a snake_case, camelCase, kebab-case or dotted name."""
    words: list[str] = []
    for part in _PARTS.split(name):
        words.extend(w.lower() for w in _WORDS.findall(part))
    return tuple(words)


def identifier_words(name: str) -> list[str]:
    """The lower-case words of an identifier (snake_case, camelCase, dotted)."""
    return list(_identifier_words(name))


def matching_word(name: str, phrases: Iterable[str]) -> str | None:
    """The first of ``phrases`` that ``name`` contains as whole words (a plural "s" or
    "es" allowed), ignoring how either spells the boundaries between words."""
    ordered = tuple(phrases)
    spellings, longest = _spellings(ordered)
    words = _identifier_words(name)
    best: int | None = None
    for start in range(len(words)):
        joined = ""
        for word in words[start:]:
            joined += word
            if len(joined) > longest:
                break
            index = spellings.get(joined)
            if index is not None and (best is None or index < best):
                best = index
    return ordered[best] if best is not None else None


@functools.lru_cache(maxsize=64)
def _spellings(phrases: tuple[str, ...]) -> tuple[dict[str, int], int]:
    """Each accepted spelling of the phrases (words run together, plural forms) with
    the position of its phrase, and the longest spelling's length."""
    spellings: dict[str, int] = {}
    for index, phrase in enumerate(phrases):
        target = "".join(_identifier_words(phrase))
        if target:
            for spelling in (target, f"{target}s", f"{target}es"):
                spellings.setdefault(spelling, index)
    return spellings, max(map(len, spellings), default=0)


BEST_EFFORT_WORDS = (
    "telemetry",
    "metric",
    "metrics",
    "stats",
    "analytics",
    "track",
    "emit",
    "record",
    "instrument",
    "observe",
    "prometheus",
    "statsd",
    "datadog",
    "sentry",
    "breadcrumb",
    "log",
)
"""Names of helpers called for side work that is best effort by design (``optional_
telemetry(...)``, ``emit_metric(...)``, ``_record_attempt(...)``): one that swallows its
own errors, called as a statement, loses none of the job's work."""


OPS_REPORT_WORDS = (
    "slack",
    "alert",
    "alerts",
    "error",
    "exception",
    "admins",
    "sentry",
    "pagerduty",
    "opsgenie",
    "ops",
    "log",
)
"""Words of sends and helpers that report to the team (``send_slack_error``,
``log_and_send_slack_message``, ``mail_admins``), not to the job's users."""
RECIPIENT_WORDS = (
    "email",
    "customer",
    "user",
    "member",
    "subscriber",
    "buyer",
    "sms",
    "notify",
    "notification",
    "invoice",
    "receipt",
)
"""Words that say a send reaches the job's users: they win over :data:`OPS_REPORT_WORDS`
(``log_and_email_customer``)."""


def reports_to_the_team(name: str) -> bool:
    """Whether a send, or a helper that sends, named ``name`` reports to the team (an ops
    alert, a failure report) rather than reaching the job's users."""
    last = name.rsplit(".", 1)[-1]
    if last in ("mail_admins", "mail_managers"):
        return True  # django/core/mail/__init__.py: to settings.ADMINS / MANAGERS
    if matching_word(name, RECIPIENT_WORDS) is not None:
        return False
    return matching_word(name, OPS_REPORT_WORDS) is not None
