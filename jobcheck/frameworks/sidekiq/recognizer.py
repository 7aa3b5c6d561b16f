"""Sidekiq and ActiveJob in Ruby source: job classes and their options, enqueue sites,
configuration calls (``Sidekiq.transactional_push!``, ``config.active_job...``) and
schedules declared in code (sidekiq-cron ``Sidekiq::Cron::Job``, rufus-scheduler,
whenever's ``config/schedule.rb``).

Runs inside the Ruby walker (``jobcheck/ruby/walker.py``), which gives it each class
(with its callbacks and mixins) and each call with its context.
"""

from __future__ import annotations

from typing import Any

from jobcheck.facts import (
    EnqueueSite,
    ScheduleEntry,
    SchedulerStart,
    Setting,
    StartupHook,
    TaskDef,
)
from jobcheck.facts.values import CallV, Const, DictV, Opaque, SeqV, Value, string
from jobcheck.frameworks.sidekiq import timing as ruby_timing
from jobcheck.frameworks.sidekiq.defaults import (
    ACTIVEJOB_ENQUEUE,
    CLIENT_ENQUEUE,
    ERROR_TRACKERS,
    SIDEKIQ_ENQUEUE,
)
from jobcheck.ruby.parse import (
    arguments,
    block_body,
    call_parts,
    constant_path,
    identifier,
    ruby_name,
)
from jobcheck.ruby.walker import ClassContext, RubyRecognizer, RubyWalker

SIDEKIQ_MIXINS = frozenset({"Sidekiq.Job", "Sidekiq.Worker"})
ACTIVEJOB_BASES = frozenset({"ActiveJob.Base", "ApplicationJob"})
# Class-level declarations, by framework (sidekiq lib/sidekiq/job.rb ``sidekiq_options``,
# ``sidekiq_retry_in``, ``sidekiq_retries_exhausted``; activejob lib/active_job/
# queue_name.rb ``queue_as``, exceptions.rb ``retry_on``/``discard_on``, callbacks.rb).
SIDEKIQ_DECLARATIONS = frozenset(
    {"sidekiq_options", "sidekiq_retry_in", "sidekiq_retries_exhausted", "sidekiq_class_attribute"}
)
ACTIVEJOB_DECLARATIONS = frozenset(
    {
        "queue_as",
        "queue_with_priority",
        "retry_on",
        "discard_on",
        "before_perform",
        "after_perform",
        "around_perform",
        "before_enqueue",
        "after_enqueue",
        "around_enqueue",
        "after_discard",
    }
)
# Class-level calls that keep a second copy of a job out: activejob-uniqueness ``unique``,
# GoodJob ``good_job_control_concurrency_with``, Solid Queue ``limits_concurrency``. Kept
# as options, never taken as a sign that a class is a job.
LOCK_DECLARATIONS = frozenset({"unique", "good_job_control_concurrency_with", "limits_concurrency"})
# ActiveSupport's ``rescue_from`` (controllers have it too, so never a sign of a job):
# kept for the errors a job handles itself (SCL-34 lookup-retried-forever).
HANDLER_DECLARATIONS = frozenset({"rescue_from"})
# Folders Rails apps keep their jobs in: a class there that defines ``perform`` and
# inherits from a base defined elsewhere is taken for a job of that folder's framework.
FOLDER_FRAMEWORK = (
    ("app/workers/", "sidekiq"),
    ("app/sidekiq/", "sidekiq"),
    ("app/jobs/", "activejob"),
)
# rufus-scheduler's ``Rufus::Scheduler.new(lockfile: ...)`` (one scheduler per host),
# ``scheduler_lock:`` and ``trigger_lock:`` (custom locks: a Redis or database lock).
RUFUS_LOCKS = ("lockfile", "scheduler_lock", "trigger_lock")
RAILS_BOOT = (
    "a Rails initializer (run at boot by every Puma worker, Sidekiq process, console and rake task)"
)
RUFUS_SCHEDULE_METHODS = frozenset({"cron", "every", "interval", "at", "in", "schedule_every"})


class SidekiqRecognizer(RubyRecognizer):
    def __init__(self, walker: RubyWalker) -> None:
        super().__init__(walker)
        self._declarations: dict[str, list[tuple[str, Value, Any]]] = {}
        """Class qualname -> (option, value, node) of its class-level declarations."""
        self._rufus: set[str] = set()
        """Variables holding a rufus-scheduler (``scheduler = Rufus::Scheduler.new``)."""
        path = walker.facts.path.replace("\\", "/")
        self._whenever = path.endswith("schedule.rb") and "/app/" not in f"/{path}"

    # -- job classes --------------------------------------------------------------------

    def class_start(self, context: ClassContext) -> None:
        self._declarations[context.qualname] = []

    def class_end(self, context: ClassContext) -> None:
        declarations = self._declarations.pop(context.qualname, [])
        found = self._framework(context, declarations)
        if found is None:
            return
        framework, how = found
        options, locs = [], []
        for key, value, node in declarations:
            options.append((key, value))
            locs.append((key, self.walker.loc(node)))
        name = ruby_name(context.qualname)
        self.walker.facts.tasks.append(
            TaskDef(
                framework=framework,
                qualname=context.qualname,
                name=name,
                registered_name=name,
                loc=self.walker.loc(context.node.child_by_field_name("name") or context.node),
                decorator=how,
                options=tuple(options),
                option_locs=tuple(locs),
                base=context.superclass,
                kind="class",
                bound=True,
                function=f"{context.qualname}.perform",
            )
        )

    def _framework(
        self, context: ClassContext, declarations: list[tuple[str, Value, Any]]
    ) -> tuple[str, str] | None:
        """(framework, how it was recognized) of a job class; None for other classes."""
        mixin = next((m for m in context.includes if m in SIDEKIQ_MIXINS), None)
        if mixin is not None:
            return "sidekiq", f"include {ruby_name(mixin)}"
        superclass = context.superclass or ""
        if superclass in ACTIVEJOB_BASES:
            return "activejob", f"< {ruby_name(superclass)}"
        keys = {key for key, _, _ in declarations}
        activejob = keys & ACTIVEJOB_DECLARATIONS
        if activejob:
            return "activejob", sorted(activejob)[0]
        if keys & {"sidekiq_options", "sidekiq_retry_in", "sidekiq_retries_exhausted"}:
            return "sidekiq", "sidekiq_options" if "sidekiq_options" in keys else sorted(keys)[0]
        # A base or a mixin of the project's (``< BaseJob``, ``include ApplicationWorker``
        # as GitLab writes them) makes a job of a class with ``perform`` in a job folder.
        made_by = f"< {ruby_name(superclass)}" if superclass else None
        if made_by is None and context.includes:
            made_by = f"include {ruby_name(context.includes[0])}"
        if made_by is None or not _defines_perform(context.node):
            return None
        path = self.walker.facts.path.replace("\\", "/")
        for folder, framework in FOLDER_FRAMEWORK:
            if folder in f"/{path}":
                return framework, f"{made_by} in {folder}"
        return None

    def _declaration(self, node: Any, method: str, args: Any, block: Any) -> None:
        context = self.walker.class_context
        if context is None or self.walker.method is not None:
            return
        declarations = self._declarations.setdefault(context.qualname, [])
        positional, keywords = arguments(args)
        walker = self.walker
        if method == "sidekiq_options":
            for key, value, pair in keywords:
                declarations.append((key, walker.evaluate(value), pair))
            for argument in positional:  # sidekiq_options("queue" => "x") as a hash
                if argument.type == "hash":
                    value = walker.evaluate(argument)
                    if isinstance(value, DictV):
                        for key in value.str_keys():
                            declarations.append((key, value.get(key), argument))  # type: ignore[arg-type]
        elif method == "queue_as":
            value = walker.evaluate(positional[0]) if positional else Opaque(walker.text(node))
            declarations.append(("queue", value, node))
        elif method in ("retry_on", "discard_on", "rescue_from"):
            call = CallV(
                method,
                tuple(walker.evaluate(a) for a in positional),
                tuple((k, walker.evaluate(v)) for k, v, _ in keywords),
            )
            declarations.append((method, call, node))
        elif method in ("sidekiq_retry_in", "sidekiq_retries_exhausted"):
            declarations.append((method, Opaque(walker.text(block or node, 120)), node))
        elif (
            method in ACTIVEJOB_DECLARATIONS
            or method in SIDEKIQ_DECLARATIONS
            or method in LOCK_DECLARATIONS
        ):
            declarations.append((method, Opaque(walker.text(node, 120)), node))

    # -- calls --------------------------------------------------------------------------

    def call(self, node: Any, receiver: Any, method: str, args: Any, block: Any) -> None:
        walker = self.walker
        if receiver is None and (
            method in SIDEKIQ_DECLARATIONS
            or method in ACTIVEJOB_DECLARATIONS
            or method in LOCK_DECLARATIONS
            or method in HANDLER_DECLARATIONS
        ):
            self._declaration(node, method, args, block)
            return
        if method in SIDEKIQ_ENQUEUE:
            self._enqueue(node, receiver, method, args, "sidekiq")
        elif method in ACTIVEJOB_ENQUEUE:
            self._enqueue(node, receiver, method, args, "activejob")
        elif method in CLIENT_ENQUEUE and constant_path(receiver) == "Sidekiq.Client":
            self._client_push(node, method, args)
        elif method.endswith("!") and constant_path(receiver) == "Sidekiq":
            self._sidekiq_switch(node, method, args)
        elif receiver is None and method == "gem" and walker.class_context is None:
            positional, _ = arguments(args)
            if positional and walker.facts.path.replace("\\", "/").endswith("Gemfile"):
                self._setting(node, "ruby.gem", "gem", positional[0])
        elif method in ("configure", "init", "start") and constant_path(receiver) in ERROR_TRACKERS:
            self._setting_value(node, "ruby.error_tracker", constant_path(receiver) or "")
        elif method == "load_defaults" and receiver is not None and receiver.text == b"config":
            positional, _ = arguments(args)
            if positional:
                self._setting(node, "rails.load_defaults", "config.load_defaults", positional[0])
        elif constant_path(receiver) == "Sidekiq.Cron.Job" and method in (
            "create",
            "new",
            "load_from_hash",
            "load_from_hash!",
            "load_from_array",
            "load_from_array!",
        ):
            self._sidekiq_cron(node, method, args)
        elif constant_path(receiver) == "Rufus.Scheduler" and method in ("new", "singleton", "s"):
            self._rufus_start(node)
        elif method in RUFUS_SCHEDULE_METHODS and block is not None and self._is_rufus(receiver):
            self._rufus_entry(node, method, args, block)
        elif (
            method == "every"
            and receiver is None
            and self._whenever
            and walker.class_context is None
        ):
            self._whenever_entry(node, args, block)

    def assignment(self, node: Any, left: Any, right: Any) -> None:
        """``config.active_job.queue_adapter = :sidekiq``, ``Sidekiq.default_job_options =
        {...}``, ``self.enqueue_after_transaction_commit = true`` in a job class,
        ``scheduler = Rufus::Scheduler.new``."""
        walker = self.walker
        text = walker.text(left, 120)
        if right.type == "call":
            receiver, _method, _, _ = call_parts(right)
            if constant_path(receiver) == "Rufus.Scheduler" and left.type in (
                "identifier",
                "instance_variable",
                "constant",
                "global_variable",
            ):
                self._rufus.add(identifier(left) or "")
        if text.startswith("config.active_job."):
            key = text.removeprefix("config.active_job.")
            self._setting(node, f"activejob.{key}", text, right)
        elif text == "Sidekiq.default_job_options":
            self._setting(node, "sidekiq.default_job_options", text, right)
        elif text == "self.enqueue_after_transaction_commit" and walker.class_context is not None:
            if walker.method is None:
                declarations = self._declarations.setdefault(walker.class_context.qualname, [])
                declarations.append(
                    ("enqueue_after_transaction_commit", walker.evaluate(right), node)
                )
        elif text in ("ActiveJob::Base.enqueue_after_transaction_commit",):
            self._setting(node, "activejob.enqueue_after_transaction_commit", text, right)

    def _setting(self, node: Any, key: str, raw_key: str, value_node: Any) -> None:
        self.walker.facts.settings.append(
            Setting(key, raw_key, self.walker.evaluate(value_node), self.walker.loc(node), "ruby")
        )

    def _setting_value(self, node: Any, key: str, name: str) -> None:
        self.walker.facts.settings.append(
            Setting(key, name, Const(name), self.walker.loc(node), "ruby")
        )

    def _sidekiq_switch(self, node: Any, method: str, args: Any) -> None:
        """``Sidekiq.transactional_push!`` (every push waits for the transaction to
        commit), ``Sidekiq.strict_args!(false)``."""
        walker = self.walker
        positional, _ = arguments(args)
        value: Value = walker.evaluate(positional[0]) if positional else Const(True)
        key = f"sidekiq.{method.removesuffix('!')}"
        walker.facts.settings.append(
            Setting(key, f"Sidekiq.{method}", value, walker.loc(node), "ruby")
        )

    # -- enqueue sites ------------------------------------------------------------------

    def _enqueue(self, node: Any, receiver: Any, method: str, args: Any, framework: str) -> None:
        walker = self.walker
        options: list[tuple[str, Value]] = []
        target_node = receiver
        if receiver is not None and receiver.type == "call":
            inner_receiver, inner_method, inner_args, _ = call_parts(receiver)
            if inner_method == "set":
                _, keywords = arguments(inner_args)
                options.extend((k, walker.evaluate(v)) for k, v, _ in keywords)
                target_node = inner_receiver
        target, target_text = self._target(target_node)
        positional, keywords = arguments(args)
        if method in ("perform_in", "perform_at") and positional:
            options.append(
                ("in" if method == "perform_in" else "at", walker.evaluate(positional[0]))
            )
            positional = positional[1:]
        payload_keywords = keywords
        if method == "perform_bulk":
            options.extend((k, walker.evaluate(v)) for k, v, _ in keywords)
            payload_keywords = []
        arguments_ = walker.arguments(positional, payload_keywords)
        if framework == "activejob":
            arguments_ = tuple(_global_id(a) for a in arguments_)
        self._site(node, method, target, target_text, arguments_, tuple(options), framework)

    def _client_push(self, node: Any, method: str, args: Any) -> None:
        """``Sidekiq::Client.push("class" => HardJob, "args" => [1, 2], "queue" => "x")``,
        ``Sidekiq::Client.enqueue_to(queue, HardJob, *args)``."""
        walker = self.walker
        positional, keywords = arguments(args)
        target_node = None
        options: list[tuple[str, Value]] = []
        payload: list[Any] = []
        if method in ("push", "push_bulk"):
            items = list(keywords)
            if positional and positional[0].type == "hash":
                items += _pairs(positional[0])
            for key, value, _ in items:
                if key == "class":
                    target_node = value
                elif key == "args" and value.type == "array" and method == "push":
                    payload = [c for c in value.named_children if c.type != "comment"]
                elif key == "args":
                    payload = [value]
                else:
                    options.append((key, walker.evaluate(value)))
        else:
            skip = {"enqueue": 0, "enqueue_to": 1, "enqueue_in": 1, "enqueue_at": 1}[method]
            if method == "enqueue_to" and positional:
                options.append(("queue", walker.evaluate(positional[0])))
            elif skip and positional:
                options.append(
                    ("in" if method == "enqueue_in" else "at", walker.evaluate(positional[0]))
                )
            rest = positional[skip:]
            if rest:
                target_node, payload = rest[0], rest[1:]
        target, target_text = self._target(target_node)
        self._site(
            node, method, target, target_text, walker.arguments(payload), tuple(options), "sidekiq"
        )

    def _target(self, node: Any | None) -> tuple[str | None, str]:
        """The job class an enqueue names: a constant, ``self``/nothing in a class method,
        ``self.class`` in an instance method, or a string of the class name."""
        walker = self.walker
        context = walker.class_context
        if node is None or node.type == "self":
            if context is not None:
                return context.qualname, ruby_name(context.qualname)
            return None, "self"
        path = constant_path(node)
        if path is not None:
            return path, ruby_name(path)
        if node.type == "call" and identifier(node.child_by_field_name("method")) == "class":
            inner = node.child_by_field_name("receiver")
            if (inner is None or inner.type == "self") and context is not None:
                return context.qualname, ruby_name(context.qualname)
        text = string(walker.evaluate(node))
        if text is not None and text.replace("::", "").isidentifier():
            return text.removeprefix("::").replace("::", "."), text
        return None, walker.text(node, 60)

    def _site(
        self,
        node: Any,
        method: str,
        target: str | None,
        target_text: str,
        args: tuple,
        options: tuple,
        framework: str,
    ) -> None:
        walker = self.walker
        walker.facts.enqueues.append(
            EnqueueSite(
                method=method,
                target=target,
                target_text=target_text,
                loc=walker.loc(node),
                order=walker.order,
                function=walker.function_qualname(),
                arguments=args,
                options=options,
                framework_hint=framework,
                atomic=(atomic := walker.atomic_state()),
                contexts=(walker.atomic_construct() or "",) if atomic else (),
                deferred=walker.deferred(),
                in_loop=walker.in_loop(),
            )
        )
        walker.add_loop_enqueue(walker.order, batched=method in ("perform_bulk", "push_bulk"))

    # -- schedules in code --------------------------------------------------------------

    def _sidekiq_cron(self, node: Any, method: str, args: Any) -> None:
        """``Sidekiq::Cron::Job.create(name:, cron:, class:)`` (also ``.new(...)``, saved
        later) and ``load_from_hash``/``load_from_array`` of a literal (sidekiq-cron
        lib/sidekiq/cron/job.rb)."""
        positional, keywords = arguments(args)
        if method in ("create", "new"):
            fields = {k: v for k, v, _ in keywords}
            if not fields and positional and positional[0].type == "hash":
                fields = {k: v for k, v, _ in _pairs(positional[0])}
            self._cron_entry(node, fields.get("name"), fields, method)
            return
        if not positional:
            return
        literal = positional[0]
        if literal.type == "hash":
            for key, value, pair in _pairs(literal):
                if value.type == "hash":
                    fields = {k: v for k, v, _ in _pairs(value)}
                    self._cron_entry(pair, None, fields, "load_from_hash", name_text=key)
        elif literal.type == "array":
            for item in literal.named_children:
                if item.type == "hash":
                    fields = {k: v for k, v, _ in _pairs(item)}
                    self._cron_entry(item, fields.get("name"), fields, "load_from_array")

    def _cron_entry(
        self,
        node: Any,
        name_node: Any | None,
        fields: dict[str, Any],
        source: str,
        name_text: str | None = None,
    ) -> None:
        walker = self.walker
        class_node = fields.get("class") or fields.get("klass")
        cron_node = fields.get("cron")
        if class_node is None or cron_node is None:
            return
        name = name_text or (string(walker.evaluate(name_node)) if name_node is not None else None)
        task_name, target = self._named_class(class_node)
        cron_text = string(walker.evaluate(cron_node))
        options = tuple(
            (k, walker.evaluate(v))
            for k, v in fields.items()
            if k not in ("name", "cron", "class", "klass")
        )
        walker.facts.schedules.append(
            ScheduleEntry(
                framework="sidekiq-cron",
                source=source,
                name=name,
                task_name=task_name,
                target=target,
                target_text=walker.text(class_node, 60),
                timing=ruby_timing.cron(cron_text, cron_text or walker.text(cron_node, 60)),
                loc=walker.loc(node),
                task_loc=walker.loc(class_node),
                timing_loc=walker.loc(cron_node),
                options=options,
            )
        )

    def _named_class(self, node: Any) -> tuple[str | None, str | None]:
        path = constant_path(node)
        if path is not None:
            return ruby_name(path), path
        text = string(self.walker.evaluate(node))
        if text is None:
            return None, None
        return text, text.removeprefix("::").replace("::", ".")

    def _rufus_start(self, node: Any) -> None:
        walker = self.walker
        start = SchedulerStart(
            "rufus", walker.function_qualname(), walker.loc(node), walker.text(node)
        )
        walker.facts.scheduler_starts.append(start)
        if self._boots_with_rails() and start.function is None and not self._one_process(node):
            if not any(hook.kind == RAILS_BOOT for hook in walker.facts.startup_hooks):
                walker.facts.startup_hooks.append(StartupHook(RAILS_BOOT, None, start.loc))

    def _boots_with_rails(self) -> bool:
        """Files Rails runs while it boots, in every process that loads the app (each Puma
        worker, each Sidekiq process, console, rake): initializers, application.rb,
        environment files."""
        path = "/" + self.walker.facts.path.replace("\\", "/")
        return (
            "/config/initializers/" in path
            or path.endswith(("/config/application.rb", "/config/environment.rb"))
            or "/config/environments/" in path
        )

    def _one_process(self, node: Any) -> bool:
        """Started under an environment toggle (``if ENV["RUN_SCHEDULER"]``), or with a
        lock that lets one process schedule (rufus ``lockfile:``, ``scheduler_lock:``,
        ``trigger_lock:``)."""
        if any("ENV" in condition for condition in self.walker.conditions):
            return True
        return any(word in self.walker.text(node, 400) for word in RUFUS_LOCKS)

    def _is_rufus(self, receiver: Any | None) -> bool:
        if receiver is None:
            return False
        if receiver.type in ("identifier", "instance_variable", "constant", "global_variable"):
            return (identifier(receiver) or "") in self._rufus
        if receiver.type == "call":
            inner, method, _, _ = call_parts(receiver)
            return constant_path(inner) == "Rufus.Scheduler" and method in ("singleton", "s", "new")
        return False

    def _rufus_entry(self, node: Any, method: str, args: Any, block: Any) -> None:
        """``scheduler.cron "0 3 * * *" do ... end``, ``scheduler.every "10m" do``."""
        walker = self.walker
        positional, keywords = arguments(args)
        if not positional:
            return
        when = walker.evaluate(positional[0])
        text = string(when)
        shown = walker.text(positional[0], 60)
        if method == "cron":
            entry_timing = ruby_timing.cron(text, shown)
        elif method in ("every", "interval", "schedule_every"):
            entry_timing = _interval(when, shown)
        else:
            entry_timing = ruby_timing.cron(None, shown)
        task_name, target, task_node = self._block_job(block)
        if task_node is not None and not _enqueues(task_node):
            task_name = None  # the block calls code of its own (Product.refresh!): no job name
        walker.facts.schedules.append(
            ScheduleEntry(
                framework="rufus",
                source=method,
                name=None,
                task_name=task_name,
                target=target,
                target_text=walker.text(task_node or block, 60),
                timing=entry_timing,
                loc=walker.loc(node),
                task_loc=walker.loc(task_node or block),
                timing_loc=walker.loc(positional[0]),
                options=tuple((k, walker.evaluate(v)) for k, v, _ in keywords),
            )
        )

    def _block_job(self, block: Any) -> tuple[str | None, str | None, Any | None]:
        """The job a schedule's block runs: the first ``Job.perform_*`` (or any call on a
        constant) in it."""
        body = block_body(block)
        if body is None:
            return None, None, None
        stack = list(reversed(body.named_children))
        fallback = None
        while stack:
            current = stack.pop()
            if current.type == "call":
                receiver, method, _, _ = call_parts(current)
                path = constant_path(receiver)
                if path is not None and (method or "").startswith("perform"):
                    return ruby_name(path), path, current
                if path is not None and fallback is None:
                    fallback = (ruby_name(path), path, current)
            stack.extend(reversed(current.named_children))
        return fallback if fallback is not None else (None, None, None)

    def _whenever_entry(self, node: Any, args: Any, block: Any) -> None:
        """whenever's ``every 1.day, at: "3:00 am" do runner "Job.perform_later" end``."""
        walker = self.walker
        positional, keywords = arguments(args)
        if not positional:
            return
        frequency_value = walker.evaluate(positional[0])
        frequency: object = None
        if isinstance(frequency_value, Const):
            frequency = frequency_value.value
        shown = walker.text(positional[0], 60)
        at_nodes = [v for k, v, _ in keywords if k == "at"]
        ats: list[object] = [None]
        if at_nodes:
            at_value = walker.evaluate(at_nodes[0])
            if isinstance(at_value, SeqV):
                ats = [v.value if isinstance(v, Const) else Opaque("?") for v in at_value.items]
            elif isinstance(at_value, Const):
                ats = [at_value.value]
            else:
                ats = [Opaque("?")]
            shown = f"{shown}, at: {walker.text(at_nodes[0], 40)}"
        jobs = _whenever_jobs(walker, block)
        for at in ats:
            entry_timing = ruby_timing.whenever(frequency, at, shown)
            for job_type, task_node, task_text in jobs or [(None, positional[0], shown)]:
                task_name, target = (
                    _runner_target(task_text) if job_type == "runner" else (None, None)
                )
                walker.facts.schedules.append(
                    ScheduleEntry(
                        framework="whenever",
                        source="every",
                        name=task_text if job_type != "runner" else None,
                        task_name=task_name,
                        target=target,
                        target_text=task_text,
                        timing=entry_timing,
                        loc=walker.loc(node),
                        task_loc=walker.loc(task_node),
                        timing_loc=walker.loc(positional[0]),
                        options=(("job_type", Const(job_type)),) if job_type else (),
                    )
                )


def _enqueues(call: Any) -> bool:
    """``Job.perform_async(...)``, ``Job.perform_later``: the call names a job class."""
    _, method, _, _ = call_parts(call)
    return (method or "").startswith("perform")


def _defines_perform(class_node: Any) -> bool:
    body = class_node.child_by_field_name("body")
    if body is None:
        return False
    return any(
        child.type == "method" and child.child_by_field_name("name").text == b"perform"
        for child in body.named_children
    )


def _pairs(hash_node: Any) -> list[tuple[str, Any, Any]]:
    from jobcheck.ruby.parse import pair_key

    found = []
    for child in hash_node.named_children:
        if child.type == "pair":
            key = pair_key(child)
            value = child.child_by_field_name("value")
            if key is not None and value is not None:
                found.append((key, value, child))
    return found


def _global_id(argument: Any) -> Any:
    """ActiveJob serializes a record as its GlobalID and loads it again when the job runs
    (activejob lib/active_job/arguments.rb ``serialize_argument``: a
    ``GlobalID::Identification`` becomes ``{"_aj_globalid" => gid}``): not a copy."""
    if argument.kind != "record":
        return argument
    from dataclasses import replace

    return replace(
        argument,
        kind="globalid",
        reason=f"{argument.reason}, passed by GlobalID (ActiveJob loads it when the job runs)",
    )


def _interval(value: Value, shown: str) -> Any:
    from jobcheck import timing

    if isinstance(value, Const):
        seconds = ruby_timing.duration(value.value)  # type: ignore[arg-type]
        if seconds is not None:
            return timing.interval(seconds, shown)
    return timing.other(shown)


def _whenever_jobs(walker: RubyWalker, block: Any | None) -> list[tuple[str, Any, str]]:
    """(job type, node, task text) of ``runner "..."``, ``rake "..."``, ``command "..."``
    (and any job type the file defines with ``job_type``) inside an ``every`` block."""
    body = block_body(block)
    if body is None:
        return []
    found = []
    for child in body.named_children:
        if child.type != "call":
            continue
        receiver, method, args, _ = call_parts(child)
        positional, _ = arguments(args)
        if receiver is None and method and positional:
            text = string(walker.evaluate(positional[0]))
            found.append(
                (method, positional[0], text if text is not None else walker.text(positional[0]))
            )
    return found


def _runner_target(text: str) -> tuple[str | None, str | None]:
    """``"ReportJob.perform_later"`` -> ("ReportJob", "ReportJob")."""
    import re

    match = re.match(
        r"\s*(?:::)?([A-Z]\w*(?:::[A-Z]\w*)*)\.(?:new\.)?(perform\w*|call|run)\b", text
    )
    if match is None:
        return None, None
    name = match.group(1)
    return name, name.replace("::", ".")
