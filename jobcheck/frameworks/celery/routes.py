"""How Celery routes a task and where its queues are bounded.

celery/app/routes.py ``Router.route``: the options of the call and of the task
(``Task.queue``, set by the decorator's ``queue=``, a base class or
``task_annotations``) win over ``task_routes``, whose routers are tried in order (a dict
or list of ``name -> "queue" | {"queue": ...}`` maps, exact names before glob or regex
patterns; a router function or class cannot be read), and when nothing names a queue
the message goes to ``task_default_queue``, ``"celery"`` unless configured
(celery/app/defaults.py: ``default_queue=Option('celery')``).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from jobcheck.facts import EnqueueSite, FileFacts, ScheduleEntry
from jobcheck.facts.values import CallV, Const, DictV, SeqV, Value, is_none, string
from jobcheck.frameworks.celery.options import option
from jobcheck.frameworks.celery.settings import SETTING_NAMES
from jobcheck.project.routing import (
    NO_MATCH,
    UNKNOWN,
    UNKNOWN_ROUTE,
    Place,
    Route,
    Routing,
    _Inventory,
    env_fallback,
)
from jobcheck.project.test_code import is_test_code

if TYPE_CHECKING:
    from jobcheck.facts import Loc
    from jobcheck.project.model import Job, Project

NAME = "celery"
CELERY_DEFAULT_QUEUE = "celery"  # celery/app/defaults.py: default_queue=Option('celery')


def of(routing: Routing) -> CeleryRoutes:
    """The Celery part of a project's routing (built once per project)."""
    found = routing.framework_state.get(NAME)
    if found is None:
        found = routing.framework_state[NAME] = CeleryRoutes(routing)
    return found  # type: ignore[return-value]


class CeleryRoutes:
    def __init__(self, routing: Routing) -> None:
        self.routing = routing
        self.default = self._default()

    def config_in_sight(self) -> bool:
        """Whether the Celery app or its settings were analysed: bounds and routes of
        Celery queues are configured there, so without them nothing is said."""
        if self.app_place() is not None:
            return True
        return any(
            s.key in SETTING_NAMES and self.routing.project._honoured(f, s)
            for f in self.routing.project.files
            if not is_test_code(f)
            for s in f.settings
        )

    def app_place(self) -> Place | None:
        """Where the project's Celery app is made (the configured ``celery-app`` first;
        an app of the test suite does not count)."""
        apps = sorted(
            (entry for entry in self.routing.project.apps if not is_test_code(entry[0])),
            key=lambda entry: (entry[0].path, entry[1].loc.line),
        )
        return Place(apps[0][0].path, apps[0][1].loc) if apps else None

    def _default(self) -> Route:
        entries = self.routing.project.settings("task_default_queue")
        if not entries:
            return Route(CELERY_DEFAULT_QUEUE, default=True, from_settings=True)
        names = set()
        for _, setting in entries:
            name = self.routing.queue_name(setting.value)
            if name is UNKNOWN:
                # os.environ.get("CELERY_TASK_DEFAULT_QUEUE", "celery"): the fallback.
                name = env_fallback(setting.value) or UNKNOWN
            names.add(name or CELERY_DEFAULT_QUEUE)
        f, setting = entries[0]
        name = names.pop() if len(names) == 1 else UNKNOWN
        queue = name if isinstance(name, str) else None
        return Route(queue, default=True, where=Place(f.path, setting.loc), from_settings=True)

    def job_route(self, job: Job) -> Route:
        resolved = option(self.routing.project, job, "queue")
        if resolved.source in ("task", "base", "annotations"):
            name = self.routing.queue_name(resolved.value)
            if name is UNKNOWN:
                return UNKNOWN_ROUTE
            if isinstance(name, str):
                where = Place(resolved.path or job.file.path, resolved.loc or job.task.loc)
                return self.named(name, where)
        return self.route_by_name(job.task.registered_name)

    def named(self, name: str, where: Place | None, age_bound: bool = False) -> Route:
        return Route(name, self.default.queue == name, where, age_bound)

    def route_by_name(self, name: str | None) -> Route:
        """The queue ``task_routes`` (or the default) gives a task registered as ``name``."""
        results = []
        for f, setting in self.routing.project.settings("task_routes"):
            result = self._routes(setting.value, name, Place(f.path, setting.loc))
            results.append(result)
        matched = [r for r in results if r is not NO_MATCH]
        if not matched:
            return self.default
        if (
            any(r is UNKNOWN for r in matched)
            or len(set(matched)) > 1
            or len(matched) < len(results)
        ):
            return UNKNOWN_ROUTE
        return matched[0]  # type: ignore[return-value]

    def _routes(self, value: Value, name: str | None, where: Place) -> object:
        routers = value.items if isinstance(value, SeqV) else (value,)
        for router in routers:
            result = self._map_route(router, name, where)
            if result is not NO_MATCH:
                return result
        return NO_MATCH

    def _map_route(self, router: Value, name: str | None, where: Place) -> object:
        """celery/app/routes.py ``MapRoute``: exact names first, then patterns in order."""
        pairs = _route_pairs(router)
        if pairs is None or name is None:
            return UNKNOWN  # a router function or class: it cannot be read
        unreadable = False
        for key, target in pairs:
            if isinstance(key, Const) and isinstance(key.value, str) and "*" not in key.value:
                if key.value == name:
                    return self._route_target(target, where)
            elif key is None or not _is_pattern(key):
                unreadable = True
        for key, target in pairs:
            pattern = _pattern(key)
            if pattern is not None and pattern.match(name):
                return self._route_target(target, where)
        return UNKNOWN if unreadable else NO_MATCH

    def _route_target(self, target: Value, where: Place) -> object:
        if isinstance(target, DictV):
            queue = target.get("queue")
            expires = target.get("expires")
            age_bound = expires is not None and not is_none(expires)
            if queue is None:
                return UNKNOWN  # exchange/routing_key only: the broker decides
            name = self.routing.queue_name(queue)
            return self.named(name, where, age_bound) if isinstance(name, str) else UNKNOWN
        name = self.routing.queue_name(target)
        return self.named(name, where) if isinstance(name, str) else UNKNOWN

    def route_targets(self) -> Iterator[tuple[str, Place, bool]]:
        """Every queue ``task_routes`` names, whether or not a job here matches it."""
        for f, setting in self.routing.project.settings("task_routes"):
            routers = setting.value.items if isinstance(setting.value, SeqV) else (setting.value,)
            for router in routers:
                for _, target in _route_pairs(router) or ():
                    queue = target.get("queue") if isinstance(target, DictV) else target
                    expires = target.get("expires") if isinstance(target, DictV) else None
                    name = self.routing.queue_name(queue)
                    if isinstance(name, str):
                        bounded = expires is not None and not is_none(expires)
                        yield name, Place(f.path, setting.loc), bounded

    def schedules(self) -> list[tuple[FileFacts, ScheduleEntry, Job | None]]:
        """Celery periodic jobs (beat entries, ``add_periodic_task``, ``@periodic_task``)."""
        return [
            (f, entry, job)
            for f, entry, job in self.routing.project.scheduled_jobs()
            if entry.framework == NAME
        ]

    def collect(self, inventory: _Inventory) -> None:
        """Queues declared in ``task_queues``, named by routes and beat entries, and the
        bounds they set."""
        for f, setting in self.routing.project.settings("task_queues"):
            if not isinstance(setting.value, DictV):
                continue
            for key, options in setting.value.items:
                name = string(key)
                if name is None:
                    continue
                use = inventory.use(NAME, name)
                place = Place(f.path, setting.loc)
                items = options.items if isinstance(options, DictV) else ()
                flat = tuple((k.value, v) for k, v in items if isinstance(k, Const))
                use.declarations.append((place, flat))
                self.routing.queue_arguments(use, flat, place)
        for name, place, bounded in self.route_targets():
            use = inventory.use(NAME, name)
            use.namings.append(place)
            if bounded:
                use.bounds.append("expires on its task_routes entry")
        for f, entry, job in self.schedules():
            if is_test_code(f):
                continue
            options = dict(entry.options)
            expires = options.get("expires")
            bounded = expires is not None and not is_none(expires)
            name = self.routing.queue_name(options.get("queue"))
            if name is None:
                route = self.routing.job_route(job) if job is not None else self.default
                name = route.queue if route.known else UNKNOWN
            if not isinstance(name, str):
                if bounded:
                    inventory.unsure_bounds.add(NAME)
                continue
            use = inventory.use(NAME, name)
            if options.get("queue") is not None:
                use.namings.append(Place(f.path, entry.loc))
                # The job this entry sends lands here, whatever its own route says.
                if job is not None and all(job is not known for known in use.jobs):
                    use.jobs.append(job)
            if bounded:
                use.bounds.append("expires on a periodic job")
        # Annotations built by code may set expires on every task: the bound cannot be
        # read, nor ruled out. A beat schedule built by code (``parse_beat_schedule()``)
        # bounds at most the periodic messages it sends, not what the rest of the code
        # enqueues, so it leaves the queues' verdicts alone.
        for _, setting in self.routing.project.settings("task_annotations"):
            if not isinstance(setting.value, (DictV, SeqV)):
                inventory.unsure_bounds.add(NAME)


def may_hold_queue(site: EnqueueSite) -> bool:
    """Options spread from a mapping (``**options``, ``options=...``) may name the queue."""
    return any(key in ("**", "options") for key, _ in site.options)


def _route_pairs(router: Value) -> list[tuple[Value | None, Value]] | None:
    if isinstance(router, DictV):
        return list(router.items)
    if isinstance(router, SeqV):
        pairs = []
        for item in router.items:
            if not (isinstance(item, SeqV) and len(item.items) == 2):
                return None
            pairs.append((item.items[0], item.items[1]))
        return pairs
    return None


def _is_pattern(key: Value) -> bool:
    return _pattern(key) is not None


def _pattern(key: Value | None) -> re.Pattern[str] | None:
    """A ``task_routes`` key that is a glob (``"shop.tasks.*"``) or ``re.compile(...)``."""
    if isinstance(key, Const) and isinstance(key.value, str) and "*" in key.value:
        return re.compile(fnmatch.translate(key.value))
    if isinstance(key, CallV) and key.func == "re.compile" and string(key.arg(0)):
        try:
            return re.compile(string(key.arg(0)))  # type: ignore[arg-type]
        except re.error:
            return None
    return None


def named_tasks(project: Project) -> Iterator[tuple[str, Loc, str, str]]:
    """(path, loc, name, what) for every task name the configuration and the calls write:
    ``task_routes`` and ``task_annotations`` keys (globs included, ``"*"`` not), and the
    names ``send_task``/``signature`` send by string (celery/app/routes.py ``MapRoute``,
    celery/app/annotations.py ``MapAnnotation``)."""
    for key in ("task_routes", "task_annotations"):
        for f, setting in project.settings(key):
            if is_test_code(f):
                continue
            value = setting.value
            routers = value.items if isinstance(value, SeqV) else (value,)
            for router in routers:
                for name_value, _ in _route_pairs(router) or ():
                    name = string(name_value) if name_value is not None else None
                    if name and name != "*":
                        yield f.path, setting.loc, name, f"{setting.raw_key} entry"
    for f, site, job in project.enqueues():
        if job is not None or is_test_code(f) or site.method not in ("send_task", "signature"):
            continue
        if site.framework_hint not in (None, "celery") or site.target is not None:
            continue  # a constant's name: the value is elsewhere
        if _LITERAL_NAME.fullmatch(site.target_text):  # a string literal, as written
            yield f.path, site.loc, site.target_text, f"{site.method}() call"


_LITERAL_NAME = re.compile(r"[\w.:-]+")
