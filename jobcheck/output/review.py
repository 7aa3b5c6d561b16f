"""``jobcheck review`` as text (rich cards and lines) and Markdown (a pull-request comment:
summary first, details collapsible). JSON is ``Review.as_dict()`` (:func:`json_document`
adds the deploy-safety changes).

Every name, command and path comes from the project under review, that is from the pull
request: in the text form it is shown with secrets masked, control characters escaped
and no line a CI runner would read as a command; in Markdown it is a code span or
escaped text, so it can add no heading, table row, link, image, HTML or mention to the
comment (``jobcheck/output/encoding.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, TextIO

from jobcheck.output.encoding import guard_line, json_text, masked_data, md_code, md_text, terminal

if TYPE_CHECKING:
    from rich.text import Text

    from jobcheck.review_diff import Change
    from jobcheck.review_report import JobReview, Review

HEAT = " .:-=+*#%@"
"""Heat map cells: how many schedules start in that minute (9 or more: @)."""


def heat_rows(review: Review) -> Iterator[str]:
    """One line per hour: the hour, then one character per minute."""
    yield "     " + "".join(str(m // 10) if m % 10 == 0 else " " for m in range(60))
    for hour, row in enumerate(review.heat_map()):
        yield f"{hour:02d}h  " + "".join(HEAT[min(n, 9)] for n in row)


# -- text -------------------------------------------------------------------------------


def _t(text: str) -> str:
    return terminal(text)


def _joined(items: Iterable[str], empty: str = "") -> str:
    return ", ".join(_t(item) for item in items) or empty


def text(review: Review) -> Iterator[Text]:
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
        yield _card(j)
    yield Text("\nQueues", style="bold")
    for q in review.queues:
        line = f"  {_t(q.name)} ({_t(q.framework)}): {_joined(q.jobs, '-')}; bounds: "
        line += _joined(q.bounds, "none")
        if q.workers is not None:
            line += f"; workers: {_joined(q.workers, 'none consumes it')}"
        if q.mixed:
            line += f"; person-facing {_joined(q.person_facing)} with bulk {_joined(q.bulk)}"
        yield Text(guard_line(line))
    yield Text("\nSchedule", style="bold")
    for sch in review.schedules:
        overlap = f"; {_t(sch.overlap)}" if sch.overlap else ""
        yield Text(
            guard_line(
                f"  {_t(sch.when)}: {_t(sch.job)} ({_t(sch.source)}, {_t(sch.path)}:{sch.line})"
                f"{overlap}"
            )
        )
    if any(sch.minutes for sch in review.schedules):
        yield Text("\nStart minutes over a day (. one start, : two, ... @ nine or more):")
        yield Text("\n".join(heat_rows(review)))


def _card(j: JobReview) -> Text:
    from rich.text import Text

    c = j.contract
    card = Text()
    card.append("\n" + guard_line(_t(c.job)), style="bold")
    card.append(f"  {_t(c.framework)}  ", style="magenta")
    card.append(f"{_t(c.path)}:{c.line}  ", style="dim")
    card.append(f"score {j.score}\n", style="bold")
    rows = (
        ("parameters", _joined(j.parameters, "-")),
        ("queue", _t(c.queue)),
        ("time limit", _t(c.time_limit)),
        ("retries", _t(c.retries)),
        ("backoff", _t(c.backoff)),
        ("dead letter", _t(c.dead_letter)),
        ("delivery", _t(c.delivery)),
        ("schedule", _t(c.schedule)),
        ("lock", _t(c.lock)),
        ("idempotency", "; ".join(_t(i) for i in j.idempotency) or "none found"),
        ("enqueued at", _places(j.enqueue_sites)),
        ("findings", "; ".join(_t(f) for f in j.findings) or "none"),
        ("missing", ", ".join(m.replace("_", " ") for m in j.missing) or "-"),
    )
    for label, value in rows:
        card.append(f"  {label:<13}{value}\n")
    return card


def _places(sites: list[str]) -> str:
    if not sites:
        return "nowhere in sight"
    shown = _joined(sites[:3])
    return shown + (f" and {len(sites) - 3} more" if len(sites) > 3 else "")


def write_text(
    review: Review,
    changes: list[Change] | None = None,
    revision: str = "",
    stream: TextIO | None = None,
) -> None:
    """Print the text form (the changes since ``revision`` first, when given) without
    wrapping or cropping: rich wraps a line at the terminal's width (80 columns in a CI
    log), and a wrapped line may start with what a name put in the middle of one."""
    from rich.console import Console

    console = Console(file=stream, soft_wrap=True, highlight=False)
    if changes is not None:
        for part in changes_text(revision, changes):
            console.print(part)
    for part in text(review):
        console.print(part)


# -- Markdown ---------------------------------------------------------------------------


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
                lines.append(f"| {md_code(j.contract.job)} | {missing} | {len(j.findings)} |")
        lines.append("")
    lines += _details("Jobs", _job_table(review))
    lines += _details("Queues", _queue_table(review))
    lines += _details("Schedule", _schedule_table(review))
    if any(s.minutes for s in review.schedules):
        lines += _details("Start minutes (heat map)", ["```", *heat_rows(review), "```"])
    return "\n".join(lines) + "\n"


def _details(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _row(cells: Iterable[str]) -> str:
    """A table row of cells already written as Markdown."""
    return "| " + " | ".join(cells) + " |"


def _codes(items: Iterable[str], empty: str = "-") -> str:
    return ", ".join(md_code(item) for item in items) or empty


def _job_table(review: Review) -> list[str]:
    rows = [
        "| job | framework | queue | time limit | retries | backoff | dead letter | delivery "
        "| schedule | lock | idempotency | sends | score |",
        "|---|---|---|---|---|---|---|---|---|---|---|---:|---:|",
    ]
    for j in review.jobs:
        c = j.contract
        cells = (
            f"{md_code(c.job)} ({md_text(f'{c.path}:{c.line}')})",
            md_text(c.framework),
            md_text(c.queue),
            md_text(c.time_limit),
            md_text(c.retries),
            md_text(c.backoff),
            md_text(c.dead_letter),
            md_text(c.delivery),
            md_text(c.schedule),
            md_text(c.lock),
            md_text("; ".join(j.idempotency) or "none found"),
            str(len(j.enqueue_sites)),
            j.score,
        )
        rows.append(_row(cells))
    return rows


def _queue_table(review: Review) -> list[str]:
    rows = [
        "| queue | framework | jobs | bounds | workers | person-facing with bulk |",
        "|---|---|---|---|---|---|",
    ]
    for q in review.queues:
        mixed = f"{_codes(q.person_facing)} with {_codes(q.bulk)}" if q.mixed else "-"
        cells = (
            md_code(q.name),
            md_text(q.framework),
            _codes(q.jobs, ""),
            md_text(", ".join(q.bounds) or "none"),
            md_text(_workers(q.workers)),
            mixed,
        )
        rows.append(_row(cells))
    return rows


def _workers(found: list[str] | None) -> str:
    if found is None:
        return "not in sight"
    return ", ".join(found) or "none consumes it"


def _schedule_table(review: Review) -> list[str]:
    rows = ["| when | job | source | where | overlap |", "|---|---|---|---|---|"]
    for s in review.schedules:
        cells = (
            md_text(s.when),
            md_code(s.job),
            md_text(s.source),
            md_text(f"{s.path}:{s.line}"),
            md_text(s.overlap or "-"),
        )
        rows.append(_row(cells))
    return rows


# -- changes since a revision -------------------------------------------------------------


def changes_text(revision: str, changes: list[Change]) -> Iterator[Text]:
    from rich.text import Text

    breaking = sum(1 for c in changes if c.breaking)
    shown = _t(revision)
    yield Text(
        f"Since {shown}: {breaking} change(s) that break jobs already in the queues"
        if breaking
        else f"Since {shown}: nothing that breaks jobs already in the queues",
        style="bold red" if breaking else "bold",
    )
    for c in changes:
        yield Text(guard_line(f"  {_t(c.path)}:{c.line}: {_t(c.kind)}: {_t(c.message)}"))
    yield Text("")


def changes_markdown(revision: str, changes: list[Change]) -> str:
    breaking = [c for c in changes if c.breaking]
    since = md_code(revision, in_table=False)
    if not breaking:
        return f"### Deploy safety since {since}\n\nNothing breaks jobs already in the queues.\n\n"
    lines = [
        f"### Deploy safety since {since}: {len(breaking)} breaking change(s)",
        "",
        "| where | change | what to do |",
        "|---|---|---|",
    ]
    for c in changes:
        cells = (
            md_text(f"{c.path}:{c.line}"),
            f"{md_code(c.job)} {md_text(c.kind)}",
            md_text(c.message),
        )
        lines.append(_row(cells))
    return "\n".join(lines) + "\n\n"


# -- JSON -------------------------------------------------------------------------------


def json_document(
    review: Review, changes: list[Change] | None = None, revision: str | None = None
) -> str:
    """The JSON form: ``Review.as_dict()``, with ``changed_since`` and ``changes`` when
    asked; secrets masked, a lone surrogate as its escape."""
    data = review.as_dict()
    if changes is not None:
        data["changed_since"] = revision
        data["changes"] = [c.as_dict() for c in changes]
    return json_text(masked_data(data))
