"""What fixes need to know about the project beyond the flagged file: the facts of every
file (read, never the project model, so the checks can change shape freely), the start
minutes schedules already use, and the version of a package (Celery) its requirements
pin. What a framework's fixes derive from these (the limits most Celery tasks set) they
keep with :meth:`ProjectInfo.once`."""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

from jobcheck.config import Options
from jobcheck.facts import EnqueueSite, FileFacts, FunctionFacts, HttpCall, ScheduleEntry, TaskDef
from jobcheck.location import Loc
from jobcheck.timing import MAX_STARTS_PER_HOUR, PREFERRED_MINUTES, firing

T = TypeVar("T")

_OTHER_MINUTES = tuple(m for m in range(1, 60) if m not in PREFERRED_MINUTES and m % 5)
_LAST_RESORT = tuple(m for m in range(1, 60) if m not in PREFERRED_MINUTES + _OTHER_MINUTES)

MAX_REQUIREMENTS_BYTES = 4 * 1024 * 1024


class MinuteBook:
    """Start minutes taken by the project's schedules, and those handed out to fixes
    during this run, so two fixes never move two schedules to one minute."""

    def __init__(self, taken: set[int]) -> None:
        self.taken = taken

    def allocate(self, minutes: frozenset[int]) -> frozenset[int] | None:
        """``minutes`` moved by one offset (same count, same spacing, so the same
        frequency) to minutes no schedule uses and that are not 0; None if none fit."""
        if not minutes:
            return None
        base = min(minutes)
        for first in (*PREFERRED_MINUTES, *_OTHER_MINUTES, *_LAST_RESORT):
            moved = frozenset((m - base + first) % 60 for m in minutes)
            if 0 not in moved and not moved & self.taken:
                self.taken |= moved
                return moved
        return None


class ProjectInfo:
    def __init__(
        self,
        facts: Iterable[FileFacts],
        options: Options,
        source_of: Callable[[str], str | None],
        roots: Iterable[str] = (),
    ) -> None:
        self.files = {f.path: f for f in facts}
        self.options = options
        self.text_of = source_of
        self.roots = [Path(r) for r in roots]
        self._kept: dict[str, object] = {}
        self._versions: dict[str, tuple[int, ...] | None] = {}

    def once(self, key: str, compute: Callable[[ProjectInfo], T]) -> T:
        """``compute(self)``, computed once per run under ``key`` (what a framework's
        fixes derive from the whole project, for every finding they fix)."""
        if key not in self._kept:
            self._kept[key] = compute(self)
        return self._kept[key]  # type: ignore[return-value]

    # -- facts at a finding's place -----------------------------------------------------

    def schedule_at(self, path: str, loc: Loc) -> ScheduleEntry | None:
        facts = self.files.get(path)
        for entry in facts.schedules if facts else ():
            if loc in (entry.timing_loc, entry.loc):
                return entry
        return None

    def enqueue_at(self, path: str, loc: Loc) -> EnqueueSite | None:
        facts = self.files.get(path)
        return next((s for s in facts.enqueues if s.loc == loc), None) if facts else None

    def http_call_at(self, path: str, loc: Loc) -> HttpCall | None:
        facts = self.files.get(path)
        for function in facts.functions.values() if facts else ():
            for call in function.http_calls:
                if call.loc == loc:
                    return call
        return None

    def task_at(self, path: str, loc: Loc) -> TaskDef | None:
        """The task defined at ``loc`` or one of whose options is written there, as the
        job of the framework the project model finds it is (``@broker.task`` read in its
        file as Celery's is taskiq's when ``broker`` is made by taskiq in another file)."""
        task = self._tasks_by_place.get((path, loc))
        if task is None:
            return None
        framework = self._job_frameworks.get((path, task.loc), task.framework)
        return task if framework == task.framework else replace(task, framework=framework)

    @functools.cached_property
    def _job_frameworks(self) -> dict[tuple[str, Loc], str]:
        from jobcheck.project.model import Project

        project = Project(list(self.files.values()), source_of=self.text_of)
        return {
            (job.file.path, job.task.loc): job.task.framework
            for job in (*project.all_jobs, *project.jobs)
        }

    @functools.cached_property
    def _tasks_by_place(self) -> dict[tuple[str, Loc], TaskDef]:
        # An index: a module of thousands of tasks has a finding on each.
        found: dict[tuple[str, Loc], TaskDef] = {}
        for facts in self.files.values():
            for task in facts.tasks:  # the first task a place belongs to
                found.setdefault((facts.path, task.loc), task)
                for _, where in task.option_locs:
                    found.setdefault((facts.path, where), task)
        return found

    def function(self, path: str, qualname: str | None) -> FunctionFacts | None:
        facts = self.files.get(path)
        return facts.functions.get(qualname) if facts and qualname else None

    def tasks(self) -> Iterable[tuple[FileFacts, TaskDef]]:
        for facts in self.files.values():
            for task in facts.tasks:
                yield facts, task

    # -- schedules ------------------------------------------------------------------------

    @functools.cached_property
    def minutes(self) -> MinuteBook:
        taken: set[int] = set()
        for facts in self.files.values():
            for entry in facts.schedules:
                fire = firing(entry.timing)
                if fire is not None and fire.minutes is not None:
                    if len(fire.minutes) <= MAX_STARTS_PER_HOUR:
                        taken |= fire.minutes
        return MinuteBook(taken)

    def schedules_of(self, task: TaskDef) -> list[ScheduleEntry]:
        names = {task.qualname, task.registered_name} - {None}
        return [
            entry
            for facts in self.files.values()
            for entry in facts.schedules
            if entry.target in names or entry.task_name in names
        ]

    # -- package versions --------------------------------------------------------------------

    def package_version(self, package: str) -> tuple[int, ...] | None:
        """The lowest version of ``package`` the project's lock file or requirements
        allow: a lock file's exact version, else a requirement's ``==``, ``>=`` or ``~=``
        bound. None when no file names it (then nothing may assume a recent one)."""
        if package not in self._versions:
            self._versions[package] = self._find_version(package.lower())
        return self._versions[package]

    def _find_version(self, package: str) -> tuple[int, ...] | None:
        for folder in self._requirement_folders():
            found = _locked_version(folder, package)
            if found is not None:
                return found
        for folder in self._requirement_folders():
            found = _required_version(folder, package)
            if found is not None:
                return found
        return None

    def _requirement_folders(self) -> list[Path]:
        folders: list[Path] = []
        starts = self.roots or [Path(self.options.root)]
        if self.options.config_path:
            starts = [Path(self.options.root), *starts]
        for start in starts:
            current = start.resolve()
            for _ in range(4):  # the project's root is rarely further up than this
                if current not in folders:
                    folders.append(current)
                if (current / ".git").exists() or current.parent == current:
                    break
                current = current.parent
        return folders


def _read(path: Path) -> str | None:
    from jobcheck.discovery.reading import ReadError, open_regular

    try:
        with open_regular(str(path)) as stream:
            data = stream.read(MAX_REQUIREMENTS_BYTES + 1)
    except (ReadError, OSError):
        return None
    if len(data) > MAX_REQUIREMENTS_BYTES:
        return None
    return data.decode("utf-8", "replace")


def _version(text: str) -> tuple[int, ...] | None:
    match = re.match(r"\s*v?(\d+(?:\.\d+)*)", text)
    return tuple(int(part) for part in match.group(1).split(".")) if match else None


def _locked_version(folder: Path, package: str) -> tuple[int, ...] | None:
    locked = re.compile(
        rf'\[\[package\]\]\s*name\s*=\s*"{re.escape(package)}"\s*version\s*=\s*"([^"]+)"'
    )
    for name in ("poetry.lock", "uv.lock", "pdm.lock"):
        text = _read(folder / name)
        if text is None:
            continue
        match = locked.search(text)
        if match:
            return _version(match.group(1))
    text = _read(folder / "Pipfile.lock")
    if text is not None:
        try:
            data = json.loads(text)
            pinned = data.get("default", {}).get(package, {}).get("version", "")
        except (ValueError, AttributeError):
            pinned = ""
        if isinstance(pinned, str) and pinned.startswith("=="):
            return _version(pinned[2:])
    return None


@functools.cache
def _requirement(package: str) -> re.Pattern[str]:
    """A requirement of ``package``: ``celery==5.4.0``, ``celery[redis]>=5.4``,
    ``"celery (>=5.3, <6)"``, poetry's ``celery = "^5.4"`` or ``celery = {version =
    ">=5.4", extras = [...]}``."""
    return re.compile(
        r"""(?ix)(?:^|["'\s,\[])"""
        + re.escape(package)
        + r"""(?:\[[^\]]*\])?["']?\s*(?:=\s*(?:\{[^}]*?version\s*=\s*)?["'])?
    \s*\(?\s*(?P<op>===|==|>=|~=|\^|~)?\s*(?P<version>\d+(?:\.\d+)*)"""
    )


def _required_version(folder: Path, package: str) -> tuple[int, ...] | None:
    names = ["pyproject.toml", "setup.cfg", "setup.py", "Pipfile"]
    names += sorted(p.name for p in folder.glob("requirements*.txt"))
    names += sorted(f"requirements/{p.name}" for p in folder.glob("requirements/*.txt"))
    for name in names:
        text = _read(folder / name)
        if text is None or package not in text.lower():
            continue
        for match in _requirement(package).finditer(text):
            if match.group("op") in ("==", "===", ">=", "~=", "^", "~"):
                return _version(match.group("version"))
    return None
