"""How the Ruby schedulers' entries are written, for SCL-22's hints: sidekiq-cron and
sidekiq-scheduler take a cron string with an optional trailing time zone (fugit), whenever
and rufus-scheduler take a raw cron string too (whenever's ``every '17 3 * * *'``,
job_list.rb; rufus ``scheduler.cron``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.frameworks.semantics_base import with_minute

if TYPE_CHECKING:
    from jobcheck.facts import ScheduleEntry


def time_zone(entry: ScheduleEntry) -> str | None:
    """The zone a fugit cron string ends with (``"0 3 * * * Europe/Berlin"``)."""
    words = entry.timing.text.split()
    if len(words) >= 6 and "/" in words[-1] and words[-1][0].isalpha():
        return words[-1]
    return None


def minute_hint(entry: ScheduleEntry, minute: int) -> str | None:
    fields = with_minute(entry, minute)
    if fields is None:
        return None
    zone = time_zone(entry)
    expression = f"{fields} {zone}" if zone else fields
    if entry.framework in ("sidekiq-cron", "sidekiq-scheduler"):
        return f"cron: '{expression}'"
    if entry.framework == "whenever":
        return f"every '{expression}'"
    if entry.framework == "rufus":
        return f"scheduler.cron '{expression}'"
    return f"'{expression}'"


def minute_zero_note(entry: ScheduleEntry) -> str:
    """whenever puts ``every 1.hour`` and ``every :hour`` at minute 0 unless ``at:`` says
    otherwise (cron.rb ``parse_time``: ``timing[0] = at`` with ``at`` 0 by default)."""
    if entry.framework == "whenever" and entry.timing.text.lstrip(":").split(",")[0] in (
        "hour",
        "1.hour",
        "hourly",
    ):
        return " (whenever starts an hourly entry at minute 0 unless at: says otherwise)"
    return ""
