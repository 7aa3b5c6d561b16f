"""The checks: one module per rule, named after its id (``scl18_time_limits.py`` holds
SCL-18). Each module has one :class:`RuleChecks` subclass with a method per check."""

from __future__ import annotations

from jobcheck.checks.base import RuleChecks
from jobcheck.checks.evt24_dead_letter_runbook import DeadLetterRunbook
from jobcheck.checks.job01_enqueue_after_commit import EnqueueAfterCommit
from jobcheck.checks.job02_schedule_targets import ScheduleTargets
from jobcheck.checks.job03_data_not_code import DataNotCode
from jobcheck.checks.job04_stable_names import StableNames
from jobcheck.checks.scl16_eager_jobs import EagerJobs
from jobcheck.checks.scl16_slow_work import SlowWorkOffRequests
from jobcheck.checks.scl17_idempotent_jobs import IdempotentJobs
from jobcheck.checks.scl18_time_limits import JobTimeLimits
from jobcheck.checks.scl19_bounded_backlog import BoundedBacklog
from jobcheck.checks.scl19_schedule_expiry import ScheduleExpiry
from jobcheck.checks.scl20_queue_workers import QueueWorkers
from jobcheck.checks.scl20_urgent_queue import UrgentQueue
from jobcheck.checks.scl21_ids_in_jobs import IdsInJobs
from jobcheck.checks.scl22_spread_schedules import SpreadScheduledJobs
from jobcheck.checks.scl34_dead_letter_queue import DeadLetterQueue
from jobcheck.checks.scl38_single_job_runs import SingleJobRuns

RULE_CLASSES: tuple[type[RuleChecks], ...] = (
    JobTimeLimits,
    IdsInJobs,
    DeadLetterQueue,
    EnqueueAfterCommit,
    SpreadScheduledJobs,
    SingleJobRuns,
    ScheduleExpiry,
    ScheduleTargets,
    BoundedBacklog,
    UrgentQueue,
    DeadLetterRunbook,
    SlowWorkOffRequests,
    EagerJobs,
    DataNotCode,
    QueueWorkers,
    StableNames,
    IdempotentJobs,
)


def implemented_checks() -> frozenset[tuple[str, str]]:
    """(rule id, check slug) for every check that has an implementation."""
    return frozenset((cls.rule, slug) for cls in RULE_CLASSES for slug in cls.implemented())
