"""Deciding from a file's raw bytes whether it can matter to any check, before parsing.

Most files of a large project mention no job system at all (about 96% of saleor's), and
parsing is the dominant cost, so a file is parsed only when a **trigger** fires on it: a
job library's name, an enqueue method, a Celery or Django setting, a task base class.

Triggers are declared where the knowledge lives: each recognizer class
(``jobcheck/extract/*.py``) and each rule class (``jobcheck/checks/*.py``) may list
``PREFILTER = (Trigger(...), ...)`` (``jobcheck/triggers.py``); :func:`compiled` gathers
them all. A trigger is a literal that must occur in the file (found with ``bytes.find``,
several times faster than a regular expression without a literal prefix) and, optionally,
a regular expression confirming the match, run only on files that contain the literal.

What the prefilter does NOT need to catch: files the checks reach by name (a model class,
a task's base class, the Celery app a decorator names, an RQ job function). The project
model loads those on demand (``jobcheck/project/lazy.py``). A file must be kept here when
it holds facts that checks *iterate*: jobs, enqueue sites, settings, apps, queues,
config sources. The fixture suite runs with and without the prefilter to prove it drops
nothing a check needs.
"""

from __future__ import annotations

from jobcheck.triggers import Decision, Prefilter, Trigger, names_pattern

__all__ = ["Decision", "Prefilter", "Trigger", "compiled", "may_matter", "names_pattern"]


# Triggers every job system shares, beside those of the recognizers and checks.
CORE_TRIGGERS = (
    # ``--show-unused-suppressions`` reports them in every file analysed.
    Trigger("suppression comment", b"jobcheck", rb"#\s*jobcheck:\s*ignore"),
    Trigger("suppression comment", b"JOBCHECK", rb"(?i)#\s*jobcheck:\s*ignore"),
)


_compiled: dict[bool, Prefilter] = {}


def compiled(python_only: bool = False) -> Prefilter:
    """The prefilter with every trigger: core, recognizers', checks' and plugins'. With
    ``python_only``, without the plugins' own (they are for files no Python recognizer
    reads: Ruby sources, YAML configuration; ``Plugin.triggers``): a Python file is
    kept by the others, and looking for Sidekiq's 40 literals in it is a third of the
    prefilter's time."""
    found = _compiled.get(python_only)
    if found is None:
        found = _compiled[python_only] = Prefilter(all_triggers(plugins=not python_only))
    return found


def all_triggers(plugins: bool = True) -> list[Trigger]:
    from jobcheck.checks import RULE_CLASSES
    from jobcheck.extract import RECOGNIZERS
    from jobcheck.registry import plugin_triggers

    found = list(CORE_TRIGGERS)
    for owner in (*RECOGNIZERS, *RULE_CLASSES):
        found.extend(getattr(owner, "PREFILTER", ()))
    if plugins:
        found.extend(plugin_triggers())
    return found


def decide(path: str, data: bytes, module: str) -> Decision:
    """The prefilter's verdict on a file: Python's triggers for Python (and Ruby), a
    kind's own for the other files ``jobcheck/extract/files.py`` names (a YAML file that
    is not a CronJob is skipped after one ``bytes.find``)."""
    from jobcheck.extract import files

    kind = files.kind_for(path, data)
    if kind is None:
        return compiled(python_only=True).decide(data, module)
    if kind.python_triggers:
        return compiled().decide(data, module)
    triggers = files.kind_triggers(kind)
    if triggers is None:
        return Decision(True, kind.name, False)
    reason = triggers.reason(data)
    return Decision(reason is not None, reason, False)


def may_matter(data: bytes, module: str = "") -> bool:
    return compiled().reason(data, module) is not None
