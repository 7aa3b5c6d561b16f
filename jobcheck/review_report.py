"""``jobcheck review``: the whole picture of a project's jobs, for people and pull
requests (docs/review.md).

- **Inventory**: every job once, with its contract (``jobcheck.review.contracts``), its
  parameters (record-typed ones marked), the idempotency evidence found in its body and
  the helpers it calls (with places) or "none found", how many enqueue sites send it, its
  findings, and a contract score: how many of the contract's items are met.
- **Queues**: each queue with its jobs, its bounds, and whether person-facing and bulk
  jobs share it.
- **Schedule**: every schedule from every source, in plain words, and a 24 h x 60 min
  heat map of start minutes.

The JSON form is versioned (``SCHEMA_VERSION``); its fields are documented in
docs/review.md. Every form masks secrets in the text it takes from the project (a
crontab line's ``redis-cli -a s3cret``): ``as_dict`` here, the renderers in
``jobcheck/output/review.py`` and ``review_html.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from jobcheck.config import Options
from jobcheck.facts import ScheduleEntry
from jobcheck.findings import Finding
from jobcheck.output.encoding import masked_data
from jobcheck.project import Project
from jobcheck.project.bodies import body_summary
from jobcheck.project.model import Job
from jobcheck.project.routing import QueueUse
from jobcheck.project.schedule_words import describe as describe_entry
from jobcheck.project.summaries import EXCLUSION_ONLY
from jobcheck.project.test_code import is_test_code
from jobcheck.project.workers import consumers, workers
from jobcheck.registry import schedule_terms, semantics
from jobcheck.review import Contract, contracts
from jobcheck.timing import Firing, describe_seconds, firing, gap_seconds, is_full
from jobcheck.vocabulary.words import matching_word

SCHEMA_VERSION = 1
"""Bumped when a field of the JSON form changes meaning or goes away."""

# The contract's items, as the background-jobs texts list them ("every job has a
# written contract"): what each needs to count as met.
CONTRACT_ITEMS = (
    "payload",
    "idempotency",
    "time_limit",
    "retries",
    "dead_letter",
    "single_run",
)


@dataclass
class JobReview:
    contract: Contract
    parameters: list[str]
    idempotency: list[str]
    enqueue_sites: list[str]
    findings: list[str]
    met: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def score(self) -> str:
        total = len(self.met) + len(self.missing)
        return f"{len(self.met)}/{total}"

    def as_dict(self) -> dict[str, object]:
        data = self.contract.as_dict()
        data.update(
            parameters=self.parameters,
            idempotency=self.idempotency,
            enqueue_sites=self.enqueue_sites,
            findings=self.findings,
            score={"met": self.met, "missing": self.missing, "text": self.score},
        )
        return data


@dataclass
class QueueReview:
    framework: str
    name: str
    jobs: list[str]
    bounds: list[str]
    person_facing: list[str]
    bulk: list[str]
    workers: list[str] | None = None
    """The worker processes that consume it (``Procfile:3 (worker)``); None when the
    project's process definitions start no worker of its framework."""

    @property
    def mixed(self) -> bool:
        return bool(self.person_facing and self.bulk)

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "mixed": self.mixed}


@dataclass
class ScheduleReview:
    job: str
    framework: str
    path: str
    line: int
    when: str
    source: str
    minutes: list[tuple[int, int]]
    """(hour, minute) starts within a day, for the heat map; empty when unknown."""
    overlap: str | None = None
    """When a run may still go on at the next start: the job's time limit is longer than
    the shortest gap between starts (or it has none)."""

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["minutes"] = [f"{h:02d}:{m:02d}" for h, m in self.minutes]
        return data


@dataclass
class Review:
    jobs: list[JobReview]
    queues: list[QueueReview]
    schedules: list[ScheduleReview]

    @property
    def score(self) -> tuple[int, int]:
        met = sum(len(j.met) for j in self.jobs)
        return met, met + sum(len(j.missing) for j in self.jobs)

    def heat_map(self) -> list[list[int]]:
        """Starts per (hour, minute) over a day, every schedule counted."""
        grid = [[0] * 60 for _ in range(24)]
        for schedule in self.schedules:
            for hour, minute in schedule.minutes:
                grid[hour][minute] += 1
        return grid

    def as_dict(self) -> dict[str, object]:
        met, total = self.score
        data = {
            "version": SCHEMA_VERSION,
            "score": {"met": met, "total": total},
            "jobs": [j.as_dict() for j in self.jobs],
            "queues": [q.as_dict() for q in self.queues],
            "schedules": [s.as_dict() for s in self.schedules],
            "heat_map": {
                f"{hour:02d}": {f"{m:02d}": n for m, n in enumerate(row) if n}
                for hour, row in enumerate(self.heat_map())
                if any(row)
            },
        }
        return masked_data(data)  # type: ignore[no-any-return]


def review(project: Project, options: Options, findings: Iterable[Finding]) -> Review:
    findings = list(findings)
    # A contract names its job as (path, line, registered name or qualname).
    by_place = {
        (j.file.path, j.task.loc.line, j.task.registered_name or j.task.qualname): j
        for j in project.jobs
    }
    jobs = []
    sites = _sites_by_job(project)
    for contract in contracts(project, options):
        job = by_place.get((contract.path, contract.line, contract.job))
        jobs.append(_job_review(project, contract, job, findings, sites))
    return Review(jobs, _queues(project, options), _schedules(project))


def overlap(gap: float | None, present: bool | None, limit: float | None) -> str | None:
    """Whether a run may still go on at the next start: the time limit (``limit``
    seconds, as SCL-38 reads it: ``Semantics.schedule_time_limit``) is longer than the
    gap, or there is none (``present`` false; None when the framework has no notion)."""
    if gap is None or present is None:
        return None
    if not present:
        return f"runs may overlap: no time limit, a start every {describe_seconds(gap)}"
    if limit is not None and limit > gap:
        return (
            f"runs may overlap: a {describe_seconds(limit)} time limit, a start every "
            f"{describe_seconds(gap)}"
        )
    return None


def _job_review(
    project: Project,
    contract: Contract,
    job: Job | None,
    findings: list[Finding],
    sites_by_job: dict[int, list[str]],
) -> JobReview:
    parameters = _parameters(project, job)
    idempotency = _idempotency(project, job)
    sites = sites_by_job.get(id(job), []) if job is not None else []
    own = _findings_of(project, contract, job, findings)
    item = JobReview(contract, parameters, idempotency, sites, own)
    _score(item)
    return item


def _parameters(project: Project, job: Job | None) -> list[str]:
    if job is None:
        return []
    function = project.function(job.task.function)
    if function is None:
        return []
    shown = []
    for param in function.params:
        if param.name in ("self", "cls") or param.injected:
            continue
        text = param.name + (f": {param.annotation}" if param.annotation else "")
        if param.annotation and project.is_model(param.annotation):
            text += " (record)"
        shown.append(text)
    return shown


def _idempotency(project: Project, job: Job | None) -> list[str]:
    """Guards in the job's body and the helpers it calls (a state check, a unique
    insert, a lock, a deduplication key), and charges made with an idempotency key."""
    entry = project.functions.get(job.task.function or "") if job is not None else None
    if entry is None:
        return []
    summary = body_summary(project, entry[0], entry[1], job)
    # The job's own body and the helpers it calls directly: a guard deeper down guards
    # that helper's own work, not the job's (saleor's webhook cleanup filters).
    found = [
        f"{reach.item.kind} ({reach.path}:{reach.item.loc.line})"
        for reach in summary.guards
        if reach.item.kind not in EXCLUSION_ONLY and len(reach.chain) <= 1
    ]
    found += [
        f"idempotency key on {reach.item.func} ({reach.path}:{reach.item.loc.line})"
        for reach in summary.side_effects
        if reach.item.has_key
    ]
    return list(dict.fromkeys(found))


def _sites_by_job(project: Project) -> dict[int, list[str]]:
    """Where each job is enqueued (outside test code), by the job object's id."""
    found: dict[int, list[str]] = {}
    for f, site, job in project.enqueues():
        if job is not None and not is_test_code(f):
            found.setdefault(id(job), []).append(f"{f.path}:{site.loc.line}")
    return found


def _findings_of(
    project: Project, contract: Contract, job: Job | None, findings: list[Finding]
) -> list[str]:
    """Findings on the job: in its code (its function's lines with its decorators), or
    in another file naming it (a schedule entry, an enqueue site)."""
    starts = _function_span(project, job)
    quoted = {f"'{contract.job}'"} | ({f"'{job.task.name}'"} if job else set())
    own = []
    for finding in findings:
        inside = starts is not None and (
            finding.path == starts[0] and starts[1] <= finding.loc.line < starts[2]
        )
        elsewhere = finding.path != contract.path and any(q in finding.message for q in quoted)
        if inside or elsewhere:
            own.append(f"{finding.rule} {finding.check} ({finding.path}:{finding.loc.line})")
    return list(dict.fromkeys(own))


def _function_span(project: Project, job: Job | None) -> tuple[str, int, int] | None:
    """(path, first line, first line of the next function) of the job's code."""
    if job is None:
        return None
    found = project.functions.get(job.task.function or "")
    if found is None:
        return job.file.path, job.task.loc.line, job.task.loc.line + 1
    f, function = found
    start = min([function.loc.line, job.task.loc.line, *(d.loc.line for d in function.decorators)])
    later = sorted(
        min([other.loc.line, *(d.loc.line for d in other.decorators)])
        for other in f.functions.values()
        if other.loc.line > function.loc.line
    )
    return f.path, start, later[0] if later else 10**9


def _score(item: JobReview) -> None:
    """Each contract item met, missing, or not applying (a job on no schedule needs no
    single-run guard)."""
    c = item.contract
    checks = {
        "payload": not any(
            f.startswith(("SCL-21 fat-payload", "SCL-21 model-typed")) for f in item.findings
        ),
        "idempotency": bool(item.idempotency),
        "time_limit": not c.time_limit.startswith(("none", "unknown", "unbounded")),
        "retries": not c.retries.startswith(("unbounded", "unknown"))
        and not c.backoff.startswith(("none", "unknown")),
        "dead_letter": not c.dead_letter.startswith(("none", "unknown")),
    }
    if c.schedule != "-":
        checks["single_run"] = c.lock.startswith("yes")
    for name in CONTRACT_ITEMS:
        if name in checks:
            (item.met if checks[name] else item.missing).append(name)


def _queues(project: Project, options: Options) -> list[QueueReview]:
    result = []
    found = workers(project.files)
    for use in project.routing.queues().values():
        names = _jobs_on(project, use)
        result.append(
            QueueReview(
                framework=use.framework,
                name=use.name,
                jobs=names,
                bounds=list(use.bounds),
                person_facing=[n for n in names if matching_word(n, options.urgent_words)],
                bulk=[n for n in names if matching_word(n, options.bulk_words)],
                workers=(
                    consumers(
                        found,
                        use.framework,
                        use.name,
                        project.routing.rules(use.framework).configured_queues(),
                    )
                    if any(w.framework == use.framework for w in found)
                    else None
                ),
            )
        )
    return sorted(result, key=lambda q: (q.framework, q.name))


def _jobs_on(project: Project, use: QueueUse) -> list[str]:
    """The jobs a queue receives, each once: the jobs routed to it and those its enqueue
    calls send, a call counted as its job (``tasks.send.delay()`` and the task ``send``
    are one job), two jobs of one name told apart by their dotted paths."""
    found: dict[str, str] = {}  # key (a job's dotted path, or a call's text) -> its name
    for job in use.jobs:
        found.setdefault(job.task.qualname, job.task.name)
    for _, site in use.sites:
        job = project.job_for(site)
        if job is not None:
            found.setdefault(job.task.qualname, job.task.name)
        else:
            found.setdefault(f"call:{site.target_text}", site.target_text)
    shared = Counter(found.values())
    return list(
        dict.fromkeys(
            key if shared[name] > 1 and not key.startswith("call:") else name
            for key, name in found.items()
        )
    )


def _schedules(project: Project) -> list[ScheduleReview]:
    result = []
    runs = {id(entry): job for _, entry, job in project.scheduled_jobs() if job is not None}
    for f, entry in project.all_schedules():
        when = entry.timing
        fire = firing(when) if when.kind == "cron" else None
        job = runs.get(id(entry))
        result.append(
            ScheduleReview(
                job=job.task.name if job else entry.task_name or entry.target_text or entry.label,
                framework=entry.framework,
                path=f.path,
                line=entry.loc.line,
                when=_with_zone(
                    plain_words(when.kind, fire, when.seconds, when.text),
                    schedule_terms(entry).time_zone,
                ),
                source=describe_entry(entry),
                minutes=_day_starts(fire, when.seconds),
                overlap=_overlap(project, entry, job),
            )
        )
    return sorted(result, key=lambda s: (s.minutes[:1] or [(99, 99)], s.path, s.line))


def _overlap(project: Project, entry: ScheduleEntry, job: Job | None) -> str | None:
    """The overlap line of a schedule that runs a job, from the job's contract."""
    if job is None:
        return None
    limit = project.contract(job).time_limit
    bound = semantics(job.framework).schedule_time_limit(project, entry, job)
    return overlap(gap_seconds(entry.timing), limit.present if limit else None, bound)


def plain_words(kind: str, fire: Firing | None, seconds: float | None, text: str) -> str:
    """ "every day at 03:17", "every hour at :05", "every 5 min", else the source's text."""
    if kind == "interval" and seconds:
        return f"every {describe_seconds(seconds)} (from when the scheduler starts)"
    if fire is None or fire.minutes is None or fire.hours is None:
        return text
    days = ""
    if not is_full(fire.days_of_week, 4) and fire.days_of_week is not None:
        names = ("Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat")
        days = " on " + ", ".join(names[d % 7] for d in sorted(fire.days_of_week))
    if not is_full(fire.days_of_month, 2) or not is_full(fire.months, 3):
        return text
    minutes = sorted(fire.minutes)
    hours = sorted(fire.hours)
    if len(minutes) == 60:  # crontab(hour=4): every minute of the hour (SCL-22)
        return _every_minute(hours) + days
    if len(hours) == 24:
        if len(minutes) == 1:
            return f"every hour at :{minutes[0]:02d}{days}"
        steps = {b - a for a, b in zip(minutes, minutes[1:])}
        if len(steps) == 1 and len(minutes) * steps.pop() == 60:
            return f"every {60 // len(minutes)} min from :{minutes[0]:02d}{days}"
        return text
    if len(minutes) == 1 and len(hours) <= 4:
        times = ", ".join(f"{h:02d}:{minutes[0]:02d}" for h in hours)
        return f"every day at {times}{days}" if not days else f"at {times}{days}"
    return text


def _every_minute(hours: list[int]) -> str:
    """ "every minute from 04:00 to 04:59" for each run of consecutive hours."""
    if len(hours) == 24:
        return "every minute"
    runs: list[list[int]] = []
    for hour in hours:
        if runs and hour == runs[-1][-1] + 1:
            runs[-1].append(hour)
        else:
            runs.append([hour])
    spans = [f"{run[0]:02d}:00 to {run[-1]:02d}:59" for run in runs]
    return "every minute from " + ", and from ".join(spans)


def _with_zone(words: str, zone: str | None) -> str:
    """ "every day at 03:17 Europe/Berlin" when the schedule names its zone."""
    return f"{words} {zone}" if zone and words.startswith(("every day", "at ")) else words


def _day_starts(fire: Firing | None, seconds: float | None) -> list[tuple[int, int]]:
    if fire is not None and fire.minutes is not None and fire.hours is not None:
        return [(h, m) for h in sorted(fire.hours) for m in sorted(fire.minutes)]
    return []
