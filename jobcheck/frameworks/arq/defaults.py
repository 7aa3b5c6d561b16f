"""arq's worker defaults, read in arq 0.26/0.28 (never imported). Light module."""

from __future__ import annotations

# arq/worker.py ``Worker.__init__`` (:187-219) and its defaults.
DEFAULT_JOB_TIMEOUT = 300
"""arq/worker.py ``Worker.__init__(job_timeout=300)``, in seconds."""

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
    "job_timeout": DEFAULT_JOB_TIMEOUT,
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
