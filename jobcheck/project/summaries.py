"""Call summaries: what a function does, directly or through the project functions it
calls.

Real jobs and views hand their work to helpers: ``notify(user)`` posts the webhook,
``OrderService().charge(id)`` charges, a scraper helper swallows every exception, a
service called inside ``transaction.atomic`` enqueues. A summary follows each function's
call sites (``FunctionFacts.call_sites``) into the functions the project defines, loading
their modules on demand, up to :data:`DEFAULT_DEPTH` calls deep, memoized and safe
against cycles, and lists what it reached with the chain of calls that reaches it.

Guards count along the chain: an effect a helper makes unguarded is still guarded when
the caller checks the record's state before calling the helper.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from jobcheck.facts import (
    IN_PROCESS_LOCK,
    MANAGEMENT_COMMAND,
    CallSite,
    EnqueueSite,
    ExceptHandler,
    FileFacts,
    FunctionFacts,
    Guard,
    HttpCall,
    Loc,
    SideEffect,
    SlowCall,
)
from jobcheck.findings import Related
from jobcheck.registry import enqueued_by_call
from jobcheck.vocabulary.words import reports_to_the_team

if TYPE_CHECKING:
    from jobcheck.project.lazy import ModuleLoader, PartKey
    from jobcheck.project.model import Project

DEFAULT_DEPTH = 4
# Guards that keep two runs from overlapping but not a second run from repeating the
# effect (a Redis lock released at the end, an advisory lock, a threading lock that holds
# within one process): not idempotency guards.
EXCLUSION_ONLY = frozenset({"lock", "advisory-lock", IN_PROCESS_LOCK})

Item = TypeVar("Item")


@dataclass(frozen=True)
class Hop:
    """One call on the way from the summarized function to what it reached."""

    callee: str
    path: str
    """The file the call is written in."""
    loc: Loc
    discarded: bool = False
    """The caller uses no result of the call (a fire-and-forget helper)."""
    dispatched: bool = False
    """A method of ``self``/``cls`` looked up on the class the body runs for (a
    subclass's override): what follows is that class's code, not the shared body's."""

    @property
    def label(self) -> str:
        if self.callee.startswith(MANAGEMENT_COMMAND):
            return f"call_command('{self.callee.removeprefix(MANAGEMENT_COMMAND)}')"
        return f"{self.callee.rsplit('.', 1)[-1]}()"


@dataclass(frozen=True)
class Reach(Generic[Item]):
    """Something a function does, directly (no chain) or through its calls."""

    item: Item
    path: str
    """The file of the function that does it."""
    function: FunctionFacts
    chain: tuple[Hop, ...] = ()

    @property
    def direct(self) -> bool:
        return not self.chain

    @property
    def loc(self) -> Loc:
        """Where a finding about it goes: the item itself when direct, else the first
        call of the chain, in the summarized function (where its author acts)."""
        return self.chain[0].loc if self.chain else self.item.loc  # type: ignore[attr-defined]

    def place(self, path: str) -> tuple[str, Loc]:
        """The file and place of a finding about it, ``path`` being the summarized
        function's: :attr:`loc`; for a body shared by the subclasses it runs for
        (``BaseJob.handle``), past the calls that ran a subclass's own method, in that
        method (where its author acts, and one place however many subclasses share
        the body)."""
        last = max((i for i, hop in enumerate(self.chain) if hop.dispatched), default=None)
        if last is None:
            return path, self.loc
        if last + 1 < len(self.chain):
            hop = self.chain[last + 1]
            return hop.path, hop.loc
        return self.path, self.item.loc  # type: ignore[attr-defined]

    def through(self) -> str:
        """`` reached through notify_user() (users/utils.py:61)`` (or "")."""
        last = max((i for i, hop in enumerate(self.chain) if hop.dispatched), default=-1)
        if last + 1 >= len(self.chain):
            return ""
        names = " -> ".join(hop.label for hop in self.chain[last + 1 :])
        where = f"{self.path}:{self.item.loc.line}"  # type: ignore[attr-defined]
        return f" reached through {names} ({where})"

    def related(self, what: str) -> tuple[Related, ...]:
        """The hops and the item, for SARIF ``relatedLocations`` and LSP
        ``relatedInformation``."""
        if not self.chain:
            return ()
        hops = tuple(Related(hop.path, hop.loc, f"calls {hop.label}") for hop in self.chain)
        item_loc = self.item.loc  # type: ignore[attr-defined]
        return (*hops, Related(self.path, item_loc, what))


@dataclass
class Summary:
    http_calls: list[Reach[HttpCall]] = field(default_factory=list)
    side_effects: list[Reach[SideEffect]] = field(default_factory=list)
    """Effects no guard makes harmless to repeat, in their own function or before the
    calls that reach them."""
    slow_calls: list[Reach[SlowCall]] = field(default_factory=list)
    blocking_calls: list[Reach[SlowCall]] = field(default_factory=list)
    """Calls that block the thread (``FunctionFacts.blocking_calls``)."""
    handlers: list[Reach[ExceptHandler]] = field(default_factory=list)
    """``except`` clauses that swallow the error (extraction keeps only those)."""
    guards: list[Reach[Guard]] = field(default_factory=list)
    enqueues: list[Reach[EnqueueSite]] = field(default_factory=list)
    """Enqueues made when the function runs (not deferred to a commit)."""
    functions: list[Reach[FunctionFacts]] = field(default_factory=list)
    """The function itself and every project function it reaches (their decorators)."""


class Summaries:
    """Memoized summaries of a project's functions."""

    def __init__(
        self,
        project: Project,
        depth: int = DEFAULT_DEPTH,
        roots: Callable[[], Iterable[tuple[FileFacts, FunctionFacts]]] | None = None,
    ) -> None:
        """``roots``: the functions most summaries will be asked of (the jobs), whose
        helpers are read at once before the first summary (:meth:`prefetch`)."""
        self.project = project
        self.depth = depth
        self._roots = roots
        self._memo: dict[tuple[str, int, str | None], Summary] = {}
        self._active: set[str] = set()
        self._parts: dict[str, tuple[FileFacts, FunctionFacts] | None] = {}
        self._jobs: dict[tuple[str, str | None], Summary] = {}
        self._part_classes: dict[str, tuple[str, ...]] = {}

    def of(self, qualname: str) -> Summary:
        entry = self.project.functions.get(qualname)
        if entry is None:
            return Summary()
        return self.of_function(entry[0], entry[1])

    def of_function(
        self, f: FileFacts, function: FunctionFacts, receiver: str | None = None
    ) -> Summary:
        """``receiver``: the class the function is called on when it is a method a
        subclass inherits (``BaseJob.handle`` run as ``CleanupJob.handle``): its calls
        of methods of ``self``/``cls`` run that class's overrides."""
        if self._roots is not None:
            roots, self._roots = self._roots, None
            self.prefetch(roots())
        return self._summary(f, function, self.depth, receiver)

    def prefetch(
        self,
        roots: Iterable[tuple[FileFacts, FunctionFacts]],
        callers: Iterable[tuple[FileFacts, FunctionFacts]] = (),
    ) -> None:
        """Read, a call level at a time and all at once, the helpers the summaries of
        ``roots`` will follow into modules no check read whole, and a level deeper from
        ``callers`` (whose callees' summaries are asked), in worker processes: one by
        one they cost about 5 ms each, and a large project's jobs reach hundreds.
        Only a speed-up: what it does not read, :meth:`callee` reads when asked."""
        loader = self.project.loader
        if loader is None:
            return
        # qualname -> (function, calls still to follow from it)
        level: dict[str, tuple[tuple[FileFacts, FunctionFacts], int]] = {}
        for entries, depth in ((roots, self.depth), (callers, self.depth + 1)):
            for entry in entries:
                if level.get(entry[1].qualname, (None, -1))[1] < depth:
                    level[entry[1].qualname] = (entry, depth)
        deepest = {qualname: depth for qualname, (_, depth) in level.items()}
        # What a level's guess missed (a method a base class defines, a constructor) is
        # noted while its calls are followed, read with the next level, and the calls of
        # the functions that asked for it followed again then.
        noted: list[PartKey] = []
        again: list[tuple[FunctionFacts, int]] = []
        while level or again:
            expanded = [(entry[1], depth) for entry, depth in level.values() if depth > 0]
            wanted: dict[str, None] = {}
            for function, _ in expanded:
                for site in function.call_sites:
                    qualname = self.project.resolve_function(site.callee) or site.callee
                    if dict.get(self.project.functions, qualname) is None:
                        wanted[qualname] = None
            loader.prefetch(wanted, noted)
            if noted:
                self._forget_unknown()
            loader.start_deferring()
            try:
                level, again = self._following([*expanded, *again], deepest, loader)
            finally:
                noted = loader.stop_deferring()
            if not noted:
                again = []
            deepest.update((name, depth) for name, (_, depth) in level.items())

    def _following(
        self,
        expanded: list[tuple[FunctionFacts, int]],
        deepest: dict[str, int],
        loader: ModuleLoader,
    ) -> tuple[
        dict[str, tuple[tuple[FileFacts, FunctionFacts], int]], list[tuple[FunctionFacts, int]]
    ]:
        """The functions the ``expanded`` ones call that are followed next (those not
        followed as deep already), with the calls still to follow from each; and the
        expanded functions that asked for parts not read yet (followed again once read)."""
        following: dict[str, tuple[tuple[FileFacts, FunctionFacts], int]] = {}
        waiting: list[tuple[FunctionFacts, int]] = []
        for function, depth in expanded:
            before = loader.noted()
            for site in function.call_sites:
                target = self.callee(site)
                if target is None:
                    continue
                qualname = target[1].qualname
                known = following.get(qualname, (None, deepest.get(qualname, -1)))[1]
                if known < depth - 1:
                    following[qualname] = (target, depth - 1)
            if loader.noted() > before:
                waiting.append((function, depth))
        return following, waiting

    def _forget_unknown(self) -> None:
        """Forget the functions found unknown while their parts were only noted."""
        self._parts = {name: entry for name, entry in self._parts.items() if entry is not None}

    def prefetch_all(
        self,
        roots: Iterable[tuple[FileFacts, FunctionFacts]],
        callers: Iterable[tuple[FileFacts, FunctionFacts]] = (),
    ) -> None:
        """:meth:`prefetch` from ``roots`` and ``callers`` (instead of the jobs when the
        first summary is asked): every helper a summary of them can reach is read now."""
        self._roots = None
        self.prefetch(roots, callers)

    def part_facts(self) -> list[FileFacts]:
        """The facts of the parts read so far (each once)."""
        found: dict[int, FileFacts] = {}
        for entry in self._parts.values():
            if entry is not None:
                found.setdefault(id(entry[0]), entry[0])
        return list(found.values())

    def function(self, qualname: str) -> tuple[FileFacts, FunctionFacts] | None:
        """A project function or method by its dotted path, inherited methods included
        (``Base.after_return`` defined on a base of ``Base``)."""
        return self._function(qualname) or self._inherited(qualname)

    def of_job(
        self,
        f: FileFacts,
        function: FunctionFacts,
        hooks: Callable[[], list[tuple[FileFacts, FunctionFacts]]],
        receiver: str | None = None,
    ) -> Summary:
        """What a job's body does, with what the ``hooks()`` of its task classes do
        (computed once per body and class it runs for: every check asks)."""
        key = (function.qualname, receiver)
        known = self._jobs.get(key)
        if known is None:
            own = self.of_function(f, function, receiver)
            found = hooks()
            known = self.with_hooks(own, f, function, found) if found else own
            self._jobs[key] = known
        return known

    def with_hooks(
        self,
        summary: Summary,
        f: FileFacts,
        function: FunctionFacts,
        hooks: Iterable[tuple[FileFacts, FunctionFacts]],
    ) -> Summary:
        """``summary`` with what ``hooks`` do (a task base class's ``after_return``,
        ``on_failure``...: they run with every job built on it), reached through a hop
        at the job's definition."""
        merged = Summary(**{name: list(items) for name, items in vars(summary).items()})
        for hook_file, hook in hooks:
            inner = self._summary(hook_file, hook, self.depth - 1)
            hop = Hop(hook.qualname, f.path, function.loc, discarded=True)
            for name, items in vars(inner).items():
                getattr(merged, name).extend(_prefixed(items, hop))
        return merged

    def callee(self, site: CallSite) -> tuple[FileFacts, FunctionFacts] | None:
        """The project function a call site calls, when the project defines it: from the
        analysed files, else read alone from its module (``ModuleLoader.part_for``)."""
        qualname = self.project.resolve_function(site.callee) or site.callee
        if self._enqueues_when_called(qualname):
            return None  # calling a Huey task puts it on the queue: its body runs elsewhere
        return (
            self._function(qualname)
            or self._inherited(qualname)
            or self._function(f"{qualname}.__init__")
        )

    def _enqueues_when_called(self, qualname: str) -> bool:
        job = self.project.job_at(qualname)
        return job is not None and enqueued_by_call(job.framework)

    def _function(self, qualname: str) -> tuple[FileFacts, FunctionFacts] | None:
        entry = dict.get(self.project.functions, qualname)
        if entry is not None:
            return entry  # type: ignore[no-any-return]
        known = self._parts.get(qualname, False)
        if known is not False:
            return known  # type: ignore[return-value]
        found = None
        loader = self.project.loader
        if loader is not None:
            for facts in loader.part_for(qualname):
                # The part's classes, with their bases: a method the class inherits
                # (``Post.save`` from a mixin) is looked up there (``_inherited``).
                self._part_classes.update(facts.classes)
                function = facts.functions.get(qualname)
                if function is not None:
                    found = (facts, function)
                    break
        self._parts[qualname] = found
        return found

    # -- computing -------------------------------------------------------------------

    def _summary(
        self, f: FileFacts, function: FunctionFacts, budget: int, receiver: str | None = None
    ) -> Summary:
        key = (function.qualname, budget, receiver)
        known = self._memo.get(key)
        if known is not None:
            return known
        if function.qualname in self._active:
            return Summary()  # a cycle: what it does is counted where the cycle began
        self._active.add(function.qualname)
        try:
            summary = self._own(f, function)
            if budget > 0:
                for site in function.call_sites:
                    self._add_callee(summary, f, function, site, budget, receiver)
        finally:
            self._active.discard(function.qualname)
        self._memo[key] = summary
        return summary

    def _own(self, f: FileFacts, function: FunctionFacts) -> Summary:
        path = f.path
        return Summary(
            http_calls=[Reach(c, path, function) for c in function.http_calls],
            side_effects=[Reach(e, path, function) for e in unguarded(function)],
            slow_calls=[Reach(c, path, function) for c in function.slow_calls],
            blocking_calls=[Reach(c, path, function) for c in function.blocking_calls],
            handlers=[Reach(h, path, function) for h in function.handlers],
            guards=[Reach(g, path, function) for g in function.guards],
            enqueues=[
                Reach(site, path, function)
                for site in f.enqueues
                if site.function == function.qualname
                and not site.deferred
                and self._confirmed(site)
            ],
            functions=[Reach(function, path, function)],
        )

    def _add_callee(
        self,
        summary: Summary,
        f: FileFacts,
        function: FunctionFacts,
        site: CallSite,
        budget: int,
        receiver: str | None = None,
    ) -> None:
        bound = receiver if site.on_self else None
        target = self.callee(site) if bound is None else self._method_of(bound, site.callee)
        if target is None or target[1].qualname == function.qualname:
            return
        inner = self._summary(target[0], target[1], budget - 1, bound)
        hop = Hop(site.callee, f.path, site.loc, site.discarded, dispatched=bound is not None)
        guarded_before = any(
            g.order < site.order and g.kind not in EXCLUSION_ONLY for g in function.guards
        )
        summary.http_calls.extend(_prefixed(inner.http_calls, hop))
        if not guarded_before:
            effects = inner.side_effects
            if site.claimed or (
                (site.in_handler or site.discarded) and reports_to_the_team(site.callee)
            ):
                # A helper called for a row a second run would skip (the loop goes over
                # rows still to do and marks each done), or to report a failure
                # (``send_slack_error(e)`` in an except) or to alert
                # (``log_and_send_slack_message(...)``): its sends are not repeated, or
                # reach the team, not the job's users.
                effects = [r for r in effects if r.item.kind != "send"]
            if site.on_new_record:
                # ``job = Job.objects.create(...); job.start()``: what ``start`` counts
                # is on the row this run made; a second run makes and counts another.
                effects = [r for r in effects if r.item.kind != "counter"]
            summary.side_effects.extend(_prefixed(effects, hop))
        summary.slow_calls.extend(_prefixed(inner.slow_calls, hop))
        summary.blocking_calls.extend(_prefixed(inner.blocking_calls, hop))
        summary.handlers.extend(_prefixed(inner.handlers, hop))
        summary.guards.extend(_prefixed(inner.guards, hop))
        if not site.deferred:  # a call in an on_commit callback enqueues after the commit
            summary.enqueues.extend(_prefixed(inner.enqueues, hop))
        summary.functions.extend(_prefixed(inner.functions, hop))

    def _method_of(self, receiver: str, callee: str) -> tuple[FileFacts, FunctionFacts] | None:
        """The method ``callee`` names (``BaseJob.run``) as ``receiver``'s object runs it:
        ``receiver``'s own, or the nearest base's."""
        name = callee.rpartition(".")[2]
        for owner in (receiver, *self.project.base_classes(receiver)):
            entry = self._function(f"{owner}.{name}")
            if entry is not None:
                return entry
        return self.function(callee)

    def _confirmed(self, site: EnqueueSite) -> bool:
        return self.project.job_for(site) is not None or self.project.certain_enqueue(site)

    def _inherited(self, qualname: str) -> tuple[FileFacts, FunctionFacts] | None:
        """``Class.method`` defined on a base class of ``Class``."""
        owner, _, method = qualname.rpartition(".")
        if not owner:
            return None
        bases = dict.get(self.project.classes, owner) or self._part_classes.get(owner, ())
        for base in bases:
            entry = self._function(f"{base}.{method}")
            if entry is not None:
                return entry
        return None


def _prefixed(reaches: list[Reach[Item]], hop: Hop) -> Iterator[Reach[Item]]:
    for reach in reaches:
        yield Reach(reach.item, reach.path, reach.function, (hop, *reach.chain))


def unguarded(function: FunctionFacts, kinds: Callable[[str], bool] | None = None) -> list:
    """A function's side effects that run with nothing making a second run harmless: no
    idempotency key on the call, no state check around it, no guard earlier in it."""
    found = []
    for effect in function.side_effects:
        if effect.has_key or effect.guard is not None:
            continue
        if kinds is not None and not kinds(effect.kind):
            continue
        if any(
            guard.order < effect.order and guard.kind not in EXCLUSION_ONLY
            for guard in function.guards
        ):
            continue
        found.append(effect)
    return found
