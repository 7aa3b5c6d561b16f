"""JOB-03 Job messages carry data, not code or secrets: pickle-serializer.

A worker that accepts pickle runs whatever a message tells it to: anyone who can write
to the broker (a leaked Redis password, an exposed port) runs code on every worker
(Celery's security guide, "Serializers"). Docs: docs/rules/JOB-03.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts.values import SeqV, Value, is_none, string
from jobcheck.findings import Finding
from jobcheck.project import Project, production

# celery/app/defaults.py: ``task.serializer``, ``result.serializer`` and
# ``event_serializer`` default to 'json', ``accept_content`` to ['json'] and
# ``result_accept_content`` to None (the accept_content list). kombu/serialization.py
# registers pickle as 'pickle' with the content type 'application/x-python-serialize'.
SERIALIZER_SETTINGS = ("task_serializer", "result_serializer", "event_serializer")
ACCEPT_SETTINGS = ("accept_content", "result_accept_content")
PICKLE_NAMES = frozenset({"pickle", "application/x-python-serialize"})


class PickleSerializer(RuleChecks):
    rule = "JOB-03"

    @check("pickle-serializer")
    def pickle_serializer(self) -> Iterator[Finding]:
        stores_results = _stores_results(self.project)
        for key in (*SERIALIZER_SETTINGS, *ACCEPT_SETTINGS):
            if key.startswith("result_") and not stores_results:
                continue  # no result backend: results are never serialized or read back
            for f, setting in production.production_settings(self.project, key):
                if not _names_pickle(setting.value):
                    continue
                does = "accepts" if key in ACCEPT_SETTINGS else "produces"
                yield self.finding(
                    "pickle-serializer",
                    f.path,
                    setting.loc,
                    f"{setting.raw_key} in {production.settings_module(f)} {does} pickle: "
                    "unpickling a message runs the code it names, so whoever can write to "
                    "the broker runs code on every worker; use 'json' and pass IDs and "
                    "plain values",
                )
        yield from self.framework_parts("pickle-serializer")
        for job in self.project.jobs:
            value = job.task.option("serializer")
            if production.is_production(job.file) and _names_pickle(value):
                yield self.finding(
                    "pickle-serializer",
                    job.file.path,
                    job.task.loc,
                    f"task '{job.task.name}' is sent as pickle (serializer='pickle'): the "
                    "workers must accept pickle, so whoever can write to the broker runs "
                    "code on them; send IDs and plain values as JSON",
                )


def _stores_results(project: Project) -> bool:
    """Whether a Celery result backend is configured. ``result_backend`` defaults to None
    (celery/app/defaults.py), which celery/app/backends.py makes ``'disabled'``
    (``DisabledBackend``): results are then neither serialized nor read back, and the
    result serializer settings say nothing."""
    for _, setting in project.settings("result_backend"):
        if not is_none(setting.value) and string(setting.value) != "":
            return True
    for _, app in project.apps:
        backend = dict(app.kwargs).get("backend")
        if backend is not None and not is_none(backend):
            return True
    return False


def _names_pickle(value: Value | None) -> bool:
    if isinstance(value, SeqV):
        return any((string(item) or "").lower() in PICKLE_NAMES for item in value.items)
    return (string(value) or "").lower() in PICKLE_NAMES
