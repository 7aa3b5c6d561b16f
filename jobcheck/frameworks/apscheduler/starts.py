"""APScheduler schedulers made and started in a file: ``BackgroundScheduler()`` objects
and their ``.start()`` (for SCL-38 ``scheduler-in-every-instance``, which joins starts
with the web-app start-up code that runs them: ``jobcheck/extract/startup.py``)."""

from __future__ import annotations

from jobcheck.extract.walker import Recognizer, Walker
from jobcheck.facts import SchedulerStart
from jobcheck.frameworks.apscheduler.defaults import is_scheduler_class
from jobcheck.syntax import tree as cst
from jobcheck.syntax.names import dotted
from jobcheck.triggers import Trigger

NAME = "apscheduler"


class APSchedulerStarts(Recognizer):
    PREFILTER = (Trigger("APScheduler", b"apscheduler"),)

    def __init__(self, walker: Walker) -> None:
        super().__init__(walker)
        self._scheduler_names: set[str] = set()

    def assign(
        self, targets: list[cst.BaseExpression], value: cst.BaseExpression, node: cst.CSTNode
    ) -> None:
        if not isinstance(value, cst.Call) or not is_scheduler_class(
            self.walker.qualify(value.func)
        ):
            return
        for target in targets:
            key = self._variable_key(target)
            if key is None:
                continue
            self._scheduler_names.add(key)
            if self.walker.at_module_level:
                self.walker.facts.scheduler_objects.append(key)

    def _variable_key(self, expr: cst.BaseExpression) -> str | None:
        """How a scheduler variable is known in this file: its dotted path at module
        level, ``function:name`` inside a function, ``Class:self.attr`` on instances."""
        name = dotted(expr)
        if name is None:
            return None
        walker = self.walker
        scope = walker.function
        if name.startswith("self.") and scope is not None and scope.facts.class_qualname:
            return f"{scope.facts.class_qualname}:{name}"
        head = name.partition(".")[0]
        local = head not in walker.names.defined and head not in walker.names.aliases
        if scope is not None and "." not in name and local:
            return f"{scope.facts.qualname}:{name}"
        return walker.names.resolve(name)

    def call(self, node: cst.Call, func: str | None) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value == "start":
            self._start(node, node.func.value)

    def _start(self, node: cst.Call, receiver: cst.BaseExpression) -> None:
        walker = self.walker
        if isinstance(receiver, cst.Call):
            if is_scheduler_class(walker.qualify(receiver.func)):
                record_start(self.walker, NAME, node, None)
            return
        key = self._variable_key(receiver)
        if key is None:
            return
        if key in self._scheduler_names:
            record_start(self.walker, NAME, node, None)
            return
        name = dotted(receiver) or ""
        head = name.partition(".")[0]
        if head in walker.names.aliases and "sched" in name.rpartition(".")[2].lower():
            # Imported from another module: confirmed against its scheduler objects later.
            record_start(self.walker, NAME, node, key)


def record_start(walker: Walker, kind: str, node: cst.Call, receiver: str | None) -> None:
    scope = walker.function
    walker.facts.scheduler_starts.append(
        SchedulerStart(
            kind=kind,
            function=scope.facts.qualname if scope else None,
            loc=walker.loc(node),
            text=walker.text(node),
            receiver=receiver,
            main_only=walker.in_main_guard,
        )
    )
