"""Files that are not Python: which kind a file is, what keeps it, and who reads it.

One table, :data:`FILE_KINDS`, with a row per kind: Kubernetes manifests, crontab files,
Procfiles, supervisord configurations (a plugin for another language adds its rows
here). Discovery finds the files by their patterns (:data:`PATTERNS`), the scan
prefilters each with its kind's triggers (:func:`decide`) and :func:`extract` hands it to
its reader, a function ``read(facts, text)`` that fills a :class:`FileFacts`. Every
other file is Python, and goes to ``jobcheck.extract.extract_file``.

Light on purpose (discovery imports it, also in a run that replays its stored report):
the facts and the readers are imported on first use.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import importlib
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jobcheck.triggers import Prefilter, Trigger

if TYPE_CHECKING:
    from jobcheck.facts import FileFacts

PYTHON_SUFFIXES = (".py", ".pyi")


@dataclass(frozen=True)
class FileKind:
    name: str
    patterns: tuple[str, ...]
    """Globs (``fnmatch``; ``*`` also matches ``/``) on ``"/" + path``."""
    reader: str
    """``module:function`` taking ``(facts, text)``."""
    triggers: tuple[Trigger, ...] | None = None
    """What keeps a file of this kind; None keeps every one (small, specific files)."""
    whole_file: bool = False
    """``reader`` takes ``(path, data, module)`` and returns the facts itself (a front
    end of its own: Ruby)."""
    python_triggers: bool = False
    """Kept by the main prefilter's triggers (the plugins' own included), not ``triggers``."""
    claims_by_content: bool = False
    """A file of another kind by its name is of this one when its triggers match its bytes
    (a CronJob manifest named ``cron.yaml``)."""
    claim_triggers: tuple[Trigger, ...] | None = None
    """The triggers that claim such a file, when only some of ``triggers`` may (a
    worker command in a compose file does not make it a manifest)."""


# A crontab line: five fields (or an @keyword) and a command.
_CRON_LINE = (
    rb"(?m)^[ \t]*(?:@(?:yearly|annually|monthly|weekly|daily|midnight|hourly)"
    rb"|[\d*/,?LW#-]+[ \t]+[\d*/,-]+[ \t]+[\d*/,?LW#-]+[ \t]+[\w*/,-]+[ \t]+[\w*/,?L#-]+)"
    rb"[ \t]+\S"
)

_CRONJOB = Trigger("Kubernetes CronJob", b"CronJob", rb"kind:[ \t]*[\"']?CronJob\b")
_WORKLOAD = re.compile(rb"kind:[ \t]*[\"']?(?:Deployment|StatefulSet|DaemonSet|ReplicaSet|Pod)\b")
_WORKER_WORD = re.compile(rb"\b(?:worker|dramatiq|huey_consumer|run_huey|arq|sidekiq)\b")


def _workload_with_worker(data: bytes) -> bool:
    """A Deployment (or other workload) whose text names a worker: the only workloads
    jobcheck reads (their containers' commands are process definitions)."""
    return _WORKLOAD.search(data) is not None and _WORKER_WORD.search(data) is not None


FILE_KINDS: tuple[FileKind, ...] = (
    # Ruby sources and Sidekiq's YAML files (jobcheck/ruby), before the YAML manifests.
    FileKind(
        "ruby",
        (
            "*.rb",
            "*/Gemfile",
            *(
                f"*/{name}"
                for name in (
                    "sidekiq.yml",
                    "sidekiq.yaml",
                    "sidekiq.yml.erb",
                    "schedule.yml",
                    "schedule.yaml",
                    "scheduler.yml",
                    "scheduler.yaml",
                    "cron.yml",
                    "cron.yaml",
                )
            ),
        ),
        "jobcheck.ruby:extract_file",
        whole_file=True,
        python_triggers=True,
    ),
    FileKind(
        "crontab",
        (
            "*/crontab",
            "*/crontab.*",
            # A file named plain "cron" that a Dockerfile copies to /etc/cron.d (clist's
            # config/cron): read only when a line has a crontab line's shape.
            "*/cron",
            "*.cron",
            "*.crontab",
            "*/cron.d/*",
            "*/crontabs/*",
            # Crontabs kept as text files for a deploy script (MozDef's cron_entries.txt),
            # read only when a line has a crontab line's shape (the triggers).
            "*cron*.txt",
        ),
        "jobcheck.frameworks.crontab.reader:read_crontab",
        (Trigger("crontab line", b" ", _CRON_LINE), Trigger("crontab line", b"\t", _CRON_LINE)),
    ),
    # docker-compose services (process definitions), before the YAML manifests.
    FileKind(
        "compose",
        (
            "*/docker-compose*.yml",
            "*/docker-compose*.yaml",
            "*/compose.yml",
            "*/compose.yaml",
            "*/compose.*.yml",
            "*/compose.*.yaml",
        ),
        "jobcheck.frameworks.crontab.deployment:read_compose",
    ),
    FileKind(
        "kubernetes",
        ("*.yaml", "*.yml"),
        "jobcheck.frameworks.kubernetes.manifests:read",
        (
            _CRONJOB,
            Trigger("Kubernetes workload", b"kind:", predicate=_workload_with_worker),
            # Helm values and other YAML that name a worker command.
            Trigger("worker command", b"worker", rb"(?s)\b(?:celery|rq)\b.{0,200}?\bworker\b"),
            Trigger("worker command", b"dramatiq", rb"[\"'\s\[]dramatiq[\"'\s\],]"),
            Trigger("worker command", b"huey_consumer"),
            Trigger("worker command", b"run_huey"),
        ),
        claims_by_content=True,
        claim_triggers=(_CRONJOB,),
    ),
    FileKind(
        "procfile",
        ("*/Procfile", "*/Procfile.*"),
        "jobcheck.frameworks.crontab.reader:read_procfile",
    ),
    FileKind(
        "shell",
        ("*.sh", "*.bash"),
        "jobcheck.frameworks.crontab.reader:read_script",
        (
            Trigger("runs Python", b"python"),
            Trigger("runs manage.py", b"manage.py"),
            Trigger("runs django-admin", b"django-admin"),
            Trigger("runs celery", b"celery"),
            Trigger("runs a worker", b"rq", rb"\brq\s+worker\b"),
            Trigger("runs a worker", b"dramatiq"),
            Trigger("runs a worker", b"huey"),
            Trigger("runs a worker", b"arq", rb"\barq\s"),
            Trigger("runs a worker", b"sidekiq"),
            Trigger("takes a lock", b"flock"),
            Trigger("takes a lock", b"run-one"),
            Trigger("limits its time", b"timeout"),
        ),
    ),
    FileKind(
        "systemd",
        ("*.service",),
        "jobcheck.frameworks.crontab.deployment:read_systemd",
        (Trigger("systemd service", b"ExecStart"),),
    ),
    FileKind(
        "fly",
        ("*/fly.toml", "*/fly.*.toml"),
        "jobcheck.frameworks.crontab.deployment:read_fly",
        (Trigger("fly.io processes", b"[processes]"),),
    ),
    FileKind(
        "dockerfile",
        ("*/Dockerfile", "*/Dockerfile.*", "*.dockerfile", "*/Containerfile"),
        "jobcheck.frameworks.crontab.deployment:read_dockerfile",
        (Trigger("container command", b"CMD"), Trigger("container command", b"ENTRYPOINT")),
    ),
    FileKind(
        "supervisord",
        ("*supervisor*.conf", "*supervisor*.ini"),
        "jobcheck.frameworks.crontab.reader:read_supervisord",
        (Trigger("supervisord program", b"[program:"),),
    ),
)
PATTERNS: tuple[str, ...] = tuple(p for kind in FILE_KINDS for p in kind.patterns)
"""Every kind's patterns, for discovery."""

NOT_SOURCES = (".md", ".rst", ".html", ".json", ".swp", ".bak", ".orig", "~")
"""A document or an editor's copy named like a source of a kind (``crontab.md``)."""


@functools.cache
def _matchers() -> tuple[tuple[FileKind, Callable[[str], object]], ...]:
    return tuple(
        (kind, re.compile("|".join(fnmatch.translate(p) for p in kind.patterns)).match)
        for kind in FILE_KINDS
    )


@functools.lru_cache(maxsize=65536)
def kind_of(path: str) -> FileKind | None:
    """The kind of a file that is not Python; None for Python (any file no row claims,
    which is how a file named on the command line without ``.py`` is read)."""
    if path.endswith(PYTHON_SUFFIXES) or path.endswith(NOT_SOURCES):
        return None
    text = "/" + path.replace("\\", "/").lstrip("/")
    for kind, match in _matchers():
        if match(text):
            return kind
    return None


def is_other_source(path: str) -> bool:
    return kind_of(path) is not None


@functools.cache
def _prefilter(name: str, claims: bool = False) -> Prefilter:
    """A kind's prefilter: its triggers, or (``claims``) those that claim a file named
    like another kind."""
    kind = next(k for k in FILE_KINDS if k.name == name)
    return Prefilter((kind.claim_triggers if claims else kind.triggers) or ())


def kind_triggers(kind: FileKind) -> Prefilter | None:
    """The prefilter of a kind (None: every file of the kind is kept)."""
    return _prefilter(kind.name) if kind.triggers is not None else None


def kind_for(path: str, data: bytes) -> FileKind | None:
    """The kind of a file by its name, and by what it holds for a kind that claims files
    by their content (a YAML file named like a Sidekiq file, ``cron.yaml``, that holds a
    CronJob is a manifest)."""
    kind = kind_of(path)
    if kind is None or kind.claims_by_content:
        return kind
    text = "/" + path.replace("\\", "/").lstrip("/")
    for other in FILE_KINDS:
        if not other.claims_by_content or not _matches_kind(other, text):
            continue
        triggers = (
            _prefilter(other.name, claims=True) if other.claim_triggers else kind_triggers(other)
        )
        if triggers is not None and triggers.reason(data) is not None:
            return other
    return kind


def _matches_kind(kind: FileKind, text: str) -> bool:
    return any(fnmatch.fnmatchcase(text, pattern) for pattern in kind.patterns)


def extract(path: str, data: bytes, module: str, is_package: bool) -> FileFacts:
    """Every fact about one file, by its kind. Never raises."""
    kind = kind_for(path, data)
    if kind is None:
        from jobcheck.extract import extract_file

        return extract_file(path, data, module, is_package)
    if kind.whole_file:
        module_name, _, function = kind.reader.partition(":")
        return getattr(importlib.import_module(module_name), function)(path, data, module)  # type: ignore[no-any-return]
    return _extract_other(kind, path, data, module)


def _extract_other(kind: FileKind, path: str, data: bytes, module: str) -> FileFacts:
    from jobcheck import timing
    from jobcheck.facts import FileFacts
    from jobcheck.syntax.comments import suppressions

    facts = FileFacts(path=path, module=module)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return facts  # not text we can read: nothing to say about it
    facts.suppressions = suppressions(text, kind.name)
    module_name, _, function = kind.reader.partition(":")
    reader = getattr(importlib.import_module(module_name), function)
    try:
        reader(facts, text)
    except RecursionError:
        return FileFacts(path=path, module=module, suppressions=facts.suppressions)
    except Exception as error:  # a bug in jobcheck must not hide other files' findings
        failed = FileFacts(path=path, module=module, suppressions=facts.suppressions)
        where = traceback.extract_tb(error.__traceback__)[-1]
        failed.error = (
            f"internal error while reading this {kind.name} file: {type(error).__name__}: "
            f"{error} ({where.filename.rsplit('/', 1)[-1]}:{where.lineno}); please report it"
        )
        failed.parsed = False
        return failed
    facts.schedules[:] = [
        dataclasses.replace(entry, timing=timing.expanded(entry.timing))
        for entry in facts.schedules
    ]
    return facts
