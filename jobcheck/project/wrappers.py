"""The project's own enqueue wrappers, and the enqueue sites their callers make.

Many projects never call ``queue.enqueue`` at the place a job is sent: they write
``def enqueue(fn, *args, **kwargs): return get_queue(...).enqueue(fn, *args, **kwargs)``
once and call ``jobs.enqueue(send_report, report)`` everywhere. Extraction marks the
wrapper (an enqueue whose job is a parameter: ``EnqueueSite.target_param``) and records
every call of a project function with its arguments (``FunctionFacts.call_sites``).
Here each call of a wrapper becomes an enqueue site of its own, at the call, naming the
job the caller hands over, with the caller's other arguments as the payload and the
wrapper's queue and options; a wrapper of a wrapper works the same way, a few levels
deep. The wrapper's own site, whose job is only a parameter, is left to these.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from jobcheck.facts import Argument, CallSite, EnqueueSite, FileFacts, FunctionFacts

if TYPE_CHECKING:
    from jobcheck.project.model import Project

# A wrapper of a wrapper of ... a wrapper: how many levels are followed.
MAX_LEVELS = 3


@dataclass(frozen=True)
class Wrapper:
    """A function that enqueues the job it is given as its parameter ``param``."""

    function: FunctionFacts
    site: EnqueueSite
    param: str

    @property
    def position(self) -> int | None:
        """The parameter's position (``self``/``cls`` counted), when positional."""
        names = [p.name for p in self.function.params]
        return names.index(self.param) if self.param in names else None

    def job_argument(self, call: CallSite) -> Argument | None:
        """The argument of ``call`` that the wrapper enqueues."""
        for argument in call.arguments:
            if argument.keyword == self.param:
                return argument
        position = self.position
        if position is None:
            return None
        if self.function.params and self.function.params[0].name in ("self", "cls"):
            position -= 1  # a method called on its instance or class
        positional = [a for a in call.arguments if a.keyword is None]
        return positional[position] if 0 <= position < len(positional) else None

    def payload(self, call: CallSite, job: Argument) -> tuple[Argument, ...]:
        """The caller's arguments the wrapper passes on as the job's payload: all but
        the job and the wrapper's own keyword parameters (``queue=``, ``delay=``)."""
        own = {p.name for p in self.function.params} - _passed_on(self.site)
        return tuple(
            a
            for a in call.arguments
            if a is not job and (a.keyword is None or a.keyword not in own)
        )


def _passed_on(site: EnqueueSite) -> set[str]:
    return {a.text for a in site.arguments}


def wrappers_of(files: list[FileFacts]) -> dict[str, Wrapper]:
    """Every enqueue wrapper of ``files``, by qualname."""
    found: dict[str, Wrapper] = {}
    for f in files:
        for site in f.enqueues:
            if site.target_param is None or site.function is None:
                continue
            function = f.functions.get(site.function)
            if function is not None and site.function not in found:
                found[site.function] = Wrapper(function, site, site.target_param)
    return found


def wrapper_functions(files: list[FileFacts]) -> set[str]:
    """The qualnames of every enqueue wrapper of ``files``, wrappers of wrappers
    included (before a project model exists: call sites matched as written)."""
    handing_on = {site.function for _, site in _wrapped(files, str) if site.target_param}
    return set(wrappers_of(files)) | {q for q in handing_on if q}


def forwarding_functions(files: list[FileFacts]) -> set[str]:
    """The qualnames of the functions of ``files`` that forward their own ``**kwargs``
    into an enqueue of a known job (:func:`forwarded_sites`)."""
    return {
        site.function
        for f in files
        for site in f.enqueues
        if site.forwards and site.target_param is None and site.function
    }


def wrapped_sites(project: Project) -> list[tuple[FileFacts, EnqueueSite]]:
    """The enqueue sites made by calling the project's enqueue wrappers."""
    return _wrapped(project.files, lambda callee: project.resolve_function(callee) or callee)


def _wrapped(
    files: list[FileFacts], resolve: Callable[[str], str]
) -> list[tuple[FileFacts, EnqueueSite]]:
    """The enqueue sites of the calls of ``files``' wrappers, level by level: a caller
    that hands on its own parameter is a wrapper of the next level."""
    wrappers = wrappers_of(files)
    derived: list[tuple[FileFacts, EnqueueSite]] = []
    seen: set[tuple[str, int, int]] = set()
    for _ in range(MAX_LEVELS):
        if not wrappers:
            break
        found_now: list[tuple[FileFacts, EnqueueSite]] = []
        for f in files:
            for function in f.functions.values():
                for call in function.call_sites:
                    wrapper = wrappers.get(resolve(call.callee))
                    key = (f.path, call.loc.line, call.loc.column)
                    if wrapper is None or key in seen:
                        continue
                    site = _site(wrapper, call, function)
                    if site is not None:
                        seen.add(key)
                        found_now.append((f, site))
        derived += found_now
        wrappers = {
            site.function: Wrapper(f.functions[site.function], site, site.target_param)
            for f, site in found_now
            if site.target_param and site.function in f.functions
        }
    return derived


def forwarded_sites(project: Project) -> list[tuple[FileFacts, EnqueueSite, str]]:
    """What the callers of a function that forwards its own ``**kwargs`` (or ``*args``)
    into an enqueue send: an enqueue site at each call, of the function's job, whose
    payload is what the call puts in the spread (``Mailer.send_later(data=request.POST)``
    sends the request's data), with the forwarding function's name. For the payload
    checks only: the enqueue itself, its queue and options, are judged where it is
    written."""
    forwarding: dict[str, tuple[FunctionFacts, EnqueueSite]] = {}
    for f in project.files:
        for site in f.enqueues:
            function = f.functions.get(site.function or "")
            if site.forwards and site.target and site.target_param is None and function:
                forwarding.setdefault(function.qualname, (function, site))
    if not forwarding:
        return []
    found: list[tuple[FileFacts, EnqueueSite, str]] = []
    for f in project.files:
        for caller in f.functions.values():
            for call in caller.call_sites:
                entry = forwarding.get(_runs(project, call.callee))
                if entry is None or call.deferred:
                    continue
                function, site = entry
                spread = _consumed_on_the_way(project, site, _into_spread(function, call))
                if spread:
                    forwarded = _forwarded(site, call, caller, spread, project.per_class(site))
                    found.append((f, forwarded, function.name))
    return found


def _runs(project: Project, callee: str) -> str:
    """The function a call of ``callee`` runs: itself, a re-exported function, or the
    method a class inherits (``CleanupJob.enqueue`` defined on ``BaseJob``)."""
    resolved = project.resolve_function(callee)
    if resolved is not None:
        return resolved
    owner, _, name = callee.rpartition(".")
    if owner in project.classes:
        return project.method_of(owner, name) or callee
    return callee


def _consumed_on_the_way(
    project: Project, site: EnqueueSite, spread: tuple[Argument, ...]
) -> tuple[Argument, ...]:
    """Of the spread, what reaches the queue when the "enqueue" the forwarding function
    makes is itself a project method (netbox's ``JobRunner.enqueue(**kwargs)`` calling
    ``Job.enqueue(cls.handle, **kwargs)``): the keywords that method takes as named
    parameters (``instance``, ``user``, stored on a Job row) are consumed there, not
    sent."""
    if not site.receiver or not site.method:
        return spread
    inner = project.function(_runs(project, f"{site.receiver}.{site.method}"))
    if inner is None:
        # A class re-exported by its package (``core.models.Job`` for
        # ``core.models.jobs.Job``): the one project method of that class and name.
        tail = f".{site.receiver.rpartition('.')[2]}.{site.method}"
        found = [q for q in project.defined_functions if q.endswith(tail)]
        inner = project.function(found[0]) if len(found) == 1 else None
    if inner is None:
        return spread
    consumed = {p.name for p in inner.params}
    return tuple(a for a in spread if a.keyword is None or a.keyword not in consumed)


def _into_spread(function: FunctionFacts, call: CallSite) -> tuple[Argument, ...]:
    """The arguments of ``call`` that ``function``'s ``*args``/``**kwargs`` receive: the
    keywords no named parameter takes, the positions after its named ones."""
    named = [p.name for p in function.params]
    positional = len([p for p in function.params if not p.keyword_only])
    if named and named[0] in ("self", "cls"):
        positional -= 1  # called on its instance or class
    spread: list[Argument] = []
    index = 0
    for argument in call.arguments:
        if argument.keyword is None:
            if index >= positional:
                spread.append(argument)
            index += 1
        elif argument.keyword not in named:
            spread.append(argument)
    return tuple(spread)


def _forwarded(
    site: EnqueueSite,
    call: CallSite,
    caller: FunctionFacts,
    spread: tuple[Argument, ...],
    per_class: bool = False,
) -> EnqueueSite:
    target, text = site.target, site.target_text
    if per_class and target:
        # ``CleanupJob.enqueue(**data)`` of ``BaseJob.enqueue``'s ``cls.handle``: the
        # class called is the one whose method is sent.
        owner, method = call.callee.rpartition(".")[0], target.rpartition(".")[2]
        target, text = f"{owner}.{method}", f"{owner.rpartition('.')[2]}.{method}"
    return replace(
        site,
        target=target,
        target_text=text,
        bound_to=None,
        loc=call.loc,
        order=call.order,
        function=caller.qualname,
        arguments=spread,
        atomic=call.atomic or site.atomic,
        contexts=call.contexts,
        deferred=site.deferred or call.deferred,
        in_loop=None,
        forwards=False,
    )


def _site(wrapper: Wrapper, call: CallSite, caller: FunctionFacts) -> EnqueueSite | None:
    job = wrapper.job_argument(call)
    if job is None:
        return None
    params = {p.name for p in caller.params}
    handed_on = job.text if job.text in params else None
    inner = wrapper.site
    return replace(
        inner,
        target=None if handed_on else (job.ref or job.text),
        target_text=job.text,
        loc=call.loc,
        order=call.order,
        function=caller.qualname,
        arguments=wrapper.payload(call, job),
        atomic=call.atomic or inner.atomic,
        contexts=call.contexts,
        deferred=inner.deferred or call.deferred,
        in_loop=None,
        target_param=handed_on,
        spreads=call.spreads,
    )
