"""Single-runner guards inside function bodies: a lock taken before the work.

Recorded as ``Guard(kind="lock")`` on the enclosing function: a call to anything named
like a lock (``cache.lock``, ``redis.lock``, ``acquire_lock``, ``Lock(...)``,
``memcache_lock``, huey's ``lock_task``), the Django cache ``add`` idiom, Redis
``set(..., nx=True)``/``setnx``, an ``acquire()``, PostgreSQL/MySQL advisory locks in SQL
text, and ``select_for_update(skip_locked=True | nowait=True)``. Heuristic by design: a
false "guarded" only hides a finding, a false "unguarded" would be a false positive.
"""

from __future__ import annotations

from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import IN_PROCESS_LOCK, Guard
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted
from jobcheck.vocabulary.lock_names import _LOCK_HINT, SQL_LOCKS, takes_lock_by_name
from jobcheck.vocabulary.words import identifier_words

# Locks that hold within one process only: a second consumer or scheduler process
# does not see them, so they are no single-runner guard (SCL-38).
IN_PROCESS_LOCKS = frozenset(
    {
        "threading.Lock",
        "threading.RLock",
        "threading.Semaphore",
        "threading.BoundedSemaphore",
        "multiprocessing.Lock",
        "multiprocessing.RLock",
        "asyncio.Lock",
        "asyncio.Semaphore",
    }
)


class LockRecognizer(Recognizer):
    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._in_process: set[str] | None = None

    def _in_process_locks(self) -> set[str]:
        """Names the module binds to an in-process lock anywhere at module level
        (``_lock = threading.Lock()``, brightsky's ``update_stations._lock = ...`` after
        the function that uses it)."""
        if self._in_process is None:
            self._in_process = set()
            for statement in self.walker.module.body:
                if not isinstance(statement, cst.SimpleStatementLine):
                    continue
                for small in statement.body:
                    if not isinstance(small, cst.Assign) or not isinstance(small.value, cst.Call):
                        continue
                    if self.walker.qualify(small.value.func) not in IN_PROCESS_LOCKS:
                        continue
                    for target in small.targets:
                        name = dotted(target.target)
                        if name is not None:
                            self._in_process.add(name)
        return self._in_process

    def call(self, node: cst.Call, func: str | None) -> None:
        scope = self.walker.function
        if scope is None:
            return
        kind = self._lock_kind(node)
        if kind is not None:
            scope.facts.guards.append(Guard(kind, self.walker.order, self.walker.loc(node)))

    def with_item(self, item: cst.WithItem) -> None:
        """``with self.lock:`` / ``with report_lock:``: a lock object held for the block (a
        Redis or database lock made earlier). One the module makes with ``threading`` or
        ``multiprocessing`` holds within one process only and is no guard. Calls (``with
        cache.lock(...)``) are read by :meth:`call`."""
        scope = self.walker.function
        target = item.item
        if scope is None or isinstance(target, cst.Call):
            return
        if dotted(target) in self._in_process_locks():
            kind = IN_PROCESS_LOCK  # shown by SCL-38, guards nothing
            scope.facts.guards.append(Guard(kind, self.walker.order, self.walker.loc(item)))
            return
        name = target.attr.value if isinstance(target, cst.Attribute) else None
        if isinstance(target, cst.Name):
            name = target.value
        if name is not None and takes_lock_by_name(name):
            scope.facts.guards.append(Guard("lock", self.walker.order, self.walker.loc(item)))

    def _lock_kind(self, node: cst.Call) -> str | None:
        callee = node.func
        name = (
            callee.attr.value if isinstance(callee, cst.Attribute) else getattr(callee, "value", "")
        )
        if not isinstance(name, str):
            return None
        if name == "acquire" and isinstance(callee, cst.Attribute) and _names_a_pool(callee.value):
            return None  # asyncpg's ``pool.acquire()`` hands out a connection, not a lock
        if takes_lock_by_name(name) or name in ("acquire", "setnx"):
            return "lock"
        if name == "add" and isinstance(callee, cst.Attribute) and _names_a_cache(callee.value):
            return "lock"  # Django's cache.add(key, ...) is atomic: False when the key exists
        if name == "set" and _keyword_true(node, "nx"):
            return "lock"
        if name == "select_for_update" and (
            _keyword_true(node, "skip_locked") or _keyword_true(node, "nowait")
        ):
            return "row-lock"
        if _mentions_sql_lock(node):
            return "advisory-lock"
        return None


# Objects whose ``acquire()`` takes a resource from a pool: asyncpg/aiopg ``Pool.acquire``,
# a database or connection pool of the project's.
_POOL_WORDS = ("pool", "conn", "connection", "connections", "engine", "db", "database")


def _names_a_pool(expr: cst.BaseExpression) -> bool:
    text = expr.attr.value if isinstance(expr, cst.Attribute) else getattr(expr, "value", "")
    if not isinstance(text, str):
        return False
    words = identifier_words(text)
    return any(word in _POOL_WORDS for word in words)


def _names_a_cache(expr: cst.BaseExpression) -> bool:
    if isinstance(expr, cst.Subscript):  # caches["default"]
        expr = expr.value
    text = expr.attr.value if isinstance(expr, cst.Attribute) else getattr(expr, "value", "")
    return isinstance(text, str) and "cache" in text.lower()


def _keyword_true(node: cst.Call, name: str) -> bool:
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return not (isinstance(arg.value, cst.Name) and arg.value.value in ("False", "None"))
    return False


def _mentions_sql_lock(node: cst.Call) -> bool:
    """An advisory lock in a string argument: ``execute("SELECT pg_try_advisory_lock(1)")``,
    also in f-strings and implicitly concatenated strings."""
    for arg in node.args:
        for text in _string_texts(arg.value):
            if _LOCK_HINT.search(text) and SQL_LOCKS.search(text):
                return True
    return False


def _string_texts(expr: cst.BaseExpression) -> list[str]:
    if isinstance(expr, cst.SimpleString):
        return [expr.value]
    if isinstance(expr, cst.FormattedString):
        return [part.value for part in expr.parts if isinstance(part, cst.FormattedStringText)]
    if isinstance(expr, cst.ConcatenatedString):
        return [*_string_texts(expr.left), *_string_texts(expr.right)]
    return []
