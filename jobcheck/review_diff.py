"""``jobcheck review --changed-since REV``: what a change breaks for jobs already in the
queues during a rolling deploy (docs/review.md).

While old and new workers run side by side, messages sent by the old code are run by the
new workers, and the other way round. A message names its job and carries its arguments
by position or by name, so these changes make queued or still-sent messages fail:

- a job renamed, moved to another module (a Celery task's implicit name is its module
  path) or removed, while messages under the old name may still be queued, or enqueue
  sites and schedules still send it;
- a required parameter added (old messages do not carry it), a parameter removed (old
  messages still pass it) or positional parameters reordered;
- a queue a job is routed to that the old code did not know (workers of the old release do
  not consume it until they are replaced).

Each change says what to do instead (keep the old name as an alias for one deploy, give
the new parameter a default). A refactor that keeps every name and signature is silent.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from jobcheck.facts import Param
from jobcheck.project import Project
from jobcheck.project.model import Job
from jobcheck.project.test_code import is_test_code
from jobcheck.registry import semantics
from jobcheck.timing import describe_seconds, gap_seconds


@dataclass(frozen=True)
class Change:
    kind: str
    """"renamed", "moved", "removed", "parameter-added", "parameter-removed",
    "parameters-reordered", "queue-added", "schedule-tightened"."""
    job: str
    path: str
    line: int
    message: str
    breaking: bool = True

    def as_dict(self) -> dict[str, object]:
        return asdict(self)


def changes(old: Project, new: Project, old_root: str, new_root: str) -> list[Change]:
    """What changed for jobs between ``old`` (the tree at REV, read from ``old_root``)
    and ``new``, with places in the new tree (or the old one, for what is gone)."""
    before = _jobs(old)
    after = _jobs(new)
    found: list[Change] = []
    for name, job in before.items():
        if name in after:
            found.extend(_signature_changes(old, new, job, after[name]))
            continue
        found.append(_gone(old, new, name, job, before, after, old_root, new_root))
    found.extend(_new_queues(old, new, before, after))
    found.extend(_tightened(old, new))
    return found


def _tightened(old: Project, new: Project) -> list[Change]:
    """A schedule whose starts now come closer together than its job's time limit, where
    they did not before: a run can still go on when the next one starts."""
    gaps_before = {
        (_name(job), entry.label): gap_seconds(entry.timing)
        for _, entry, job in old.scheduled_jobs()
        if job is not None
    }
    found = []
    for f, entry, job in new.scheduled_jobs():
        if job is None:
            continue
        name = _name(job)
        # The bound SCL-38 schedule-overlaps-time-limit reads, from the job's contract.
        limit = semantics(job.framework).schedule_time_limit(new, entry, job)
        gap = gap_seconds(entry.timing)
        before = gaps_before.get((name, entry.label))
        if limit is None or gap is None or gap >= limit:
            continue
        if before is not None and before < limit:
            continue  # it could overlap before too: not this change's doing
        found.append(
            Change(
                "schedule-tightened",
                name,
                f.path,
                entry.loc.line,
                f"{entry.label} now starts job '{name}' every {describe_seconds(gap)}"
                + (f" (was every {describe_seconds(before)})" if before else "")
                + f", less than its {limit:g} s time limit: a run can still go "
                "on when the next starts, so two overlap; keep the interval above the limit, "
                "lower the limit, or have each run take a lock",
            )
        )
    return found


def _name(job: Job) -> str:
    return job.task.registered_name or job.task.qualname


def _jobs(project: Project) -> dict[str, Job]:
    return {
        job.task.registered_name or job.task.qualname: job
        for job in project.jobs
        if not is_test_code(job.file)
    }


def _gone(
    old: Project,
    new: Project,
    name: str,
    job: Job,
    before: dict[str, Job],
    after: dict[str, Job],
    old_root: str,
    new_root: str,
) -> Change:
    short = job.task.qualname.rsplit(".", 1)[-1]
    fresh = [n for n in after if n not in before]
    moved = next((n for n in fresh if after[n].task.qualname.rsplit(".", 1)[-1] == short), None)
    senders = _still_sending(new, name, job)
    sent = f"; still sent from {senders}" if senders else ""
    if moved is not None:
        target = after[moved]
        return Change(
            "moved",
            name,
            target.file.path,
            target.task.loc.line,
            f"job '{name}' is now registered as '{moved}' (its module moved, and its name "
            f"is the module path){sent}: messages already queued under '{name}' fail once "
            f"the new workers run; keep '{name}' registered for one deploy (name='{name}' on "
            "the task, or an alias that calls the new one), then remove it",
        )
    renamed = _same_place(job, old_root, [after[n] for n in fresh], new_root, old, new)
    if renamed is not None:
        new_name = renamed.task.registered_name or renamed.task.qualname
        return Change(
            "renamed",
            name,
            renamed.file.path,
            renamed.task.loc.line,
            f"job '{name}' is renamed '{new_name}'{sent}: messages already queued under "
            f"'{name}' fail once the new workers run; keep a job under the old name for one "
            "deploy (a thin alias calling the new one), then remove it",
        )
    scheduled_or_sent = bool(senders)
    return Change(
        "removed",
        name,
        _relocated(job.file.path, old_root, new_root),
        job.task.loc.line,
        f"job '{name}' is removed{sent}: "
        + (
            "every message sent from there fails; remove those senders in the same change, or "
            "keep the job"
            if scheduled_or_sent
            else "messages already queued for it fail once the new workers run; keep it "
            "(doing nothing) for one deploy, or make sure its queue is empty first"
        ),
        breaking=True,
    )


def _same_place(
    job: Job, old_root: str, candidates: list[Job], new_root: str, old: Project, new: Project
) -> Job | None:
    """The old job renamed: the one new job of its framework in the same file, or of
    several there the one with the same parameters (a rename beside a new job read as
    a removal)."""
    path = _relocated(job.file.path, old_root, new_root)
    same_file = [c for c in candidates if c.file.path == path and c.framework == job.framework]
    if len(same_file) == 1:
        return same_file[0]
    wanted = _parameters(old, job)
    alike = [c for c in same_file if wanted is not None and _parameters(new, c) == wanted]
    return alike[0] if len(alike) == 1 else None


def _parameters(project: Project, job: Job) -> tuple[str, ...] | None:
    function = project.function(job.task.function)
    return tuple(p.name for p in function.params) if function is not None else None


def _relocated(path: str, old_root: str, new_root: str) -> str:
    """A path of the old tree as the same path in the new one."""
    if path.startswith(old_root):
        return new_root + path[len(old_root) :]
    return path


def _still_sending(new: Project, name: str, job: Job) -> str:
    """Where the new tree still sends the old name: schedules naming it, enqueue sites
    calling it by its old path or by name (``send_task("...")``)."""
    places = []
    short = name.rsplit(".", 1)[-1]
    for f, entry in new.all_schedules():
        if entry.task_name in (name, job.task.qualname) or entry.target == job.task.qualname:
            places.append(f"{f.path}:{entry.loc.line}")
    for f, site in new.enqueue_sites():
        if is_test_code(f):
            continue
        text = site.target_text.strip("'\"")
        if (
            site.target == job.task.qualname
            or text == name
            or (site.target is None and text == short)
        ):
            places.append(f"{f.path}:{site.loc.line}")
    unique = list(dict.fromkeys(places))
    if not unique:
        return ""
    return ", ".join(unique[:3]) + (f" and {len(unique) - 3} more" if len(unique) > 3 else "")


def _signature_changes(old: Project, new: Project, before: Job, after: Job) -> list[Change]:
    was = _payload_params(old, before)
    now = _payload_params(new, after)
    if was is None or now is None:
        return []
    name = after.task.registered_name or after.task.qualname
    path, line = after.file.path, after.task.loc.line
    found = []
    old_names = [p.name for p in was]
    for param in now:
        if param.name not in old_names and not param.has_default:
            found.append(
                Change(
                    "parameter-added",
                    name,
                    path,
                    param.loc.line or line,
                    f"job '{name}' takes a new required parameter '{param.name}': messages "
                    "queued by the old code do not carry it, and the job fails on them; give "
                    f"it a default ({param.name}=None) for one deploy and handle the missing "
                    "value",
                )
            )
    new_names = [p.name for p in now]
    for param in was:
        if param.name not in new_names:
            found.append(
                Change(
                    "parameter-removed",
                    name,
                    path,
                    line,
                    f"job '{name}' no longer takes '{param.name}': messages queued by the old "
                    "code still pass it, and the job fails on them; keep the parameter "
                    "(ignored) for one deploy",
                )
            )
    old_positional = [p.name for p in was if not p.keyword_only and p.name in new_names]
    new_positional = [p.name for p in now if not p.keyword_only and p.name in old_names]
    if old_positional != new_positional and sorted(old_positional) == sorted(new_positional):
        found.append(
            Change(
                "parameters-reordered",
                name,
                path,
                line,
                f"job '{name}' takes its parameters in a new order ({', '.join(new_positional)} "
                f"instead of {', '.join(old_positional)}): messages queued by the old code "
                "pass them by position, so each lands in the wrong parameter; keep the order, "
                "or add the new parameters at the end with defaults",
            )
        )
    return found


def _payload_params(project: Project, job: Job) -> list[Param] | None:
    function = project.function(job.task.function)
    if function is None:
        return None
    skip = {"self", "cls", "ctx", "context"}
    return [p for p in function.params if p.name not in skip and not p.injected]


def _new_queues(
    old: Project, new: Project, before: dict[str, Job], after: dict[str, Job]
) -> list[Change]:
    """A job routed to a queue the old code did not know: workers of the old release do
    not consume it, so its messages wait until they are replaced (or forever, when the
    process definitions do not list it)."""
    known = {name for _, name in old.routing.queues()}
    found = []
    for name, job in after.items():
        route = new.routing.job_route(job)
        if not route.known or route.queue in known or name not in before:
            continue
        was = old.routing.job_route(before[name])
        if not was.known or was.queue == route.queue:
            continue
        found.append(
            Change(
                "queue-added",
                name,
                job.file.path,
                job.task.loc.line,
                f"job '{name}' moves from queue '{was.queue}' to '{route.queue}', which the "
                "old code did not use: until workers consume it its jobs wait; start "
                f"workers on '{route.queue}' before the deploy that routes jobs there, and "
                f"keep consuming '{was.queue}' until it is empty",
            )
        )
    return found
