"""Facts: what per-file extraction learns about one file, as plain picklable data.

Extraction (``jobcheck.extract``) produces one :class:`FileFacts` per file; the project
model (``jobcheck.project``) combines them; checks read only facts, never syntax trees.
Keeping facts plain lets files be extracted in parallel processes and cached.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jobcheck.facts.values import Value


@dataclass(frozen=True, slots=True)
class Loc:
    """A source range: 1-based lines and columns, end exclusive."""

    line: int
    column: int
    end_line: int
    end_column: int


NOWHERE = Loc(1, 1, 1, 1)


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    annotation: str | None = None
    loc: Loc = NOWHERE


@dataclass(frozen=True, slots=True)
class Decorator:
    qualname: str | None
    call: Value | None
    loc: Loc


@dataclass(frozen=True, slots=True)
class RetryCall:
    """A Celery ``self.retry(...)`` / ``task.retry(...)`` call inside a task body."""

    loc: Loc
    countdown: Value | None
    max_retries: Value | None
    in_handler_of: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class ExceptHandler:
    """An ``except`` clause: what it catches and what its body does with the error."""

    loc: Loc
    catches: tuple[str, ...]
    catches_all: bool
    reraises: bool
    retries: bool
    records: bool
    exits: bool


@dataclass(frozen=True, slots=True)
class HttpCall:
    loc: Loc
    func: str
    has_timeout: bool
    result_used: bool


@dataclass(frozen=True, slots=True)
class SideEffect:
    """A call that changes the world outside the database row: a charge, a send, a delete."""

    kind: str
    loc: Loc
    func: str
    order: int
    has_key: bool
    guard: str | None = None
    """A guard the call sits under (an ``if`` on the record's state), when there is one."""


@dataclass(frozen=True, slots=True)
class Guard:
    """Something that makes a repeated run harmless or exclusive: a state check, a lock."""

    kind: str
    order: int
    loc: Loc


@dataclass(frozen=True, slots=True)
class SlowCall:
    """Slow work done directly in a function (email, image resize, export, webhook)."""

    kind: str
    loc: Loc
    func: str


@dataclass(slots=True)
class FunctionFacts:
    """A function or method, with what its body does that job checks care about."""

    qualname: str
    name: str
    loc: Loc
    params: tuple[Param, ...] = ()
    decorators: tuple[Decorator, ...] = ()
    class_qualname: str | None = None
    class_bases: tuple[str, ...] = ()
    is_async: bool = False
    returns: str | None = None
    retry_calls: list[RetryCall] = field(default_factory=list)
    handlers: list[ExceptHandler] = field(default_factory=list)
    retry_loops: list[Loc] = field(default_factory=list)
    http_calls: list[HttpCall] = field(default_factory=list)
    side_effects: list[SideEffect] = field(default_factory=list)
    guards: list[Guard] = field(default_factory=list)
    slow_calls: list[SlowCall] = field(default_factory=list)
    commit_orders: list[int] = field(default_factory=list)
    view: str | None = None
    """The web framework when this function handles requests ("django", "flask", ...)."""
    atomic: bool = False
    non_atomic_requests: bool = False
    calls: list[str] = field(default_factory=list)
    """Dotted names this function calls (for following helpers across files)."""


@dataclass(frozen=True, slots=True)
class TaskDef:
    """A job definition: a Celery task, an RQ ``@job`` function or a Dramatiq actor."""

    framework: str
    qualname: str
    name: str
    registered_name: str | None
    loc: Loc
    decorator: str | None = None
    app_ref: str | None = None
    options: tuple[tuple[str, Value], ...] = ()
    option_locs: tuple[tuple[str, Loc], ...] = ()
    base: str | None = None
    kind: str = "function"
    bound: bool = False
    function: str | None = None
    """Qualname of the function holding the body (``run`` for class-based tasks)."""

    def option(self, key: str) -> Value | None:
        for k, v in self.options:
            if k == key:
                return v
        return None

    def has_option(self, key: str) -> bool:
        return any(k == key for k, _ in self.options)

    def option_loc(self, key: str) -> Loc:
        for k, loc in self.option_locs:
            if k == key:
                return loc
        return self.loc


@dataclass(frozen=True, slots=True)
class TaskClass:
    """A Celery ``Task`` subclass (a base for other tasks, or a task itself)."""

    qualname: str
    bases: tuple[str, ...]
    attrs: tuple[tuple[str, Value], ...]
    attr_locs: tuple[tuple[str, Loc], ...]
    loc: Loc
    has_run: bool


@dataclass(frozen=True, slots=True)
class Argument:
    """One argument of an enqueue call, classified by what it carries."""

    kind: str
    """"id", "scalar", "record", "queryset", "request", "copy", "file", "dataframe",
    "unknown" (nothing to say) or "ambiguous" (a name astroid may resolve)."""
    reason: str
    text: str
    loc: Loc
    keyword: str | None = None


@dataclass(frozen=True, slots=True)
class EnqueueSite:
    """A call that puts a job on a queue (or builds a signature for one)."""

    method: str
    target: str | None
    """Dotted path of the job object (or function) being enqueued, when known."""
    target_text: str
    loc: Loc
    order: int
    function: str | None
    arguments: tuple[Argument, ...] = ()
    options: tuple[tuple[str, Value], ...] = ()
    receiver: str | None = None
    """Dotted path of the queue / broker object the call is made on (RQ, send_task)."""
    framework_hint: str | None = None
    atomic: str | None = None
    """"block" or "decorator" when inside ``transaction.atomic``; None otherwise."""
    deferred: bool = False
    """Inside a ``transaction.on_commit`` callback: runs after commit."""
    in_loop: str | None = None
    """The source of the nearest enclosing loop's iterable, when inside a loop."""
    is_signature: bool = False

    def option(self, key: str) -> Value | None:
        for k, v in self.options:
            if k == key:
                return v
        return None


@dataclass(frozen=True, slots=True)
class Setting:
    """A Celery/Django/RQ configuration value (``task_time_limit``, ``CELERY_...``)."""

    key: str
    """Normalized: Celery's lower-case name (``task_time_limit``) or the Django name."""
    raw_key: str
    value: Value
    loc: Loc
    origin: str
    """"module" (a module-level assignment), "conf" (``app.conf``) or "ctor" (``Celery(...)``)."""
    app: str | None = None


@dataclass(frozen=True, slots=True)
class CeleryApp:
    qualname: str
    loc: Loc
    main: str | None
    kwargs: tuple[tuple[str, Value], ...] = ()


@dataclass(frozen=True, slots=True)
class ConfigSource:
    """``app.config_from_object(target, namespace=...)``: where an app reads its settings."""

    app: str | None
    target: Value
    namespace: str | None
    loc: Loc


@dataclass(frozen=True, slots=True)
class QueueDecl:
    """A queue the code declares: a kombu ``Queue``, an RQ ``Queue``, a Dramatiq queue name."""

    framework: str
    name: str | None
    loc: Loc
    options: tuple[tuple[str, Value], ...] = ()
    variable: str | None = None

    def option(self, key: str) -> Value | None:
        for k, v in self.options:
            if k == key:
                return v
        return None


@dataclass(frozen=True, slots=True)
class ModelClass:
    qualname: str
    bases: tuple[str, ...]
    loc: Loc


@dataclass(slots=True)
class FileFacts:
    path: str
    module: str
    tasks: list[TaskDef] = field(default_factory=list)
    task_classes: list[TaskClass] = field(default_factory=list)
    functions: dict[str, FunctionFacts] = field(default_factory=dict)
    enqueues: list[EnqueueSite] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    apps: list[CeleryApp] = field(default_factory=list)
    config_sources: list[ConfigSource] = field(default_factory=list)
    models: list[ModelClass] = field(default_factory=list)
    queues: list[QueueDecl] = field(default_factory=list)
    classes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Every class defined here, with its bases' dotted paths."""
    foreign_objects: list[str] = field(default_factory=list)
    """Module-level objects made by other job libraries (``huey = RedisHuey()``), whose
    ``.task`` decorators are not Celery's."""
    imports: frozenset[str] = frozenset()
    """Top-level modules this file imports (``celery``, ``rq``, ``django``...)."""
    suppressions: dict[int, frozenset[str] | None] = field(default_factory=dict)
    error: str | None = None
    parsed: bool = True
    job_decorators: list[str] = field(default_factory=list)
    """Names defined here that wrap RQ's ``@job`` decorator (``class MyJob(rq.decorators.job)``,
    ``job = partial(MyJob, connection=redis)``): functions they decorate are RQ jobs."""
