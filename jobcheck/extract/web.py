"""Web request handlers: Django function and class-based views, DRF views and viewsets,
Flask/Quart routes and blueprints, FastAPI/Starlette endpoints."""

from __future__ import annotations

import libcst as cst

from jobcheck.extract.walker import Recognizer
from jobcheck.facts import FunctionFacts

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


class WebRecognizer(Recognizer):
    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        facts.view = self._framework(facts)
        if any(d.qualname in NON_ATOMIC for d in facts.decorators):
            facts.non_atomic_requests = True

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
        if facts.class_qualname is not None:
            if facts.name in HTTP_METHODS or facts.name in VIEW_HOOKS:
                if any(_is_view_class(b) for b in facts.class_bases) and "django" in _roots(roots):
                    return "django"
            return None
        if facts.params and facts.params[0].name == "request" and "django" in _roots(roots):
            return "django"
        return None


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
