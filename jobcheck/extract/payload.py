"""What an expression carries when it is passed to a job: an ID, or a record or copy.

Used by SCL-21 ``fat-payload``: ``send.delay(order)`` puts a stale copy of a row on the
queue, ``send.delay(order.id)`` lets the worker read the current row. The classification
follows names through the enclosing function's assignments (``order =
Order.objects.get(...)``) and loops (``for order in Order.objects.all()``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import Names, dotted

# Kinds that are fine to put in a job.
SAFE = frozenset({"id", "scalar", "ids"})
# Kinds that are a record or a copy of one (the finding's subject).
HEAVY = frozenset({"record", "queryset", "request", "copy", "file", "dataframe"})


@dataclass(frozen=True)
class Kind:
    kind: str
    reason: str
    model: str | None = None
    """For "annotated": the annotation's dotted path, which the project model checks."""


UNKNOWN = Kind("unknown", "")
SCALAR = Kind("scalar", "")

_RECORD_ENDINGS = frozenset(
    {"get", "first", "last", "latest", "earliest", "create", "one", "one_or_none", "scalar_one"}
)
_QUERYSET_ENDINGS = frozenset(
    {
        "all",
        "filter",
        "exclude",
        "order_by",
        "select_related",
        "prefetch_related",
        "annotate",
        "distinct",
        "only",
        "defer",
        "iterator",
        "using",
        "select_for_update",
        "reverse",
    }
)
_ID_ATTRIBUTES = frozenset({"id", "pk", "uuid", "hex", "slug", "key", "guid", "uid", "email"})
_ID_FUNCS = frozenset({"str", "int", "float", "bool", "len", "repr", "uuid.UUID", "hash"})
# Always a copy of a record: Django's model_to_dict takes a model instance, serialize a
# queryset, ``vars``/``__dict__`` an object's whole state.
_COPY_FUNCS = frozenset(
    {"django.forms.models.model_to_dict", "vars", "django.core.serializers.serialize"}
)
# A copy of a record only when what they copy is one: ``asdict`` of a plain dataclass of
# IDs is a fine payload.
_DATACLASS_COPIES = frozenset({"dataclasses.asdict", "attr.asdict", "attrs.asdict"})
_RECORD_FUNCS = frozenset(
    {
        "django.shortcuts.get_object_or_404",
        "rest_framework.generics.get_object_or_404",
    }
)
_QUERYSET_FUNCS = frozenset({"django.shortcuts.get_list_or_404"})
_PANDAS_CONSTRUCTORS = frozenset({"DataFrame", "Series"})


def classify(
    expr: cst.BaseExpression,
    names: Names,
    variables: Mapping[str, Kind],
    request_names: frozenset[str] = frozenset(),
) -> Kind:
    """The kind of payload ``expr`` is, as far as this file can tell."""
    if isinstance(expr, cst.Await):
        # ``await session.get(User, pk)``, ``await file.read()``: what the awaited call
        # gives (async ORMs and frameworks return the same records and bytes).
        return classify(expr.expression, names, variables, request_names)
    if isinstance(
        expr,
        (
            cst.Integer,
            cst.Float,
            cst.Imaginary,
            cst.SimpleString,
            cst.ConcatenatedString,
            cst.FormattedString,
        ),
    ):
        return SCALAR
    if isinstance(expr, cst.Name):
        return _name(expr.value, variables, request_names)
    if isinstance(expr, cst.Attribute):
        return _attribute(expr, names, variables, request_names)
    if isinstance(expr, cst.Call):
        return _call(expr, names, variables, request_names)
    if isinstance(expr, cst.Subscript):
        return _subscript(expr, names, variables, request_names)
    if isinstance(expr, (cst.Dict, cst.List, cst.Tuple, cst.Set)):
        return _container(expr, names, variables, request_names)
    if isinstance(expr, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return _comprehension(expr, names, variables, request_names)
    if isinstance(expr, (cst.BinaryOperation, cst.UnaryOperation, cst.Comparison)):
        return SCALAR
    return UNKNOWN


def element_of(kind: Kind) -> Kind | None:
    """The kind of one item when iterating over something of ``kind``."""
    if kind.kind == "queryset":
        return Kind("record", f"a row from {kind.reason}")
    if kind.kind == "ids":
        return Kind("id", "")
    if kind.kind == "copies":
        return Kind("copy", kind.reason)
    if kind.kind == "annotated" and kind.model:
        return Kind("annotated-element", kind.reason, kind.model)
    return None


def model_fetched(value: cst.BaseExpression, names: Names) -> str | None:
    """The model class whose row ``value`` fetches or creates, as a dotted path:
    ``Order.objects.get(...)``, ``Order.objects.filter(...).first()``,
    ``Order.objects.get_or_create(...)`` (the pair's record), ``get_object_or_404(Order,
    ...)``; None for anything else."""
    if not isinstance(value, cst.Call):
        return None
    func = names.qualify(value.func)
    if func in _RECORD_FUNCS and value.args:
        return names.qualify(value.args[0].value)
    if not isinstance(value.func, cst.Attribute):
        return None
    method = value.func.attr.value
    if method not in _RECORD_ENDINGS and method not in ("get_or_create", "update_or_create"):
        return None
    receiver: cst.BaseExpression = value.func.value
    while True:
        if isinstance(receiver, cst.Call):
            receiver = receiver.func
        elif isinstance(receiver, cst.Attribute) and receiver.attr.value == "objects":
            return names.qualify(receiver.value)
        elif isinstance(receiver, cst.Attribute) and receiver.attr.value in _QUERYSET_ENDINGS:
            receiver = receiver.value
        else:
            return None


def first_of_pair(value: cst.BaseExpression, names: Names) -> Kind | None:
    """``obj, created = Model.objects.get_or_create(...)``: the record."""
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute):
        if value.func.attr.value in ("get_or_create", "update_or_create") and _is_orm_chain(
            value.func.value
        ):
            return Kind("record", f"a row from {value.func.attr.value}()")
    return None


def _name(name: str, variables: Mapping[str, Kind], request_names: frozenset[str]) -> Kind:
    if name in request_names:
        return Kind("request", "the request object")
    kind = variables.get(name)
    if kind is not None:
        return kind
    if name in ("True", "False", "None"):
        return SCALAR
    return Kind("unknown", "", None)


def _attribute(
    expr: cst.Attribute,
    names: Names,
    variables: Mapping[str, Kind],
    request_names: frozenset[str],
) -> Kind:
    attr = expr.attr.value
    if attr in _ID_ATTRIBUTES or attr.endswith(("_id", "_pk", "_ids", "_uuid")):
        return Kind("id", "")
    if attr == "__dict__":
        return Kind("copy", "a copy of an object's __dict__")
    base = expr.value
    if _is_request(base, request_names):
        if attr == "user":
            return Kind("record", "request.user, a User row")
        if attr == "FILES":
            return Kind("file", "request.FILES, uploaded file objects")
        if attr == "body":
            return Kind("file", "request.body, the raw request body")
    if attr == "cleaned_data":
        # Unlike request input (a webhook's payload is its job's input), a form's values
        # are what its fields made of it: rows for ModelChoiceFields, uploaded files.
        return Kind(
            "copy", "form.cleaned_data, the form's values, model instances and files among them"
        )
    if attr in ("validated_data",):
        return Kind("copy", "serializer.validated_data, a copy of the record's fields")
    if attr == "data" and "serializer" in (dotted(base) or _call_name(base) or "").lower():
        return Kind("copy", "serializer.data, a copy of the record's fields")
    if attr == "objects" or attr == "_default_manager":
        return Kind("queryset", "a model manager")
    return UNKNOWN


def _call(
    expr: cst.Call,
    names: Names,
    variables: Mapping[str, Kind],
    request_names: frozenset[str],
) -> Kind:
    func = names.qualify(expr.func)
    if func in _ID_FUNCS:
        return Kind("id", "")
    if func in _COPY_FUNCS or (func or "").split(".")[-1] == "model_to_dict":
        short = (func or "").split(".")[-1]
        return Kind("copy", f"{short}(...), a copy of the record's fields")
    if (func in _DATACLASS_COPIES or func == "asdict") and expr.args:
        inner = classify(expr.args[0].value, names, variables, request_names)
        if inner.kind == "record" or inner.model:
            return Kind("copy", "asdict(...) of a record, a copy of its fields", inner.model)
        return UNKNOWN
    if func in _RECORD_FUNCS:
        return Kind("record", f"a row from {func.split('.')[-1]}()")
    if func in _QUERYSET_FUNCS:
        return Kind("queryset", "a list of rows from get_list_or_404()")
    if func and func.startswith("pandas."):
        short = func.split(".")[-1]
        if short in _PANDAS_CONSTRUCTORS or short.startswith("read_"):
            return Kind("dataframe", f"a pandas {short}(...) result")
    if func in ("list", "tuple", "set", "sorted") and expr.args:
        inner = classify(expr.args[0].value, names, variables, request_names)
        if inner.kind in ("queryset", "ids", "copies"):
            return inner
        return UNKNOWN
    if not isinstance(expr.func, cst.Attribute):
        return _returned_by(func) if isinstance(expr.func, cst.Name) else UNKNOWN
    method = expr.func.attr.value
    receiver = expr.func.value
    if method == "read" or method == "getvalue":
        return Kind("file", f"file contents from .{method}()")
    if method == "get_data" and (
        _is_request(receiver, request_names) or names.qualify(receiver) in FLASK_REQUESTS
    ):
        # werkzeug's ``Request.get_data()``: the raw body, as Django's request.body.
        return Kind("file", "request.get_data(), the raw request body")
    if method in ("values_list",):
        if _flat_single_field(expr):
            return Kind("ids", "")  # plain values of one field (IDs mostly), not rows
        return Kind("copies", "rows copied by values_list()")
    if method == "values" and _is_orm_chain(receiver):
        return Kind("copies", "rows copied by values()")
    if method in ("to_dict", "dict", "model_dump", "json", "to_json") and not expr.args:
        return UNKNOWN
    if method == "get" and (
        _is_sqlalchemy_session(receiver) or (_is_db_name(receiver) and _first_is_class(expr))
    ):
        return Kind("record", f"a row from {dotted(receiver) or 'session'}.get()")
    if _is_orm_chain(receiver) or _is_query_chain(receiver):
        if method in _RECORD_ENDINGS:
            return Kind("record", f"a row from .{method}()")
        if method in _QUERYSET_ENDINGS:
            return Kind("queryset", f"a queryset (.{method}())")
        if method in ("scalars",):
            return Kind("queryset", "rows from session.scalars()")
    if method == "get_object" and dotted(receiver) == "self":
        return Kind("record", "a row from self.get_object()")
    if method == "get_queryset" and dotted(receiver) == "self":
        return Kind("queryset", "a queryset from self.get_queryset()")
    if method == "objects" or not _is_plain_call(expr):
        return UNKNOWN
    if isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"):
        owner = variables.get(receiver.value)
        if owner is not None and owner.model:
            return _returned_by(f"{owner.model}.{method}")
    return _returned_by(func)


def _returned_by(func: str | None) -> Kind:
    """A call of a project function or class: what it gives is read by the project
    model (its ``return`` statements, or the class itself)."""
    if func is None or "." not in func:
        return UNKNOWN
    return Kind("returned-by", "", func)


def _subscript(
    expr: cst.Subscript,
    names: Names,
    variables: Mapping[str, Kind],
    request_names: frozenset[str],
) -> Kind:
    base = expr.value
    if isinstance(base, cst.Attribute) and _is_request(base.value, request_names):
        if base.attr.value == "FILES":
            return Kind("file", "an uploaded file from request.FILES")
    inner = classify(base, names, variables, request_names)
    if inner.kind not in ("queryset", "copies", "ids"):
        return UNKNOWN
    slice_ = expr.slice[0].slice if expr.slice else None
    if not isinstance(slice_, cst.Index):
        return inner  # a slice: still rows (or values)
    return element_of(inner) or UNKNOWN  # one row


_CONTAINER_NAMES = {cst.Dict: "a dict", cst.List: "a list", cst.Tuple: "a tuple", cst.Set: "a set"}


def _container(
    expr: cst.Dict | cst.List | cst.Tuple | cst.Set,
    names: Names,
    variables: Mapping[str, Kind],
    request_names: frozenset[str],
) -> Kind:
    values: list[cst.BaseExpression] = []
    for element in expr.elements:
        if isinstance(element, (cst.DictElement, cst.Element)):
            values.append(element.value)
    for value in values:
        kind = classify(value, names, variables, request_names)
        if kind.kind in HEAVY:
            what = _CONTAINER_NAMES[type(expr)]
            return Kind(kind.kind, f"{what} holding {kind.reason}")
    return SCALAR


def _comprehension(
    expr: cst.ListComp | cst.SetComp | cst.GeneratorExp,
    names: Names,
    variables: Mapping[str, Kind],
    request_names: frozenset[str],
) -> Kind:
    source = classify(expr.for_in.iter, names, variables, request_names)
    element = element_of(source)
    if element is None:
        return UNKNOWN
    inner_vars = dict(variables)
    if isinstance(expr.for_in.target, cst.Name):
        inner_vars[expr.for_in.target.value] = element
    kind = classify(expr.elt, names, inner_vars, request_names)
    if kind.kind in HEAVY:
        return Kind("queryset", f"a list of rows ({kind.reason})")
    return Kind("ids", "") if kind.kind in SAFE else UNKNOWN


FLASK_REQUESTS = frozenset({"flask.request", "quart.request"})


def _is_request(expr: cst.BaseExpression, request_names: frozenset[str]) -> bool:
    name = dotted(expr)
    return name is not None and (name in request_names or name == "self.request")


def _is_orm_chain(expr: cst.BaseExpression) -> bool:
    """``Model.objects...``, ``Model._default_manager...``, ``qs.filter(...)...``."""
    while True:
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in ("objects", "_default_manager", "_base_manager"):
                return True
            expr = expr.value
        elif isinstance(expr, cst.Call):
            if isinstance(expr.func, cst.Attribute) and expr.func.attr.value in _QUERYSET_ENDINGS:
                expr = expr.func.value
                continue
            expr = expr.func
        else:
            return False


def _is_query_chain(expr: cst.BaseExpression) -> bool:
    """SQLAlchemy: ``session.query(...)...``, ``Model.query...``, ``session.scalars(...)``."""
    while True:
        if isinstance(expr, cst.Attribute):
            if expr.attr.value == "query" and not isinstance(expr.value, cst.Call):
                return True
            expr = expr.value
        elif isinstance(expr, cst.Call):
            func = expr.func
            if isinstance(func, cst.Attribute) and func.attr.value in ("query", "scalars"):
                if _is_sqlalchemy_session(func.value):
                    return True
            expr = func
        else:
            return False


def _is_db_name(expr: cst.BaseExpression) -> bool:
    """FastAPI's usual name for the request's session: ``db``, ``async_db``."""
    name = (dotted(expr) or "").split(".")[-1]
    return name == "db" or name.endswith("_db")


def _first_is_class(call: cst.Call) -> bool:
    """``db.get(User, pk)``: a class (a capitalized name) first, not a dict key."""
    first = call.args[0].value if call.args and call.args[0].keyword is None else None
    name = first.value if isinstance(first, cst.Name) else None
    if isinstance(first, cst.Attribute):
        name = first.attr.value
    return bool(name) and name[0].isupper()  # type: ignore[index]


def _is_sqlalchemy_session(expr: cst.BaseExpression) -> bool:
    name = dotted(expr)
    return name is not None and name.split(".")[-1] in ("session", "db_session", "Session")


def _flat_single_field(call: cst.Call) -> bool:
    """``values_list("project_id", flat=True)``: its items are single values."""
    fields = [a for a in call.args if a.keyword is None]
    flat = any(
        a.keyword is not None
        and a.keyword.value == "flat"
        and isinstance(a.value, cst.Name)
        and a.value.value == "True"
        for a in call.args
    )
    return flat and len(fields) == 1


def _call_name(expr: cst.BaseExpression) -> str | None:
    if isinstance(expr, cst.Call):
        return dotted(expr.func)
    return None


def _is_plain_call(expr: cst.Call) -> bool:
    """A call of a plain function or method (``load_order(n)``, ``self.get_order()``)."""
    return isinstance(expr.func, (cst.Name, cst.Attribute))
