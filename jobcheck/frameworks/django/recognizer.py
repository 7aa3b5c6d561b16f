"""Django and SQLAlchemy: ``ATOMIC_REQUESTS``, model classes and session commits."""

from __future__ import annotations

from jobcheck.extract.walker import Recognizer
from jobcheck.facts import ModelClass, Setting
from jobcheck.facts.values import Const, DictV
from jobcheck.project.orm import MODEL_ROOTS, is_model_root
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted
from jobcheck.triggers import Trigger

__all__ = ["MODEL_ROOTS", "DjangoRecognizer", "is_model_root"]

DECLARATIVE_FACTORIES = frozenset(
    {
        "sqlalchemy.ext.declarative.declarative_base",
        "sqlalchemy.orm.declarative_base",
        "sqlalchemy.orm.decl_api.declarative_base",
    }
)
FLASK_SQLALCHEMY = frozenset({"flask_sqlalchemy.SQLAlchemy"})
SESSION_WRITES = frozenset(
    {
        "add",
        "add_all",
        "merge",
        "flush",
        "delete",
        "execute",
        "bulk_save_objects",
        "bulk_insert_mappings",
        "bulk_update_mappings",
    }
)


# ``Signal.connect(receiver, sender=None, weak=True, dispatch_uid=None)``
# (django/dispatch/dispatcher.py); model signals live in django.db.models.signals.
SIGNALS_MODULE = "django.db.models.signals."


class DjangoRecognizer(Recognizer):
    # Model classes and declarative bases are looked up by name, and loaded on demand.
    PREFILTER = (Trigger("ATOMIC_REQUESTS", b"ATOMIC_REQUESTS"),)

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        walker = self.walker
        if walker.function is not None:
            self._object_writes(targets)
        if not walker.at_settings_level:
            return
        for target in targets:
            if isinstance(target, cst.Name):
                if target.value == "DATABASES":
                    self._databases(walker.evaluate(value), node)
                elif (
                    walker.at_module_level
                    and isinstance(value, cst.Call)
                    and walker.qualify(value.func) in (DECLARATIVE_FACTORIES | FLASK_SQLALCHEMY)
                ):
                    # Base = declarative_base() / db = SQLAlchemy(): Base and db.Model are roots.
                    local = walker.names.local(target.value)
                    root = (
                        local
                        if walker.qualify(value.func) in DECLARATIVE_FACTORIES
                        else f"{local}.Model"
                    )
                    walker.facts.models.append(
                        ModelClass(qualname=root, bases=("<declarative>",), loc=walker.loc(target))
                    )
            elif isinstance(target, cst.Subscript) and _subscript_key(target) == "ATOMIC_REQUESTS":
                inner = target.value
                if isinstance(inner, cst.Subscript) and dotted(inner.value) == "DATABASES":
                    self._atomic_requests(walker.evaluate(value), node)

    def _object_writes(self, targets: list[cst.BaseExpression]) -> None:
        """``document.status = "queued"``: a change to an object a session may hold,
        written by its next commit (JOB-01 reads these with the session writes)."""
        scope = self.walker.function
        for target in targets:
            if (
                scope is not None
                and isinstance(target, cst.Attribute)
                and isinstance(target.value, cst.Name)
                and target.value.value not in ("self", "cls")
            ):
                scope.facts.session_writes.append(self.walker.order)
                return

    def _databases(self, value: object, node: cst.CSTNode) -> None:
        if not isinstance(value, DictV):
            return
        for _, alias in value.items:
            if isinstance(alias, DictV):
                flag = alias.get("ATOMIC_REQUESTS")
                if flag is not None:
                    self._atomic_requests(flag, node)

    def _atomic_requests(self, value: object, node: cst.CSTNode) -> None:
        if isinstance(value, Const) and value.value is True:
            walker = self.walker
            walker.facts.settings.append(
                Setting(
                    key="ATOMIC_REQUESTS",
                    raw_key="ATOMIC_REQUESTS",
                    value=value,
                    loc=walker.loc(node),
                    origin="module",
                )
            )

    def call(self, node: cst.Call, func: str | None) -> None:
        self._signal_connection(node, func)
        scope = self.walker.function
        if scope is None or not isinstance(node.func, cst.Attribute):
            return
        receiver = dotted(node.func.value) or ""
        if not _is_session_name(receiver.split(".")[-1].lower()):
            return
        method = node.func.attr.value
        if method == "commit":
            scope.facts.commit_orders.append(self.walker.order)
        elif method in SESSION_WRITES:
            scope.facts.session_writes.append(self.walker.order)

    def _signal_connection(self, node: cst.Call, func: str | None) -> None:
        """``post_save.connect(handler, sender=Order)``: ``handler`` receives the signal
        (``FileFacts.signal_receivers``), wherever it is defined."""
        if not func or not func.startswith(SIGNALS_MODULE) or not func.endswith(".connect"):
            return
        signal = func.removeprefix(SIGNALS_MODULE).removesuffix(".connect")
        receiver = next(
            (a.value for a in node.args if a.keyword is None or a.keyword.value == "receiver"),
            None,
        )
        handler = self.walker.qualify(receiver) if receiver is not None else None
        if handler and "." not in signal:
            self.walker.facts.signal_receivers.append((handler, signal))


def _subscript_key(node: cst.Subscript) -> str | None:
    if not node.slice:
        return None
    index = node.slice[0].slice
    if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
        value = index.value.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _is_session_name(name: str) -> bool:
    """A SQLAlchemy session by its name: ``session``, ``db_session``, and FastAPI's
    usual ``db: Session = Depends(get_db)`` (``db``, ``async_db``)."""
    return "session" in name or name == "db" or name.endswith("_db")
