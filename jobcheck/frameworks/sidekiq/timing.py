"""When Ruby schedules fire, as :class:`~jobcheck.facts.Timing`: sidekiq-cron and
sidekiq-scheduler cron strings (fugit and rufus-scheduler syntax: an optional leading
seconds field, an optional time zone), rufus durations (``"1h30m"``), whenever's ``every``
(ported from whenever's own cron generation)."""

from __future__ import annotations

import math
import re

from jobcheck import timing
from jobcheck.facts import Timing

# Durations (sidekiq-scheduler's ``every``/``interval``/``in``): rufus-scheduler's
# ``parse_duration`` hands them to ``Fugit::Duration.parse`` (rufus-scheduler
# lib/rufus/scheduler/util.rb:81 @4a73a05), whose pieces are (fugit lib/fugit/duration.rb
# ``KEYS`` and the piece parsers ``yea``..``sek`` @efda655; ``YEAR_S = 365 * DAY_S`` in
# lib/fugit/misc.rb): years of 365 days, months ("M") of 30 days, weeks, days, hours,
# minutes ("m"), seconds, and a bare number of seconds.
_DURATION_PIECES = (
    (re.compile(r"(\d+\.\d*|(?:\d*\.)?\d+) *y(?:ears?)?", re.I), 31536000.0),
    (re.compile(r"(\d+\.\d*|(?:\d*\.)?\d+) *(?:M|months?)"), 2592000.0),
    (re.compile(r"(\d+\.\d*|(?:\d*\.)?\d+) *w(?:eeks?)?", re.I), 604800.0),
    (re.compile(r"(\d+\.\d*|(?:\d*\.)?\d+) *d(?:ays?)?", re.I), 86400.0),
    (re.compile(r"(\d+\.\d*|(?:\d*\.)?\d+) *h(?:ours?)?", re.I), 3600.0),
    (re.compile(r"(\d+\.\d*|(?:\d*\.)?\d+) *m(?:in(?:ute)?s?)?"), 60.0),
    (re.compile(r"(\d+\.\d*|(?:\d*\.)?\d+) *s(?:ec(?:ond)?)?s?", re.I), 1.0),
)
_SEPARATOR = re.compile(r"(?:[ \t,]+|and)*", re.I)
_NATURAL = re.compile(r"^every\s+(\d+)?\s*(minute|hour|day|week|month)s?$", re.IGNORECASE)
_NATURAL_CRON = {"minute": "* * * * *", "hour": "0 * * * *", "day": "0 0 * * *"}


def duration(text: str | float | int | None) -> float | None:
    """Seconds in a fugit duration (``"5m"``, ``"1h30m"``, ``"2 days"``, ``"45"``, 30)."""
    if isinstance(text, bool) or text is None:
        return None
    if isinstance(text, (int, float)):
        return float(text)
    rest = text.strip()
    if re.fullmatch(r"\d+\.\d*|\.\d+|\d+", rest):
        return timing.bounded(float(rest))
    total, found, position = 0.0, False, 0
    while position < len(rest):  # positions, not slices: slicing was quadratic
        for pattern, seconds in _DURATION_PIECES:
            match = pattern.match(rest, position)
            if match:
                total += float(match.group(1)) * seconds
                position = match.end()
                found = True
                break
        else:
            return None
        position = _SEPARATOR.match(rest, position).end()  # type: ignore[union-attr]
    return timing.bounded(total) if found else None


def cron(text: str | None, shown: str | None = None) -> Timing:
    """A sidekiq-cron / sidekiq-scheduler cron string. fugit (sidekiq-cron job.rb
    ``parse_cron``: ``Fugit.parse_cron`` then ``Fugit.parse_nat``) and rufus accept a
    leading seconds field and a trailing time zone; natural forms ("every 5 minutes")
    are read for the common cases."""
    shown = shown if shown is not None else (text or "?")
    if not isinstance(text, str):
        return timing.other(shown)
    fields = text.split()
    if fields and ("/" in fields[-1] and not fields[-1][0].isdigit() and fields[-1][0] != "*"):
        fields = fields[:-1]  # a time zone: "Europe/Berlin"
    elif fields and fields[-1].isalpha() and fields[-1].upper() in ("UTC", "GMT", "Z"):
        fields = fields[:-1]
    if len(fields) == 6:
        fields = fields[1:]  # fugit and rufus: a leading seconds field
    if len(fields) == 5 or (len(fields) == 1 and fields[0].startswith("@")):
        return timing.cron_expression(" ".join(fields), shown)
    natural = _NATURAL.match(text.strip())
    if natural and len(natural.group(1) or "") <= 18:  # longer: no number (unknown)
        count, unit = int(natural.group(1) or 1), natural.group(2).lower()
        if count == 1 and unit in _NATURAL_CRON:
            return timing.cron_expression(_NATURAL_CRON[unit], shown)
        seconds = {"minute": 60, "hour": 3600, "day": 86400, "week": 604800, "month": 2592000}
        return timing.interval(count * seconds[unit], shown)
    return timing.other(shown)


# -- whenever -----------------------------------------------------------------------------
# whenever (javan/whenever lib/whenever/cron.rb ``Cron#parse_time``/``parse_symbol``/
# ``parse_as_string``/``comma_separated_timing``, @756163ed) turns ``every`` into a crontab
# line: below a minute raises; minutes -> a minute list; hours -> minute ``at`` (0) and an
# hour list; days -> minute and hour of ``at`` (0 0) and a day-of-month list; months and
# years likewise. Its own seconds (lib/whenever/numeric_seconds.rb): a month is 2,592,000 s
# and a year 31,557,600 s. Symbols: the cron keywords (:hourly, :daily, :reboot...) become
# "@keyword"; :minute/:hour/:day/:week/:month/:year are one of that unit; other symbols and
# strings name days ("monday", "weekday", "weekend").
_MINUTE, _HOUR, _DAY, _MONTH, _YEAR = 60, 3600, 86400, 2592000, 31557600
WHENEVER_KEYWORDS = frozenset(
    {"reboot", "yearly", "annually", "monthly", "weekly", "daily", "midnight", "hourly"}
)
_UNIT_SYMBOLS = {
    "minute": _MINUTE,
    "hour": _HOUR,
    "day": _DAY,
    "week": 604800,
    "month": _MONTH,
    "year": _YEAR,
}
_DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_RAW_CRON = re.compile(r"^(?:@\w+|(?:\*?[\d/,\-]*\s){3}\*?[\w/,\-]*\s\*?[\w/,\-]*)$", re.I)
_CLOCK = re.compile(r"^\s*(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)?\s*$", re.IGNORECASE)


def whenever(frequency: object, at: object, shown: str) -> Timing:
    """The timing of ``every <frequency>, at: <at>`` (``frequency``: seconds, a symbol's
    name or a string; ``at``: a clock string, a number, or None)."""
    if isinstance(frequency, str) and _RAW_CRON.match(frequency.strip()):
        return timing.cron_expression(frequency.strip(), shown)
    if isinstance(frequency, str) and frequency in WHENEVER_KEYWORDS:
        if frequency == "reboot":
            return timing.other(shown)
        return timing.cron_expression(f"@{frequency}", shown)
    if isinstance(frequency, str) and frequency in _UNIT_SYMBOLS:
        frequency = _UNIT_SYMBOLS[frequency]
    clock = _clock(at)
    if isinstance(frequency, (int, float)) and not isinstance(frequency, bool):
        fields = _parse_time(int(frequency), at, clock)
        return timing.cron_expression(fields, shown) if fields else timing.other(shown)
    if isinstance(frequency, str):
        dow = _dow(frequency)
        if dow is None:
            return timing.other(shown)
        if at is not None and clock is None:
            return Timing(kind="cron", text=shown, fields=(None, None, "*", "*", dow))
        minute, hour = clock if clock else (0, 0)
        return timing.cron_expression(f"{minute} {hour} * * {dow}", shown)
    return timing.other(shown)


def _dow(text: str) -> str | None:
    lowered = text.lower()
    if "weekday" in lowered:
        return "1-5"
    if "weekend" in lowered:
        return "6,0"
    for index, day in enumerate(_DAYS):
        if day in lowered:
            return str(index)
    return None


def _clock(at: object) -> tuple[int, int] | None:
    """(minute, hour) of a clock string Chronic would read ("3:00 am", "4:30pm", "15:45",
    "noon", "midnight"); None when this reader cannot tell."""
    if not isinstance(at, str):
        return None
    text = at.strip().lower()
    if text in ("noon", "midday"):
        return 0, 12
    if text == "midnight":
        return 0, 0
    match = _CLOCK.match(text)
    if match is None:
        return None
    hour, minute = int(match.group(1)), int(match.group(2) or 0)
    meridiem = (match.group(3) or "").replace(".", "")
    if meridiem == "pm" and hour < 12:
        hour += 12
    if meridiem == "am" and hour == 12:
        hour = 0
    if hour > 23 or minute > 59:
        return None
    return minute, hour


def _parse_time(seconds: int, at: object, clock: tuple[int, int] | None) -> str | None:
    number = at if isinstance(at, int) and not isinstance(at, bool) else 0
    if at is not None and not isinstance(at, int) and clock is None:
        return None  # an at: this reader cannot parse: the minute and hour are unknown
    minute = str(clock[0]) if clock else None
    hour = str(clock[1]) if clock else None
    if seconds < _MINUTE:
        return None  # whenever raises "Time must be in minutes or higher"
    if seconds < _HOUR:
        return f"{_comma_separated(seconds // 60, 59, number)} * * * *"
    if seconds < _DAY:
        every = _round(seconds / 3600)
        return f"{minute or number} {_comma_separated(every, 23)} * * *"
    if seconds < _MONTH:
        every = _round(seconds / 86400)
        return f"{minute or 0} {hour or number} {_comma_separated(every, 31, 1)} * *"
    if seconds < _YEAR:
        every = _round(seconds / _MONTH)
        return f"{minute or 0} {hour or 0} {number or 1} {_comma_separated(every, 12, 1)} *"
    return f"{minute or 0} {hour or 0} 1 {number or 1} *"


def _round(value: float) -> int:
    """Ruby's ``round``: halves away from zero."""
    return math.floor(value + 0.5)


def _comma_separated(frequency: int, maximum: int, start: int = 0) -> str:
    """whenever's ``comma_separated_timing``."""
    if not frequency:
        return str(start)
    if frequency == 1:
        return "*"
    if frequency > math.ceil(maximum * 0.5):
        return str(frequency)
    original_start = start
    if not ((maximum + 1) % frequency == 0 or start > 0):
        start += frequency
    output = list(range(start, maximum + 1, frequency))
    occurrences = _round(maximum / frequency)
    if original_start == 0:
        occurrences += 1
    return ",".join(str(v) for v in output[:occurrences])
