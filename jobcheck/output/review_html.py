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
body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#1b1f24}
h1{font-size:1.4rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa;cursor:pointer;user-select:none}
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
    ]
    if changes is not None:
        parts += _changes(changes, revision)
    parts += _jobs(review)
    parts += _queues(review)
    parts += _schedule(review)
    parts += [f"<script>{SCRIPT}</script>", "</body>", "</html>"]
    return "\n".join(parts) + "\n"


def _table(table_id: str, label: str, headers: list[str], rows: list[list[str]]) -> list[str]:
    """A sortable table with a filter box; cells are already escaped HTML."""
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in headers)
    body = "\n".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return [
        f'<label>Filter {escape(label)}: <input type="search" data-filter="{table_id}" '
        f'id="{table_id}-filter"></label>',
        f'<table class="sortable" id="{table_id}"><thead><tr>{head}</tr></thead>',
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
    for j in review.jobs:
        c = j.contract
        missing = ", ".join(m.replace("_", " ") for m in j.missing)
        rows.append(
            [
                f'<code data-sort="{escape(c.job)}">{escape(c.job)}</code><br>'
                f"<small>{escape(c.path)}:{c.line}</small>",
                escape(c.framework),
                escape(c.queue),
                escape(c.time_limit),
                escape(c.retries),
                escape(c.backoff),
                escape(c.dead_letter),
                escape(c.delivery),
                escape(c.schedule),
                escape(c.lock),
                escape("; ".join(j.idempotency) or "none found"),
                str(len(j.enqueue_sites)),
                str(len(j.findings)),
                f'<span class="missing">{escape(missing)}</span>' if missing else "-",
            ]
        )
        rows[-1].append(f"{len(j.met)}/{len(j.met) + len(j.missing)}")
    headers = [
        "job",
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
        "findings",
        "missing",
        "score",
    ]
    return ["<h2>Jobs</h2>", *_table("jobs", "jobs", headers, rows)]


def _queues(review: Review) -> list[str]:
    rows = [
        [
            escape(q.name),
            escape(q.framework),
            escape(", ".join(q.jobs)),
            escape(", ".join(q.bounds) or "none"),
            escape(
                "not in sight" if q.workers is None else ", ".join(q.workers) or "none consumes it"
            ),
            escape(f"{', '.join(q.person_facing)} with {', '.join(q.bulk)}") if q.mixed else "-",
        ]
        for q in review.queues
    ]
    headers = ["queue", "framework", "jobs", "bounds", "workers", "person-facing with bulk"]
    return ["<h2>Queues</h2>", *_table("queues", "queues", headers, rows), _queue_graph(review)]


def _queue_graph(review: Review) -> str:
    """Jobs on the left, queues on the right, a line from each job to its queue."""
    queues = [q for q in review.queues if q.jobs]
    jobs = list(dict.fromkeys(job for q in queues for job in q.jobs))
    if not queues:
        return ""
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
    return [
        "<h2>Schedule</h2>",
        *_table("schedule", "schedules", ["when", "job", "source", "where", "overlap"], rows),
        "<h2>Start minutes over a day</h2>",
        _heat_map(review),
    ]


def _heat_map(review: Review) -> str:
    """24 rows (hours) of 60 cells (minutes): darker where more schedules start."""
    grid = review.heat_map()
    peak = max((n for row in grid for n in row), default=0) or 1
    left, top = 30, 16
    cells = []
    for hour, row in enumerate(grid):
        for minute, count in enumerate(row):
            shade = 0.08 + 0.92 * count / peak if count else 0.0
            fill = f"rgba(180,35,24,{shade:.2f})" if count else "#f6f8fa"
            cells.append(
                f'<rect x="{left + minute * CELL}" y="{top + hour * CELL}" width="{CELL - 1}" '
                f'height="{CELL - 1}" fill="{fill}"><title>{hour:02d}:{minute:02d}: '
                f"{count} start(s)</title></rect>"
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
