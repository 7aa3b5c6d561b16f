"""SCL-21 Put record IDs in jobs instead of copies (EVT-20): secret-in-payload.

A job argument that carries a secret (a password, an API key or access token, a whole
settings object) is written in plaintext to the broker, kept there while the job waits
and retries, and shown by dashboards (Flower, Sidekiq Web, rq-dashboard) and error
reports. Docs: docs/rules/SCL-21.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import Argument
from jobcheck.findings import Finding
from jobcheck.project.test_code import is_test_code
from jobcheck.vocabulary.secret_names import (
    SETTINGS_OBJECTS,
    account_credential,
    is_secret_word,
    secret_name,
)


class SecretInPayload(RuleChecks):
    rule = "SCL-21"

    @check("secret-in-payload")
    def secret_in_payload(self) -> Iterator[Finding]:
        for f, site, job, _ in self.project.payload_enqueues():
            if is_test_code(f):
                continue
            name = job.task.name if job is not None else site.target_text.strip("'\"")
            for argument in site.arguments:
                secret = _secret(argument)
                account = secret is None and account_credential(argument.text, name)
                if account:
                    message = _account_message(argument, name)
                elif secret is not None:
                    message = _message(argument, secret, name)
                else:
                    continue
                yield self.finding("secret-in-payload", f.path, argument.loc, message)


def _secret(argument: Argument) -> str | None:
    if argument.kind in ("id", "scalar") and argument.text.strip()[:1] in "'\"0123456789":
        return None  # a literal: JOB-03 credentials-in-source judges secrets in code
    found = secret_name(argument.text)
    if found is None and argument.keyword and is_secret_word(argument.keyword):
        found = argument.keyword
    return found


def _account_message(argument: Argument, job: str) -> str:
    return (
        f"'{argument.text}' passed to '{job}' is a credential for the account: whoever "
        "reads the broker or a dashboard (Flower, Sidekiq Web, rq-dashboard) that shows "
        "job arguments can use it before the user does; pass the user's ID and make the "
        "token inside the job"
    )


def _message(argument: Argument, secret: str, job: str) -> str:
    if argument.text.strip() in SETTINGS_OBJECTS or secret.endswith("settings"):
        what = "the whole settings object, every secret of the project with it"
    else:
        what = f"a secret ({secret})"
    return (
        f"'{argument.text}' passed to '{job}' is {what}: the broker keeps job arguments in "
        "plaintext while the job waits and retries, and dashboards (Flower, Sidekiq Web, "
        "rq-dashboard) and error reports show them; pass a reference the job resolves (the "
        "record's ID, the setting's name) and read the secret inside the job"
    )
