"""``schedule.run_pending()`` run loops (for SCL-38 ``scheduler-in-every-instance``)."""

from __future__ import annotations

from jobcheck.extract.walker import Recognizer
from jobcheck.frameworks.apscheduler.starts import record_start
from jobcheck.syntax import tree as cst

NAME = "schedule"


class ScheduleLibraryStarts(Recognizer):
    def call(self, node: cst.Call, func: str | None) -> None:
        if isinstance(node.func, cst.Attribute):
            if node.func.attr.value == "run_pending" and NAME in self.walker.names.imported_roots:
                record_start(self.walker, NAME, node, None)
        elif func == "schedule.run_pending":
            record_start(self.walker, NAME, node, None)
