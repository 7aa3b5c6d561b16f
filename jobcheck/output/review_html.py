"""``jobcheck review --format html``: one self-contained page (no network: the styles,
the script and the pictures are inline) with sortable, filterable tables of the jobs,
the queues and the schedule, the heat map of start minutes and the queue graph as SVG.
Text from the project is HTML-escaped with its secrets masked and control characters
escaped (``jobcheck/output/encoding.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from jobcheck.output.encoding import html_text as escape

if TYPE_CHECKING:
    from jobcheck.review_diff import Change
    from jobcheck.review_report import Review

CELL = 11
"""Heat map cell size, in pixels."""

STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem auto;max-width:1400px;padding:0 1rem;
color:#1b1f24;box-sizing:border-box}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0;table-layout:fixed}
th,td{border:1px solid #d0d7de;padding:.25rem .4rem;text-align:left;vertical-align:top;
overflow-wrap:anywhere}
td .c{display:-webkit-box;-webkit-line-clamp:4;-webkit-box-orient:vertical;overflow:hidden}
td small{display:block;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#jobs{font-size:12.5px}
svg{max-width:100%;height:auto}
th{background:#f6f8fa;cursor:pointer;user-select:none;overflow-wrap:normal}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
input[type=search]{padding:.3rem;width:20rem;max-width:100%}
.breaking{color:#b42318;font-weight:600}.missing{color:#9a6700}
svg text{font:10px system-ui,sans-serif}
"""

SCRIPT = """
function key(cell) {
  var marked = cell.querySelector("[data-sort]") || cell;
  return marked.getAttribute("data-sort") || cell.textContent.trim();
}
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th").forEach(function (th, column) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0];
      var rows = Array.prototype.slice.call(body.rows);
      var ascending = th.getAttribute("aria-sort") !== "ascending";
      table.querySelectorAll("th").forEach(function (h) { h.removeAttribute("aria-sort"); });
      th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
      rows.sort(function (a, b) {
        var x = key(a.cells[column]), y = key(b.cells[column]);
        var nx = parseFloat(x), ny = parseFloat(y);
        var order = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : (x < y ? -1 : x > y ? 1 : 0);
        return ascending ? order : -order;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
document.querySelectorAll("input[data-filter]").forEach(function (input) {
  var table = document.getElementById(input.getAttribute("data-filter"));
  input.addEventListener("input", function () {
    var needle = input.value.toLowerCase();
    Array.prototype.forEach.call(table.tBodies[0].rows, function (row) {
      row.hidden = needle !== "" && row.textContent.toLowerCase().indexOf(needle) < 0;
    });
  });
});
"""


def html(review: Review, changes: list[Change] | None = None, revision: str = "") -> str:
    met, total = review.score
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        "<title>jobcheck review</title>",
        f"<style>{STYLE}</style>",
        "</head>",
        "<body>",
        "<h1>jobcheck review</h1>",
        f'<p id="summary">{len(review.jobs)} jobs, contract score <strong>{met}/{total}</strong>; '
        f"{len(review.queues)} queues; {len(review.schedules)} schedules.</p>",
        *_first(review),
    ]
    if changes is not None:
        parts += _changes(changes, revision)
    parts += _jobs(review)
    parts += _queues(review)
    parts += _schedule(review)
    parts += [f"<script>{SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"


FIRST = 10
"""How many jobs "Fix these first" names."""


def _first(review: Review) -> list[str]:
    """The jobs with the most findings and missing contract items, and the checks that
    report most: where a reader of a large project starts."""
    ranked = sorted(
        (j for j in review.jobs if j.findings or j.missing),
        key=lambda j: (-len(j.findings), -len(j.missing), j.contract.job),
    )[:FIRST]
    if not ranked:
        return []
    items = []
    for j in ranked:
        missing = ", ".join(m.replace("_", " ") for m in j.missing)
        what = [f"{len(j.findings)} finding(s)"] if j.findings else []
        what += [f"missing {missing}"] if missing else []
        items.append(f"<li><code>{escape(j.contract.job)}</code>: {escape('; '.join(what))}</li>")
    return ["<h2>Fix these first</h2>", f'<ol id="first">{"".join(items)}</ol>']


def _clamped(text: str, css: str = "") -> str:
    """A cell's text cut to four lines on the page, whole in its tooltip and the DOM."""
    shown = escape(text)
    return f'<div class="c {css}" title="{shown}">{shown}</div>'


def _short_delivery(text: str) -> str:
    """The delivery sentence's first clause ("early (Celery's default)"): the rest is
    said once, under the table."""
    return text.split(":", 1)[0].split(";", 1)[0]


def _table(
    table_id: str,
    label: str,
    headers: list[str],
    rows: list[list[str]],
    widths: list[int] | None = None,
) -> list[str]:
    """A sortable table with a filter box; cells are already escaped HTML; ``widths``
    in percent of the table, one per column (the table never overflows the page)."""
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in headers)
    columns = (
        "<colgroup>" + "".join(f'<col style="width:{w}%">' for w in widths) + "</colgroup>"
        if widths
        else ""
    )
    body = "\n".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return [
        f'<label>Filter {escape(label)}: <input type="search" data-filter="{table_id}" '
        f'id="{table_id}-filter"></label>',
        f'<table class="sortable" id="{table_id}">{columns}<thead><tr>{head}</tr></thead>',
        f"<tbody>\n{body}\n</tbody></table>",
    ]


def _changes(changes: list[Change], revision: str) -> list[str]:
    breaking = sum(1 for c in changes if c.breaking)
    title = (
        f"{breaking} change(s) since {escape(revision)} break jobs already in the queues"
        if breaking
        else f"Nothing since {escape(revision)} breaks jobs already in the queues"
    )
    rows = [
        [escape(f"{c.path}:{c.line}"), escape(c.job), escape(c.kind), escape(c.message)]
        for c in changes
    ]
    headers = ["where", "job", "change", "what to do"]
    table = _table("changes", "changes", headers, rows) if rows else []
    css = "breaking" if breaking else "safe"
    return ["<h2>Deploy safety</h2>", f'<p class="{css}">{title}</p>', *table]


def _jobs(review: Review) -> list[str]:
    rows = []
    deliveries: dict[str, list[str]] = {}
    for j in review.jobs:
        c = j.contract
        missing = ", ".join(m.replace("_", " ") for m in j.missing)
        deliveries.setdefault(c.delivery, []).append(c.framework)
        total = len(j.met) + len(j.missing)
        rows.append(
            [
                f'<code data-sort="{escape(c.job)}">{escape(c.job)}</code><br>'
                f'<small title="{escape(c.path)}:{c.line}">{escape(c.path)}:{c.line}</small>',
                f'<span data-sort="{len(j.met) / total if total else 1:.3f}">'
                f"{len(j.met)}/{total}</span>",
                _clamped(missing, "missing") if missing else "-",
                str(len(j.findings)),
                escape(c.framework),
                _clamped(c.queue),
                _clamped(c.time_limit),
                _clamped(c.retries),
                _clamped(c.backoff),
                _clamped(c.dead_letter),
                _clamped(_short_delivery(c.delivery)),
                _clamped(c.schedule),
                _clamped(c.lock),
                _clamped("; ".join(j.idempotency) or "none found"),
                str(len(j.enqueue_sites)),
            ]
        )
    headers = [
        "job",
        "score",
        "missing",
        "findings",
        "framework",
        "queue",
        "time limit",
        "retries",
        "backoff",
        "dead letter",
        "delivery",
        "schedule",
        "lock",
        "idempotency",
        "sends",
    ]
    widths = [14, 4, 8, 5, 7, 7, 7, 8, 6, 7, 6, 7, 3, 7, 4]
    said = [
        f"<li><strong>{escape(_short_delivery(text))}</strong> "
        f"({escape(', '.join(sorted(set(frameworks))))}, {len(frameworks)} job(s)): "
        f"{escape(text)}</li>"
        for text, frameworks in deliveries.items()
        if text and text != "-"
    ]
    legend = ["<h3>Delivery, said once</h3>", f'<ul id="deliveries">{"".join(said)}</ul>']
    return ["<h2>Jobs</h2>", *_table("jobs", "jobs", headers, rows, widths), *legend]


def _queues(review: Review) -> list[str]:
    rows = [
        [
            escape(q.name),
            escape(q.framework),
            _clamped(f"{len(q.jobs)}: " + ", ".join(q.jobs)),
            _clamped(", ".join(q.bounds) or "none"),
            escape(
                "not in sight" if q.workers is None else ", ".join(q.workers) or "none consumes it"
            ),
            escape(f"{', '.join(q.person_facing)} with {', '.join(q.bulk)}") if q.mixed else "-",
        ]
        for q in review.queues
    ]
    headers = ["queue", "framework", "jobs", "bounds", "workers", "person-facing with bulk"]
    widths = [14, 8, 34, 16, 14, 14]
    table = _table("queues", "queues", headers, rows, widths)
    return ["<h2>Queues</h2>", *table, _queue_graph(review)]


GRAPH_JOBS = 40
"""Above this many jobs the queue graph is a bar per queue (a fan of lines is unreadable)."""


def _queue_graph(review: Review) -> str:
    """Jobs on the left, queues on the right, a line from each job to its queue; for a
    large project, a bar per queue as long as the jobs it runs."""
    queues = [q for q in review.queues if q.jobs]
    jobs = list(dict.fromkeys(job for q in queues for job in q.jobs))
    if not queues:
        return ""
    if len(jobs) > GRAPH_JOBS:
        return _queue_bars(queues)
    row = 18
    height = max(len(jobs), len(queues)) * row + 20
    y_job = {job: 20 + i * row for i, job in enumerate(jobs)}
    y_queue = {q.name: 20 + i * row for i, q in enumerate(queues)}
    lines = []
    for q in queues:
        for job in q.jobs:
            lines.append(
                f'<line x1="250" y1="{y_job[job] - 4}" x2="450" y2="{y_queue[q.name] - 4}" '
                'stroke="#8c959f"/>'
            )
    mixed = ' fill="#b42318"'
    labels = [
        f'<text x="245" y="{y}" text-anchor="end">{escape(job)}</text>' for job, y in y_job.items()
    ] + [
        f'<text x="455" y="{y_queue[q.name]}"{mixed if q.mixed else ""}>{escape(q.name)}</text>'
        for q in queues
    ]
    return (
        f'<svg id="queue-graph" role="img" aria-label="Jobs and the queues they run on" '
        f'width="700" height="{height}" viewBox="0 0 700 {height}">'
        + "".join(lines + labels)
        + "</svg>"
    )


def _queue_bars(queues: list) -> str:  # type: ignore[type-arg]
    row, label, width = 20, 260, 1000
    most = max(len(q.jobs) for q in queues)
    parts = []
    for i, q in enumerate(sorted(queues, key=lambda q: (-len(q.jobs), q.name))):
        y = 10 + i * row
        length = max(2, round((width - label - 80) * len(q.jobs) / most))
        color = "#b42318" if q.mixed else "#8c959f"
        names = ", ".join(q.jobs[:8]) + (f" and {len(q.jobs) - 8} more" if len(q.jobs) > 8 else "")
        parts.append(
            f'<text x="{label - 6}" y="{y + 12}" text-anchor="end">{escape(q.name)}</text>'
            f'<rect x="{label}" y="{y + 2}" width="{length}" height="{row - 6}" fill="{color}">'
            f"<title>{escape(names)}</title></rect>"
            f'<text x="{label + length + 6}" y="{y + 12}">{len(q.jobs)} jobs</text>'
        )
    height = 20 + len(queues) * row
    return (
        f'<svg id="queue-graph" role="img" aria-label="Jobs per queue" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
        + "".join(parts)
        + "</svg>"
    )


def _schedule(review: Review) -> list[str]:
    rows = [
        [
            escape(s.when),
            escape(s.job),
            escape(s.source),
            escape(f"{s.path}:{s.line}"),
            escape(s.overlap or "-"),
        ]
        for s in review.schedules
    ]
    for row, s in zip(rows, review.schedules):
        first = s.minutes[0] if s.minutes else (99, 99)
        row[0] = f'<span data-start="{first[0]:02d}:{first[1]:02d}">{row[0]}</span>'
    unplaced = [s for s in review.schedules if not s.minutes]
    strip = []
    if unplaced:
        items = "".join(
            f"<li>{escape(s.when)}: <code>{escape(s.job)}</code></li>" for s in unplaced
        )
        strip = [
            "<h3>Not on the map: intervals counted from the scheduler's start, and times "
            "jobcheck cannot read</h3>",
            f'<ul id="unplaced">{items}</ul>',
        ]
    widths = [22, 22, 20, 16, 20]
    return [
        "<h2>Schedule</h2>",
        *_table(
            "schedule", "schedules", ["when", "job", "source", "where", "overlap"], rows, widths
        ),
        "<h2>Start minutes over a day</h2>",
        _heat_map(review),
        *strip,
    ]


def _heat_map(review: Review) -> str:
    """24 rows (hours) of 60 cells (minutes): darker where more schedules start."""
    grid = review.heat_map()
    starting: dict[tuple[int, int], list[str]] = {}
    for schedule in review.schedules:
        for start in schedule.minutes:
            starting.setdefault(start, []).append(schedule.job)
    peak = max((n for row in grid for n in row), default=0) or 1
    left, top = 30, 16
    cells = []
    for hour, row in enumerate(grid):
        for minute, count in enumerate(row):
            shade = 0.08 + 0.92 * count / peak if count else 0.0
            fill = f"rgba(180,35,24,{shade:.2f})" if count else "#f6f8fa"
            names = list(dict.fromkeys(starting.get((hour, minute), [])))
            who = ": " + ", ".join(names[:6]) if names else ""
            more = f" and {len(names) - 6} more" if len(names) > 6 else ""
            cells.append(
                f'<rect x="{left + minute * CELL}" y="{top + hour * CELL}" width="{CELL - 1}" '
                f'height="{CELL - 1}" fill="{fill}"><title>{hour:02d}:{minute:02d}: '
                f"{count} start(s){escape(who)}{more}</title></rect>"
            )
    hours = [f'<text x="0" y="{top + h * CELL + 9}">{h:02d}h</text>' for h in range(0, 24, 3)]
    minutes = [f'<text x="{left + m * CELL}" y="10">:{m:02d}</text>' for m in range(0, 60, 10)]
    width, height = left + 60 * CELL, top + 24 * CELL
    return (
        f'<svg id="heat-map" role="img" aria-label="Schedule starts per minute of the day" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}">'
        + "".join(cells + hours + minutes)
        + "</svg>"
    )
