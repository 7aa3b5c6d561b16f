"""``jobcheck review`` as text (rich tables) and Markdown (a pull-request comment:
summary first, details collapsible). JSON is ``Review.as_dict()``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jobcheck.review_diff import Change
    from jobcheck.review_report import Review

HEAT = " .:-=+*#%@"
"""Heat map cells: how many schedules start in that minute (9 or more: @)."""


def heat_rows(review: Review) -> Iterator[str]:
    """One line per hour: the hour, then one character per minute."""
    yield "     " + "".join(str(m // 10) if m % 10 == 0 else " " for m in range(60))
    for hour, row in enumerate(review.heat_map()):
        yield f"{hour:02d}h  " + "".join(HEAT[min(n, 9)] for n in row)


def text(review: Review) -> Iterator[Any]:
    """Cards for the jobs (readable at any width), then the queues, the schedule and the
    heat map."""
    from rich.text import Text

    met, total = review.score
    yield Text(
        f"{len(review.jobs)} jobs, contract score {met}/{total}; {len(review.queues)} queues; "
        f"{len(review.schedules)} schedules.",
        style="bold",
    )
    for j in review.jobs:
        c = j.contract
        card = Text()
        card.append(f"\n{c.job}", style="bold")
        card.append(f"  {c.framework}  ", style="magenta")
        card.append(f"{c.path}:{c.line}  ", style="dim")
        card.append(f"score {j.score}\n", style="bold")
        rows = (
            ("parameters", ", ".join(j.parameters) or "-"),
            ("queue", c.queue),
            ("time limit", c.time_limit),
            ("retries", c.retries),
            ("backoff", c.backoff),
            ("dead letter", c.dead_letter),
            ("delivery", c.delivery),
            ("schedule", c.schedule),
            ("lock", c.lock),
            ("idempotency", "; ".join(j.idempotency) or "none found"),
            ("enqueued at", _places(j.enqueue_sites)),
            ("findings", "; ".join(j.findings) or "none"),
            ("missing", ", ".join(m.replace("_", " ") for m in j.missing) or "-"),
        )
        for label, value in rows:
            card.append(f"  {label:<13}{value}\n")
        yield card
    yield Text("\nQueues", style="bold")
    for q in review.queues:
        line = f"  {q.name} ({q.framework}): {', '.join(q.jobs) or '-'}; bounds: "
        line += ", ".join(q.bounds) or "none"
        if q.workers is not None:
            line += f"; workers: {', '.join(q.workers) or 'none consumes it'}"
        if q.mixed:
            line += f"; person-facing {', '.join(q.person_facing)} with bulk {', '.join(q.bulk)}"
        yield Text(line)
    yield Text("\nSchedule", style="bold")
    for sch in review.schedules:
        overlap = f"; {sch.overlap}" if sch.overlap else ""
        yield Text(f"  {sch.when}: {sch.job} ({sch.source}, {sch.path}:{sch.line}){overlap}")
    if any(sch.minutes for sch in review.schedules):
        yield Text("\nStart minutes over a day (. one start, : two, ... @ nine or more):")
        yield Text("\n".join(heat_rows(review)))


def _places(sites: list[str]) -> str:
    if not sites:
        return "nowhere in sight"
    shown = ", ".join(sites[:3])
    return shown + (f" and {len(sites) - 3} more" if len(sites) > 3 else "")


def markdown(review: Review) -> str:
    met, total = review.score
    lines = [
        "## jobcheck review",
        "",
        f"**{len(review.jobs)} jobs**, contract score **{met}/{total}**; "
        f"{len(review.queues)} queues; {len(review.schedules)} schedules.",
        "",
    ]
    weakest = sorted(review.jobs, key=lambda j: (-len(j.missing), j.contract.job))[:10]
    if any(j.missing for j in weakest):
        lines += ["| job | missing from its contract | findings |", "|---|---|---:|"]
        for j in weakest:
            if j.missing:
                missing = ", ".join(m.replace("_", " ") for m in j.missing)
                lines.append(f"| `{j.contract.job}` | {missing} | {len(j.findings)} |")
        lines.append("")
    lines += _details("Jobs", _job_table(review))
    lines += _details("Queues", _queue_table(review))
    lines += _details("Schedule", _schedule_table(review))
    if any(s.minutes for s in review.schedules):
        lines += _details("Start minutes (heat map)", ["```", *heat_rows(review), "```"])
    return "\n".join(lines) + "\n"


def _details(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _job_table(review: Review) -> list[str]:
    rows = [
        "| job | framework | queue | time limit | retries | backoff | dead letter | delivery "
        "| schedule | lock | idempotency | sends | score |",
        "|---|---|---|---|---|---|---|---|---|---|---|---:|---:|",
    ]
    for j in review.jobs:
        c = j.contract
        cells = (
            f"`{c.job}` ({c.path}:{c.line})",
            c.framework,
            c.queue,
            c.time_limit,
            c.retries,
            c.backoff,
            c.dead_letter,
            c.delivery,
            c.schedule,
            c.lock,
            "; ".join(j.idempotency) or "none found",
            str(len(j.enqueue_sites)),
            j.score,
        )
        rows.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return rows


def _queue_table(review: Review) -> list[str]:
    rows = [
        "| queue | framework | jobs | bounds | workers | person-facing with bulk |",
        "|---|---|---|---|---|---|",
    ]
    for q in review.queues:
        mixed = f"{', '.join(q.person_facing)} with {', '.join(q.bulk)}" if q.mixed else "-"
        cells = (
            q.name,
            q.framework,
            ", ".join(q.jobs),
            ", ".join(q.bounds) or "none",
            _workers(q.workers),
            mixed,
        )
        rows.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return rows


def _workers(found: list[str] | None) -> str:
    if found is None:
        return "not in sight"
    return ", ".join(found) or "none consumes it"


def _schedule_table(review: Review) -> list[str]:
    rows = ["| when | job | source | where | overlap |", "|---|---|---|---|---|"]
    for s in review.schedules:
        cells = (s.when, f"`{s.job}`", s.source, f"{s.path}:{s.line}", s.overlap or "-")
        rows.append("| " + " | ".join(_cell(x) for x in cells) + " |")
    return rows


def changes_text(revision: str, changes: list[Change]) -> Iterator[Any]:
    from rich.text import Text

    breaking = sum(1 for c in changes if c.breaking)
    yield Text(
        f"Since {revision}: {breaking} change(s) that break jobs already in the queues"
        if breaking
        else f"Since {revision}: nothing that breaks jobs already in the queues",
        style="bold red" if breaking else "bold",
    )
    for c in changes:
        yield Text(f"  {c.path}:{c.line}: {c.kind}: {c.message}")
    yield Text("")


def changes_markdown(revision: str, changes: list[Change]) -> str:
    breaking = [c for c in changes if c.breaking]
    if not breaking:
        return (
            f"### Deploy safety since `{revision}`\n\n"
            "Nothing breaks jobs already in the queues.\n\n"
        )
    lines = [
        f"### Deploy safety since `{revision}`: {len(breaking)} breaking change(s)",
        "",
        "| where | change | what to do |",
        "|---|---|---|",
    ]
    for c in changes:
        lines.append(f"| {c.path}:{c.line} | `{c.job}` {c.kind} | {_cell(c.message)} |")
    return "\n".join(lines) + "\n\n"
