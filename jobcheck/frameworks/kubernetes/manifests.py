"""Kubernetes CronJob manifests: every ``kind: CronJob`` document of a YAML file (and the
items of a ``kind: List``) as a :class:`ScheduleEntry` with its schedule, its settings
and the command its container runs.

Helm templates are read after stripping ``{{ ... }}`` conservatively: a line that is
only template directives becomes blank, a template inside a value makes that value
unknown; line numbers are kept. A file that still does not parse, or holds no CronJob,
gives no facts and no error. YAML is read with PyYAML's pure-Python safe loader only,
and only the nodes of the fields below are turned into values.
"""

from __future__ import annotations

import re
import shlex

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from jobcheck import timing
from jobcheck.facts import FileFacts, ProcessDecl, ScheduleEntry, Timing
from jobcheck.facts.values import Const, Opaque, Value
from jobcheck.syntax.templates import tags
from jobcheck.syntax.yaml_nodes import get as _get
from jobcheck.syntax.yaml_nodes import loc as _loc
from jobcheck.syntax.yaml_nodes import scalar as _scalar

TEMPLATED = "__jobcheck_templated__"
_MARK = "\x00"
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
# The whole string, matched once: searching a long run of digits for a unit from each
# digit is quadratic.
_GO_DURATION = re.compile(r"(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+")
_DURATION_SECONDS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}

# CronJob ``spec`` fields, Job ``spec`` fields (``jobTemplate.spec``) and pod ``spec``
# fields recorded as options, under their own names.
CRONJOB_FIELDS = (
    "timeZone",
    "concurrencyPolicy",
    "startingDeadlineSeconds",
    "suspend",
    "successfulJobsHistoryLimit",
    "failedJobsHistoryLimit",
)
JOB_FIELDS = (
    "activeDeadlineSeconds",
    "backoffLimit",
    "backoffLimitPerIndex",
    "ttlSecondsAfterFinished",
    "parallelism",
    "completions",
)
POD_FIELDS = ("restartPolicy",)


def read(facts: FileFacts, text: str) -> None:
    stripped = strip_templates(text)
    try:
        documents = list(yaml.compose_all(stripped, Loader=yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError, ValueError):
        return  # not YAML once the templates are gone: not a manifest we can read
    constructor = SafeConstructor()
    for document in documents:
        resources = _resources(document)
        for resource in resources:
            entry = _cronjob(resource, constructor)
            if entry is not None:
                facts.schedules.append(entry)
            facts.processes.extend(_workload_processes(resource))
        if not any(_scalar(_get(r, "kind")) for r in resources):
            facts.processes.extend(_values_processes(document, ()))


# Resources whose pods run for as long as they live: the worker processes of a cluster.
WORKLOAD_KINDS = frozenset({"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Pod"})


def _workload_processes(node: MappingNode) -> list[ProcessDecl]:
    """A process per container of a workload (``spec.template.spec.containers``, a Pod's
    ``spec.containers``), with ``spec.replicas`` as its number of copies."""
    kind = _scalar(_get(node, "kind"))
    if kind not in WORKLOAD_KINDS:
        return []
    spec = _get(node, "spec")
    pod_spec = spec if kind == "Pod" else _get(_get(spec, "template"), "spec")
    containers = _get(pod_spec, "containers")
    if not isinstance(containers, SequenceNode):
        return []
    name = _shown(_scalar(_get(_get(node, "metadata"), "name"))) or "?"
    replicas = _scalar(_get(spec, "replicas")) if kind != "Pod" else None
    options: tuple[tuple[str, Value], ...] = (
        (("replicas", Const(replicas)),) if replicas and replicas.isdigit() else ()
    )
    grace = _scalar(_get(pod_spec, "terminationGracePeriodSeconds"))
    if grace and grace.isdigit():
        options += (("terminationGracePeriodSeconds", Const(int(grace))),)
    found = []
    for container in containers.value:
        command = _command(container)
        if command is None or not isinstance(container, MappingNode):
            continue
        label = f"{kind} {name}"
        container_name = _scalar(_get(container, "name"))
        if container_name and container_name != name:
            label += f", container {container_name}"
        found.append(ProcessDecl("workload", label, command, _loc(container), options))
    return found


def _values_processes(node: Node | None, path: tuple[str, ...]) -> list[ProcessDecl]:
    """Helm values and other YAML without ``kind``: every mapping with a ``command`` or
    ``args`` list, named by its keys (``worker.command``). Each node is read once (an
    alias may repeat a node, or make the tree a cycle: ``&a [*a]``), 12 levels deep at
    most."""
    found: list[ProcessDecl] = []
    seen: set[int] = set()
    pending: list[tuple[Node, tuple[str, ...]]] = [(node, path)] if node is not None else []
    while pending:
        current, keys = pending.pop()
        if id(current) in seen or len(keys) > 12:
            continue
        seen.add(id(current))
        if isinstance(current, SequenceNode):
            pending.extend((item, keys) for item in reversed(current.value))
            continue
        if not isinstance(current, MappingNode):
            continue
        command = _command(current)
        if command is not None:
            label = _scalar(_get(current, "name")) or ".".join(keys) or "?"
            found.append(ProcessDecl("values", label, command, _loc(current)))
        for key, value in reversed(current.value):
            if isinstance(key, ScalarNode) and key.value not in COMMAND_KEYS:
                pending.append((value, (*keys, key.value)))
    return found


def _command(container: Node) -> str | None:
    """A container's command line: ``command`` then ``args`` (each a list of words, or a
    string as a shell reads it); Render's ``startCommand``/``dockerCommand`` when neither
    is there (render.yaml)."""
    parts = [_part(_get(container, key)) for key in ("command", "args")]
    if not any(parts):
        parts = [_part(_get(container, key)) for key in RENDER_COMMANDS]
    return " ".join(part for part in parts if part) or None


def _part(node: Node | None) -> str:
    if isinstance(node, SequenceNode):
        return shlex.join(_word(item) for item in node.value)
    return _word(node).strip() if isinstance(node, ScalarNode) else ""


# render.yaml services (Render's Blueprint spec): ``startCommand`` for native runtimes,
# ``dockerCommand`` for Docker ones.
RENDER_COMMANDS = ("startCommand", "dockerCommand")
COMMAND_KEYS = frozenset({"command", "args", *RENDER_COMMANDS})


def strip_templates(text: str) -> str:
    """``text`` with Helm/Go templates removed, line for line: a line left with nothing
    but templates and blanks becomes empty, a template inside a value becomes
    :data:`TEMPLATED`."""
    if "{{" not in text:
        return text
    marked = _marked(text)
    lines = []
    for line in marked.split("\n"):
        if _MARK not in line:
            lines.append(line)
        elif not line.replace(_MARK, "").strip(" \t-"):
            lines.append("")
        else:
            lines.append(line.replace(_MARK, TEMPLATED))
    return "\n".join(lines)


def _marked(text: str) -> str:
    """``text`` with each ``{{ ... }}`` (to the first ``}}`` after its ``{{``) replaced by
    :data:`_MARK` and its line breaks."""
    kept: list[str] = []
    position = 0
    for start, end in tags(text, "{{", "}}"):
        kept += [text[position:start], _MARK, "\n" * text.count("\n", start, end)]
        position = end
    kept.append(text[position:])
    return "".join(kept)


def _resources(node: Node | None) -> list[MappingNode]:
    if not isinstance(node, MappingNode):
        return []
    kind = _scalar(_get(node, "kind"))
    if kind == "List":
        items = _get(node, "items")
        if isinstance(items, SequenceNode):
            return [item for item in items.value if isinstance(item, MappingNode)]
        return []
    return [node]


def _cronjob(node: MappingNode, constructor: SafeConstructor) -> ScheduleEntry | None:
    kind = _get(node, "kind")
    if _scalar(kind) != "CronJob":
        return None
    spec = _get(node, "spec")
    metadata = _get(node, "metadata")
    name_node = _get(metadata, "name")
    name = _scalar(name_node)
    suspend = _get(spec, "suspend")
    if suspend is not None and _value(suspend, constructor) == Const(True):
        return None  # a suspended CronJob starts nothing (cronjob_controllerv2.go)
    schedule_node = _get(spec, "schedule")
    job_spec = _get(_get(spec, "jobTemplate"), "spec")
    pod_spec = _get(_get(job_spec, "template"), "spec")
    options: list[tuple[str, Value]] = []
    for owner, fields in ((spec, CRONJOB_FIELDS), (job_spec, JOB_FIELDS), (pod_spec, POD_FIELDS)):
        for field in fields:
            value = _get(owner, field)
            if value is not None:
                options.append((field, _value(value, constructor)))
    pod_deadline = _get(pod_spec, "activeDeadlineSeconds")
    if pod_deadline is not None:
        options.append(("pod.activeDeadlineSeconds", _value(pod_deadline, constructor)))
    namespace = _get(metadata, "namespace")
    if namespace is not None:
        options.append(("namespace", _value(namespace, constructor)))
    container, command = _container_command(pod_spec, constructor)
    image = _get(container, "image")
    if image is not None:
        options.append(("image", _value(image, constructor)))
    where = _loc(name_node or kind)
    schedule_text = _scalar(schedule_node)
    return ScheduleEntry(
        framework="kubernetes",
        source="cronjob",
        name=_shown(name),
        task_name=None,
        target=None,
        target_text=command or _shown(name) or "CronJob",
        timing=schedule_timing(schedule_text),
        loc=where,
        task_loc=_loc(container) if container is not None else where,
        timing_loc=_loc(schedule_node) if schedule_node is not None else where,
        options=tuple(options),
        command=command,
    )


def schedule_timing(schedule: str | None) -> Timing:
    """``spec.schedule`` as ``cron.ParseStandard`` reads it: five fields, a descriptor
    (``@hourly``), or ``@every <Go duration>``; a ``TZ=``/``CRON_TZ=`` prefix is rejected
    by the API server, and a templated schedule is unknown."""
    if schedule is None or TEMPLATED in schedule:
        return timing.other(_shown(schedule) or "?")
    text = schedule.strip()
    if text.startswith(("TZ=", "CRON_TZ=")):
        return timing.other(text)
    if text.startswith("@every"):
        return timing.interval(_go_duration(text.removeprefix("@every").strip()), text)
    return timing.cron_expression(text, text)


def _container_command(
    pod_spec: Node | None, constructor: SafeConstructor
) -> tuple[MappingNode | None, str | None]:
    """The first container and its command line (``command`` then ``args``; ``args``
    alone run after the image's entrypoint)."""
    containers = _get(pod_spec, "containers")
    if not isinstance(containers, SequenceNode) or not containers.value:
        return None, None
    container = containers.value[0]
    if not isinstance(container, MappingNode):
        return None, None
    return container, _command(container)


def _word(node: Node) -> str:
    if isinstance(node, ScalarNode):
        return node.value.replace(TEMPLATED, "{{...}}")
    return "?"


def _go_duration(text: str) -> float | None:
    """A Go ``time.ParseDuration`` string (``1h30m``, ``90s``); None when it is not one,
    or when a number in it is too large to be one (unknown)."""
    if not _GO_DURATION.fullmatch(text):
        return None
    total = 0.0
    for amount, unit in _DURATION.findall(text):
        seconds = timing.read_number(amount)
        if seconds is None:
            return None
        total += seconds * _DURATION_SECONDS[unit]
    return total


def _value(node: Node, constructor: SafeConstructor) -> Value:
    if not isinstance(node, ScalarNode):
        return Opaque("...")
    if TEMPLATED in node.value:
        return Opaque("{{...}}")
    try:
        value = constructor.construct_object(node, deep=True)
    except (yaml.YAMLError, ValueError):  # ValueError: an int of over 4300 digits
        return Opaque(node.value[:40])
    if isinstance(value, (int, float)) and timing.bounded(value) is None:
        return Opaque(node.value[:40])  # too large, or .inf: unknown
    if value is None or isinstance(value, (bool, int, float, str)):
        return Const(value)
    return Opaque(str(node.value)[:40])


def _shown(text: str | None) -> str | None:
    return text.replace(TEMPLATED, "{{...}}") if text is not None else None
