"""JOB-02 Every schedule names a job that exists: route-names-unknown-task.

A ``task_routes``/``task_annotations`` key or a ``send_task`` name in the project's own
packages that names no task: the route never applies, the call sends a message no worker
knows.
Docs: docs/rules/JOB-02.md.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.job02_names import (
    functions_with_unreadable_names,
    is_known,
    registered_names,
    unknown_route_message,
)
from jobcheck.facts import Loc
from jobcheck.findings import Finding
from jobcheck.registry import plugins, semantics


class RouteNamesUnknownTask(RuleChecks):
    rule = "JOB-02"

    @check("route-names-unknown-task")
    def route_names_unknown_task(self) -> Iterator[Finding]:
        """A ``task_routes``/``task_annotations`` key or a ``send_task`` name that points
        into the project's own packages and names no task: the route or the call does
        nothing. A name of another service (``billing.tasks.charge`` with no ``billing``
        package here) is left alone."""
        registered = registered_names(self.project)
        if not registered:
            return
        unreadable = functions_with_unreadable_names(self.project)
        # One finding per place: a route setting names many tasks at one place.
        unknown: dict[tuple[str, Loc], tuple[str, list[str]]] = {}
        for plugin in plugins():
            framework = semantics(plugin.name)
            for path, loc, name, what in framework.named_tasks(self.project):
                root = name.split(".")[0]
                if "." not in name or root not in self.project.root_packages:
                    continue
                if name.rpartition(".")[2] in unreadable:
                    continue
                if "*" in name:
                    if any(fnmatch.fnmatchcase(r, name) for r in registered):
                        continue
                elif is_known(self.project, name, registered):
                    continue
                unknown.setdefault((path, loc), (what, []))[1].append(name)
        for (path, loc), (what, names) in unknown.items():
            yield self.finding(
                "route-names-unknown-task",
                path,
                loc,
                unknown_route_message(what, names, registered),
            )
