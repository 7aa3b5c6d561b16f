"""Sidekiq and ActiveJob semantics: the defaults and rules the checks may ask about.

Every value was read in the library's own source (sidekiq/sidekiq tag v8.1.7 unless a
line says otherwise; 7.x is branch 7-x, 7.3.10; rails/rails tag v8.1.3; sidekiq-cron
@44c12804 (2.3.1); sidekiq-scheduler @fd3ddc89 (6.0.2); whenever @756163ed (1.1.2)).
The checks ask this object for Sidekiq's and Rails' part of each message (see
docs/frameworks/sidekiq.md); the hooks that read the project live in ``contract.py``,
``checks.py`` and ``schedules.py``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.frameworks.semantics_base import (
    QueueRules,
    ScheduleTerms,
    Semantics,
    Words,
    fixed_minute_expression,
)
from jobcheck.project.contract import Delivery, JobContract, Retries
from jobcheck.vocabulary.runbooks import FAILED_ITEMS_TOKEN, SIDEKIQ_DEAD_SET_TOKEN

if TYPE_CHECKING:
    from jobcheck.facts import EnqueueSite, ScheduleEntry, TaskDef
    from jobcheck.facts.values import Value
    from jobcheck.project.model import Job, Project
    from jobcheck.project.routing import QueueUse, Route

from jobcheck.frameworks.sidekiq.defaults import (
    ACTIVEJOB_ENQUEUE,
    BASIC_FETCH_LOSES_IN_FLIGHT,
    CLIENT_ENQUEUE,
    DEAD_MAX_JOBS,
    DEAD_TIMEOUT_SECONDS,
    DEFAULT_MAX_RETRY_ATTEMPTS,
    DEFAULT_QUEUE,
    GUARDS_LOOKED_FOR,
    HTTP_NO_TIMEOUT_REASONS,
    HTTP_TIMEOUT_HINTS,
    RUBY_LOCK_EXAMPLES,
    SHUTDOWN_TIMEOUT_SECONDS,
    SIDEKIQ_ENQUEUE,
)


class SidekiqQueueRules(QueueRules):
    """How Sidekiq routes its jobs and bounds its queues (``QueueRules``)."""

    one_finding_per_project = True  # Sidekiq has no queue bound (Sidekiq Pro: expires_in)

    def job_route(self, job: Job) -> Route:
        from jobcheck.frameworks.sidekiq import contract

        return contract.job_route(self.routing, job)

    def call_queue_option(self, site: EnqueueSite) -> Value | None:
        return site.option("queue")

    def unbounded_queue_message(self, use: QueueUse) -> str:
        return (
            f"Sidekiq queue '{use.name}' has no backlog bound: it is a Redis list that "
            "grows while workers fall behind, and a job waits in it however stale it "
            "gets (Sidekiq has no job expiry; Sidekiq Pro has expires_in:); push back on "
            f'producers (check Sidekiq::Queue.new("{use.name}").latency or .size before '
            "enqueueing bulk work) and drop stale work at the top of perform (compare the "
            "job's enqueued time with its deadline)"
        )


class SidekiqSemantics(Semantics):
    name = "sidekiq"
    queue_rules = SidekiqQueueRules
    title = "Sidekiq"
    job_noun = "Sidekiq job"
    scheduler_noun = "rufus-scheduler"
    max_retries = DEFAULT_MAX_RETRY_ATTEMPTS
    shutdown_timeout = SHUTDOWN_TIMEOUT_SECONDS
    dead_max_jobs = DEAD_MAX_JOBS
    dead_timeout = DEAD_TIMEOUT_SECONDS
    default_queue = DEFAULT_QUEUE
    loses_in_flight_on_crash = BASIC_FETCH_LOSES_IN_FLIGHT

    matches_by_tail = False
    names_by_path = True
    reports_route_where_named = True
    words = Words(
        hung_call_consequence=(
            "Sidekiq has no job time limit (by design), so a server that stops answering "
            "holds one of the process's threads for as long as the client waits, and "
            "Sidekiq cannot stop it"
        ),
        guards_looked_for=GUARDS_LOOKED_FOR,
        send_record_advice=(
            "record the send (a sent_at column, set in the same update) and return early "
            "when it is set"
        ),
        charge_key_advice=(
            'pass idempotency_key: derived from the business ID ("charge-#{order.id}") as '
            "the request options"
        ),
        report_advice="report it (Rails.error.report, or your error tracker) and re-raise it,",
        let_it_fail=(
            "let it raise: Sidekiq retries it (25 times over about 20 days unless "
            ":max_retries or retry: says otherwise), then keeps it in the dead set"
        ),
        id_advice=(
            "pass the record's id and load it in perform (Sidekiq 7 and later refuse "
            "arguments that are not plain JSON at push unless strict_args! is off)"
        ),
        after_commit_advice=(
            "enqueue from an after_commit (after_create_commit...) callback or in "
            "ActiveRecord.after_all_transactions_commit { } (Rails 7.2+), or turn on "
            "Sidekiq.transactional_push! (Sidekiq 6.5+) in an initializer; an ActiveJob "
            "can also set self.enqueue_after_transaction_commit = true (Rails 7.2+)"
        ),
        own_lock_examples=RUBY_LOCK_EXAMPLES,
        fan_out_advice=(
            "Enqueue one job per batch of IDs (in_batches / find_in_batches, pluck(:id) "
            "in slices), push with perform_bulk, or stagger the jobs "
            "(perform_in(index * 2.seconds, ...))"
        ),
        how_to_route=(
            "give it a queue of its own (sidekiq_options queue: / queue_as) with a higher "
            "weight in config/sidekiq.yml, or a capsule of its own"
        ),
        unknown_schedule_target=(
            "names class '{name}', which the project does not define: every run fails "
            "with NameError when the worker loads the job"
        ),
    )

    def records_are_copies(self, framework: str) -> bool:
        """Whether a record passed to a job is a copy: to a Sidekiq job yes (and refused
        under strict args); to an ActiveJob no (GlobalID)."""
        return framework != "activejob"

    def claim(self, project: Project, task: TaskDef) -> TaskDef | None:
        """An ActiveJob class is checked as a Sidekiq job only when ActiveJob runs on
        Sidekiq: on GoodJob, Solid Queue or delayed_job its retries, queues and
        transactions are another library's, which jobcheck does not model."""
        from jobcheck.frameworks.sidekiq import contract

        if contract.is_abstract_base(project, task):
            return None  # ApplicationJob: its options count for its subclasses
        if task.framework != "activejob":
            return task
        if contract.built_on_sidekiq(project, task):
            # ``class ApplicationJob; include Sidekiq::Job; end`` (email-alert-api): its
            # subclasses in app/jobs are Sidekiq jobs, whatever their folder suggests.
            import dataclasses

            return dataclasses.replace(task, framework="sidekiq")
        return task if contract.activejob_adapter(project) in ("sidekiq", None) else None

    # -- jobs and enqueues -----------------------------------------------------------------

    def accepts_enqueue(self, method: str) -> bool:
        return method in SIDEKIQ_ENQUEUE or method in ACTIVEJOB_ENQUEUE or method in CLIENT_ENQUEUE

    def hint_is_certain(self, site: EnqueueSite) -> bool:
        """``X.perform_async``/``X.perform_later`` enqueue whatever ``X`` is (a job class
        of a gem, or one defined where jobcheck did not look)."""
        return self.accepts_enqueue(site.method)

    def rerun_cause(self, job: Job | None) -> str:
        from jobcheck.frameworks.sidekiq import contract

        return contract.rerun_cause(job)

    def http_timeout_words(self, func: str) -> tuple[str, str] | None:
        root = func.rsplit(".", 1)[0]
        reason = HTTP_NO_TIMEOUT_REASONS.get(root)
        if reason is None:
            return None
        return reason, HTTP_TIMEOUT_HINTS[root]

    def handler_text(self, catches: tuple[str, ...], catches_all: bool) -> str | None:
        # A bare ``rescue`` (``rescue => e``) catches StandardError: shown as such.
        if not catches:
            return "'rescue StandardError'"
        names = ", ".join(name.replace(".", "::") for name in catches)
        return f"'rescue {names}'"

    # -- transactions (JOB-01) ---------------------------------------------------------------

    def transaction_reason(self, atomic: str | None, contexts: tuple[str, ...]) -> str | None:
        construct = contexts[0] if contexts else None
        if atomic == "block":
            if construct in ("with_lock", "lock!"):
                return "inside a with_lock block, which runs in a transaction"
            return "inside a transaction block"
        if atomic == "callback":
            if not construct:
                return "in a model callback, which runs inside the record's transaction"
            article = "an" if construct[:1] in "aeiou" else "a"
            return (
                f"in {article} {construct} callback, which runs inside the transaction "
                "ActiveRecord opens for the save or destroy"
            )
        return None

    def defers_enqueue(self, project: Project, site: EnqueueSite, job: Job | None) -> bool:
        from jobcheck.frameworks.sidekiq import contract

        if site.framework_hint == "activejob" and not contract._on_sidekiq(project):
            return True  # another adapter's enqueue (GoodJob's is in the transaction)
        return contract.defers_enqueue(project, site, job)

    def after_commit_advice_for(self, kind: str | None, contexts: tuple[str, ...]) -> str:
        """The commit callback that matches the one the code is in (``after_destroy`` ->
        ``after_destroy_commit``), and the switch of the job's own library: ActiveJob's
        ``enqueue_after_transaction_commit`` (``:always`` on Rails 7.2, ``true`` from 8.0)
        or Sidekiq's ``TransactionAwareClient`` (transaction_aware_client.rb)."""
        callbacks = [c for c in (contexts[0].split("/") if contexts else []) if c]
        hooks = sorted({COMMIT_CALLBACKS.get(c, "after_commit") for c in callbacks})
        where = (
            f"move the enqueue to an {' / '.join(hooks)} callback"
            if hooks and all(c.startswith(("after_", "before_", "around_")) for c in callbacks)
            else "enqueue from an after_commit callback or in "
            "ActiveRecord.after_all_transactions_commit { } (Rails 7.2+)"
        )
        if kind == "activejob":
            return (
                f"{where}, or set self.enqueue_after_transaction_commit = :always (Rails "
                "7.2; true from Rails 8.0) in the job, or turn on "
                "Sidekiq.transactional_push! (Sidekiq 6.5+), which Sidekiq's ActiveJob "
                "adapter honours"
            )
        return (
            f"{where}, or turn on Sidekiq.transactional_push! (Sidekiq 6.5+) in an "
            "initializer, or give this job sidekiq_options client_class: "
            "Sidekiq::TransactionAwareClient"
        )

    # -- single runs (SCL-38) ----------------------------------------------------------------

    def runs_one_copy(self, project: Project, job: Job) -> bool:
        from jobcheck.frameworks.sidekiq import contract

        return contract.unique_lock(project, job) is not None

    def interval_reset_reason(self, project: Project, entry: ScheduleEntry) -> str | None:
        """sidekiq-scheduler runs ``every:`` and ``interval:`` entries as rufus-scheduler
        every-jobs, and rufus counts an every-job from when its scheduler starts unless
        ``first_at:`` pins it (rufus-scheduler lib/rufus/scheduler/jobs_repeat.rb
        ``EveryJob``): each restart of the Sidekiq processes restarts the clock."""
        if entry.framework == "sidekiq-scheduler":
            return (
                "which sidekiq-scheduler hands to rufus-scheduler, counted from when the "
                "Sidekiq process starts (the first run comes one interval later)"
            )
        if entry.framework == "rufus":
            return "counted by rufus-scheduler from when the process starts"
        return None

    def schedule_terms(self, entry: ScheduleEntry) -> ScheduleTerms:
        return ScheduleTerms(
            kind=_schedule_kind(entry),
            sends_messages=_schedule_sends_messages(entry),
            names_functions=False,  # a class name, not a function
            time_zone=_time_zone(entry),
            overlap_causes=_overlap_causes(entry),
            minute_zero_note=_minute_zero_note(entry),
        )

    def display_name(self, job: Job) -> str:
        return job.task.name

    # -- queues --------------------------------------------------------------------------------

    def worker_queues(self, words: list[str]) -> tuple[str, ...] | None:
        """``sidekiq -q critical,3 -q default`` (a weight after the comma); without ``-q``
        (or with ``-C config.yml``) the queues of config/sidekiq.yml."""
        from jobcheck.commandline import option_values

        if not any(w.rsplit("/", 1)[-1] in ("sidekiq", "sidekiqswarm") for w in words):
            return None
        return tuple(q.split(",")[0] for q in option_values(words, ("-q", "--queue")))

    # -- retries and dead letters --------------------------------------------------------------

    def dead_letter_destination(self, project: Project) -> tuple[str, frozenset[str]] | None:
        from jobcheck.frameworks.sidekiq import contract

        if contract.activejob_adapter(project) != "sidekiq":
            return None  # no Sidekiq in sight: whose dead set would it be
        return (
            "Sidekiq's dead set (the Web UI's Dead tab: up to 10,000 jobs, 180 days)",
            frozenset({SIDEKIQ_DEAD_SET_TOKEN, FAILED_ITEMS_TOKEN}),
        )

    # -- schedules -----------------------------------------------------------------------------

    def minute_hint(self, entry: ScheduleEntry, minute: int) -> str | None:
        from jobcheck.frameworks.sidekiq import schedules

        return schedules.minute_hint(entry, minute)

    def cron_hint(self, entry: ScheduleEntry, seconds: float) -> str:
        expression = fixed_minute_expression(seconds)
        if entry.framework == "rufus":
            return f"scheduler.cron '{expression}'"
        return f"cron: '{expression}'"

    def checks_dotless_names(self, project: Project) -> bool:
        """A class a Ruby schedule names is checked once the project defines jobs of its
        own (the app is in view); a namespace of a gem is not the project's."""
        return any(job.framework in ("sidekiq", "activejob") for job in project.jobs)

    def job_contract(self, project: Project, job: Job) -> JobContract:
        from jobcheck.frameworks.sidekiq import contract, defaults

        words = contract.contract(project, job)
        every = contract.every_error(project, job)
        return JobContract(
            time_limit=contract.NO_TIME_LIMIT,
            # Its retry_on lines and retry options are judged by its own checks.
            retries=Retries(
                words["retries"],
                every_error=every[0],
                every_error_seconds=every[1],
                given_up_on=contract.given_up_on(project, job),
                give_up=contract.give_up(job),
                declined=contract.retries_declined(project, job),
            ),
            delivery=Delivery(
                "early: BasicFetch pops the job; a process killed mid-run (OOM, SIGKILL) "
                "loses it, a graceful stop pushes it back after "
                f"{defaults.SHUTDOWN_TIMEOUT_SECONDS} s (Sidekiq Pro's super_fetch recovers "
                "lost jobs)",
                late=False,
            ),
            backoff=words["backoff"],
            dead_letter=words["dead_letter"],
        )

    # -- the contract ------------------------------------------------------------------------


def _overlap_causes(entry: ScheduleEntry) -> str:
    """sidekiq-cron and sidekiq-scheduler enqueue each tick once across processes
    (SCHEDULER_DEDUPES), but do not wait for the last run; whenever writes the crontab
    of every server it is deployed to (WHENEVER_DEDUPES)."""
    if entry.framework in ("sidekiq-cron", "sidekiq-scheduler"):
        return (
            "a run outlasts the interval (the scheduler enqueues each tick once, but "
            "does not wait for the last run to end), or a retry of a failed run meets "
            "the next tick"
        )
    if entry.framework == "whenever":
        return (
            "a run outlasts the interval, or the crontab whenever writes is installed "
            "on more than one server"
        )
    return "a run outlasts the interval, or a second process runs the scheduler"


def _schedule_kind(entry: ScheduleEntry) -> str:
    return SCHEDULE_KINDS.get(entry.framework, "scheduled job")


def _schedule_sends_messages(entry: ScheduleEntry) -> bool:
    return entry.framework in ("sidekiq-cron", "sidekiq-scheduler")


def _minute_zero_note(entry: ScheduleEntry) -> str:
    from jobcheck.frameworks.sidekiq import schedules

    return schedules.minute_zero_note(entry)


def _time_zone(entry: ScheduleEntry) -> str | None:
    from jobcheck.frameworks.sidekiq import schedules

    return schedules.time_zone(entry)


# The commit callback that runs after the transaction a save or destroy callback runs in
# (activerecord/lib/active_record/transactions.rb ``after_create_commit``...).
COMMIT_CALLBACKS = {
    "after_create": "after_create_commit",
    "after_update": "after_update_commit",
    "after_save": "after_save_commit",
    "after_destroy": "after_destroy_commit",
    "before_create": "after_create_commit",
    "before_update": "after_update_commit",
    "before_save": "after_save_commit",
    "before_destroy": "after_destroy_commit",
    "around_create": "after_create_commit",
    "around_update": "after_update_commit",
    "around_save": "after_save_commit",
    "around_destroy": "after_destroy_commit",
}

SCHEDULE_KINDS = {
    "sidekiq-cron": "sidekiq-cron job",
    "sidekiq-scheduler": "sidekiq-scheduler entry",
    "whenever": "whenever entry",
    "rufus": "rufus-scheduler job",
}


SIDEKIQ = SidekiqSemantics()
