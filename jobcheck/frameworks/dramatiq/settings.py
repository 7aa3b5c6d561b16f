"""Dramatiq brokers configured by its framework integrations: django_dramatiq's
``DRAMATIQ_BROKER`` setting and flask_dramatiq's ``Dramatiq(...)``, and dramatiq-crontab's
``DRAMATIQ_CRONTAB``. (flask_dramatiq's actors, ``@<instance>.actor``, are not read as
Dramatiq jobs yet: their broker's middleware decides their retries and dead letters,
which the checks cannot ask yet.) Library facts:
``jobcheck/frameworks/dramatiq/companions.py``, ``jobcheck/frameworks/dramatiq_crontab``."""

from __future__ import annotations

from jobcheck.extract.walker import Recognizer
from jobcheck.facts import FrameworkConfig
from jobcheck.facts.values import CallV, DictV, Opaque, Ref, SeqV, Value, string
from jobcheck.frameworks.dramatiq.companions import DJANGO_BROKER_SETTING, FLASK_DRAMATIQ
from jobcheck.frameworks.dramatiq_crontab.semantics import CRONTAB_SETTING
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger


class DramatiqSettingsRecognizer(Recognizer):
    PREFILTER = (
        Trigger("Dramatiq broker", b"Broker(", rb"(?:Redis|Rabbitmq|Stub)Broker\("),
        Trigger("Dramatiq middleware added", b".add_middleware("),
        Trigger("DRAMATIQ_BROKER setting", b"DRAMATIQ_BROKER"),
        Trigger("DRAMATIQ_CRONTAB setting", b"DRAMATIQ_CRONTAB"),
    )

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        walker = self.walker
        if not walker.at_settings_level:
            return
        for target in targets:
            if not isinstance(target, cst.Name):
                continue
            qualname = walker.names.local(target.value)
            if target.value == DJANGO_BROKER_SETTING:
                self._django(qualname, value)
            elif target.value == CRONTAB_SETTING:
                self._crontab_settings(qualname, value)
            elif (
                walker.at_module_level
                and isinstance(value, cst.Call)
                and walker.qualify(value.func) in FLASK_DRAMATIQ
            ):
                self._flask_instance(qualname, value)
            elif walker.at_module_level and isinstance(value, cst.Call):
                cls = walker.qualify(value.func) or ""
                if cls.startswith("dramatiq.brokers.") or cls in BROKER_CLASSES:
                    self._broker(qualname, cls, value)

    def _django(self, qualname: str, node: cst.BaseExpression) -> None:
        """django_dramatiq/apps.py: BROKER, OPTIONS, MIDDLEWARE (the broker gets exactly
        that list; without the key, no middleware at all)."""
        walker = self.walker
        value = walker.evaluate(node)
        if not isinstance(value, DictV):
            return
        middleware = value.get("MIDDLEWARE")
        walker.facts.configs.append(
            FrameworkConfig(
                framework="dramatiq",
                kind="settings",
                qualname=qualname,
                cls=string(value.get("BROKER")),
                options=tuple((k, v) for k in value.str_keys() if (v := value.get(k)) is not None),
                loc=walker.loc(node),
                parts=_names(middleware),
            )
        )

    def _crontab_settings(self, qualname: str, node: cst.BaseExpression) -> None:
        """dramatiq-crontab's ``DRAMATIQ_CRONTAB`` (its ``REDIS_URL`` decides whether the
        scheduler takes a lock: dramatiq_crontab/utils.py)."""
        walker = self.walker
        value = walker.evaluate(node)
        if not isinstance(value, DictV):
            return
        walker.facts.configs.append(
            FrameworkConfig(
                framework="dramatiq-crontab",
                kind="settings",
                qualname=qualname,
                cls=None,
                options=tuple((k, v) for k in value.str_keys() if (v := value.get(k)) is not None),
                loc=walker.loc(node),
            )
        )

    def call(self, node: cst.Call, func: str | None) -> None:
        """``broker.add_middleware(Retries(...))`` (dramatiq/broker.py ``add_middleware``):
        a middleware added after the broker was made."""
        if not isinstance(node.func, cst.Attribute) or node.func.attr.value != "add_middleware":
            return
        if not node.args or node.args[0].keyword is not None:
            return
        walker = self.walker
        made = walker.evaluate(node.args[0].value)
        added = _names(SeqV((made,)))
        walker.facts.configs.append(
            FrameworkConfig(
                framework="dramatiq",
                kind="added-middleware",
                qualname=walker.qualify(node.func.value) or walker.text(node.func.value),
                cls=None,
                options=made.kwargs if isinstance(made, CallV) else (),
                loc=walker.loc(node),
                parts=added,
            )
        )

    def _broker(self, qualname: str, cls: str, node: cst.Call) -> None:
        """``broker = RedisBroker(url=..., middleware=[...])``: a ``middleware`` list
        replaces Dramatiq's defaults (dramatiq/broker.py ``Broker.__init__``:
        ``middleware = [m() for m in default_middleware] if middleware is None``)."""
        self._made_with_middleware("broker", qualname, node, cls)

    def _flask_instance(self, qualname: str, node: cst.Call) -> None:
        """flask_dramatiq.py ``Dramatiq(app=None, broker_cls=..., name="dramatiq",
        config_prefix=None, middleware=None)``."""
        self._made_with_middleware("instance", qualname, node, None)

    def _made_with_middleware(
        self, kind: str, qualname: str, node: cst.Call, cls: str | None
    ) -> None:
        walker = self.walker
        value = walker.evaluate(node)
        assert isinstance(value, CallV)
        walker.facts.configs.append(
            FrameworkConfig(
                framework="dramatiq",
                kind=kind,
                qualname=qualname,
                cls=cls or value.func,
                options=value.kwargs,
                loc=walker.loc(node),
                parts=_names(value.kwarg("middleware")),
                development=walker.development_branch(),
                condition=walker.condition_text(),
            )
        )


BROKER_CLASSES = frozenset(
    {"dramatiq.brokers.redis.RedisBroker", "dramatiq.brokers.rabbitmq.RabbitmqBroker"}
)


def _names(value: Value | None) -> tuple[str, ...]:
    """A middleware list as dotted paths (strings as written, classes, instances)."""
    if not isinstance(value, SeqV):
        return ()
    found = []
    for item in value.items:
        text = string(item)
        if text is not None:
            found.append(text)
        elif isinstance(item, CallV):
            found.append(item.func or "?")
        elif isinstance(item, Ref):
            found.append(item.qualname)
        elif isinstance(item, Opaque):
            found.append(item.text)
    return tuple(found)
