"""Process definitions beyond Procfiles and supervisord: docker-compose services,
systemd units and Dockerfiles. Each gives a :class:`ProcessDecl` per command it runs;
which job system that command starts, and on which queues, each framework reads
(``Semantics.worker_queues``). Kubernetes workloads are read with the other manifests
(``jobcheck/frameworks/kubernetes/manifests.py``), shell entrypoints with the scripts
(``reader.read_script``).

YAML is read with PyYAML's safe loader, nodes only: nothing in a file is run or built.
"""

from __future__ import annotations

import json
import re
import shlex

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from jobcheck.facts import FileFacts, ProcessDecl
from jobcheck.facts.values import Const
from jobcheck.location import line_loc
from jobcheck.syntax.yaml_nodes import get as _get
from jobcheck.syntax.yaml_nodes import loc as _loc
from jobcheck.syntax.yaml_nodes import scalar as _scalar

# -- docker-compose ------------------------------------------------------------------


def read_compose(facts: FileFacts, text: str) -> None:
    """``services.<name>.command`` (a string or a list), after its ``entrypoint``; with
    ``deploy.replicas`` (or the older ``scale``) as the number of copies."""
    try:
        document = yaml.compose(text, Loader=yaml.SafeLoader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return
    services = _get(document, "services")
    if not isinstance(services, MappingNode):
        return
    for key, service in services.value:
        if not isinstance(key, ScalarNode) or not isinstance(service, MappingNode):
            continue
        parts: list[str] = []
        at: Node | None = None
        for key_name in ("entrypoint", "command"):
            node = _get(service, key_name)
            text = command_text(node)
            if text:
                parts.append(text)
                at = at or node
        if not parts or at is None:
            continue
        replicas = _scalar(_get(_get(service, "deploy"), "replicas")) or _scalar(
            _get(service, "scale")
        )
        options = (("replicas", Const(replicas)),) if replicas else ()
        facts.processes.append(
            ProcessDecl("compose", key.value, " ".join(parts), _loc(at), options)
        )


def command_text(node: Node | None) -> str | None:
    """A command written as a string (as a shell reads it) or as a list of words."""
    if isinstance(node, ScalarNode):
        return node.value.strip() or None
    if isinstance(node, SequenceNode):
        words = [item.value for item in node.value if isinstance(item, ScalarNode)]
        return shlex.join(words) if words else None
    return None


# -- systemd -------------------------------------------------------------------------

# ``ExecStart=`` may start with special prefixes (systemd.service(5), "Command lines":
# ``@``, ``-``, ``:``, ``+``, ``!``, ``!!``).
_EXEC_START = re.compile(r"\s*ExecStart\s*=\s*[-@:+!]*\s*(\S.*)")


def read_systemd(facts: FileFacts, text: str) -> None:
    """A unit's ``ExecStart=`` lines (backslash continuations joined), named after the
    unit file."""
    name = facts.path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".service")
    lines = text.splitlines()
    number = 0
    while number < len(lines):
        first = number
        parts = [lines[number]]  # joined once: a line grown per continuation is quadratic
        while parts[-1].rstrip().endswith("\\") and number + 1 < len(lines):
            number += 1
            parts[-1] = parts[-1].rstrip()[:-1]
            parts.append(lines[number].strip())
        number += 1
        match = _EXEC_START.match(" ".join(parts))
        if match is not None:
            where = line_loc(first + 1, lines[first])
            facts.processes.append(ProcessDecl("systemd", name, match.group(1).strip(), where))


# -- Dockerfile ----------------------------------------------------------------------

_INSTRUCTION = re.compile(r"\s*(CMD|ENTRYPOINT)\s+(\S.*)", re.IGNORECASE)


def read_dockerfile(facts: FileFacts, text: str) -> None:
    """``CMD`` and ``ENTRYPOINT`` in their exec (JSON array) or shell form; the last of
    each counts, as in Docker, the entrypoint first."""
    found: dict[str, tuple[str, int]] = {}
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        match = _INSTRUCTION.match(line)
        if match is None:
            continue
        found[match.group(1).upper()] = (_instruction_text(match.group(2)), number)
    command = " ".join(found[key][0] for key in ("ENTRYPOINT", "CMD") if key in found).strip()
    if command:
        number = found.get("CMD", found.get("ENTRYPOINT"))[1]  # type: ignore[index]
        where = line_loc(number, lines[number - 1])
        facts.processes.append(ProcessDecl("dockerfile", "CMD", command, where))


def _instruction_text(argument: str) -> str:
    """The exec form (a JSON array) as shell words joined; the shell form as written."""
    text = argument.strip()
    if not text.startswith("["):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return ""
    return shlex.join(str(v) for v in value) if isinstance(value, list) else ""


# -- fly.io --------------------------------------------------------------------------

_PROCESS_LINE = re.compile(r"\s*([A-Za-z0-9_-]+|\"[^\"]+\")\s*=")


def read_fly(facts: FileFacts, text: str) -> None:
    """fly.toml's ``[processes]`` table: a process group per key, its command as the
    value (fly.io's app configuration reference, "The processes section")."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        config = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return
    processes = config.get("processes")
    if not isinstance(processes, dict):
        return
    lines = text.splitlines()
    numbers = _key_lines(lines)
    for name, command in processes.items():
        if not isinstance(command, str) or not command.strip():
            continue
        number = numbers.get(name, 1)
        where = line_loc(number, lines[number - 1] if lines else "")
        facts.processes.append(ProcessDecl("fly", str(name), command.strip(), where))


def _key_lines(lines: list[str]) -> dict[str, int]:
    """The line of each ``key = ...`` in the ``[processes]`` table (its first), read in
    one pass for every key."""
    found: dict[str, int] = {}
    inside = False
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("["):
            inside = stripped == "[processes]"
            continue
        match = _PROCESS_LINE.match(line) if inside else None
        if match is not None:
            found.setdefault(match.group(1).strip('"'), number)
    return found
