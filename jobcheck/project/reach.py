"""Reading, before any check runs, every project file the checks will reach.

The prefilter keeps the files that mention a job system; checks then need facts of
other files, always by name: the helpers a job calls (read as parts, a call level at a
time, ``Summaries.prefetch``), a task's base class, the model class of an argument, the
decorator a helper is wrapped in, a constant a setting names. :func:`read_reached`
reads all of them once the project model is built, in worker processes (each definition
alone, from its module's tree: ``jobcheck/extract/parts.py``), and then freezes the
loader: after gathering, nothing is read or parsed (a name whose module was
not read is unknown, as if the project did not define it; ``ModuleLoader.missed``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from jobcheck.facts import CallSite, FileFacts, FunctionFacts, Loc

if TYPE_CHECKING:
    from jobcheck.project.model import Project

# Class hierarchies and decorators are followed this many definitions up (a model's
# abstract base in a shared module, its mixin in another...).
MAX_CLASS_ROUNDS = 6

# Fields of a file's facts that hold no name a check looks up by itself (the functions'
# are read apart, in referenced_names).
_NOT_DECLARATIONS = frozenset(
    {
        "functions",
        "suppressions",
        "credential_urls",
        "defined_functions",
        "imports",
        "path",
        "module",
        "aliases",
    }
)
_CALL_FIELDS = frozenset({"call_sites", "calls"})


FunctionEntry = tuple[FileFacts, FunctionFacts]


def read_reached(
    project: Project, roots: Iterable[FunctionEntry] = (), callers: Iterable[FunctionEntry] = ()
) -> None:
    """Read every file the checks of ``project`` may ask about, then freeze its loader.

    The summaries asked are of every job body (with its task classes' hooks), of
    ``roots`` and of what ``callers`` call: the checks that judge other functions say
    which (``RuleChecks.summary_roots``). Reading the helpers of every function of
    every analysed file instead read a sixth more parts, a level deeper (saleor: 885 in
    six levels, against about 750 in five)."""
    loader = project.loader
    if loader is None:
        return
    summaries = project.summaries
    summaries.prefetch_all([*_job_bodies(project), *roots], callers)
    names = referenced_names(project.files)
    names |= {n for f in summaries.part_facts() for n in _decorator_names_of(f)}
    for _ in range(MAX_CLASS_ROUNDS):
        if not names:
            break
        loader.prefetch(sorted(names))
        read = [f for name in sorted(names) for f in project.read_definition(name)]
        names = _class_names(read) - names
    loader.freeze()


def _job_bodies(project: Project) -> list[FunctionEntry]:
    """Every function that runs as a job, and the hooks of every job's task classes
    (``after_return``...)."""
    from jobcheck.project.bodies import hook_functions, job_bodies

    bodies = [(body.file, body.function) for body in job_bodies(project)]
    return bodies + [entry for job in project.jobs for entry in hook_functions(project, job)]


def referenced_names(facts: Iterable[FileFacts]) -> set[str]:
    """The dotted names the checks may look up in these files' facts: in what they
    declare (jobs, settings, enqueue sites, schedules, classes, constants...), the
    decorators and bases of their functions, and the parameter and return types of the
    jobs; not every name a function body mentions (its calls are followed as parts)."""
    found: set[str] = set()
    seen: set[int] = set()
    for f in facts:
        jobs = {task.function for task in f.tasks}
        for field in dataclasses.fields(f):
            if field.name not in _NOT_DECLARATIONS:
                _collect(getattr(f, field.name), found, seen)
        for function in f.functions.values():
            found.update(_decorator_names(function))
            found.update(function.class_bases)
            if function.qualname in jobs:
                found.update(p.annotation for p in function.params if p.annotation)
                if function.returns:
                    found.add(function.returns)
    return found


def _collect(value: object, found: set[str], seen: set[int]) -> None:
    stack = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, str):
            # ``annotated:shop.models.Order``, ``returned-by:shop.loaders.load_order``
            current = current.rpartition(":")[2]
            if "." in current and " " not in current:
                found.add(current)
            continue
        if isinstance(current, (int, float, bool, Loc, CallSite)) or current is None:
            continue
        if id(current) in seen:
            continue
        seen.add(id(current))
        stack.extend(_members(current))


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def _members(value: object) -> Iterator[object]:
    kind = type(value)
    names = _FIELD_NAMES.get(kind)
    if names is None and dataclasses.is_dataclass(value):
        names = _FIELD_NAMES[kind] = tuple(
            f.name for f in dataclasses.fields(value) if f.name not in _CALL_FIELDS
        )
    if names is not None:
        for name in names:
            yield getattr(value, name)
    elif isinstance(value, dict):
        yield from value.keys()
        yield from value.values()
    elif isinstance(value, (list, tuple, set, frozenset)):
        yield from value


def _class_names(facts: Iterable[FileFacts]) -> set[str]:
    """The bases of the classes these files define, the decorators of their functions
    and what those return."""
    names: set[str] = set()
    for f in facts:
        for bases in f.classes.values():
            names.update(bases)
        for function in f.functions.values():
            names.update(_decorator_names(function))
            if function.returned is not None:
                names.add(function.returned[0].rpartition(":")[2])
    return names


def _decorator_names_of(f: FileFacts) -> Iterator[str]:
    for function in f.functions.values():
        yield from _decorator_names(function)


def _decorator_names(function: FunctionFacts) -> Iterator[str]:
    for decorator in function.decorators:
        if decorator.qualname:
            yield decorator.qualname
