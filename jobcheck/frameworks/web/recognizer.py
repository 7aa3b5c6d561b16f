"""Web request handlers: Django function and class-based views, DRF views and viewsets,
Flask/Quart routes, blueprints and MethodViews, FastAPI/Starlette endpoints (decorated,
or registered with ``Route(...)``/``add_url_rule``/``add_api_route`` in the same file)."""

from __future__ import annotations

from jobcheck.extract.walker import Recognizer
from jobcheck.facts import FunctionFacts
from jobcheck.facts.values import CallV, Value, string
from jobcheck.syntax import tree as cst

HTTP_METHODS = frozenset({"get", "post", "put", "patch", "delete", "head", "options"})
# Methods of Django generic views and DRF views/viewsets that run inside a request.
VIEW_HOOKS = frozenset(
    {
        "dispatch",
        "form_valid",
        "form_invalid",
        "get_context_data",
        "list",
        "create",
        "retrieve",
        "update",
        "partial_update",
        "destroy",
        "perform_create",
        "perform_update",
        "perform_destroy",
    }
)
DRF_DECORATORS = frozenset(
    {"rest_framework.decorators.api_view", "rest_framework.decorators.action"}
)
NON_ATOMIC = frozenset({"django.db.transaction.non_atomic_requests"})
ROUTE_METHODS = frozenset(
    {"route", "get", "post", "put", "patch", "delete", "api_route", "websocket"}
)
ROUTE_LIBRARIES = {
    "flask": "flask",
    "quart": "flask",
    "fastapi": "fastapi",
    "starlette": "fastapi",
}
# Annotations a Django view's ``request`` parameter may carry; any other annotation
# (``request: RefundRequest``) means the function is not a view.
REQUEST_ANNOTATIONS = frozenset({"HttpRequest", "WSGIRequest", "ASGIRequest", "Request"})
# Flask/Quart class-based views (MethodView, flask-restful/restx Resource, and project
# bases named like them): their HTTP-method methods handle requests.
FLASK_VIEW_BASES = ("View", "Resource")
FLASK_VIEW_HOOKS = frozenset({"dispatch_request"})
# Starlette class-based endpoints: ``class Home(HTTPEndpoint): async def get(self, request)``.
STARLETTE_VIEW_BASES = frozenset({"HTTPEndpoint"})
# Endpoint registrations: callable -> (positional index, keyword) of the endpoint.
ROUTE_CLASSES = {
    "starlette.routing.Route": (1, "endpoint"),
    "fastapi.routing.APIRoute": (1, "endpoint"),
}
ROUTE_REGISTRATIONS = {
    "add_url_rule": (2, "view_func"),
    "add_api_route": (1, "endpoint"),
    "add_route": (1, "route"),
}


class WebRecognizer(Recognizer):
    def __init__(self, walker) -> None:  # type: ignore[no-untyped-def]
        super().__init__(walker)
        self._registered: dict[str, str] = {}

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        facts.view = self._framework(facts)
        if any(d.qualname in NON_ATOMIC for d in facts.decorators):
            facts.non_atomic_requests = True

    def call(self, node: cst.Call, func: str | None) -> None:
        """``Route("/", endpoint=home)``, ``app.add_url_rule("/", "home", home)``."""
        where = ROUTE_CLASSES.get(func or "")
        if where is None and isinstance(node.func, cst.Attribute):
            where = ROUTE_REGISTRATIONS.get(node.func.attr.value)
        if where is None:
            return
        framework = _route_framework(self.walker.names.imported_roots)
        if framework is None:
            return
        endpoint = _argument(node, *where)
        if isinstance(endpoint, (cst.Name, cst.Attribute)):
            qualname = self.walker.qualify(endpoint)
            if qualname is not None:
                self._registered[qualname] = framework

    def finish(self) -> None:
        # Functions registered after their definition: those whose facts were kept.
        for qualname, framework in self._registered.items():
            facts = self.walker.facts.functions.get(qualname)
            if facts is not None and facts.view is None:
                facts.view = framework

    def _framework(self, facts: FunctionFacts) -> str | None:
        roots = self.walker.names.imported_roots
        for decorator in facts.decorators:
            if decorator.qualname in DRF_DECORATORS:
                return "django"
            if decorator.qualname is None:
                continue
            head, _, method = decorator.qualname.rpartition(".")
            if method in ROUTE_METHODS and head:
                framework = _route_framework(roots)
                if framework is not None:
                    return framework
                if _has_path_argument(decorator.call):
                    # ``@bp.route("/x")`` with the blueprint imported from elsewhere.
                    return "flask" if method == "route" else "fastapi"
        if facts.class_qualname is not None:
            found = self._method_framework(facts, roots)
            if found is not None:
                return found
        if "django" in _roots(roots) and _takes_request(facts):
            # Django code handed the request runs inside it: function views, admin
            # actions (modeladmin, request, queryset), ModelAdmin.save_model(self,
            # request, ...), middleware, permission classes.
            return "django"
        return None

    @staticmethod
    def _method_framework(facts: FunctionFacts, roots: set[str]) -> str | None:
        bases = facts.class_bases
        handles = facts.name in HTTP_METHODS
        if (
            (handles or facts.name in VIEW_HOOKS)
            and "django" in _roots(roots)
            and any(_is_view_class(b) for b in bases)
        ):
            return "django"
        if (
            (handles or facts.name in FLASK_VIEW_HOOKS)
            and roots & {"flask", "quart", "flask_restful", "flask_restx"}
            and any(b.split(".")[-1].endswith(FLASK_VIEW_BASES) for b in bases)
        ):
            return "flask"
        if (
            handles
            and roots & {"starlette", "fastapi"}
            and any(b.split(".")[-1] in STARLETTE_VIEW_BASES for b in bases)
        ):
            return "fastapi"
        return None


def _takes_request(facts: FunctionFacts) -> bool:
    """A parameter named ``request`` among the first two (after ``self``/``cls``),
    not annotated as something other than an HTTP request."""
    params = list(facts.params)
    if params and params[0].name in ("self", "cls"):
        params = params[1:]
    for param in params[:2]:
        if param.name == "request":
            annotation = param.annotation
            return annotation is None or annotation.split(".")[-1] in REQUEST_ANNOTATIONS
    return False


def _roots(imported: set[str]) -> set[str]:
    roots = set()
    if imported & {"django", "rest_framework"}:
        roots.add("django")
    return roots


def _route_framework(imported: set[str]) -> str | None:
    for library, framework in ROUTE_LIBRARIES.items():
        if library in imported:
            return framework
    return None


def _is_view_class(base: str) -> bool:
    last = base.split(".")[-1]
    return last.endswith(("View", "ViewSet", "APIView")) or last in ("View", "ViewSetMixin")


def _has_path_argument(call: Value | None) -> bool:
    if not isinstance(call, CallV) or not call.args:
        return False
    path = string(call.args[0])
    return path is not None and path.startswith("/")


def _argument(node: cst.Call, position: int, keyword: str) -> cst.BaseExpression | None:
    for arg in node.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [a for a in node.args if a.keyword is None and not a.star]
    return positional[position].value if len(positional) > position else None
