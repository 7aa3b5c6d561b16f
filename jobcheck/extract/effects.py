"""What a function's body does to the outside world, and what protects it.

Recorded on :class:`~jobcheck.facts.FunctionFacts` for every function (whether a
function is a job is often known only project-wide: RQ enqueues plain functions):

- ``http_calls``: outbound HTTP calls that have no effective timeout or whose answer is
  discarded (``requests.post(...)`` as a statement). Calls with both a timeout and a
  used answer matter to no check and are not kept.
- ``slow_calls``: email and notification sends, PDF/spreadsheet exports, image resizes.
- ``side_effects``: charges (with whether they carry an idempotency key), sends,
  counter increments (``F("n") + 1``, ``x.n += 1`` then ``save()``) and deletes.
- ``guards``: what makes a second run harmless: an early ``return`` on a state check
  (``if invoice.sent: return``), ``get_or_create``/``update_or_create``,
  ``select_for_update``, a unique insert with conflict handling (``ignore_conflicts``,
  ``on_conflict_do_nothing``, ``ON CONFLICT``, ``except IntegrityError: return``), an
  idempotency or dedupe key, ``cache.add``. Kept only when the function has side
  effects, so that positions are computed for few nodes.
- ``handlers``: ``except`` clauses that swallow the error (see ``extract.handlers``).

Calls are recognized through the file's imports and through local bindings
(``session = requests.Session()``, ``with smtplib.SMTP(...) as smtp``,
``self.client = httpx.Client(timeout=None)``); a client made elsewhere is not guessed.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from jobcheck.extract import handlers, libraries
from jobcheck.extract.walker import Recognizer
from jobcheck.facts import ExceptHandler, FunctionFacts, Guard, HttpCall, Loc, SideEffect, SlowCall
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted
from jobcheck.syntax.tree import children
from jobcheck.triggers import LinearSearch, Trigger
from jobcheck.vocabulary.words import identifier_words, reports_to_the_team

# Words in an ``if`` test that say it looks at the record's state or at a dedupe marker:
# ``if invoice.sent``, ``if order.status != "pending"``, ``if not created``,
# ``if Payment.objects.filter(key=key).exists()``, ``if cache.get(key)``.
STATE_TOKENS = frozenset(
    {
        "sent",
        "paid",
        "charged",
        "billed",
        "invoiced",
        "processed",
        "processing",
        "done",
        "complete",
        "completed",
        "finished",
        "status",
        "state",
        "notified",
        "delivered",
        "handled",
        "already",
        "exists",
        "emailed",
        "mailed",
        "dispatched",
        "fulfilled",
        "shipped",
        "captured",
        "refunded",
        "settled",
        "confirmed",
        "acknowledged",
        "published",
        "synced",
        "imported",
        "idempotency",
        "idempotent",
        "dedupe",
        "dedup",
        "deduplicated",
        "duplicate",
        "created",
        "updated",
        "claimed",
        "locked",
        "acquired",
        "acquire",
        "succeeded",
        "pending",
        "cancelled",
        "canceled",
        "redeemed",
        "cache",
    }
)
GET_OR_CREATE = frozenset(
    {"get_or_create", "update_or_create", "aget_or_create", "aupdate_or_create"}
)
CONFLICT_METHODS = frozenset(
    {"on_conflict_do_nothing", "on_conflict_do_update", "on_duplicate_key_update"}
)
SQL_METHODS = frozenset({"execute", "executemany", "raw", "text"})
CONFLICT_SQL = re.compile(
    r"ON\s+CONFLICT|INSERT\s+IGNORE|INSERT\s+OR\s+IGNORE|ON\s+DUPLICATE\s+KEY", re.IGNORECASE
)
DELETE_SQL = re.compile(r"^\s*DELETE\s", re.IGNORECASE)
KEY_WORDS = ("idempoten", "dedup")
F_EXPRESSIONS = frozenset({"django.db.models.F", "django.db.models.expressions.F"})
UPDATE_METHODS = frozenset({"update", "aupdate"})
SAVE_METHODS = frozenset({"save", "asave", "save_base"})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Counters of runs, by design incremented on every run (``job.attempts += 1``).
RUN_COUNTERS = re.compile(r"attempt|retr|tries|tried|fail|error|runs?(?:_|$)|execution")


@dataclass
class _Binding:
    """What a local name, module name or ``self`` attribute holds."""

    kind: str
    """"http", "email-message", "mail-message", "mail-client", "notify-client",
    "twilio", "stripe", "boto3", "image", "pdf", "unknown"."""
    label: str
    http: libraries.HttpLibrary | None = None
    timeout: bool = False
    """For HTTP clients: whether calls without ``timeout=`` still have one."""
    methods: frozenset[str] = frozenset()
    service: str | None = None


UNKNOWN = _Binding("unknown", "unknown")


@dataclass
class _Frame:
    facts: FunctionFacts
    bindings: dict[str, _Binding] = field(default_factory=dict)
    guards: list[tuple[str, int, cst.CSTNode]] = field(default_factory=list)
    counters: dict[str, tuple[cst.CSTNode, int, str]] = field(default_factory=dict)
    assigned: set[str] = field(default_factory=set)
    state_queries: dict[str, frozenset[str]] = field(default_factory=dict)
    """Local names bound to a query filtered on a state field (``filter(sent_at__isnull=
    True)``), with those fields."""
    marked: set[str] = field(default_factory=set)
    """Attributes the function assigns (``question.notification_sent_at = now()``)."""
    loop_sends: list[tuple[int, frozenset[str]]] = field(default_factory=list)
    """Sends made in a loop over such a query: (index in ``facts.side_effects``, fields)."""
    loop_calls: list[tuple[int, frozenset[str]]] = field(default_factory=list)
    """Calls made in such a loop: (walk order, fields), for the helpers they call."""


# What makes a web module worth parsing for SCL-16 (see EffectsRecognizer.PREFILTER):
# something slow (a mail, HTTP, PDF/export or image library), a web framework, and
# something that looks like a handler. Three cheap searches, rarest first.
# Matched with RE2 (``LinearSearch``): whitespace spelled out, no look-around.
_SLOW_IMPORT = LinearSearch(
    rb"(?m)^[ \t]*(?:from|import)[ \t]+(?:requests|httpx|urllib3|urllib\.request|smtplib"
    rb"|aiosmtplib|flask_mail|fastapi_mail|sendgrid|templated_email|twilio|slack_sdk|slack"
    rb"|firebase_admin|pywebpush|pyfcm|apns2|boto3|weasyprint|reportlab|xhtml2pdf|pdfkit"
    rb"|openpyxl|xlsxwriter|PIL|cv2|sorl|django\.core\.mail)\b"
    rb"|^[ \t]*from[ \t]+(?:urllib|django\.core)[ \t]+import[^\n]*\b(?:request|mail)\b"
)
_SLOW_CALLS = (b"email_user", b".thumbnail(", b".resize(")
_SPACE = rb"[ \t\n\r\f\v]*"
_WEB = LinearSearch(
    rb"\b(?:django|rest_framework|flask|quart|fastapi|starlette)\b"
    rb"|@[\w.]+\.(?:route|get|post|put|patch|delete|api_route)"
    + _SPACE
    + rb"\("
    + _SPACE
    + rb"[\"']/"
)
_HANDLER = LinearSearch(
    rb"\(" + _SPACE + rb"(?:self" + _SPACE + rb"," + _SPACE + rb")?request\b|View|api_view"
    rb"|\bRoute" + _SPACE + rb"\(|add_url_rule|add_api_route"
    rb"|\.(?:route|get|post|put|patch|delete|api_route|websocket)"
    + _SPACE
    + rb"\("
    + _SPACE
    + rb"[\"']/"
)


def looks_like_web_handlers(data: bytes) -> bool:
    """Whether a file's bytes name a web framework and hold something shaped like a
    request handler (a ``request`` parameter, a view class, a route)."""
    return _WEB(data) and _HANDLER(data)


def _web_module_with_slow_work(data: bytes) -> bool:
    slow = _SLOW_IMPORT(data) or any(c in data for c in _SLOW_CALLS)
    return slow and _WEB(data) and _HANDLER(data)


class EffectsRecognizer(Recognizer):
    # SCL-16 looks at request handlers, which rarely mention a job system: a web module
    # matters when it also imports something slow (a mail, HTTP, PDF/export or image
    # library) or names Django's mail functions, and has something that looks like a
    # handler (a ``request`` parameter, a view class, a route). The literal is the
    # handler's mark; the confirmation checks all three.
    PREFILTER = tuple(
        Trigger(
            f"web module with slow work ({literal.decode()})",
            literal,
            predicate=_web_module_with_slow_work,
        )
        # Every handler shape the confirmation accepts contains one of these.
        for literal in (b"request", b"View", b'("/', b"('/", b"Route(", b"add_url_rule")
    )

    def __init__(self, walker) -> None:  # type: ignore[no-untyped-def]
        super().__init__(walker)
        self._frames: list[_Frame] = []
        self._module_bindings: dict[str, _Binding] = {}
        self._class_bindings: dict[tuple[str, str], _Binding] = {}
        self._discarded: int | None = None
        """``id`` of the call a bare expression statement holds, until that call (the
        next one walked) is seen: its result is discarded. Cleared at once so that no
        node identity outlives its statement (the language server compares states)."""
        self._state_tests: dict[int, bool] = {}

    # -- scopes ----------------------------------------------------------------------

    def function(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        frame = _Frame(facts)
        for param in facts.params:
            # A parameter hides a module-level client of the same name.
            frame.bindings[param.name] = UNKNOWN
        for decorator in node.decorators:
            name = (dotted(_callee(decorator.decorator)) or "").lower()
            if any(word in name for word in KEY_WORDS):
                frame.guards.append(("idempotency-key", 0, decorator))
        self._frames.append(frame)

    def function_end(self, node: cst.FunctionDef, facts: FunctionFacts) -> None:
        frame = self._frames.pop()
        self._claimed_then_marked(frame)
        # Node ids are only meaningful while the function's nodes are alive.
        self._state_tests.clear()
        # Guards matter to the function's own effects and to those of the helpers it
        # calls after them (``if done: return`` then ``notify(user)``).
        if facts.side_effects or facts.call_sites:
            loc = self.walker.loc
            # Extend: other recognizers (locks) record guards of their own.
            facts.guards.extend(
                Guard(kind, order, loc(where)) for kind, order, where in frame.guards
            )

    @property
    def _frame(self) -> _Frame | None:
        return self._frames[-1] if self._frames else None

    # -- bindings --------------------------------------------------------------------

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        binding = self._binding_of(value) if isinstance(value, (cst.Call, cst.Name)) else None
        frame = self._frame
        if frame is not None:
            self._note_state_query(frame, targets, value)
        for target in targets:
            if frame is not None and isinstance(target, cst.Attribute):
                frame.marked.add(target.attr.value)
            if binding is not None or frame is not None:
                # Anything else assigned in a function hides an earlier binding.
                self._bind(target, binding or UNKNOWN)
            if frame is not None:
                self._counter_assignment(frame, target, value, node)

    def with_item(self, item: cst.WithItem) -> None:
        if item.asname is None:
            return
        self._bind(item.asname.name, self._binding_of(item.item) or UNKNOWN)

    def _bind(self, target: cst.BaseExpression, binding: _Binding) -> None:
        frame = self._frame
        if isinstance(target, cst.Name):
            if frame is not None:
                frame.bindings[target.value] = binding
            elif self.walker.at_module_level:
                self._module_bindings[target.value] = binding
        elif (
            isinstance(target, cst.Attribute)
            and isinstance(target.value, cst.Name)
            and target.value.value == "self"
            and frame is not None
            and frame.facts.class_qualname is not None
        ):
            self._class_bindings[(frame.facts.class_qualname, target.attr.value)] = binding

    def _lookup(self, expr: cst.BaseExpression) -> _Binding | None:
        if isinstance(expr, cst.Name):
            for frame in reversed(self._frames):
                if expr.value in frame.bindings:
                    return frame.bindings[expr.value]
            return self._module_bindings.get(expr.value)
        if isinstance(expr, cst.Attribute) and isinstance(expr.value, cst.Name):
            frame = self._frame
            if expr.value.value == "self" and frame is not None and frame.facts.class_qualname:
                return self._class_bindings.get((frame.facts.class_qualname, expr.attr.value))
        return None

    def _binding_of(self, expr: cst.BaseExpression) -> _Binding | None:
        if not isinstance(expr, cst.Call):
            return self._lookup(expr)
        func = self.walker.qualify(expr.func)
        if func is not None:
            made = _constructed(func, expr)
            if made is not None:
                return made
        if isinstance(expr.func, cst.Attribute):
            inner = self._binding_of(expr.func.value)
            method = expr.func.attr.value
            if (
                inner is not None
                and inner.kind == "image"
                and method in libraries.PIL_IMAGE_METHODS
            ):
                return inner
        return None

    # -- statements ------------------------------------------------------------------

    def expression_statement(self, node: cst.Expr) -> None:
        value = node.value
        if isinstance(value, cst.Await):
            value = value.expression
        if isinstance(value, cst.Call):
            self._discarded = id(value)

    def if_statement(self, node: cst.If) -> None:
        frame = self._frame
        if frame is None:
            return
        if _leaves(node.body) and self._is_state_test(node.test):
            frame.guards.append(("state-check", self.walker.order, node.test))

    def aug_assign(self, node: cst.AugAssign) -> None:
        frame = self._frame
        if frame is None or not isinstance(node.operator, (cst.AddAssign, cst.SubtractAssign)):
            return
        target = node.target
        if not isinstance(target, cst.Attribute):
            return
        name = dotted(target)
        owner = dotted(target.value)
        if name is None or owner is None or name in frame.assigned:
            # ``order.total = 0`` first, then ``+=`` in a loop: a recomputation.
            return
        if RUN_COUNTERS.search(target.attr.value.lower()):
            return
        frame.counters.setdefault(owner, (node, self.walker.order, f"{name} += ..."))

    def _counter_assignment(
        self,
        frame: _Frame,
        target: cst.BaseExpression,
        value: cst.BaseExpression,
        node: cst.CSTNode,
    ) -> None:
        name = dotted(target) if isinstance(target, cst.Attribute) else None
        if name is not None and RUN_COUNTERS.search(name.rsplit(".", 1)[-1].lower()):
            return
        if _f_increment(value, self.walker):
            self._effect(frame, "counter", node, f"{name or 'field'} = F(...) +/- ...", False)
            return
        if name is None:
            return
        if (
            isinstance(value, cst.BinaryOperation)
            and isinstance(value.operator, (cst.Add, cst.Subtract))
            and dotted(value.left) == name
            and name not in frame.assigned
        ):
            owner = name.rsplit(".", 1)[0]
            frame.counters.setdefault(owner, (node, self.walker.order, f"{name} = {name} + ..."))
            return
        frame.assigned.add(name)

    def except_handler(
        self, node: cst.Try | cst.TryStar, handler: cst.ExceptHandler | cst.ExceptStarHandler
    ) -> None:
        frame = self._frame
        if frame is None:
            return
        walker = self.walker
        found = handlers.shape(node, handler, walker.names, in_loop=bool(walker.loops))
        if found.exits and any(n.split(".")[-1] == "IntegrityError" for n in found.catches):
            frame.guards.append(("conflict", walker.order, handler))
        succeeds = found.lets_the_job_succeed and not walker.loops and self._ends_work(node)
        if not (found.swallows or succeeds) or all(handlers.is_expected(n) for n in found.catches):
            return
        if walker.handlers or walker.cleanup or handlers.is_cleanup(node):
            # Best-effort cleanup on a path that already failed or finishes anyway
            # (``try: path.unlink() except OSError: pass`` in a finally block).
            return
        start = walker.loc(handler)
        frame.facts.handlers.append(
            ExceptHandler(
                loc=Loc(start.line, start.column, start.line, start.column + len("except")),
                catches=found.catches,
                catches_all=found.catches_all,
                reraises=found.reraises,
                retries=found.retries,
                records=found.records,
                exits=found.exits,
                inert=found.swallows,
            )
        )

    def _ends_work(self, node: cst.Try | cst.TryStar) -> bool:
        """The ``try`` is the last statement of its function's body: what follows the
        handler is the function's end, so a caught failure ends the job as a success. A
        ``try`` with more work after it is an optional step (a notification, a thumbnail)
        before the job's own work."""
        scope = self.walker.function
        if scope is None:
            return False
        body = scope.node.body
        statements = body.body if isinstance(body, cst.IndentedBlock) else []
        return bool(statements) and statements[-1] is node

    # -- calls -------------------------------------------------------------------------

    def call(self, node: cst.Call, func: str | None) -> None:
        discarded = self._discarded == id(node)
        self._discarded = None
        frame = self._frame
        if frame is None:
            return
        fields = self._state_query_loop(frame)
        if fields:
            frame.loop_calls.append((self.walker.order, fields))
        method = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        receiver = node.func.value if isinstance(node.func, cst.Attribute) else None
        if "select_for_update" in (func or "").rsplit(".", 1)[-1]:
            # A project helper that returns locked rows (saleor's
            # ``allocation_with_stock_qs_select_for_update()``): a row lock like the call.
            frame.guards.append(("select_for_update", self.walker.order, node))
        if method == "mount" and receiver is not None:
            # A mounted adapter may carry its own default timeout: stop judging the client.
            binding = self._lookup(receiver)
            if binding is not None and binding.kind == "http":
                binding.kind = "unknown"
            return
        if func in libraries.BLOCKING_SLEEPS:
            frame.facts.blocking_calls.append(SlowCall("sleep", self.walker.loc(node), func))
            return
        if func in libraries.BLOCKING_MAIL:  # and read on as a send below
            frame.facts.blocking_calls.append(SlowCall("smtp", self.walker.loc(node), func))
        if self._http(frame, node, func, receiver, method, discarded):
            return
        send = self._send(node, func, receiver, method)
        if send is not None:
            kind, label = send
            self._effect(frame, "send", node, label, _names_key(node))
            if not self._outcome_answered():
                frame.facts.slow_calls.append(SlowCall(kind, self.walker.loc(node), label))
            return
        charge = self._charge(node, func, receiver, method)
        if charge is not None:
            label, has_key = charge
            self._effect(frame, "charge", node, label, has_key)
            return
        slow = self._slow_work(node, func, receiver, method)
        if slow is not None:
            frame.facts.slow_calls.append(SlowCall(slow[0], self.walker.loc(node), slow[1]))
            return
        self._database(frame, node, receiver, method)

    def _outcome_answered(self) -> bool:
        """The call sits in a ``try`` whose ``except`` clause returns a value: when it
        fails, the caller is told (a "test the mail settings" endpoint answers with the
        SMTP error), so its outcome is part of the answer."""
        return any(_handler_returns(node) for node in self.walker.tries)

    def _effect(
        self, frame: _Frame, kind: str, node: cst.CSTNode, label: str, has_key: bool
    ) -> None:
        guard = "state-check" if self._under_state_check() else None
        fields = self._state_query_loop(frame) if kind == "send" and guard is None else None
        if fields:
            frame.loop_sends.append((len(frame.facts.side_effects), fields))
        if kind == "send" and self.walker.handlers and reports_to_the_team(label):
            # An alert to the team from an ``except`` clause reports the failure, as a
            # log line does (``slack.chat_postMessage(...)``, ``mail_admins(...)``).
            guard = "failure-report"
        frame.facts.side_effects.append(
            SideEffect(kind, self.walker.loc(node), label, self.walker.order, has_key, guard)
        )

    def _state_query_loop(self, frame: _Frame) -> frozenset[str]:
        """The state fields of the query the innermost loop goes over, if it is one."""
        if not self.walker.loops:
            return frozenset()
        iterable = self.walker.loops[-1]
        wrapped = _PROGRESS_WRAPPER.fullmatch(iterable)
        if wrapped is not None:  # ``tqdm.tqdm(qs, "sending")``, ``enumerate(qs)``
            iterable = wrapped.group(1)
        return frame.state_queries.get(iterable, frozenset())

    def _note_state_query(
        self, frame: _Frame, targets: list[cst.BaseExpression], value: cst.BaseExpression
    ) -> None:
        fields = _state_fields(value) | frame.state_queries.get(_query_base(value), frozenset())
        for target in targets:
            if isinstance(target, cst.Name):
                if fields:
                    frame.state_queries[target.value] = fields
                else:
                    frame.state_queries.pop(target.value, None)

    def _claimed_then_marked(self, frame: _Frame) -> None:
        """A send in a loop over the rows still to do (``filter(notification_sent_at__isnull
        =True)``) that then marks each row done (``row.notification_sent_at = now()``):
        a second run finds nothing left to send. Its effect is guarded by a state check."""
        effects = frame.facts.side_effects
        marked = _state_words(frame.marked)
        for index, fields in frame.loop_sends:
            if _state_words(fields) & marked and index < len(effects):
                effects[index] = dataclasses.replace(effects[index], guard="state-check")
        claimed = {order for order, fields in frame.loop_calls if _state_words(fields) & marked}
        if claimed:
            frame.facts.call_sites[:] = [
                dataclasses.replace(site, claimed=True) if site.order in claimed else site
                for site in frame.facts.call_sites
            ]

    def _under_state_check(self) -> bool:
        return any(self._is_state_test(test) for test, _ in self.walker.conditions)

    def _is_state_test(self, test: cst.BaseExpression) -> bool:
        cached = self._state_tests.get(id(test))
        if cached is None:
            cached = not STATE_TOKENS.isdisjoint(_tokens(test))
            self._state_tests[id(test)] = cached
        return cached

    # -- HTTP --------------------------------------------------------------------------

    def _http(
        self,
        frame: _Frame,
        node: cst.Call,
        func: str | None,
        receiver: cst.BaseExpression | None,
        method: str | None,
        discarded: bool,
    ) -> bool:
        library = libraries.HTTP_FUNCTIONS.get(func or "")
        label = func or ""
        default = library.default_timeout if library else False
        if library is None and receiver is not None and method is not None:
            binding = self._binding_of(receiver)
            if binding is None or binding.kind != "http" or binding.http is None:
                return False
            if method not in libraries.HTTP_CLIENT_METHODS[binding.http.name]:
                return False
            library, label, default = binding.http, f"{binding.label}.{method}", binding.timeout
        if library is None:
            return False
        if library.name != "httpx" or not label.startswith("httpx.AsyncClient"):
            frame.facts.blocking_calls.append(SlowCall("http", self.walker.loc(node), label))
        has_timeout = _has_timeout(node, library, default)
        # A discarded call in a ``try`` whose ``except`` answers or counts the failure is
        # a probe whose outcome is used (Gerapy's ``requests.get(url, timeout=1)`` then
        # ``except ConnectionError: data['error'] += 1``), not a webhook.
        used = not discarded or any(_handler_uses_outcome(t) for t in self.walker.tries)
        if not has_timeout or not used:
            frame.facts.http_calls.append(
                HttpCall(self.walker.loc(node), label, has_timeout, result_used=used)
            )
        return True

    # -- sends ---------------------------------------------------------------------------

    def _send(
        self,
        node: cst.Call,
        func: str | None,
        receiver: cst.BaseExpression | None,
        method: str | None,
    ) -> tuple[str, str] | None:
        if func in libraries.EMAIL_FUNCTIONS:
            return "email", func.rsplit(".", 1)[-1]
        if func in libraries.NOTIFICATION_FUNCTIONS:
            return "notification", func
        if receiver is None or method is None:
            return None
        if method in libraries.EMAIL_METHODS:
            return "email", method
        binding = self._binding_of(receiver)
        found = _send_on_binding(binding, method)
        if found is not None:
            return found
        if method in ("send", "send_message"):
            for arg in node.args:
                held = self._binding_of(arg.value)
                if held is not None and held.kind in ("email-message", "mail-message"):
                    return "email", f"{dotted(receiver) or 'mail'}.{method}"
        roots = self.walker.names.imported_roots
        if (
            method == "create"
            and isinstance(receiver, cst.Attribute)
            and receiver.attr.value in libraries.TWILIO_RESOURCES
        ):
            owner = self._binding_of(receiver.value)
            if (owner is not None and owner.kind == "twilio") or "twilio" in roots:
                return "notification", f"twilio {receiver.attr.value}.create"
        if method in ("chat_postMessage", "chat_postEphemeral") and roots & {"slack_sdk", "slack"}:
            return "notification", f"slack {method}"
        return None

    # -- charges -----------------------------------------------------------------------

    def _charge(
        self,
        node: cst.Call,
        func: str | None,
        receiver: cst.BaseExpression | None,
        method: str | None,
    ) -> tuple[str, bool] | None:
        if func is not None:
            parts = func.split(".")
            if len(parts) >= 3 and parts[0] == "stripe":
                allowed = libraries.STRIPE_CHARGES.get(parts[-2], frozenset())
                if parts[-1].removesuffix("_async") in allowed:
                    return func, _mentions_key(node)
            if func in libraries.BRAINTREE_CHARGES:
                return func, _mentions_key(node)
        if not isinstance(receiver, cst.Attribute) or method is None:
            return None
        service = receiver.attr.value
        roots = self.walker.names.imported_roots
        base_method = method.removesuffix("_async")
        if base_method in libraries.STRIPE_SERVICES.get(service, frozenset()):
            owner = self._binding_of(_root(receiver))
            if (owner is not None and owner.kind == "stripe") or "stripe" in roots:
                return f"stripe {service}.{method}", _stripe_options_key(node)
        if (
            service == "transaction"
            and method in libraries.BRAINTREE_GATEWAY_METHODS
            and "braintree" in roots
        ):
            return "braintree transaction.sale", _mentions_key(node)
        return None

    # -- exports and images ----------------------------------------------------------------

    def _slow_work(
        self,
        node: cst.Call,
        func: str | None,
        receiver: cst.BaseExpression | None,
        method: str | None,
    ) -> tuple[str, str] | None:
        if func in libraries.EXPORT_FUNCTIONS:
            return "export", func
        if func in libraries.IMAGE_FUNCTIONS:
            return "image", func
        if receiver is None or method is None:
            return None
        roots = self.walker.names.imported_roots
        if method in libraries.PDF_METHODS:
            binding = self._binding_of(receiver)
            if (binding is not None and binding.kind == "pdf") or "weasyprint" in roots:
                return "export", f"weasyprint {method}"
        if method in libraries.PIL_RESIZE_METHODS:
            binding = self._binding_of(receiver)
            if binding is not None and binding.kind == "image":
                return "image", f"PIL Image.{method}"
            unknown = binding is None or binding.kind == "unknown"
            if method == "thumbnail" and "PIL" in roots and unknown:
                return "image", f"PIL Image.{method}"
        return None

    # -- database: counters, deletes, guards ----------------------------------------------

    def _database(
        self, frame: _Frame, node: cst.Call, receiver: cst.BaseExpression | None, method: str | None
    ) -> None:
        if method is None or receiver is None:
            name = dotted(node.func) or ""
            if any(word in name.lower() for word in KEY_WORDS):
                frame.guards.append(("idempotency-key", self.walker.order, node))
            return
        if method in SAVE_METHODS or (method == "commit" and "session" in (dotted(receiver) or "")):
            self._confirm_counters(frame, receiver, method)
            return
        if method in UPDATE_METHODS and any(
            _f_increment(a.value, self.walker)
            and not (a.keyword is not None and RUN_COUNTERS.search(a.keyword.value.lower()))
            for a in node.args
        ):
            self._effect(frame, "counter", node, f"{method}(... F(...) + ...)", False)
            return
        if method == "delete" and _is_record_delete(node, receiver):
            self._effect(frame, "delete", node, f"{_short(receiver)}.delete()", False)
            return
        if method in SQL_METHODS:
            sql = _first_string(node)
            if sql is not None and DELETE_SQL.match(sql):
                self._effect(frame, "delete", node, "DELETE (SQL)", False)
                return
            if sql is not None and CONFLICT_SQL.search(sql):
                frame.guards.append(("conflict", self.walker.order, node))
                return
        guard = _guard_kind(node, receiver, method)
        if guard is not None:
            frame.guards.append((guard, self.walker.order, node))

    def _confirm_counters(self, frame: _Frame, receiver: cst.BaseExpression, method: str) -> None:
        owner = dotted(receiver)
        if method == "commit":
            pending = list(frame.counters.items())
        else:
            pending = [(owner, frame.counters[owner])] if owner in frame.counters else []
        for key, (where, order, text) in pending:
            del frame.counters[key]
            guard = "state-check" if self._under_state_check() else None
            frame.facts.side_effects.append(
                SideEffect(
                    "counter", self.walker.loc(where), f"{text} then save", order, False, guard
                )
            )


# -- helpers -------------------------------------------------------------------------------


def _callee(expr: cst.BaseExpression) -> cst.BaseExpression:
    return expr.func if isinstance(expr, cst.Call) else expr


def _root(expr: cst.BaseExpression) -> cst.BaseExpression:
    """The object a chain of attributes and calls starts from (``self.x`` counts as one)."""
    while True:
        if isinstance(expr, cst.Attribute):
            if isinstance(expr.value, cst.Name) and expr.value.value == "self":
                return expr
            expr = expr.value
        elif isinstance(expr, cst.Call):
            expr = expr.func
        else:
            return expr


def _leaves(block: cst.CSTNode) -> bool:
    """Whether a block returns, raises or continues (outside nested definitions)."""
    stack = list(children(block))
    while stack:
        current = stack.pop()
        if isinstance(current, (cst.Return, cst.Raise, cst.Continue)):
            return True
        if not isinstance(current, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(children(current))
    return False


def _short(expr: cst.BaseExpression) -> str:
    text = dotted(expr)
    if text is not None:
        return text
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
        return f"{_short(expr.func.value)}.{expr.func.attr.value}(...)"
    return "..."


def _constructed(func: str, call: cst.Call) -> _Binding | None:
    """The binding a call to ``func`` makes, when it is a client or message constructor."""
    library = libraries.HTTP_CLIENTS.get(func)
    if library is not None:
        return _Binding("http", func, http=library, timeout=_client_timeout(call, library))
    if func in libraries.EMAIL_MESSAGE_CLASSES:
        return _Binding("email-message", func.rsplit(".", 1)[-1])
    if func in libraries.FLASK_MAIL_MESSAGES:
        return _Binding("mail-message", func.rsplit(".", 1)[-1])
    if func in libraries.MAIL_CLIENTS or func == "django.core.mail.get_connection":
        return _Binding("mail-client", func.rsplit(".", 1)[-1])
    methods = libraries.NOTIFICATION_CLIENTS.get(func)
    if methods is not None:
        return _Binding("notify-client", func.rsplit(".", 1)[-1], methods=methods)
    if func in libraries.TWILIO_CLIENTS:
        return _Binding("twilio", "twilio")
    if func in libraries.STRIPE_CLIENTS:
        return _Binding("stripe", "stripe")
    if func in libraries.BOTO3_CLIENT:
        service = call.args[0].value if call.args else None
        if isinstance(service, cst.SimpleString) and isinstance(service.evaluated_value, str):
            return _Binding(
                "boto3", f"boto3 {service.evaluated_value}", service=service.evaluated_value
            )
        return None
    if func in libraries.PIL_IMAGE_FACTORIES:
        return _Binding("image", "PIL Image")
    if func in libraries.PDF_DOCUMENTS:
        return _Binding("pdf", "weasyprint HTML")
    return None


def _send_on_binding(binding: _Binding | None, method: str) -> tuple[str, str] | None:
    if binding is None:
        return None
    if binding.kind in ("email-message", "mail-message") and method == "send":
        return "email", f"{binding.label}.send"
    if binding.kind == "mail-client" and method in libraries.MAIL_CLIENT_METHODS:
        return "email", f"{binding.label}.{method}"
    if binding.kind == "notify-client" and method in binding.methods:
        return "notification", f"{binding.label}.{method}"
    if binding.kind == "boto3" and binding.service in libraries.BOTO3_SENDS:
        kind, methods = libraries.BOTO3_SENDS[binding.service]
        if method in methods:
            return kind, f"{binding.label}.{method}"
    return None


def _client_timeout(call: cst.Call, library: libraries.HttpLibrary) -> bool:
    """Whether calls on a new client have a timeout without passing one."""
    for arg in call.args:
        if arg.star == "**":
            return True
        if arg.keyword is not None and arg.keyword.value == "timeout":
            return not _is_none(arg.value)
    return library.default_timeout


def _has_timeout(call: cst.Call, library: libraries.HttpLibrary, default: bool) -> bool:
    positional = 0
    for arg in call.args:
        if arg.star == "**":
            return True
        if arg.keyword is not None:
            if arg.keyword.value == "timeout":
                return not _is_none(arg.value)
            continue
        if arg.star == "*":
            return True
        if library.timeout_position is not None and positional == library.timeout_position:
            return not _is_none(arg.value)
        positional += 1
    return default


def _is_none(expr: cst.BaseExpression) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "None"


def _names_key(call: cst.Call) -> bool:
    """A keyword argument named like an idempotency or dedupe key."""
    return any(
        arg.keyword is not None and any(w in arg.keyword.value.lower() for w in KEY_WORDS)
        for arg in call.args
    )


def _mentions_key(call: cst.Call) -> bool:
    """An idempotency or dedupe key among the keywords, or ``**kwargs`` that may hold one."""
    for arg in call.args:
        if arg.star == "**":
            return True
        if arg.keyword is not None and any(w in arg.keyword.value.lower() for w in KEY_WORDS):
            return True
    return False


def _stripe_options_key(call: cst.Call) -> bool:
    """StripeClient services take ``options={"idempotency_key": ...}`` (the second
    positional argument); options that are not a literal may hold a key."""
    if _mentions_key(call):
        return True
    positional = [a for a in call.args if a.keyword is None and not a.star]
    options = next((a.value for a in call.args if a.keyword and a.keyword.value == "options"), None)
    if options is None and len(positional) >= 2:
        options = positional[1].value
    if options is None:
        return False
    if not isinstance(options, cst.Dict):
        return True
    for element in options.elements:
        if not isinstance(element, cst.DictElement):
            return True
        key = element.key
        if isinstance(key, cst.SimpleString) and key.evaluated_value == "idempotency_key":
            return True
    return False


def _f_increment(expr: cst.BaseExpression, walker) -> bool:  # type: ignore[no-untyped-def]
    """``F("n") + 1`` / ``F("n") - amount``."""
    if not isinstance(expr, cst.BinaryOperation):
        return False
    if not isinstance(expr.operator, (cst.Add, cst.Subtract)):
        return False
    return any(
        isinstance(side, cst.Call) and walker.qualify(side.func) in F_EXPRESSIONS
        for side in (expr.left, expr.right)
    )


def _is_record_delete(call: cst.Call, receiver: cst.BaseExpression) -> bool:
    """``Model.objects.filter(...).delete()``, ``obj.delete()``, ``session.delete(obj)``."""
    positional = [a for a in call.args if a.keyword is None]
    name = (dotted(_root(receiver)) or "").lower()
    last = (dotted(receiver) or "").rsplit(".", 1)[-1].lower()
    if positional:
        return last.endswith("session") and len(positional) == 1
    if any(word in name for word in ("cache", "redis", "storage", "client", "bucket", "requests")):
        return False
    return last not in ("session", "cookies")


def _first_string(call: cst.Call) -> str | None:
    for arg in call.args:
        value = arg.value
        if isinstance(value, cst.Call) and value.args:
            value = value.args[0].value  # execute(text("..."))
        if isinstance(value, (cst.SimpleString, cst.ConcatenatedString)):
            text = value.evaluated_value
            return text if isinstance(text, str) else None
        return None
    return None


def _guard_kind(call: cst.Call, receiver: cst.BaseExpression, method: str) -> str | None:
    if method in GET_OR_CREATE:
        return "get_or_create"
    if method == "select_for_update":
        return "select_for_update"
    if method in CONFLICT_METHODS:
        return "conflict"
    if method in ("bulk_create", "abulk_create") and any(
        a.keyword is not None
        and a.keyword.value in ("ignore_conflicts", "update_conflicts")
        and not (isinstance(a.value, cst.Name) and a.value.value == "False")
        for a in call.args
    ):
        return "conflict"
    owner = (dotted(receiver) or "").lower()
    if method == "add" and "cache" in owner:
        return "cache-add"
    if method == "setnx" or (
        method == "set"
        and any(a.keyword is not None and a.keyword.value == "nx" for a in call.args)
    ):
        return "cache-add"
    name = (dotted(call.func) or "").lower()
    if any(word in name for word in KEY_WORDS) or _names_key(call):
        return "idempotency-key"
    return None


def _state_fields(value: cst.BaseExpression) -> frozenset[str]:
    """The fields of ``filter(...)``/``exclude(...)`` keywords in a query chain that name
    a state (``notification_sent_at__isnull`` -> ``notification_sent_at``)."""
    if isinstance(value, cst.IfExp):  # ``Task.objects.all() if force else Task.unsent.all()``
        return _state_fields(value.body) | _state_fields(value.orelse)
    found: set[str] = set()
    node: cst.BaseExpression = value
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if node.func.attr.value in ("filter", "exclude"):
            for arg in node.args:
                if arg.keyword is None:
                    continue
                field_name = arg.keyword.value.split("__")[0]
                if not STATE_TOKENS.isdisjoint(identifier_words(field_name)):
                    found.add(field_name)
        node = node.func.value
    if isinstance(node, cst.Attribute):  # a manager of the rows still to do: ``Task.unsent``
        for word in identifier_words(node.attr.value):
            undone = word.removeprefix("un")
            if word != undone and undone in STATE_TOKENS:
                found.add(undone)
    return frozenset(found)


def _query_base(value: cst.BaseExpression) -> str:
    """The name a query chain starts from (``qs.filter(...).order_by(...)`` -> ``qs``):
    narrowing the rows still to do keeps them the rows still to do."""
    node = value
    while isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        node = node.func.value
    return node.value if isinstance(node, cst.Name) else ""


def _state_words(fields: Iterable[str]) -> frozenset[str]:
    """The state words of field names (``is_sent``, ``notification_sent_at`` -> ``sent``):
    a loop over the unsent rows that marks ``is_sent`` is claimed then marked."""
    return frozenset(
        word for name in fields for word in identifier_words(name) if word in STATE_TOKENS
    )


# A loop over a query wrapped for progress or counting still goes over the query's rows.
_PROGRESS_WRAPPER = re.compile(
    r"(?:tqdm\.)?(?:tqdm|enumerate|list|iter|track|progressbar)\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*[,)].*",
    re.DOTALL,
)


def _tokens(expr: cst.CSTNode) -> set[str]:
    """Lower-case words of the names, attributes, keywords and strings in ``expr``."""
    words: set[str] = set()
    stack = [expr]
    while stack:
        current = stack.pop()
        text = None
        if isinstance(current, cst.Name):
            text = current.value
        elif isinstance(current, cst.SimpleString):
            value = current.evaluated_value
            text = value if isinstance(value, str) and len(value) < 40 else None
        elif isinstance(current, cst.Arg) and current.keyword is not None:
            text = current.keyword.value
        if text:
            for part in re.split(r"[^A-Za-z0-9]+", _CAMEL.sub("_", text)):
                if part:
                    words.add(part.lower())
        stack.extend(children(current))
    return words


def _handler_returns(node: cst.Try | cst.TryStar) -> bool:
    """An ``except`` clause of ``node`` ends in ``return <value>``."""
    for handler in node.handlers:
        body = handler.body
        if not isinstance(body, cst.IndentedBlock) or not body.body:
            continue
        last = body.body[-1]
        if isinstance(last, cst.SimpleStatementLine) and any(
            isinstance(small, cst.Return) and small.value is not None for small in last.body
        ):
            return True
    return False


def _handler_uses_outcome(node: cst.Try | cst.TryStar) -> bool:
    """An ``except`` clause of ``node`` answers (``return <value>``) or records the failure
    in a value (``errors += 1``, ``data["error"] = ...``): the call's outcome is used."""
    if _handler_returns(node):
        return True
    for handler in node.handlers:
        body = handler.body
        statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
        for line in statements:
            if isinstance(line, cst.SimpleStatementLine) and any(
                isinstance(small, (cst.Assign, cst.AugAssign)) for small in line.body
            ):
                return True
    return False
