"""SCL-21 Put record IDs in jobs instead of copies (EVT-20): fat-payload.

A record copied into a job goes stale while the job waits, leaks personal data into the
queue's storage and may not serialize at all. Pass the ID; let the worker read the row.
Docs: docs/rules/SCL-21.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import Argument, EnqueueSite
from jobcheck.findings import Finding
from jobcheck.project.model import Job
from jobcheck.registry import semantics

HEAVY_KINDS = {
    "record": "a database record",
    "queryset": "a queryset",
    "request": "the request object",
    "copy": "a copy of a record",
    "file": "file contents",
    "dataframe": "a DataFrame",
}
# How many functions deep a returned value is followed (``load()`` returning ``fetch()``
# returning ``Order.objects.get(...)``).
MAX_RETURN_DEPTH = 4


class FatPayload(RuleChecks):
    rule = "SCL-21"

    @check("fat-payload")
    def fat_payload(self) -> Iterator[Finding]:
        for f, site, job, through in self.project.payload_enqueues():
            for argument in site.arguments:
                what = self._heavy(argument.kind, argument.reason)
                if what is None:
                    continue
                name = job.task.name if job else None
                yield self.finding(
                    "fat-payload",
                    f.path,
                    argument.loc,
                    self._message(site, argument, what, name, job, through),
                )

    def _heavy(self, kind: str, reason: str, depth: int = 0) -> str | None:
        """What a value of this kind carries when it is heavy, else None."""
        if kind in HEAVY_KINDS:
            return reason or HEAVY_KINDS[kind]
        if kind.startswith("copy-of:"):
            # ``order.to_json`` in Ruby: a copy when ``order`` names one of the models.
            model = kind.split(":", 1)[1]
            return reason if self._names_a_model(model) else None
        if kind.startswith(("annotated:", "annotated-element:")):
            model = kind.split(":", 1)[1]
            if self.project.is_model(model):
                short = model.rsplit(".", 1)[-1]
                return reason or f"a {short} record"
            return None
        if kind.startswith("returned-by:") and depth < MAX_RETURN_DEPTH:
            return self._returned(kind.split(":", 1)[1], depth)
        return None

    def _returned(self, callable_name: str, depth: int) -> str | None:
        """What calling a project class or function gives, when heavy: a new instance
        of a model class, or what the function's ``return`` gives."""
        short = callable_name.rsplit(".", 1)[-1]
        if self.project.is_model(callable_name):
            return f"a new {short} record" if depth == 0 else f"a {short} record"
        function = self.project.function(callable_name)
        if function is None:
            return None
        if function.returned is not None:
            what = self._heavy(*function.returned, depth + 1)
            if what is not None:
                return what if "(returned by" in what else f"{what} (returned by {short}())"
        if function.returns and self.project.is_model(function.returns):
            model = function.returns.rsplit(".", 1)[-1]
            return f"a {model} record (returned by {short}())"
        return None

    def _names_a_model(self, name: str) -> bool:
        """A model class of the project by its last name (``Order``, ``Shop.Order``)."""
        return any(
            model.qualname == name or model.qualname.endswith("." + name)
            for f in self.project.files
            for model in f.models
        )

    @staticmethod
    def _message(
        site: EnqueueSite,
        argument: Argument,
        what: str,
        name: str | None,
        job: Job | None,
        through: str | None = None,
    ) -> str:
        """``through``: the function that forwards the caller's ``**kwargs`` to the job."""
        name = name or site.target_text.strip("'\"")
        if through is not None:
            name = f"{name}' through '{through}()"
        framework = semantics(job.framework if job is not None else site.framework_hint)
        if argument.kind in ("file", "dataframe"):
            return (
                f"'{argument.text}' passed to '{name}' is {what}: every message carries the "
                "whole content through the broker, which holds it while the job waits and "
                "retries; store it (object storage, a file or table row) and pass its key"
            )
        return (
            f"'{argument.text}' passed to '{name}' is {what}: the job gets a copy that is "
            f"stale by the time it runs; {framework.words.id_advice}"
        )
