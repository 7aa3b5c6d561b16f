"""Lookups that raise when their row is gone, inside function bodies (SCL-34
lookup-retried-forever).

Recorded as :class:`~jobcheck.facts.Lookup` on the enclosing function: Django's
``Model.objects.get(...)`` (and ``.get()`` at the end of a queryset chain),
``get_object_or_404(Model, ...)``, SQLAlchemy's ``query(...).one()``/``scalar_one()``.
A lookup inside a ``try`` whose handler catches the "not found" (``DoesNotExist``,
``ObjectDoesNotExist``, ``NoResultFound``, ``Http404``) or catches everything without
raising again is handled where it stands and not recorded.
"""

from __future__ import annotations

from jobcheck.extract import payload
from jobcheck.extract.walker import Recognizer, caught_names
from jobcheck.facts import Lookup
from jobcheck.syntax import tree as cst

_RAISING_SHORTCUTS = frozenset(
    {
        "django.shortcuts.get_object_or_404",
        "rest_framework.generics.get_object_or_404",
    }
)
# SQLAlchemy's Query.one() / Result.scalar_one() raise NoResultFound on no row.
_ONE_ROW = frozenset({"one", "scalar_one"})
_NOT_FOUND_SUFFIXES = ("DoesNotExist", "NoResultFound", "Http404", "NotFound")
_CATCH_ALL = frozenset({"Exception", "BaseException", "builtins.Exception"})


class LookupRecognizer(Recognizer):
    def call(self, node: cst.Call, func: str | None) -> None:
        scope = self.walker.function
        if scope is None:
            return
        found = self._lookup(node, func)
        if found is None or self._handled_here():
            return
        text, missing = found
        scope.facts.lookups.append(Lookup(self.walker.loc(node), text, missing))

    def _lookup(self, node: cst.Call, func: str | None) -> tuple[str, str] | None:
        names = self.walker.names
        if func in _RAISING_SHORTCUTS and node.args:
            model = _short(names.qualify(node.args[0].value))
            return "get_object_or_404()", f"Http404 ({model or 'the model'}.DoesNotExist)"
        callee = node.func
        if not isinstance(callee, cst.Attribute):
            return None
        method = callee.attr.value
        if method == "get" and payload._is_orm_chain(callee.value) and _has_criteria(node):
            model = _short(payload.model_fetched(node, names))
            shown = f"{model}.objects.get()" if model else ".objects.get()"
            return shown, f"{model}.DoesNotExist" if model else "ObjectDoesNotExist"
        if method in _ONE_ROW and payload._is_query_chain(callee.value):
            return f".{method}()", "sqlalchemy.exc.NoResultFound"
        return None

    def _handled_here(self) -> bool:
        """A ``try`` around the lookup catches its "not found", or catches everything and
        does not raise again."""
        for statement in self.walker.tries:
            for handler in statement.handlers:
                caught = caught_names(handler, self.walker.names)
                if any(name.endswith(_NOT_FOUND_SUFFIXES) for name in caught):
                    return True
                if any(name in _CATCH_ALL for name in caught) and not _raises(handler):
                    return True
        return False


def _has_criteria(node: cst.Call) -> bool:
    """``.get(pk=...)``: a lookup by value. ``dict.get("key")`` has no keyword, and a
    queryset's bare ``.get()`` after ``filter(...)`` is one too."""
    if any(arg.keyword is not None for arg in node.args):
        return True
    return not node.args or isinstance(node.args[0].value, cst.Call)  # Q(...) objects


def _short(dotted_name: str | None) -> str | None:
    return dotted_name.split(".")[-1] if dotted_name else None


def _raises(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    return any(isinstance(node, cst.Raise) for node in cst.walk(handler.body))
