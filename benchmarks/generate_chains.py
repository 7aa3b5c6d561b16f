"""A project whose jobs hand their work to helpers, several calls deep, for the speed of
call summaries (``jobcheck/project/summaries.py``).

    python benchmarks/generate_chains.py OUT [--jobs 200] [--depth 4] [--filler 40]

Writes ``OUT/chains/``: ``tasks.py`` with ``--jobs`` Celery tasks, each calling a
service in ``services/s<i>.py``, which calls a client in ``clients/c<i>.py``, and so on,
``--depth`` modules deep; the last helper posts a webhook (every third one without a
timeout) or sends a mail. Each helper module also holds ``--filler`` functions nobody
calls and a model class, as real service modules do, so that reading a helper alone
(``jobcheck/extract/parts.py``) has something to skip. None of the helper modules names
a job library: the prefilter skips them, and only the summaries read them.

Then compare ``jobcheck check OUT --no-cache`` with ``ruff check --select ALL
--no-cache OUT`` (``benchmarks/bench.py OUT`` does both).
"""

from __future__ import annotations

import argparse
from pathlib import Path

LAYERS = ("services", "clients", "adapters", "transport", "wire", "edge")

FILLER = """

def unused_{n}(items):
    total = 0
    for item in items:
        if item.get("kind") == "{n}":
            total += item.get("amount", 0)
    return {{"total": total, "count": len(items)}}
"""

MODEL = """

class Record{i}:
    def __init__(self, pk):
        self.pk = pk

    def describe(self):
        return f"record {{self.pk}}"
"""


def helper_module(layer: int, index: int, depth: int, filler: int) -> str:
    lines = ["import logging", "", "import requests", "from django.core.mail import send_mail"]
    if layer + 1 < depth:
        nxt = LAYERS[layer + 1]
        lines.append(f"from chains.{nxt}.m{index} import step_{index} as next_step")
    lines += ["", "logger = logging.getLogger(__name__)", ""]
    body = [f"\ndef step_{index}(order_id):", "    payload = {'id': order_id}"]
    if layer + 1 < depth:
        body.append("    return next_step(order_id)")
    elif index % 3 == 0:
        body.append("    return requests.post('https://hooks.example.com', json=payload)")
    elif index % 3 == 1:
        body.append(
            "    return requests.post('https://hooks.example.com', json=payload, timeout=5)"
        )
    else:
        body.append("    send_mail('Order', str(payload), 'shop@example.com', ['ops@example.com'])")
    text = "\n".join(lines + body) + "\n"
    text += "".join(FILLER.format(n=n) for n in range(filler))
    text += MODEL.format(i=index)
    return text


def tasks_module(jobs: int) -> str:
    lines = ["from celery import shared_task", ""]
    lines += [f"from chains.services.m{i} import step_{i}" for i in range(jobs)]
    for i in range(jobs):
        lines += [
            "",
            "",
            "@shared_task(time_limit=60, acks_late=True)",
            f"def job_{i}(order_id):",
            f"    return step_{i}(order_id)",
        ]
    return "\n".join(lines) + "\n"


def write(out: Path, jobs: int, depth: int, filler: int) -> None:
    root = out / "chains"
    root.mkdir(parents=True, exist_ok=True)
    (root / "__init__.py").write_text("")
    (root / "tasks.py").write_text(tasks_module(jobs))
    for layer in range(depth):
        folder = root / LAYERS[layer]
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text("")
        for i in range(jobs):
            (folder / f"m{i}.py").write_text(helper_module(layer, i, depth, filler))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--jobs", type=int, default=200)
    parser.add_argument("--depth", type=int, default=4, choices=range(1, len(LAYERS) + 1))
    parser.add_argument("--filler", type=int, default=40)
    args = parser.parse_args()
    write(args.out, args.jobs, args.depth, args.filler)
    print(f"{args.out / 'chains'}: {args.jobs} jobs, {args.jobs * args.depth} helper modules")


if __name__ == "__main__":
    main()
