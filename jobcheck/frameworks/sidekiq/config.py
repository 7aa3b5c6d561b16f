"""Sidekiq's YAML files: ``config/sidekiq.yml`` (queues with weights, capsules,
concurrency, timeout, max_retries, sidekiq-scheduler's ``:scheduler: :schedule:``) and
sidekiq-cron's ``config/schedule.yml``.

Both are ERB templates (sidekiq lib/sidekiq/cli.rb ``parse_config``: ``ERB.new(...)
.result`` then ``YAML.safe_load``; sidekiq-cron lib/sidekiq/cron/schedule_loader.rb
``rendered_schedule_template``). ERB is never run here: ``<% ... %>`` tags are dropped
(so both branches of an ``<% if %>`` are read) and each ``<%= ... %>`` becomes a
placeholder, so a value written with ERB is unknown (``Opaque``), never guessed. The
text is then composed with PyYAML's safe loader only; node positions give locations.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from jobcheck import timing
from jobcheck.facts import FileFacts, Loc, QueueDecl, ScheduleEntry, Setting
from jobcheck.facts.values import Const, DictV, Opaque, SeqV, Value, string
from jobcheck.frameworks.sidekiq import timing as ruby_timing
from jobcheck.syntax.templates import tags

_PLACEHOLDER = re.compile(r"__jobcheck_erb_(\d+)__")
_MAX_NODES = 50_000
ENVIRONMENTS = frozenset({"production", "staging", "development", "test", "sandbox", "qa"})
# Settings of config/sidekiq.yml (sidekiq lib/sidekiq/config.rb ``DEFAULTS``;
# lib/sidekiq/job_retry.rb reads ``:max_retries``).
SIDEKIQ_SETTINGS = frozenset(
    {
        "concurrency",
        "timeout",
        "max_retries",
        "dead_max_jobs",
        "dead_timeout_in_seconds",
        "average_scheduled_poll_interval",
        "poll_interval_average",
        "strict",
        "max_iteration_runtime",
        "require",
        "environment",
        "tag",
        "verbose",
    }
)
SIDEKIQ_KEYS = SIDEKIQ_SETTINGS | {"queues", "capsules", "scheduler", "schedule", "labels"}
# sidekiq-scheduler (lib/sidekiq-scheduler/scheduler.rb ``load_schedule_job``): each
# schedule needs one of these and a class.
SCHEDULER_TYPES = ("cron", "every", "at", "in", "interval")


class _Document:
    """A composed YAML document, its ERB placeholders, and a budget of nodes to read."""

    def __init__(self, text: str, erb: list[str]) -> None:
        self.root = yaml.compose(text, Loader=yaml.SafeLoader)
        self.erb = erb
        self.budget = _MAX_NODES
        self._constructor = yaml.constructor.SafeConstructor()

    def value(self, node: Any, depth: int = 0) -> Value:
        self.budget -= 1
        if self.budget < 0 or depth > 30:
            return Opaque("...")
        if isinstance(node, yaml.ScalarNode):
            return self._scalar(node)
        if isinstance(node, yaml.SequenceNode):
            return SeqV(tuple(self.value(item, depth + 1) for item in node.value[:500]))
        if isinstance(node, yaml.MappingNode):
            return DictV(
                tuple(
                    (self.value(k, depth + 1), self.value(v, depth + 1))
                    for k, v in node.value[:500]
                )
            )
        return Opaque("?")

    def _scalar(self, node: Any) -> Value:
        if _PLACEHOLDER.search(node.value):
            return Opaque(self._restore(node.value))
        try:
            value = self._constructor.construct_object(node)
        except (yaml.YAMLError, ValueError):  # ValueError: an int of over 4300 digits
            return Opaque(node.value[:60])
        if isinstance(value, (int, float)) and timing.bounded(value) is None:
            return Opaque(node.value[:60])  # too large, or .inf: unknown
        if isinstance(value, (str, int, float, bool)) or value is None:
            return Const(value)
        return Opaque(str(node.value)[:60])

    def _restore(self, text: str) -> str:
        restored = _PLACEHOLDER.sub(lambda m: f"<%= {self.erb[int(m.group(1))]} %>", text)
        return " ".join(restored.split())[:80]

    def key(self, node: Any) -> str | None:
        """A mapping key as Sidekiq reads it (``:queues:`` and ``queues:`` alike)."""
        if not isinstance(node, yaml.ScalarNode) or _PLACEHOLDER.search(node.value):
            return None
        return node.value.lstrip(":")


def strip_erb(text: str) -> tuple[str, list[str]]:
    """The text with ``<% %>`` tags dropped and ``<%= %>`` tags as placeholders (line
    breaks kept, so locations stay right), and the Ruby of each placeholder (tags found
    in one pass: ``jobcheck/syntax/templates.py``)."""
    erb: list[str] = []
    kept: list[str] = []
    position = 0
    for start, end in tags(text, "<%", "%>"):
        kind = text[start + 2] if text[start + 2] in "=-#" else ""
        code = text[start + 2 + len(kind) : end - 2]
        newlines = "\n" * text.count("\n", start, end)
        kept.append(text[position:start])
        if kind == "=":
            erb.append(" ".join(code.removesuffix("-").split()))
            kept.append(f"__jobcheck_erb_{len(erb) - 1}__{newlines}")
        else:
            kept.append(newlines)
        position = end
    kept.append(text[position:])
    return "".join(kept), erb


def read_config(facts: FileFacts, text: str) -> FileFacts:
    """The facts of a Sidekiq YAML file; an unreadable one is an error line."""
    stripped, erb = strip_erb(text)
    try:
        document = _Document(stripped, erb)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        facts.error = f"cannot read this YAML file{where}: {getattr(error, 'problem', error)}"
        facts.parsed = False
        return facts
    root = document.root
    if not isinstance(root, yaml.MappingNode):
        if isinstance(root, yaml.SequenceNode):
            _cron_array(facts, document, root)
        return facts
    keys = {document.key(k) for k, _ in root.value}
    if keys & SIDEKIQ_KEYS:
        _sidekiq_yml(facts, document, root, environment=None)
    for key_node, value in root.value:
        key = document.key(key_node)
        if key in ENVIRONMENTS and isinstance(value, yaml.MappingNode):
            inner = {document.key(k) for k, _ in value.value}
            if inner & SIDEKIQ_KEYS:
                _sidekiq_yml(facts, document, value, environment=key)
            else:
                _cron_hash(facts, document, value, environment=key)
    if not keys & SIDEKIQ_KEYS:
        _cron_hash(facts, document, root, environment=None)
    return facts


def _loc(node: Any) -> Loc:
    start, end = node.start_mark, node.end_mark
    return Loc(start.line + 1, start.column + 1, end.line + 1, end.column + 1)


def _sidekiq_yml(facts: FileFacts, document: _Document, root: Any, environment: str | None) -> None:
    for key_node, value_node in root.value:
        key = document.key(key_node)
        if key is None:
            continue
        raw = f"{environment}.:{key}:" if environment else f":{key}:"
        if key in SIDEKIQ_SETTINGS:
            facts.settings.append(
                Setting(
                    f"sidekiq.{key}", raw, document.value(value_node), _loc(key_node), "sidekiq.yml"
                )
            )
        elif key == "queues":
            _queues(facts, document, value_node, environment, capsule=None)
        elif key == "capsules" and isinstance(value_node, yaml.MappingNode):
            for name_node, capsule in value_node.value:
                name = document.key(name_node)
                if not isinstance(capsule, yaml.MappingNode):
                    continue
                for inner_key, inner in capsule.value:
                    if document.key(inner_key) == "queues":
                        _queues(facts, document, inner, environment, capsule=name)
                    elif document.key(inner_key) == "concurrency":
                        facts.settings.append(
                            Setting(
                                "sidekiq.capsule.concurrency",
                                f":capsules:.{name}.concurrency",
                                document.value(inner),
                                _loc(inner_key),
                                "sidekiq.yml",
                            )
                        )
        elif key == "scheduler" and isinstance(value_node, yaml.MappingNode):
            for inner_key, inner in value_node.value:
                if document.key(inner_key) == "schedule" and isinstance(inner, yaml.MappingNode):
                    _schedule_map(
                        facts, document, inner, "sidekiq-scheduler", "scheduler", environment
                    )
        elif key == "schedule" and isinstance(value_node, yaml.MappingNode):
            # sidekiq-scheduler before 5.0 read a top-level :schedule: (v4.0.3 manager.rb:25).
            _schedule_map(facts, document, value_node, "sidekiq-scheduler", "schedule", environment)


def _queues(
    facts: FileFacts, document: _Document, node: Any, environment: str | None, capsule: str | None
) -> None:
    """``- critical``, ``- [critical, 3]``, ``- "critical,3"`` (sidekiq lib/sidekiq/
    capsule.rb ``queues=`` splits "name,weight")."""
    if not isinstance(node, yaml.SequenceNode):
        return
    for item in node.value:
        weight: Value | None = None
        name: str | None
        value = document.value(item)
        if isinstance(value, SeqV) and value.items:
            name = string(value.items[0])
            weight = value.items[1] if len(value.items) > 1 else None
        elif isinstance(value, Const) and isinstance(value.value, str):
            name, _, given = value.value.partition(",")
            name = name.strip()
            number = timing.read_number(given.strip())
            if isinstance(number, int):
                weight = Const(number)
        else:
            name = None
        options: list[tuple[str, Value]] = []
        if weight is not None:
            options.append(("weight", weight))
        if environment:
            options.append(("environment", Const(environment)))
        if capsule:
            options.append(("capsule", Const(capsule)))
        facts.queues.append(QueueDecl("sidekiq", name, _loc(item), tuple(options)))


def _cron_hash(facts: FileFacts, document: _Document, root: Any, environment: str | None) -> None:
    """sidekiq-cron's ``name: {cron:, class:, ...}`` (``Job.load_from_hash``, job.rb:243)."""
    entries = [
        (k, v)
        for k, v in root.value
        if isinstance(v, yaml.MappingNode)
        and {document.key(x) for x, _ in v.value} & {"class", "klass"}
    ]
    if not entries:
        return
    kinds = {document.key(x) for _, v in entries for x, _ in v.value} & set(SCHEDULER_TYPES[1:])
    framework = "sidekiq-scheduler" if kinds else "sidekiq-cron"
    _schedule_map(facts, document, root, framework, "schedule.yml", environment)


def _cron_array(facts: FileFacts, document: _Document, root: Any) -> None:
    """sidekiq-cron's list form: ``- {name:, cron:, class:}`` (``Job.load_from_array``)."""
    for item in root.value:
        if isinstance(item, yaml.MappingNode):
            fields = {document.key(k): (k, v) for k, v in item.value}
            name_node = fields.get("name", (None, None))[1]
            name = string(document.value(name_node)) if name_node is not None else None
            _entry(facts, document, item, name, fields, "sidekiq-cron", "schedule.yml", None)


def _schedule_map(
    facts: FileFacts,
    document: _Document,
    root: Any,
    framework: str,
    source: str,
    environment: str | None,
) -> None:
    for name_node, body in root.value:
        if not isinstance(body, yaml.MappingNode):
            continue
        fields = {document.key(k): (k, v) for k, v in body.value}
        name = document.key(name_node)
        _entry(facts, document, name_node, name, fields, framework, source, environment)


def _entry(
    facts: FileFacts,
    document: _Document,
    where: Any,
    name: str | None,
    fields: dict[str | None, tuple[Any, Any]],
    framework: str,
    source: str,
    environment: str | None,
) -> None:
    class_field = fields.get("class") or fields.get("klass")
    if class_field is None:
        return
    class_value = document.value(class_field[1])
    task_name = string(class_value)
    target = task_name.removeprefix("::").replace("::", ".") if task_name else None
    timing_key = next((k for k in SCHEDULER_TYPES if k in fields), None)
    if timing_key is None:
        return
    timing_node = fields[timing_key][1]
    when = document.value(timing_node)
    anchored = False
    if isinstance(when, SeqV) and when.items:  # every: ["1h", {first_in: "10s"}]
        extra = when.items[1] if len(when.items) > 1 else None
        # ``first_at:`` pins the first run to a time; ``first_in:`` is counted from start.
        anchored = isinstance(extra, DictV) and extra.get("first_at") is not None
        when = when.items[0]
    text = string(when)
    shown = text if text is not None else getattr(when, "text", "?")
    if timing_key == "cron":
        entry_timing = ruby_timing.cron(text, shown)
    elif timing_key in ("every", "interval"):
        seconds = ruby_timing.duration(when.value if isinstance(when, Const) else None)  # type: ignore[arg-type]
        entry_timing = (
            timing.interval(seconds, shown) if seconds is not None else timing.other(shown)
        )
        if anchored:
            import dataclasses

            entry_timing = dataclasses.replace(entry_timing, anchored=True)
    else:
        entry_timing = timing.other(f"{timing_key} {shown}")
    options: list[tuple[str, Value]] = []
    for key, (_, value_node) in fields.items():
        if key is not None and key not in ("class", "klass", "name", timing_key):
            options.append((key, document.value(value_node)))
    if environment:
        options.append(("environment", Const(environment)))
    facts.schedules.append(
        ScheduleEntry(
            framework=framework,
            source=source,
            name=name,
            task_name=task_name,
            target=target,
            target_text=task_name or getattr(class_value, "text", "?"),
            timing=entry_timing,
            loc=_loc(where),
            task_loc=_loc(class_field[1]),
            timing_loc=_loc(timing_node),
            options=tuple(options),
        )
    )
