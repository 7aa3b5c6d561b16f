"""arq's verified defaults and rules, as documented constants (not wired to checks yet).

Read in the arq 0.28.0 wheel (never imported): ``arq/worker.py``, ``arq/cron.py``,
``arq/connections.py``, ``arq/constants.py``. Light module: no libcst.
"""

from __future__ import annotations

FUNC = frozenset({"arq.func", "arq.worker.func"})
CRON = frozenset({"arq.cron", "arq.cron.cron"})

# arq/worker.py ``get_kwargs(settings_cls)``: ``d = settings_cls if isinstance(settings_cls,
# dict) else settings_cls.__dict__`` and only keys that are ``Worker.__init__`` parameters
# are kept (:887-890). So a settings class is read through its OWN ``__dict__``:
# attributes it inherits from a base settings class are ignored, and unknown names are
# ignored silently.
SETTINGS_READ_FROM_OWN_DICT = True

# arq/worker.py ``Worker.__init__`` (:187-219) and its defaults.
WORKER_DEFAULTS: dict[str, object] = {
    "functions": (),
    "queue_name": "arq:queue",  # arq/constants.py:1 ``default_queue_name``
    "cron_jobs": None,
    "redis_settings": None,
    "redis_pool": None,
    "burst": False,
    "on_startup": None,
    "on_shutdown": None,
    "on_job_start": None,
    "on_job_end": None,
    "after_job_end": None,
    "handle_signals": True,
    "job_completion_wait": 0,
    "max_jobs": 10,
    "job_timeout": 300,  # seconds
    "keep_result": 3600,
    "keep_result_forever": False,
    "poll_delay": 0.5,
    "queue_read_limit": None,  # then max(max_jobs * 5, 100)
    "max_tries": 5,
    "health_check_interval": 3600,
    "health_check_key": None,
    "ctx": None,
    "retry_jobs": True,
    "allow_abort_jobs": False,
    "max_burst_jobs": -1,
    "job_serializer": None,
    "job_deserializer": None,
    "expires_extra_ms": 86_400_000,  # arq/constants.py:18, one day
    "timezone": None,  # the system's local zone
    "log_results": True,
}
WORKER_PARAMETERS = frozenset(WORKER_DEFAULTS)
"""The names ``get_kwargs`` keeps from a settings class."""
NO_JOBS_ERROR = "at least one function or cron_job must be registered"
"""``Worker.__init__`` raises RuntimeError with this when it has neither."""

# arq/worker.py ``func(coroutine, *, name=None, keep_result=None, timeout=None,
# keep_result_forever=None, max_tries=None)`` (:61-94): the name is ``name or
# coroutine.__qualname__`` (a string path is imported and the string is the name); a
# function that is not a coroutine function raises RuntimeError; a None option falls back
# to the Worker's (timeout :574, max_tries :549, keep_result :642-645).
FUNC_OPTIONS = ("name", "keep_result", "timeout", "keep_result_forever", "max_tries")
SYNC_FUNCTIONS_REJECTED = True

# arq/cron.py ``cron(coroutine, *, name=None, month=None, day=None, weekday=None,
# hour=None, minute=None, second=0, microsecond=123_456, run_at_startup=False,
# unique=True, job_id=None, timeout=None, keep_result=0, keep_result_forever=False,
# max_tries=1)`` (:128-199). None means "any value" (``_get_next_dt`` skips None
# fields), so ``cron(f, hour=3)`` runs every minute from 03:00 to 03:59 at second 0.
CRON_TIME_FIELDS = ("month", "day", "weekday", "hour", "minute", "second", "microsecond")
CRON_DEFAULTS: dict[str, object] = {
    "name": None,
    "month": None,
    "day": None,
    "weekday": None,
    "hour": None,
    "minute": None,
    "second": 0,
    "microsecond": 123_456,
    "run_at_startup": False,
    "unique": True,
    "job_id": None,
    "timeout": None,
    "keep_result": 0,
    "keep_result_forever": False,
    "max_tries": 1,
}
CRON_NAME_PREFIX = "cron:"
"""The default name is ``'cron:' + coroutine.__qualname__`` (or ``'cron:' + path``)."""
CRON_WEEKDAY_MONDAY_IS_0 = True
"""``weekday`` is 0-6 with 0 = Monday (``datetime.weekday()``), or one name (cron.py
``_get_next_dt``: ``WEEKDAYS.index(weekday.lower())``)."""
CRON_WEEKDAY_NAMES = ("mon", "tues", "wed", "thurs", "fri", "sat", "sun")
"""arq/typing.py:21 ``WEEKDAYS``: 'tue' or 'thu' raise ValueError."""
CRON_UNIQUE_PER_SLOT = True
"""With ``unique``, the job id is ``f'{name}:{to_unix_ms(next_run)}'``: several workers
enqueue one job per slot, but successive slots can overlap (worker.py ``run_cron``)."""

# arq/connections.py ``ArqRedis.enqueue_job(function: str, *args, _job_id=None,
# _queue_name=None, _defer_until=None, _defer_by=None, _expires=None, _job_try=None,
# **kwargs)`` (:119-181): the function is named by a string, checked only by the worker
# ("function %r not found", worker.py:532-535); returns None when a job or result with
# that id exists; ``_defer_until`` with ``_defer_by`` raises RuntimeError; the job key
# expires ``_expires or defer + expires_extra_ms`` after enqueueing.
ENQUEUE_OPTIONS = frozenset(
    {"_job_id", "_queue_name", "_defer_until", "_defer_by", "_expires", "_job_try"}
)
UNKNOWN_FUNCTION_FAILS_AT_RUN = True

# arq/worker.py ``Worker.run_job`` (:478-668): the job runs under ``asyncio.wait_for(task,
# timeout_s)``. A timeout raises TimeoutError, an Exception, so the job fails and is not
# retried. ``Retry`` is retried (when ``retry_jobs``); a CancelledError of an aborted job
# finishes it as aborted; a CancelledError from shutdown (``handle_sig`` cancels the
# tasks) or RetryJob is "cancelled, will be run again". Any other exception fails the job,
# without a retry.
TIMEOUT_IS_RETRIED = False
PLAIN_EXCEPTIONS_ARE_RETRIED = False
# A job whose ``except BaseException`` (or bare ``except``, or ``except CancelledError``)
# does not re-raise swallows the CancelledError ``wait_for`` injects on timeout and the
# one shutdown sends: the run then returns normally and arq records a success, and a job
# interrupted by shutdown is not run again (Python asyncio semantics, worker.py above).
CANCELLATION = frozenset(
    {
        "BaseException",
        "builtins.BaseException",
        "asyncio.CancelledError",
        "asyncio.exceptions.CancelledError",
        "concurrent.futures.CancelledError",
    }
)
