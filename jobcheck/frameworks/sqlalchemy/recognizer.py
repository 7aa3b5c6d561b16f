"""``event.listen(Order, "after_insert", handler)``: ``handler`` listens to the event,
wherever it is defined (``FileFacts.signal_receivers``, as ``sqlalchemy.<event>``)."""

from __future__ import annotations

from jobcheck.extract.walker import Recognizer
from jobcheck.frameworks.sqlalchemy.events import CONNECTED_PREFIX, LISTEN
from jobcheck.syntax import tree as cst
from jobcheck.triggers import Trigger


class EventListenRecognizer(Recognizer):
    PREFILTER = (Trigger("SQLAlchemy event listener", b"listen", rb"\blisten(?:s_for)?\s*\("),)

    def call(self, node: cst.Call, func: str | None) -> None:
        if func not in LISTEN or len(node.args) < 3:
            return
        name, handler = node.args[1].value, node.args[2].value
        if not isinstance(name, cst.SimpleString):
            return
        event = name.evaluated_value
        qualname = self.walker.qualify(handler)
        if isinstance(event, str) and qualname:
            self.walker.facts.signal_receivers.append((qualname, CONNECTED_PREFIX + event))
