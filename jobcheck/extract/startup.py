"""Web-app start-up code.

An in-process scheduler (APScheduler's ``BackgroundScheduler().start()``, a
``schedule.run_pending()`` loop: each plugin records its own starts) started from code
that runs in every web process (Django ``AppConfig.ready``, ``wsgi.py``/``asgi.py``,
Flask ``create_app``, FastAPI startup handlers and lifespans, gunicorn server hooks)
runs every job once per process and per replica. This recognizer records the start-up
code and what it calls; the project model joins the two.
"""

from __future__ import annotations

from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import NOWHERE, FunctionFacts, Loc, StartupHook
from jobcheck.facts.values import CallV, string
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted, module_of_import
from jobcheck.syntax.tree import children
from jobcheck.triggers import Trigger

WEB_APP_FACTORIES = frozenset(
    {
        "flask.Flask",
        "quart.Quart",
        "fastapi.FastAPI",
        "starlette.applications.Starlette",
        "django.core.wsgi.get_wsgi_application",
        "django.core.asgi.get_asgi_application",
    }
)
# gunicorn/config.py server hooks; ``on_starting`` and ``when_ready`` run in the master,
# ``post_fork`` and ``post_worker_init`` in every worker: all once per server.
GUNICORN_HOOKS = frozenset({"post_fork", "post_worker_init", "when_ready", "on_starting"})
THREAD_STARTERS = frozenset({"Thread", "Process", "Timer", "Greenlet", "spawn"})


class StartupRecognizer(Recognizer):
    # Web-app start-up code, where an in-process scheduler must not be started (SCL-38).
    PREFILTER = (
        *(
            Trigger("start-up hook", f"def {name}(".encode())
            for name in (
                "ready",
                "create_app",
                "lifespan",
                "post_fork",
                "post_worker_init",
                "when_ready",
                "on_starting",
            )
        ),
        Trigger("startup event", b".on_event("),
        Trigger("WSGI entry point", b"get_wsgi_application"),
        Trigger("WSGI/ASGI entry module", module=r"(?:^|\.)\w*[wa]sgi$"),
        Trigger("ASGI entry point", b"get_asgi_application"),
        Trigger("app factory call", b"create_app("),
        *(
            Trigger("web app", f"{name}(".encode(), rf"\b{name}\(".encode())
            for name in ("Flask", "FastAPI", "Quart")
        ),
    )

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._hooks: dict[str, tuple[str, Loc, list[tuple[str, Loc]]]] = {}
        self._module_calls: list[tuple[str, Loc]] = []
        self._web_app = False
        last = walker.facts.module.rpartition(".")[2]
        # wsgi.py, asgi.py and their kin (uwsgi.py, app_wsgi.py): what a server loads.
        self._entry_module = last if last.endswith(("wsgi", "asgi")) else None

    # -- start-up hooks ---------------------------------------------------------------

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        kind = self._hook_kind(facts)
        if kind is None:
            return
        calls: list[tuple[str, Loc]] = []
        for statement, module in self._imports_in(node.body):
            calls.append((module, self.walker.loc(statement)))
        self._hooks[facts.qualname] = (kind, self.walker.loc(node.name), calls)

    def _hook_kind(self, facts: FunctionFacts) -> str | None:
        name = facts.name
        if facts.class_qualname is not None:
            if name == "ready" and any(b.endswith("AppConfig") for b in facts.class_bases):
                return "Django AppConfig.ready()"
            return None
        for decorator in facts.decorators:
            call = decorator.call
            on_event = (decorator.qualname or "").endswith(".on_event")
            if (
                on_event
                and isinstance(call, CallV)
                and string(call.arg(0, "event_type")) == "startup"
            ):
                return "a FastAPI startup handler"
        if self.walker.function is not None:
            return None  # only module-level functions below
        if name == "create_app":
            return "Flask's create_app()"
        if name == "lifespan" and self.walker.names.imported_roots & {"fastapi", "starlette"}:
            return "the FastAPI lifespan"
        if name in GUNICORN_HOOKS and (
            name in ("post_fork", "post_worker_init") or "gunicorn" in self.walker.facts.module
        ):
            return f"gunicorn's {name} hook"
        return None

    def _imports_in(self, body: cst.CSTNode) -> list[tuple[cst.CSTNode, str]]:
        """Modules a hook imports (their module-level code runs then)."""
        found: list[tuple[cst.CSTNode, str]] = []
        stack: list[cst.CSTNode] = [body]
        names = self.walker.names
        while stack:
            current = stack.pop()
            if isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                continue
            if isinstance(current, cst.Import):
                found.extend((current, dotted(a.name) or "") for a in current.names)
                continue
            if isinstance(current, cst.ImportFrom):
                module = module_of_import(current, names.module, names.is_package)
                if module and not isinstance(current.names, cst.ImportStar):
                    found.append((current, module))
                    found.extend((current, f"{module}.{dotted(a.name)}") for a in current.names)
                continue
            stack.extend(children(current))
        return found

    def call(self, node: cst.Call, func: str | None) -> None:
        walker = self.walker
        if func in WEB_APP_FACTORIES and walker.at_module_level:
            self._web_app = True
        self._record_hook_call(node, func)

    def _record_hook_call(self, node: cst.Call, func: str | None) -> None:
        walker = self.walker
        scope = walker.function
        if scope is not None and scope.facts.qualname in self._hooks:
            calls = self._hooks[scope.facts.qualname][2]
        elif self._entry_module is not None and walker.at_module_level:
            calls = self._module_calls
        else:
            return
        if func is not None:
            calls.append((func, walker.loc(node)))
        if (func or "").rpartition(".")[2] in THREAD_STARTERS:
            for arg in node.args:
                if arg.keyword is not None and arg.keyword.value in ("target", "run"):
                    target = walker.qualify(arg.value)
                    if target is not None:
                        calls.append((target, walker.loc(arg.value)))

    def finish(self) -> None:
        facts = self.walker.facts
        for qualname, (kind, loc, calls) in self._hooks.items():
            facts.startup_hooks.append(StartupHook(kind, qualname, loc, tuple(calls)))
        if self._entry_module is not None or self._web_app:
            kind = (
                f"{self._entry_module}.py (loaded by every web worker)"
                if self._entry_module
                else "a web app module (imported by every web worker)"
            )
            facts.startup_hooks.append(StartupHook(kind, None, NOWHERE, tuple(self._module_calls)))
