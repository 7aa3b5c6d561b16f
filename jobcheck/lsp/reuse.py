"""Re-walking only the top-level statements an edit touched.

After an edit, most top-level statements of a buffer are the same node objects as
before (see :mod:`jobcheck.lsp.incremental`). What the walker learns from a statement
depends on the statement and on what the walk carries from the statements above it: the
walker's and the recognizers' state (import table, module constants, queue variables...)
and, rarely, facts already recorded. When those are unchanged, the statement adds the
same facts as last time, moved down by the lines inserted above it. The walker below
remembers, per top-level statement, the facts it added, and replays them instead of
walking it again.

Which state a statement starts from is tracked without looking at the state: a walk
gives each state between two statements a token, a replayed statement moves the walk
to the token its first walk ended on, and a statement replays when the walk stands on
the token it started from. The state itself (which grows with the module: symbol
tables) is pickled only at *checkpoints*, placed so that their cost stays proportional
to the walking done between them: a checkpoint's key lets a walk that had to walk an
edited statement rejoin the earlier walk's tokens, and its snapshot rebuilds the real
state when a statement after a run of replays must be walked (restore the run's last
checkpoint, then walk the replayed statements after it again with their facts thrown
away). Pickling the state before and after every statement, as this module once did,
cost time and memory quadratic in the module's size.

What a statement reads of the facts recorded before it is tracked while it is walked.
Today the walker reads one thing, which functions are job bodies (``_worth_keeping``):
that sequence is part of the key. A statement that reads anything else is walked every
time. Call ``order`` numbers only compare within one function, so a replayed
statement's numbers are shifted rather than invalidating every statement below an edit
that adds a call. Anything else unexpected (state that cannot be pickled or holds syntax
nodes or locations at a checkpoint, a statement that changes facts recorded before it)
means no replay. tests/test_lsp_incremental.py compares the facts with full extractions
over many edits.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import io
import pickle
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import libcst as cst

from jobcheck.extract.walker import Walker
from jobcheck.facts import FileFacts, Loc

# Walker attributes that are structure, not state.
_STRUCTURE = frozenset(
    {
        "facts",
        "module",
        "names",
        "evaluate",
        "positions",
        "recognizers",
        "_top",
        "_dispatch",
        "memory",
        "starts",
        "current_site",
        "walked",
        "rewalked",
        "_token",
        "_unsettled",
        "_since_checkpoint",
        "_tracker",
        "_job_bodies",
        "_lengths",
        "_last_snapshot_bytes",
        "buffer",  # jobcheck.lsp.incremental.BufferWalker's
    }
)
_COUNTER = "order"
_ORDER_FIELDS = frozenset({"order", "commit_orders", "session_writes"})
"""Fact fields holding values of the walker's ``order`` counter."""
_KNOWN_READS = frozenset({"tasks"})
"""Facts fields a statement may read and still be replayed (see ``_JobBodies``)."""

SNAPSHOT_BYTES_PER_LINE = 150
"""About how many bytes of pickled state cost as much to key and write as walking one
line of code costs: the next checkpoint waits until the walk since the last one has cost
about as much as that checkpoint did, so checkpoints add a fixed share to a walk however
large the state grows (about a third in a module of 5,000 Celery tasks), and an edit
walks at most about one checkpoint's worth of statements again."""


class _NotReusable(Exception):
    """The state or the facts of a statement cannot be replayed safely."""


@dataclass(eq=False)
class Checkpoint:
    """The state before a statement: a digest of its key to compare, and a pickle to
    restore."""

    key: bytes
    snapshot: bytes


@dataclass(eq=False)
class Replay:
    statement: cst.CSTNode
    start: int
    before: object
    """The token of the state the statement was walked from."""
    after: object
    """The token of the state its walk ended on."""
    job_bodies: bytes | None
    """Which functions were job bodies when the statement was walked, if it asked."""
    order_before: int
    order_added: int
    added: dict[str, Any]
    """``{field: items}`` (lists) and ``{field: (changed items, removed keys)}`` (dicts)."""
    lines: int
    """The statement's length in lines: what walking it again costs, roughly."""
    checkpoint: Checkpoint | None = None


@dataclass(eq=False)
class Replays:
    """What the walks of one buffer learnt, shared by its versions."""

    statements: dict[int, Replay] = field(default_factory=dict)
    """Id of a top-level statement -> its replay."""
    initial: tuple[bytes, object] | None = None
    """The digest of the state before the first statement (after the walker's prepass
    over the module's names), and its token."""

    def keep_only(self, alive: set[int]) -> None:
        for key in [k for k in self.statements if k not in alive]:
            del self.statements[key]


@dataclass(eq=False)
class _Replayed:
    """A statement replayed in this walk, and what stood before it."""

    replay: Replay
    order: int
    lengths: dict[str, int] | None
    """Lengths of the facts lists before it (where a rebuild may start)."""


class ReusingWalker(Walker):
    """A walker that replays unchanged top-level statements of an edited buffer."""

    memory: Replays
    starts: dict[int, int]
    _lengths: dict[int, int]
    walked = 0
    """Top-level statements walked for their facts (not replayed) in this run."""
    rewalked = 0
    """Replayed statements walked again to rebuild the state after them."""
    _token: object | None = None
    """The current state's token; None when unknown (the real state is current)."""
    _unsettled: list[_Replayed]
    """Statements replayed since the walker's attributes last held the real state."""
    _since_checkpoint = 0
    """Lines walked or replayed since the last checkpoint."""
    _last_snapshot_bytes = 0
    _tracker: _FactsTracker | None = None
    _job_bodies: _JobBodies

    def use_replays(self, memory: Replays, starts: dict[int, int], lengths: dict[int, int]) -> None:
        """``starts`` and ``lengths``: the first line (0-based) and the number of lines
        of each top-level statement, by id."""
        self.memory = memory
        self.starts = starts
        self._lengths = lengths
        self._unsettled = []
        self._job_bodies = _JobBodies()

    def visit(self, node: cst.CSTNode) -> None:
        if node is not self._top or not hasattr(self, "memory"):
            super().visit(node)
            return
        if self._tracker is None:
            self._begin()
        self._visit_statement(node)
        if node is self.module.body[-1]:
            self._rebuild_state()  # recognizers' ``finish`` reads the real state
            assert self._tracker is not None
            self._tracker.stop()

    def _begin(self) -> None:
        self._tracker = _FactsTracker(self.facts)
        key = self._key()
        initial = self.memory.initial
        if key is None:
            self._token = None
        elif initial is not None and initial[0] == key:
            self._token = initial[1]
        else:
            self._token = object()
            self.memory.initial = (key, self._token)

    def _visit_statement(self, node: cst.CSTNode) -> None:
        start = self.starts.get(id(node))
        replay = self.memory.statements.get(id(node))
        if start is not None and replay is not None and self._fits(replay, node):
            self._replay(replay, start)
            return
        self._rebuild_state()
        self.memory.statements.pop(id(node), None)
        self.walked += 1
        if start is None:
            super().visit(node)
            self._token = None
            return
        self._walk_and_remember(node, start)

    def _fits(self, replay: Replay, node: cst.CSTNode) -> bool:
        if replay.statement is not node:
            return False
        if replay.job_bodies is not None and replay.job_bodies != self._job_bodies_key():
            return False
        if self._token is not None and self._token is replay.before:
            return True
        if replay.checkpoint is None:
            return False
        # The walk left the earlier walk's tokens (an edited statement): the state may
        # still be the one this statement started from.
        self._rebuild_state()
        if self._key() != replay.checkpoint.key:
            return False
        self._token = replay.before
        self._since_checkpoint = 0
        return True

    def _walk_and_remember(self, node: cst.CSTNode, start: int) -> None:
        lines = self._lengths.get(id(node), 1)
        checkpoint = self._checkpoint() if self._since_checkpoint >= self._spacing() else None
        if checkpoint is not None:
            self._since_checkpoint = 0
        self._since_checkpoint += lines
        before = self._token if self._token is not None else object()
        order_before = self.order
        job_bodies = self._job_bodies_key()
        assert self._tracker is not None
        marks = self._tracker.mark()
        super().visit(node)
        self._token = object()
        reads = self._tracker.reads
        added = self._tracker.added(marks)
        if added is None or reads - _KNOWN_READS:
            self._token = None
            return
        self.memory.statements[id(node)] = Replay(
            statement=node,
            start=start,
            before=before,
            after=self._token,
            job_bodies=job_bodies if "tasks" in reads else None,
            order_before=order_before,
            order_added=self.order - order_before,
            added=added,
            lines=lines,
            checkpoint=checkpoint,
        )

    def _job_bodies_key(self) -> bytes:
        """What ``_worth_keeping`` reads of the facts so far: the job bodies' names."""
        return self._job_bodies.key(self.facts.tasks)

    # -- state --------------------------------------------------------------------------

    def _spacing(self) -> int:
        """Lines to walk between two checkpoints: about what the last one cost."""
        return self._last_snapshot_bytes // SNAPSHOT_BYTES_PER_LINE

    def _checkpoint(self) -> Checkpoint | None:
        try:
            key, snapshot = self._state()
        except _NotReusable:
            return None
        self._last_snapshot_bytes = len(snapshot)
        return Checkpoint(_digest(key), snapshot)

    def _key(self) -> bytes | None:
        try:
            return _digest(self._state(snapshot=False)[0])
        except _NotReusable:
            return None

    def _state(self, snapshot: bool = True) -> tuple[bytes, bytes]:
        """The walker's state between two statements: a key to compare (sets in a
        canonical order, refusing syntax nodes and locations) and, when ``snapshot``,
        the pickled state to restore."""
        walker = {k: v for k, v in vars(self).items() if k not in _STRUCTURE}
        walker.pop(_COUNTER, None)
        recognizers = [
            {k: v for k, v in vars(r).items() if k != "walker"} for r in self.recognizers
        ]
        state = (walker, vars(self.names), recognizers)
        key = _key(state)
        if not snapshot:
            return key, b""
        # The key's pickler has vetted every object: the snapshot needs no hook.
        try:
            return key, pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            raise _NotReusable(str(error)) from None

    def _restore(self, snapshot: bytes) -> None:
        walker, names, recognizers = pickle.loads(snapshot)
        _assign(self, walker)
        _assign(self.names, names)
        for recognizer, values in zip(self.recognizers, recognizers, strict=True):
            _assign(recognizer, values)

    def _rebuild_state(self) -> None:
        """Make the walker's attributes hold the real state after the statements
        replayed since they last did: restore the last checkpoint among them and walk
        the replayed statements from there again, throwing their facts away."""
        run, self._unsettled = self._unsettled, []
        if not run:
            return
        first = 0
        for index in range(len(run) - 1, -1, -1):
            checkpoint = run[index].replay.checkpoint
            if checkpoint is not None:
                self._restore(checkpoint.snapshot)
                first = index
                break
        top, order, site = self._top, self.order, self.current_site
        real = self.facts
        # The statements add their facts again, as when they were first walked: each
        # sees the lists as they stood before it.
        lengths = run[first].lengths
        assert lengths is not None
        self.facts = _scratch_facts(real, lengths)
        try:
            for replayed in run[first:]:
                self.order = replayed.order
                self._top = replayed.replay.statement
                Walker.visit(self, replayed.replay.statement)
                self.rewalked += 1
        finally:
            self.facts, self.order, self._top, self.current_site = real, order, top, site

    # -- facts --------------------------------------------------------------------------

    def _replay(self, replay: Replay, start: int) -> None:
        assert self._tracker is not None
        # A rebuild starts from the run's first statement or a checkpoint's.
        starts_rebuild = not self._unsettled or replay.checkpoint is not None
        lengths = self._tracker.lengths() if starts_rebuild else None
        self._unsettled.append(_Replayed(replay, self.order, lengths))
        lines = start - replay.start
        orders = self.order - replay.order_before
        for name, items in replay.added.items():
            target = getattr(self.facts, name)
            if isinstance(target, list):
                target.extend(_shifted(item, lines, orders) for item in items)
            else:
                changed, removed = items
                for key in removed:
                    target.pop(key, None)
                for key, value in changed:
                    target[key] = _shifted(value, lines, orders)
        self.order += replay.order_added
        self._token = replay.after
        self._since_checkpoint = (
            replay.lines if replay.checkpoint is not None else self._since_checkpoint + replay.lines
        )


def _scratch_facts(real: FileFacts, lengths: dict[str, int]) -> FileFacts:
    """Facts to walk a replayed statement again into: the lists as they stood before it
    (what it may read), the dicts as copies (it reads none; it may remove keys)."""
    scratch = copy.copy(real)
    for f in _fields(type(real)):
        value = getattr(real, f.name)
        if isinstance(value, list):
            setattr(scratch, f.name, list.__getitem__(value, slice(0, lengths.get(f.name, 0))))
        elif isinstance(value, dict):
            setattr(scratch, f.name, dict(dict.items(value)))  # not through its tracking
    return scratch


class _JobBodies:
    """A digest of the job bodies' names of the first *n* tasks, for every *n* so far:
    each digest chains the previous one, so the key costs nothing per statement."""

    def __init__(self) -> None:
        self._digests: list[bytes] = [b""]
        self._seen: tuple[int, int] | None = None
        """The id and rewrite count of the tasks list the digests describe."""

    def key(self, tasks: list) -> bytes:
        count = list.__len__(tasks)
        seen = (id(tasks), getattr(tasks, "rewrites", 0))
        if seen != self._seen:
            self._digests = [b""]
            self._seen = seen
        if count < len(self._digests):
            if count + 1 < len(self._digests):
                del self._digests[count + 1 :]  # fewer tasks than before: a new walk
            return self._digests[count]
        for index in range(len(self._digests) - 1, count):
            task = list.__getitem__(tasks, index)
            name = str(task.function).encode("utf-8", "surrogatepass")
            previous = self._digests[-1]
            self._digests.append(hashlib.blake2b(previous + b"\0" + name, digest_size=16).digest())
        return self._digests[count]


@dataclass
class _Journal:
    """What the walk did to the facts since the current statement began."""

    reads: set[str] = field(default_factory=set)
    grown: dict[str, int] = field(default_factory=dict)
    """List field -> its length before its first append."""
    touched: dict[str, list] = field(default_factory=dict)
    """Dict field -> the keys stored or deleted, in order."""
    rewrites: int = 0
    """Changes a replay could not repeat (anything but appending to a list, storing or
    deleting a dict's key)."""


@dataclass
class _Marks:
    """Where a statement's walk began."""

    rewrites: int
    scalars: dict[str, Any]


class _FactsTracker:
    """The facts' lists and dicts, wrapped for the whole walk so that what one
    statement reads and adds costs what it reads and adds (not the facts so far)."""

    def __init__(self, facts: FileFacts) -> None:
        self.facts = facts
        self.journal = _Journal()
        self.reads = self.journal.reads
        self.lists: dict[str, _ReadList] = {}
        self.dicts: dict[str, _ReadDict] = {}
        self.scalars: list[str] = []
        for f in _fields(type(facts)):
            value = getattr(facts, f.name)
            if type(value) is list:
                self.lists[f.name] = _ReadList(value, self.journal, f.name)
                setattr(facts, f.name, self.lists[f.name])
            elif type(value) is dict:
                self.dicts[f.name] = _ReadDict(value, self.journal, f.name)
                setattr(facts, f.name, self.dicts[f.name])
            else:
                self.scalars.append(f.name)
        self._containers = [*self.lists.items(), *self.dicts.items()]

    def lengths(self) -> dict[str, int]:
        return {name: list.__len__(items) for name, items in self.lists.items()}

    def mark(self) -> _Marks:
        """Start of a statement: what it reads and touches is counted from here."""
        journal = self.journal
        journal.reads.clear()
        journal.grown.clear()
        journal.touched.clear()
        scalars = {name: getattr(self.facts, name) for name in self.scalars}
        return _Marks(journal.rewrites, scalars)

    def added(self, marks: _Marks) -> dict[str, Any] | None:
        """What the statement since ``mark`` added, or None when it did more than add
        (changed earlier facts, replaced a field)."""
        journal, facts = self.journal, self.facts
        if journal.rewrites != marks.rewrites:
            return None
        if any(getattr(facts, name) is not value for name, value in self._containers):
            return None
        if any(getattr(facts, name) is not value for name, value in marks.scalars.items()):
            return None
        added: dict[str, Any] = {}
        for name, before in journal.grown.items():
            items = self.lists[name]
            if list.__len__(items) > before:
                added[name] = list.__getitem__(items, slice(before, None))
        for name, keys in journal.touched.items():
            entries = self.dicts[name]
            # Keys stored again with an equal value count too: a replay without
            # them would miss the key once an earlier statement stops storing it.
            touched = dict.fromkeys(keys)
            changed = [(k, dict.__getitem__(entries, k)) for k in touched if _has(entries, k)]
            removed = [k for k in touched if not _has(entries, k)]
            if changed or removed:
                added[name] = (changed, removed)
        return added

    def stop(self) -> None:
        """End of the walk: plain containers again (recognizers' ``finish`` and the
        checks see ordinary facts)."""
        for name, items in self.lists.items():
            if getattr(self.facts, name) is items:
                setattr(self.facts, name, list.copy(items))
        for name, entries in self.dicts.items():
            if getattr(self.facts, name) is entries:
                setattr(self.facts, name, dict(dict.items(entries)))


def _has(entries: dict, key: Any) -> bool:
    return dict.__contains__(entries, key)


_MISSING = object()


class _ReadList(list):
    """A facts list that notes when the walk reads it (appending is not reading)."""

    def __init__(self, items: list, journal: _Journal, name: str) -> None:
        super().__init__(items)
        self._journal, self._name = journal, name

    @property
    def rewrites(self) -> int:
        return self._journal.rewrites

    def _read(self) -> None:
        self._journal.reads.add(self._name)

    def _rewrite(self) -> None:
        self._journal.rewrites += 1
        self._read()

    def _grow(self) -> None:
        grown = self._journal.grown
        if self._name not in grown:
            grown[self._name] = super().__len__()

    def append(self, item: Any) -> None:
        self._grow()
        super().append(item)

    def extend(self, items: Any) -> None:
        self._grow()
        super().extend(items)

    def __iadd__(self, items):  # type: ignore[no-untyped-def]
        self._grow()
        return super().__iadd__(items)

    def __setitem__(self, index, value) -> None:  # type: ignore[no-untyped-def]
        self._rewrite()
        super().__setitem__(index, value)

    def __delitem__(self, index) -> None:  # type: ignore[no-untyped-def]
        self._rewrite()
        super().__delitem__(index)

    def __imul__(self, count):  # type: ignore[no-untyped-def]
        self._rewrite()
        return super().__imul__(count)

    def insert(self, index, value) -> None:  # type: ignore[no-untyped-def]
        self._rewrite()
        super().insert(index, value)

    def pop(self, *args: Any) -> Any:
        self._rewrite()
        return super().pop(*args)

    def remove(self, value: Any) -> None:
        self._rewrite()
        super().remove(value)

    def clear(self) -> None:
        self._rewrite()
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self._rewrite()
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        self._rewrite()
        super().reverse()

    def copy(self) -> list:
        self._read()
        return super().copy()

    def __iter__(self):  # type: ignore[no-untyped-def]
        self._read()
        return super().__iter__()

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        self._read()
        return super().__getitem__(index)

    def __len__(self) -> int:
        self._read()
        return super().__len__()

    def __contains__(self, item: object) -> bool:
        self._read()
        return super().__contains__(item)

    def __reversed__(self):  # type: ignore[no-untyped-def]
        self._read()
        return super().__reversed__()

    def index(self, *args: Any) -> int:
        self._read()
        return super().index(*args)

    def count(self, item: object) -> int:
        self._read()
        return super().count(item)


class _ReadDict(dict):
    """A facts dict that notes when the walk reads it (storing and deleting are not
    reading)."""

    def __init__(self, items: dict, journal: _Journal, name: str) -> None:
        super().__init__(items)
        self._journal, self._name = journal, name

    @property
    def rewrites(self) -> int:
        return self._journal.rewrites

    def _read(self) -> None:
        self._journal.reads.add(self._name)

    def _rewrite(self) -> None:
        self._journal.rewrites += 1
        self._read()

    def _touch(self, key: Any) -> None:
        self._journal.touched.setdefault(self._name, []).append(key)

    def popitem(self):  # type: ignore[no-untyped-def]
        self._rewrite()
        return super().popitem()

    def clear(self) -> None:
        self._rewrite()
        super().clear()

    def __ior__(self, other):  # type: ignore[no-untyped-def]
        self._rewrite()
        return super().__ior__(other)

    def copy(self) -> dict:
        self._read()
        return super().copy()

    def __setitem__(self, key, value) -> None:  # type: ignore[no-untyped-def]
        self._touch(key)
        super().__setitem__(key, value)

    def __delitem__(self, key) -> None:  # type: ignore[no-untyped-def]
        self._touch(key)
        super().__delitem__(key)

    def pop(self, key, *default):  # type: ignore[no-untyped-def]
        self._touch(key)
        return super().pop(key, *default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self._read()  # rare in a walk: not worth tracking precisely
        super().update(*args, **kwargs)

    def __getitem__(self, key):  # type: ignore[no-untyped-def]
        self._read()
        return super().__getitem__(key)

    def get(self, *args: Any) -> Any:
        self._read()
        return super().get(*args)

    def __contains__(self, key: object) -> bool:
        self._read()
        return super().__contains__(key)

    def __iter__(self):  # type: ignore[no-untyped-def]
        self._read()
        return super().__iter__()

    def __len__(self) -> int:
        self._read()
        return super().__len__()

    def keys(self):  # type: ignore[no-untyped-def]
        self._read()
        return super().keys()

    def values(self):  # type: ignore[no-untyped-def]
        self._read()
        return super().values()

    def items(self):  # type: ignore[no-untyped-def]
        self._read()
        return super().items()

    def setdefault(self, *args: Any) -> Any:
        self._read()
        return super().setdefault(*args)


def _refuse_node(obj: Any) -> Any:
    raise _NotReusable("state holds a syntax node")


def _refuse_location(obj: Any) -> Any:
    # A location kept in state (for facts a recognizer emits later, at the end of the
    # walk) would not move with the lines inserted above its statement.
    raise _NotReusable("state holds a location")


def _subclasses(cls: type) -> Iterator[type]:
    for subclass in cls.__subclasses__():
        yield subclass
        yield from _subclasses(subclass)


@functools.cache
def _refusals() -> dict[type, Any]:
    """A pickler dispatch table that refuses syntax nodes and locations: looked up by
    the C pickler, unlike a ``persistent_id`` hook, which costs a Python call per
    object pickled."""
    table: dict[type, Any] = {cls: _refuse_node for cls in _subclasses(cst.CSTNode)}
    table[Loc] = _refuse_location
    return table


def _dumps(value: Any) -> bytes:
    stream = io.BytesIO()
    pickler = pickle.Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _refusals()
    try:
        pickler.dump(value)
    except (pickle.PicklingError, TypeError, AttributeError) as error:
        raise _NotReusable(str(error)) from None
    return stream.getvalue()


def _key(state: tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]) -> bytes:
    """A comparison key for a state: each attribute pickled on its own, so that two
    attributes sharing one object (or not) does not change the key."""
    walker, names, recognizers = state
    parts = [
        _dumps((name, _canonical(value)))
        for part in (walker, names, *recognizers)
        for name, value in sorted(part.items())
    ]
    return b"".join(len(p).to_bytes(4, "big") + p for p in parts)


def _digest(key: bytes) -> bytes:
    return hashlib.blake2b(key, digest_size=16).digest()


_ATOMS = frozenset({str, int, float, bool, bytes, type(None)})


def _canonical(value: Any) -> Any:
    """``value`` with sets in sorted order: equal states give equal pickles even when
    their sets were filled in different orders."""
    if type(value) in _ATOMS:
        return value
    if isinstance(value, (set, frozenset)):
        atoms = set(map(type, value)) <= _ATOMS
        items = list(value) if atoms else [_canonical(v) for v in value]
        try:
            items.sort()
        except TypeError:  # not comparable with one another
            items.sort(key=repr)
        return ("<set>", tuple(items))
    if isinstance(value, dict):
        return ("<dict>", tuple((k, _canonical(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return tuple(_canonical(v) for v in value)
    return value


def _assign(target: object, values: dict[str, Any]) -> None:
    """Set attributes, refilling containers in place: other objects (the evaluator holds
    the walker's constants) keep references to them."""
    for key, value in values.items():
        current = getattr(target, key, _MISSING)
        if (isinstance(current, dict) and isinstance(value, dict)) or (
            isinstance(current, set) and isinstance(value, set)
        ):
            current.clear()
            current.update(value)
        elif isinstance(current, list) and isinstance(value, list):
            current[:] = value
        else:
            setattr(target, key, value)


@functools.cache
def _fields(cls: type) -> tuple[dataclasses.Field, ...]:
    return dataclasses.fields(cls)


def _shifted(value: Any, lines: int, orders: int, field: str = "") -> Any:
    """``value`` with its locations moved down ``lines`` lines and its call order
    numbers moved by ``orders``: the same object when nothing moves, else a copy (the
    remembered facts stay as they were walked)."""
    if lines == 0 and orders == 0:
        return value
    if isinstance(value, Loc):
        if lines == 0:
            return value
        return Loc(value.line + lines, value.column, value.end_line + lines, value.end_column)
    if field in _ORDER_FIELDS:
        if isinstance(value, int):
            return value + orders
        if isinstance(value, list):
            return [v + orders for v in value]
    if isinstance(value, tuple):
        return tuple(_shifted(v, lines, orders) for v in value)
    if isinstance(value, list):
        return [_shifted(v, lines, orders) for v in value]
    if isinstance(value, dict):
        return {k: _shifted(v, lines, orders) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        moved = copy.copy(value)
        for f in _fields(type(value)):
            old = getattr(value, f.name)
            new = _shifted(old, lines, orders, f.name)
            if new is not old:
                object.__setattr__(moved, f.name, new)
        return moved
    return value
