"""Re-walking only the top-level statements an edit touched.

After an edit, most top-level statements of a buffer are the same node objects as
before (see :mod:`jobcheck.lsp.incremental`). What the walker learns from a statement
depends on the statement and on what the walk carries from the statements above it: the
walker's and the recognizers' state (import table, module constants, queue variables...)
and, rarely, facts already recorded. When those are unchanged, the statement adds the
same facts as last time, moved down by the lines inserted above it. The walker below
remembers, per top-level statement, its starting state (pickled, as a comparison key),
the facts it added and its final state, and replays them instead of walking it again.

What a statement reads of the facts recorded before it is tracked while it is walked.
Today the walker reads one thing, which functions are job bodies (``_worth_keeping``):
that set is part of the key. A statement that reads anything else is walked every time.
Call ``order`` numbers only compare within one function, so a replayed statement's
numbers are shifted rather than invalidating every statement below an edit that adds a
call. Anything else unexpected (state that cannot be pickled or holds syntax nodes, a
statement that changes facts recorded before it) also means walking every time.
tests/test_lsp_incremental.py compares the facts with full extractions over many edits.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import io
import pickle
from dataclasses import dataclass
from typing import Any

import libcst as cst

from jobcheck.extract.walker import Walker
from jobcheck.facts import Loc

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
        "replays",
        "starts",
        "_pending",
        "_job_bodies",
        "walked",
        "current_site",
    }
)
_COUNTER = "order"
_ORDER_FIELDS = frozenset({"order", "commit_orders", "session_writes"})
"""Fact fields holding values of the walker's ``order`` counter."""
_KNOWN_READS = frozenset({"tasks"})
"""Facts fields a statement may read and still be replayed (see ``_job_bodies_key``)."""


class _NotReusable(Exception):
    """The state or the facts of a statement cannot be replayed safely."""


@dataclass
class Replay:
    statement: cst.CSTNode
    start: int
    before: bytes
    job_bodies: frozenset | None
    """Which functions were job bodies when the statement was walked, if it asked."""
    order_before: int
    order_added: int
    added: dict[str, Any]
    """``{field: items}`` (lists) and ``{field: (changed items, removed keys)}`` (dicts)."""
    after: tuple[bytes, bytes]


class ReusingWalker(Walker):
    """A walker that replays unchanged top-level statements of an edited buffer."""

    replays: dict[int, Replay]
    starts: dict[int, int]
    _pending: Replay | None = None
    """The last replayed statement, whose final state is restored only when a statement
    must be walked again (or the walk ends): a run of replays restores nothing."""
    _job_bodies: tuple[int, frozenset] | None = None
    walked = 0
    """Top-level statements walked (not replayed) in this run."""

    def use_replays(self, replays: dict[int, Replay], starts: dict[int, int]) -> None:
        self.replays = replays
        self.starts = starts

    def visit(self, node: cst.CSTNode) -> None:
        if node is not self._top or not hasattr(self, "replays"):
            super().visit(node)
            return
        start = self.starts.get(id(node))
        replay = self.replays.get(id(node))
        if start is not None and replay is not None and self._fits(replay, node):
            self._replay(replay, start)
            if node is self.module.body[-1]:
                self._settle_pending()
            return
        self._settle_pending()
        self.replays.pop(id(node), None)
        self.walked += 1
        if start is None:
            super().visit(node)
            return
        self._walk_and_remember(node, start)

    def _fits(self, replay: Replay, node: cst.CSTNode) -> bool:
        if replay.statement is not node:
            return False
        key = self._pending.after[0] if self._pending is not None else self._key()
        if key is None or replay.before != key:
            return False
        return replay.job_bodies is None or replay.job_bodies == self._job_bodies_key()

    def _walk_and_remember(self, node: cst.CSTNode, start: int) -> None:
        try:
            before = self._state()
        except _NotReusable:
            super().visit(node)
            return
        order_before = self.order
        job_bodies = self._job_bodies_key()
        marks = self._marks()
        reads: set[str] = set()
        trackers = self._track(reads)
        try:
            super().visit(node)
        finally:
            self._untrack()
        if reads - _KNOWN_READS:
            return
        try:
            added = self._added(marks, trackers)
            after = self._state()
        except _NotReusable:
            return
        self.replays[id(node)] = Replay(
            statement=node,
            start=start,
            before=before[0],
            job_bodies=job_bodies if "tasks" in reads else None,
            order_before=order_before,
            order_added=self.order - order_before,
            added=added,
            after=after,
        )

    def _key(self) -> bytes | None:
        try:
            return self._state()[0]
        except _NotReusable:
            return None

    def _job_bodies_key(self) -> frozenset:
        """What ``_worth_keeping`` reads of the facts so far: the job bodies' names."""
        tasks = self.facts.tasks
        count = list.__len__(tasks)
        if self._job_bodies is None or self._job_bodies[0] != count:
            self._job_bodies = (count, frozenset(t.function for t in list.copy(tasks)))
        return self._job_bodies[1]

    def _settle_pending(self) -> None:
        if self._pending is not None:
            self._restore(self._pending.after)
            self._pending = None

    # -- state --------------------------------------------------------------------------

    def _state(self) -> tuple[bytes, bytes]:
        """The walker's state before or after a statement: a key to compare (sets in a
        canonical order) and the pickled state to restore."""
        walker = {k: v for k, v in vars(self).items() if k not in _STRUCTURE}
        walker.pop(_COUNTER, None)
        recognizers = [
            {k: v for k, v in vars(r).items() if k != "walker"} for r in self.recognizers
        ]
        state = (walker, vars(self.names), recognizers)
        return _key(state), _dumps(state)

    def _restore(self, state: tuple[bytes, bytes]) -> None:
        walker, names, recognizers = pickle.loads(state[1])
        _assign(self, walker)
        _assign(self.names, names)
        for recognizer, values in zip(self.recognizers, recognizers, strict=True):
            _assign(recognizer, values)

    # -- facts --------------------------------------------------------------------------

    def _track(self, reads: set[str]) -> dict[str, _ReadDict]:
        dicts: dict[str, _ReadDict] = {}
        for f in _fields(type(self.facts)):
            value = getattr(self.facts, f.name)
            if type(value) is list:
                setattr(self.facts, f.name, _ReadList(value, reads, f.name))
            elif type(value) is dict:
                dicts[f.name] = _ReadDict(value, reads, f.name)
                setattr(self.facts, f.name, dicts[f.name])
        return dicts

    def _untrack(self) -> None:
        for f in _fields(type(self.facts)):
            value = getattr(self.facts, f.name)
            if isinstance(value, (_ReadList, _ReadDict)):
                value._reads = set()  # copying reads it
                plain = list.copy(value) if isinstance(value, list) else dict.copy(value)
                setattr(self.facts, f.name, plain)

    def _marks(self) -> dict[str, Any]:
        marks: dict[str, Any] = {}
        for f in _fields(type(self.facts)):
            value = getattr(self.facts, f.name)
            if type(value) is list:
                marks[f.name] = list.copy(value)
            elif type(value) is dict:
                marks[f.name] = dict.copy(value)
            else:
                marks[f.name] = value
        return marks

    def _added(self, marks: dict[str, Any], trackers: dict[str, _ReadDict]) -> dict[str, Any]:
        added: dict[str, Any] = {}
        for name, old in marks.items():
            new = getattr(self.facts, name)
            if isinstance(old, list):
                if len(new) < len(old) or any(
                    a is not b for a, b in zip(old, new[: len(old)], strict=True)
                ):
                    raise _NotReusable(name)
                if len(new) > len(old):
                    added[name] = new[len(old) :]
            elif isinstance(old, dict):
                # Keys stored again with an equal value count too: a replay without
                # them would miss the key once an earlier statement stops storing it.
                touched = dict.fromkeys(trackers[name].touched if name in trackers else ())
                touched.update((k, None) for k, v in new.items() if old.get(k, _MISSING) is not v)
                touched.update((k, None) for k in old if k not in new)
                changed = [(k, new[k]) for k in touched if k in new]
                removed = [k for k in touched if k not in new]
                if changed or removed:
                    added[name] = (changed, removed)
            elif new is not old:
                raise _NotReusable(name)
        return added

    def _replay(self, replay: Replay, start: int) -> None:
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
        self._pending = replay


_MISSING = object()


class _ReadList(list):
    """A facts list that notes when the walk reads it (appending is not reading)."""

    def __init__(self, items: list, reads: set[str], name: str) -> None:
        super().__init__(items)
        self._reads, self._name = reads, name

    def _read(self) -> None:
        self._reads.add(self._name)

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

    def __init__(self, items: dict, reads: set[str], name: str) -> None:
        super().__init__(items)
        self._reads, self._name = reads, name
        self.touched: list = []
        """Keys stored or deleted, in order."""

    def _read(self) -> None:
        self._reads.add(self._name)

    def __setitem__(self, key, value) -> None:  # type: ignore[no-untyped-def]
        self.touched.append(key)
        super().__setitem__(key, value)

    def __delitem__(self, key) -> None:  # type: ignore[no-untyped-def]
        self.touched.append(key)
        super().__delitem__(key)

    def pop(self, key, *default):  # type: ignore[no-untyped-def]
        self.touched.append(key)
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


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj: Any) -> None:
        if isinstance(obj, cst.CSTNode):
            raise _NotReusable("state holds a syntax node")
        if type(obj) is Loc:
            # A location kept in state (for facts a recognizer emits later, at the end
            # of the walk) would not move with the lines inserted above its statement.
            raise _NotReusable("state holds a location")
        return None


def _dumps(value: Any) -> bytes:
    stream = io.BytesIO()
    try:
        _Pickler(stream, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
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


def _canonical(value: Any) -> Any:
    """``value`` with sets in sorted order: equal states give equal pickles even when
    their sets were filled in different orders."""
    if isinstance(value, (set, frozenset)):
        return ("<set>", tuple(sorted((_canonical(v) for v in value), key=repr)))
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
