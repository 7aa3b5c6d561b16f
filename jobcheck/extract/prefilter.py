"""Deciding from a file's raw bytes whether it can matter to any check, before parsing.

Most files of a large project mention no job system at all (about 95% of saleor's), and
parsing is the dominant cost, so a file is parsed only when its bytes mention something
a recognizer acts on: a job library, an enqueue method, a Celery or Django transaction
setting, a task base class. The patterns are deliberately wider than the recognizers;
the fixture suite runs with and without the prefilter to prove it drops nothing.
"""

from __future__ import annotations

import re

_RELEVANT = re.compile(
    rb"\b(?:celery|dramatiq|rq|django_rq|rq_scheduler|periodiq|kombu)\b"
    rb"|\.(?:delay|apply_async|delay_on_commit|apply_async_on_commit|si?|signature"
    rb"|send_with_options|enqueue|enqueue_call|enqueue_in|enqueue_at|send_task)\s*\("
    rb"|(?m:^[ \t]*(?:CELERY\w*|BROKER_\w+|(?:task|broker|beat|worker|result)_\w+)\s*[:=])"
    rb"|ATOMIC_REQUESTS|\.Task\b"
)


# SCL-16 looks at request handlers, which rarely mention a job system: a web module
# matters when it also imports something slow (a mail, HTTP, PDF/export or image
# library) or names Django's mail functions.
_WEB = re.compile(
    rb"\b(?:django|rest_framework|flask|quart|fastapi|starlette)\b"
    rb"|@[\w.]+\.(?:route|get|post|put|patch|delete|api_route)\s*\(\s*[\"']/"
)
_SLOW_WORK = re.compile(
    rb"(?m:^[ \t]*(?:from|import)[ \t]+(?:requests|httpx|urllib3|urllib\.request|smtplib"
    rb"|aiosmtplib|flask_mail|fastapi_mail|sendgrid|templated_email|twilio|slack_sdk|slack"
    rb"|firebase_admin|pywebpush|pyfcm|apns2|boto3|weasyprint|reportlab|xhtml2pdf|pdfkit"
    rb"|openpyxl|xlsxwriter|PIL|cv2|sorl)\b)"
    rb"|(?m:^[ \t]*from[ \t]+urllib[ \t]+import[^\n]*\brequest\b)"
    rb"|\bdjango\.core\.mail\b|from[ \t]+django\.core[ \t]+import[^\n]*\bmail\b"
    rb"|\bemail_user\b|\.(?:thumbnail|resize)\s*\("
)

# ... and when it has something that looks like a handler: a ``request`` parameter, a
# view class, a route decorator or registration.
_HANDLER = re.compile(
    rb"\(\s*(?:self\s*,\s*)?request\b|View|api_view|\bRoute\s*\(|add_url_rule"
    rb"|add_api_route|\.(?:route|get|post|put|patch|delete|api_route|websocket)\s*\(\s*[\"']/"
)


def may_matter(data: bytes) -> bool:
    if _RELEVANT.search(data) is not None:
        return True
    return (
        _WEB.search(data) is not None
        and _SLOW_WORK.search(data) is not None
        and _HANDLER.search(data) is not None
    )


def decorated_with(aliases: set[str]) -> list[re.Pattern[bytes]]:
    """Patterns for files that may use one of the project's job decorator wrappers
    (``app.worker.job``): they mention the wrapper's module and ``@job``."""
    patterns = []
    for alias in sorted(aliases):
        module, _, name = alias.rpartition(".")
        tail = module.rsplit(".", 1)[-1]
        if not tail or not name:
            continue
        patterns.append(
            re.compile(
                rb"(?s)(?=.*\b" + re.escape(tail.encode()) + rb"\b)(?=.*@"
                + re.escape(name.encode()) + rb"\b)"
            )
        )
    return patterns


def sends_to(names: set[str]) -> re.Pattern[bytes] | None:
    """A pattern for ``name.send(`` / ``name.send_with_options(`` of the given actors,
    for the second pass that finds Dramatiq enqueue sites in files the first skipped."""
    if not names:
        return None
    alternatives = b"|".join(re.escape(n.encode()) for n in sorted(names))
    return re.compile(rb"\b(?:" + alternatives + rb")\.send(?:_with_options)?\s*\(")
