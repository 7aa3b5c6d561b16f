"""The example shop shows every queue and dead-letter check at least once; the queue
advice fits the broker."""

from __future__ import annotations

from pathlib import Path

from jobcheck.catalog import load_catalog
from jobcheck.config import Options
from jobcheck.engine import RunSettings, Selection, check_paths

SHOP = Path(__file__).parent.parent / "examples" / "shop"


def test_example_shop_shows_each_queue_check() -> None:
    selection = Selection.resolve(load_catalog(), ["SCL-19", "SCL-20", "SCL-34", "EVT-24"], [])
    report = check_paths([str(SHOP)], Options(root=str(SHOP)), selection, RunSettings(jobs=1))
    found = {(f.rule, f.check) for f in report.findings}
    assert {
        ("SCL-19", "unbounded-queue"),
        ("SCL-19", "unbounded-fan-out"),
        ("SCL-20", "urgent-job-shares-queue"),
        ("SCL-34", "no-dead-letter"),
        ("EVT-24", "dead-letter-without-runbook"),
    } <= found
    # The correct twins stay silent: the bounded "urgent" and "exports" queues, the
    # batched export, the RQ failed job registry covered by its runbook.
    assert ("SCL-20", "queue-without-worker") in found  # the Procfile's worker skips exports
    # (prefetch-holds-short-jobs names every long late-acknowledged task, the batched
    # export among them: it is about the workers' prefetch, not the task's queue.)
    messages = " ".join(
        f.message
        for f in report.findings
        if f.check not in ("queue-without-worker", "prefetch-holds-short-jobs")
    )
    assert "'urgent'" not in messages and "'exports'" not in messages
    assert "export_customers" not in messages
    assert "RQ's failed job registry" not in messages


FIXTURES = Path(__file__).parent / "fixtures"


def _unbounded_queue_messages(case: Path) -> list[str]:
    selection = Selection.resolve(load_catalog(), ["unbounded-queue"], [])
    report = check_paths([str(case)], Options(root=str(case)), selection, RunSettings(jobs=1))
    return [f.message for f in report.findings]


def test_unbounded_queue_advice_follows_the_broker() -> None:
    (redis,) = _unbounded_queue_messages(FIXTURES / "SCL-19/unbounded-queue/celery_default_queue")
    assert "expires=" in redis and "redis transport" in redis and "x-max-length" not in redis
    (amqp,) = _unbounded_queue_messages(FIXTURES / "SCL-18/missing-time-limit/celery_inheritance")
    assert "'x-max-length': N" in amqp and "expires=" in amqp
