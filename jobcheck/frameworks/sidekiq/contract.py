"""What a Sidekiq or ActiveJob job's options add up to: its queue, its retries, its
dead letter, its unique lock, whether its enqueues wait for the commit; read from the job
class and the classes it inherits from in the project (``ApplicationJob``), then the
project's configuration (``config/sidekiq.yml``, ``Sidekiq.default_job_options``,
``config.active_job.*``). Values and their sources: ``semantics.py``."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts.values import CallV, Const, DictV, Opaque, Ref, Value, number, string, truthy
from jobcheck.frameworks.sidekiq import defaults as sk
from jobcheck.project.contract import (
    DeadLetter,
    Origin,
    TimeLimit,
    describe_dead_letter,
)

if TYPE_CHECKING:
    from jobcheck.facts import EnqueueSite, FileFacts, Loc, Setting, TaskDef
    from jobcheck.project.model import Job, Project
    from jobcheck.project.routing import Route, Routing


def declarations(project: Project, job: Job, key: str) -> Iterator[tuple[Job, Value]]:
    """Every ``key`` declaration of the job's class, then of the project classes it
    inherits from, nearest first (``retry_on`` may be declared many times)."""
    seen: set[str] = set()
    current: Job | None = job
    while current is not None and current.task.qualname not in seen:
        seen.add(current.task.qualname)
        for k, value in current.task.options:
            if k == key:
                yield current, value
        current = _base_job(project, current)


def option(project: Project, job: Job, key: str) -> tuple[Job, Value] | None:
    """The nearest declaration of a ``sidekiq_options`` key (``queue``, ``retry``...)."""
    return next(declarations(project, job, key), None)


def _base_job(project: Project, job: Job) -> Job | None:
    """The project job class ``job`` inherits from, abstract bases included."""
    base = job.task.base
    if not base:
        return None
    found = _ruby_tasks(project).get(base)
    if found is None:
        return None
    from jobcheck.project.model import Job

    f, task = found
    return Job(task, f)


def _ruby_tasks(project: Project) -> dict[str, tuple[FileFacts, TaskDef]]:
    """Every Sidekiq and ActiveJob class the files define, by qualname (memoized)."""
    memo = project.__dict__.get("_ruby_tasks")
    if memo is None:
        memo = {
            task.qualname: (f, task)
            for f in project.files
            for task in f.tasks
            if task.framework in ("sidekiq", "activejob")
        }
        project.__dict__["_ruby_tasks"] = memo
    return memo


def built_on_sidekiq(project: Project, task: TaskDef) -> bool:
    """A class taken for an ActiveJob (``< ApplicationJob``) whose base in the project is
    a Sidekiq class (``include Sidekiq::Job``)."""
    seen: set[str] = set()
    base = task.base
    while base and base not in seen:
        seen.add(base)
        found = _ruby_tasks(project).get(base)
        if found is None:
            return False
        if found[1].framework == "sidekiq":
            return True
        base = found[1].base
    return False


def is_abstract_base(project: Project, task: TaskDef) -> bool:
    """A job class other job classes inherit from that defines no ``perform`` of its
    own (``ApplicationJob``, ``BaseWorker``): a base, not a job."""
    bases = project.__dict__.get("_ruby_bases")
    if bases is None:
        bases = {t.base for _, t in _ruby_tasks(project).values() if t.base}
        project.__dict__["_ruby_bases"] = bases
    if task.qualname not in bases:
        return False
    return not any(task.function in f.functions for f in project.files)


def is_activejob(job: Job) -> bool:
    return job.framework == "activejob"


def global_setting(project: Project, key: str) -> Setting | None:
    found = project.setting(key)
    return found[1] if found is not None else None


def default_job_option(project: Project, key: str) -> Value | None:
    """``Sidekiq.default_job_options = { "retry" => 3 }`` (sidekiq.rb:94 merges it)."""
    setting = global_setting(project, "sidekiq.default_job_options")
    if setting is None or not isinstance(setting.value, DictV):
        return None
    return setting.value.get(key)


# -- retries ------------------------------------------------------------------------------------


def max_retries(project: Project, job: Job) -> tuple[float | None, str]:
    """Sidekiq's own retries of the job: (count or None when not a number, where from).
    ``retry: true`` is the global ``:max_retries`` (25 by default, job_retry.rb:73-77)."""
    found = option(project, job, "retry")
    value = found[1] if found is not None else default_job_option(project, "retry")
    source = "sidekiq_options" if found is not None else "default"
    if value is None or (truthy(value) is True and number(value) is None):
        configured = global_setting(project, "sidekiq.max_retries")
        count = number(configured.value) if configured is not None else None
        if count is not None:
            return count, ":max_retries in config/sidekiq.yml"
        return float(
            sk.DEFAULT_MAX_RETRY_ATTEMPTS
        ), "Sidekiq's default" if source == "default" else source
    if truthy(value) is False and number(value) is None:
        return 0.0, "retry: false"
    return number(value), source


def retry_on_calls(project: Project, job: Job) -> list[tuple[Job, CallV]]:
    return [
        (owner, value)
        for owner, value in declarations(project, job, "retry_on")
        if isinstance(value, CallV)
    ]


def exception_names(call: CallV) -> list[str]:
    return [
        value.qualname.replace(".", "::") if isinstance(value, Ref) else str(value)
        for value in call.args
        if isinstance(value, Ref)
    ]


def kwarg(call: CallV, key: str) -> Value | None:
    return dict(call.kwargs).get(key)


def retry_on_attempts(call: CallV) -> float | None:
    """``attempts:`` (5 by default, exceptions.rb:64); inf for ``:unlimited`` or
    ``Float::INFINITY``."""
    value = kwarg(call, "attempts")
    if value is None:
        return float(sk.ACTIVEJOB_RETRY_ON_ATTEMPTS)
    if string(value) == "unlimited" or (isinstance(value, Ref) and "INFINITY" in value.qualname):
        return float("inf")
    return number(value)


def retry_on_wait(call: CallV) -> str:
    """How ``retry_on`` waits: "3 s" (the default), "300 s", ":polynomially_longer", or
    the text of a proc."""
    value = kwarg(call, "wait")
    if value is None:
        return f"{sk.ACTIVEJOB_RETRY_ON_WAIT_SECONDS} s (retry_on's default)"
    seconds = number(value)
    if seconds is not None:
        return f"{seconds:g} s"
    name = string(value)
    if name is not None:
        return f":{name}"
    return "computed"


def grows(call: CallV) -> bool:
    """``wait: :polynomially_longer`` (``:exponentially_longer`` before 7.1) or a proc:
    the wait grows (or is the project's to compute)."""
    value = kwarg(call, "wait")
    if value is None:
        return False
    if number(value) is not None:
        return False
    name = string(value)
    return name is None or name in ("polynomially_longer", "exponentially_longer")


# -- dead letters ------------------------------------------------------------------------------


def dead_letter(project: Project, job: Job) -> DeadLetter:
    """Where the job ends once Sidekiq gives it up: the dead set
    (``retries_exhausted`` -> ``send_to_morgue``, job_retry.rb:250-273), also straight
    after the first failure with ``retry: 0`` (0 is truthy in Ruby); nowhere with
    ``retry: false`` (only death handlers run, :96-104, :133: not even
    ``sidekiq_retries_exhausted``) or ``dead: false`` (discarded, after
    ``sidekiq_retries_exhausted`` runs)."""
    store = (
        f"Sidekiq's dead set ({sk.DEAD_MAX_JOBS:,} jobs, {sk.DEAD_TIMEOUT_SECONDS // 86400} days)"
    )
    exhausted = option(project, job, "sidekiq_retries_exhausted")
    retry = option(project, job, "retry")
    if retry is not None and _is_false(retry[1]):
        return DeadLetter(
            lost="retry: false skips the dead set (only death handlers run)",
            recorded_by=error_tracker(project),
            decided_by="retry: false",
            origin=_origin(job, retry[0], "retry"),
        )
    dead = option(project, job, "dead")
    if dead is not None and _is_false(dead[1]):
        return DeadLetter(
            lost="discarded (dead: false)",
            recorded_by="sidekiq_retries_exhausted" if exhausted is not None else "",
            decided_by="dead: false",
            origin=_origin(job, dead[0], "dead"),
        )
    if retry is not None and number(retry[1]) == 0:
        return DeadLetter(kept_in=f"{store}, at the first failure (retry: 0)")
    return DeadLetter(kept_in=store)


def error_tracker(project: Project) -> str:
    """The error tracker whose Sidekiq integration reports every failed job (a gem of
    the Gemfile, or its ``configure``/``init`` call in an initializer), as words; ""."""
    for f in project.files:
        for setting in f.settings:
            name = string(setting.value) or ""
            if setting.key == "ruby.gem" and name in sk.ERROR_TRACKER_GEMS:
                return f"{name}, which reports every failed job"
            if setting.key == "ruby.error_tracker":
                return f"{name}, which reports every failed job"
    return ""


def _is_false(value: Value) -> bool:
    """Ruby's ``false`` (not 0, which is truthy in Ruby)."""
    return isinstance(value, Const) and value.value is False


def _origin(job: Job, owner: Job, key: str) -> Origin:
    where = "job" if owner.task.qualname == job.task.qualname else "base class"
    return Origin(where, owner.file.path, owner.task.option_loc(key))


# -- single runs ----------------------------------------------------------------------------


def unique_lock(project: Project, job: Job) -> str | None:
    """The option that keeps a second copy of the job out, in words, or None."""
    for key in sk.UNIQUE_OPTIONS:
        found = option(project, job, key)
        if found is not None and truthy(found[1]) is not False:
            shown = string(found[1])
            return f"{key}: :{shown}" if shown else key
    for key in sk.ACTIVEJOB_UNIQUE_DECLARATIONS:
        if option(project, job, key) is not None:
            return key
    return None


# -- enqueue after commit (JOB-01) ------------------------------------------------------------


def defers_enqueue(project: Project, site: EnqueueSite, job: Job | None) -> bool:
    """Sidekiq's ``transactional_push!`` defers ``push`` (so perform_async/in/at) until
    the commit, not ``push_bulk`` (TRANSACTIONAL_PUSH_COVERS); ActiveJob defers with the
    job's or the app's ``enqueue_after_transaction_commit``, or on Rails 7.2 with
    ``load_defaults "7.2"`` on Sidekiq's adapter (SIDEKIQ_ADAPTER_DEFERS_AFTER_COMMIT)."""
    if site.framework_hint == "activejob" or (job is not None and is_activejob(job)):
        # Sidekiq's own ActiveJob adapter (sidekiq lib/active_job/queue_adapters/
        # sidekiq_adapter.rb, 7.x+) enqueues through Sidekiq::ActiveJob::Wrapper, a
        # Sidekiq::Job, whose client_class transactional_push! sets in
        # default_job_options (sidekiq.rb): those pushes wait for the commit too.
        return _activejob_defers(project, job) or (
            _on_sidekiq(project) and _transactional_push(project)
        )
    if site.method not in sk.TRANSACTIONAL_PUSH_COVERS:
        return False
    return _transactional_push(project) or (job is not None and _transaction_aware(project, job))


def _transaction_aware(project: Project, job: Job) -> bool:
    """``sidekiq_options client_class: Sidekiq::TransactionAwareClient``: the job's own
    pushes wait for the commit (what transactional_push! sets for every job)."""
    found = option(project, job, "client_class")
    value = found[1] if found is not None else None
    return isinstance(value, Ref) and value.qualname.endswith("TransactionAwareClient")


# Environment files whose adapter is not the one production runs (``:test``, ``:inline``,
# ``:async`` while developing).
_NOT_PRODUCTION = ("config/environments/test.rb", "config/environments/development.rb")


def activejob_adapter(project: Project) -> str | None:
    """The queue adapter ActiveJob runs on in production: "sidekiq" when any
    ``config.active_job.queue_adapter`` outside the test and development environment files
    says so, another adapter's name when they name only others (GoodJob, Solid Queue...),
    else "sidekiq" when the project shows Sidekiq at all, else None (Rails' default is the
    in-process :async adapter). Read from the files, once per project."""
    memo = project.__dict__.setdefault("_activejob_adapter", [])
    if memo:
        return memo[0]
    named: list[str] = []
    shows_sidekiq = False
    for f in project.files:
        path = f.path.replace("\\", "/")
        for setting in f.settings:
            shows_sidekiq = shows_sidekiq or setting.key.startswith("sidekiq.")
            if setting.key != "activejob.queue_adapter" or path.endswith(_NOT_PRODUCTION):
                continue
            name = string(setting.value)
            if name is not None:
                named.append(name)
        shows_sidekiq = shows_sidekiq or any(q.framework == "sidekiq" for q in f.queues)
        shows_sidekiq = shows_sidekiq or any(t.framework == "sidekiq" for t in f.tasks)
    if "sidekiq" in named:
        found: str | None = "sidekiq"
    elif named:
        found = named[0]
    else:
        found = "sidekiq" if shows_sidekiq else None
    memo.append(found)
    return found


def _transactional_push(project: Project) -> bool:
    setting = global_setting(project, "sidekiq.transactional_push")
    return setting is not None and truthy(setting.value) is not False


def _on_sidekiq(project: Project) -> bool:
    """ActiveJob's adapter is Sidekiq (or not set where jobcheck can see it)."""
    return activejob_adapter(project) in ("sidekiq", None)


def _activejob_defers(project: Project, job: Job | None) -> bool:
    if job is not None:
        found = option(project, job, "enqueue_after_transaction_commit")
        if found is not None:
            return _defers_value(found[1])
    for key in ("activejob.enqueue_after_transaction_commit",):
        setting = global_setting(project, key)
        if setting is not None:
            return _defers_value(setting.value)
    loaded = global_setting(project, "rails.load_defaults")
    version = _version(loaded.value) if loaded is not None else None
    return version is not None and 7.2 <= version < 8.0 and _on_sidekiq(project)


def _defers_value(value: Value) -> bool:
    """``true``/``:always`` defer; ``false``/``:never`` do not; ``:default`` lets the
    adapter decide (Sidekiq's says yes)."""
    name = string(value)
    if name is not None:
        return name in ("always", "default")
    return truthy(value) is True


def _version(value: Value | None) -> float | None:
    found = number(value)
    if found is not None:
        return found
    text = string(value)
    try:
        return float(text) if text else None
    except ValueError:
        return None


# -- queues -------------------------------------------------------------------------------------


def job_route(routing: Routing, job: Job) -> Route:
    """``sidekiq_options queue:`` / ``queue_as`` on the class or a base class, else the
    default queue ("default" for both: sidekiq.rb:94, ActiveJob queue_name.rb:9)."""
    from jobcheck.project.routing import UNKNOWN_ROUTE, Place, Route

    found = option(routing.project, job, "queue")
    if found is None:
        return Route(sk.DEFAULT_QUEUE, True)
    owner, value = found
    name = string(value)
    if name is None:
        return UNKNOWN_ROUTE
    loc: Loc = owner.task.option_loc("queue")
    return Route(name, name == sk.DEFAULT_QUEUE, Place(owner.file.path, loc))


# -- rerun and contract ------------------------------------------------------------------------


def rerun_cause(job: Job | None) -> str:
    """What runs a job twice: Sidekiq's retries (25 by default), a job pushed back at a
    shutdown that outlasts ``:timeout:`` (manager.rb hard_shutdown requeues busy jobs)."""
    if job is None:
        return "a retried Sidekiq job, or one pushed back at shutdown"
    retry = job.task.option("retry")
    if retry is not None and truthy(retry) is False and number(retry) is None:
        return (
            "a job pushed back to its queue when a shutdown outlasts Sidekiq's :timeout:, "
            "or enqueued twice,"
        )
    if is_activejob(job):
        return (
            "a retried job (ActiveJob's retry_on, or Sidekiq's own retries once the error "
            "reaches them)"
        )
    return "a retried job (Sidekiq retries 25 times by default)"


# Sidekiq runs a job until it returns: no per-job time limit, by design
# (``defaults.JOB_TIME_LIMIT``: no ``Timeout`` anywhere in Sidekiq's lib/, v8.1.7).
NO_TIME_LIMIT = TimeLimit(
    hard=None, none_by_default="Sidekiq has no job time limit, by design", settable=False
)


def contract(project: Project, job: Job) -> dict[str, str]:
    retries, source = max_retries(project, job)
    calls = retry_on_calls(project, job)
    if is_activejob(job) and calls:
        described = "; ".join(
            f"retry_on {', '.join(exception_names(call)) or '?'}: "
            f"{_attempts(retry_on_attempts(call))} attempts, wait {retry_on_wait(call)}"
            for _, call in calls
        )
        retries_text = f"{described}; then Sidekiq's: {_count(retries)} ({source})"
    else:
        retries_text = f"{_count(retries)} ({source})"
    custom = option(project, job, "sidekiq_retry_in")
    if custom is not None:
        backoff = f"sidekiq_retry_in {custom[1].text if hasattr(custom[1], 'text') else ''}"
    elif retries:
        backoff = f"{sk.BACKOFF_FORMULA} (Sidekiq's)"
    else:
        backoff = "-"
    return {
        "retries": retries_text,
        "backoff": backoff.strip(),
        "dead_letter": describe_dead_letter(dead_letter(project, job)),
    }


# ``sidekiq_retry_in { 10 }`` / ``{ |count| 30 }``: a block whose value is one number.
_CONSTANT_BLOCK = re.compile(
    r"^(?:\{|do)\s*(?:\|[^|]*\|)?\s*(\d+(?:\.\d+)?(?:\.\w+)?)\s*(?:\}|end)$"
)


def constant_retry_in(value: Value) -> re.Match[str] | None:
    """A ``sidekiq_retry_in`` block that returns one number (group 1, as written)."""
    if not isinstance(value, Opaque):
        return None
    return _CONSTANT_BLOCK.match(" ".join(value.text.split()))


_UNITS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0}


def _duration(text: str) -> float | None:
    """``30``, ``2.5``, ``10.minutes``: seconds."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)(?:\.(second|minute|hour|day)s?)?", text)
    if match is None:
        return None
    return float(match.group(1)) * _UNITS[match.group(2) or "second"]


def every_error(project: Project, job: Job) -> tuple[str, float | None]:
    """Sidekiq retries a job after any error it raises (job_retry.rb ``local`` rescues
    Exception), ``count`` times by the backoff formula; an ActiveJob job too when Sidekiq
    runs ActiveJob (its wrapper is a Sidekiq job) and no ``retry_on`` catches the error
    first. ("", None) when nothing retries, or the count cannot be read."""
    if is_activejob(job) and activejob_adapter(project) != "sidekiq":
        return "", None
    count, source = max_retries(project, job)
    if not count:
        return "", None
    custom = option(project, job, "sidekiq_retry_in")
    if custom is not None:
        constant = constant_retry_in(custom[1])
        delay = _duration(constant.group(1)) if constant else None
        if delay is None:
            return "", None  # a delay the block computes: the span is not known
        span = count * delay
    else:
        span = sk.retries_span(count)
    where = "Sidekiq's default" if source == "default" else source
    return f"{count:g} times, {where}", span


def given_up_on(project: Project, job: Job) -> tuple[str, ...]:
    """The errors the job (or its base class) handles itself: ``discard_on`` and
    ``rescue_from`` (activejob exceptions.rb, ActiveSupport rescuable.rb)."""
    names: list[str] = []
    for key in ("discard_on", "rescue_from"):
        for _, value in declarations(project, job, key):
            if isinstance(value, CallV):
                names.extend(exception_names(value))
    return tuple(names)


def retries_declined(project: Project, job: Job) -> bool:
    """``sidekiq_options retry: false`` (or ``0``) on the job or a base of it."""
    count, source = max_retries(project, job)
    return count == 0 and source != "default"


def give_up(job: Job) -> str:
    """An ActiveJob job gives up on an error with ``discard_on`` (exceptions.rb)."""
    if is_activejob(job):
        return "add discard_on {error}, or rescue it and return"
    return "rescue {error} and return"


def _attempts(value: float | None) -> str:
    if value is None:
        return "?"
    return "unlimited" if value == float("inf") else f"{value:g}"


def _count(value: float | None) -> str:
    return "?" if value is None else f"{value:g}"
