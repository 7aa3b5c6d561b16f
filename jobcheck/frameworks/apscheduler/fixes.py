"""APScheduler's part of the automatic fixes (``jobcheck/frameworks/fixes_base.py``).

SCL-22: a cron schedule starts at other minutes: ``add_job(f, "cron", hour=3)``,
``CronTrigger(hour="*/2")`` (as a trigger or the call itself),
``CronTrigger.from_crontab("0 * * * *")``.
"""

from __future__ import annotations

import libcst as cst

from jobcheck.fixes import syntax
from jobcheck.fixes.minutes import (
    cron_string_argument,
    minute_value,
    replace_in_call,
    rewrite_cron_string,
)
from jobcheck.frameworks.fixes_base import FrameworkFixes
from jobcheck.timing import APSCHEDULER_DEFAULTS, APSCHEDULER_FIELDS


class APSchedulerFixes(FrameworkFixes):
    def rewrite_schedule_minutes(
        self, call: cst.Call, moved: frozenset[int]
    ) -> cst.BaseExpression | None:
        return _cron_minutes(call, moved)


FIXES = APSchedulerFixes()


def _cron_minutes(call: cst.Call, moved: frozenset[int]) -> cst.BaseExpression | None:
    string = cron_string_argument(call)
    if string is not None:
        new_string = rewrite_cron_string(string, moved)
        return replace_in_call(call, string, new_string) if new_string else None
    for arg in call.args:
        value = arg.value
        if isinstance(value, cst.Call) and (syntax.dotted(value.func) or "").endswith(
            ("CronTrigger", "CronTrigger.from_crontab")
        ):
            inner = _cron_minutes(value, moved)
            return replace_in_call(call, value, inner) if inner is not None else None
    if syntax.has_splat(call) or (
        (syntax.dotted(call.func) or "").endswith("CronTrigger") and syntax.positional(call)
    ):
        return None  # positional cron fields: leave them to a person
    given = {arg.keyword.value for arg in call.args if arg.keyword is not None}
    fields = [name for name in APSCHEDULER_FIELDS if name in given]
    least = fields[-1] if fields else None
    updated = call
    if least is not None and APSCHEDULER_FIELDS.index(least) < APSCHEDULER_FIELDS.index("minute"):
        # apscheduler/triggers/cron/__init__.py: fields after the least significant one
        # given take their defaults, those before it "*". Giving minute= makes the fields
        # between them "*": write their defaults out, so the frequency stays.
        start = APSCHEDULER_FIELDS.index(least) + 1
        for name in APSCHEDULER_FIELDS[start : APSCHEDULER_FIELDS.index("minute")]:
            if APSCHEDULER_DEFAULTS[name] != "*":
                written = syntax.set_keyword(updated, name, cst.Integer(APSCHEDULER_DEFAULTS[name]))
                if written is None:
                    return None
                updated = written
    existing = syntax.keyword(updated, "minute")
    return syntax.set_keyword(
        updated, "minute", minute_value(moved, existing.value if existing else None)
    )
