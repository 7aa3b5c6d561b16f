"""``jobcheck jobs``: every job with its effective contract, and where each value comes from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from jobcheck.cli import cli

SOURCE = """\
import dramatiq
from celery import Celery, shared_task
from redis import Redis
from rq import Queue, Retry

app = Celery("proj", broker="redis://")
app.conf.task_time_limit = 300
app.conf.beat_schedule = {
    "nightly": {"task": "jobs.nightly", "schedule": 3600},
}
queue = Queue("reports", connection=Redis())


@shared_task(autoretry_for=(ConnectionError,), retry_backoff=True, max_retries=5, queue="mail")
def send(order_id):
    return order_id


@app.task(soft_time_limit=60)
def nightly():
    return None


def build(report_id):
    return report_id


def enqueue(report_id):
    queue.enqueue(build, report_id, retry=Retry(max=3, interval=[10, 60]))


@dramatiq.actor(time_limit=30_000, max_retries=None)
def index(pk):
    return pk
"""


def test_jobs_json_lists_every_job_with_its_contract(tmp_path: Path) -> None:
    (tmp_path / "jobs.py").write_text(SOURCE, encoding="utf-8")
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    jobs = {c["job"]: c for c in json.loads(result.output)["jobs"]}
    assert set(jobs) == {"jobs.send", "jobs.nightly", "index", "jobs.build"}
    build = jobs["jobs.build"]
    assert build["framework"] == "rq"
    assert build["queue"] == "reports"
    assert build["time_limit"] == "180 s (RQ default)"
    assert build["retries"] == "max 3"
    assert build["backoff"] == "intervals 10 s, 60 s"
    send = jobs["jobs.send"]
    assert send["queue"] == "mail"
    assert send["time_limit"] == "hard 300 s (global setting)"
    assert send["retries"] == "automatic on ConnectionError, max 5"
    assert send["backoff"] == "exponential with jitter"
    nightly = jobs["jobs.nightly"]
    assert nightly["time_limit"] == "hard 300 s (global setting), soft 60 s (task)"
    assert nightly["schedule"].startswith("beat entry 'nightly'")
    assert nightly["lock"] == "no"
    index = jobs["index"]
    assert index["framework"] == "dramatiq"
    assert index["time_limit"] == "30 s (actor)"
    assert index["retries"] == "unbounded"
    assert index["dead_letter"].startswith("dead-letter queue")


def test_jobs_text(tmp_path: Path) -> None:
    (tmp_path / "jobs.py").write_text(SOURCE, encoding="utf-8")
    result = CliRunner().invoke(cli, ["jobs", str(tmp_path)])
    assert result.exit_code == 0
    assert "jobs.send  celery" in result.output
    assert "time limit   hard 300 s (global setting)" in result.output
    assert "4 jobs." in result.output


HAND_RETRIES = """\
from celery import Celery, Task, shared_task
from celery.signals import task_failure

app = Celery("proj", broker="redis://")
app.conf.task_time_limit = 300


class Stored(Task):
    def on_failure(self, exc, task_id, args, kwargs, einfo):
        FailedTask.objects.create(task_id=task_id, error=str(exc))


@shared_task(bind=True, retry_backoff=True)
def fixed(self, url):
    try:
        return url
    except ConnectionError as exc:
        raise self.retry(exc=exc, countdown=5, max_retries=4)


@shared_task(bind=True, base=Stored)
def grows(self, url):
    try:
        return url
    except ConnectionError as exc:
        raise self.retry(exc=exc, countdown=2**self.request.retries)
"""


def test_jobs_show_retries_as_they_run(tmp_path: Path) -> None:
    """retry_backoff does not shape self.retry() (only autoretry_for retries); a failure
    handler counts for the jobs built on its class; test suites' jobs are not listed."""
    (tmp_path / "jobs.py").write_text(HAND_RETRIES, encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_jobs.py").write_text(
        "from celery import shared_task\n\n\n@shared_task\ndef dummy():\n    pass\n"
    )
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    jobs = {c["job"]: c for c in json.loads(result.output)["jobs"]}
    assert set(jobs) == {"jobs.fixed", "jobs.grows"}
    assert jobs["jobs.fixed"]["backoff"] == "fixed 5 s (countdown)"
    assert jobs["jobs.fixed"]["retries"] == "self.retry(), max 4"
    assert jobs["jobs.fixed"]["dead_letter"] == "none found"
    assert jobs["jobs.grows"]["backoff"] == "countdown computed per attempt"
    assert jobs["jobs.grows"]["dead_letter"] == "jobs.Stored.on_failure, which persists"


def test_huey_arq_and_taskiq_contracts_are_in_their_own_terms() -> None:
    fixtures = Path(__file__).parent / "fixtures"

    def contracts(case: str) -> dict[str, dict[str, str]]:
        result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(fixtures / case)])
        assert result.exit_code == 0, result.output
        return {c["job"]: c for c in json.loads(result.output)["jobs"]}

    huey = contracts("frameworks/huey/checked_project")
    assert huey["shop.tasks.fetch_rates"]["time_limit"] == "30 s (task)"
    assert huey["shop.tasks.fetch_rates"]["backoff"] == "fixed retry_delay=10 s"
    assert huey["shop.tasks.sync_stock"]["retries"] == "5"
    assert huey["shop.tasks.rebuild_search"]["time_limit"] == "none (timeout=0)"
    assert huey["shop.tasks.import_catalog"]["time_limit"] == (
        "unknown (its task_base class may set default_timeout)"
    )
    arq = contracts("frameworks/arq/checked_project")
    assert arq["backfill"]["time_limit"] == "none (SlowWorker.job_timeout=None)"
    assert arq["sync_orders"]["time_limit"] == "120 s (WorkerSettings.job_timeout)"
    assert arq["rebuild"]["time_limit"] == "3600 s (func timeout=)"
    assert arq["sync_orders"]["retries"].startswith("max_tries 5 (arq's default)")
    taskiq = contracts("frameworks/taskiq/checked_project")
    assert taskiq["tasks:sync_prices"]["time_limit"] == "60 s (timeout label)"
    assert taskiq["tasks:export"]["time_limit"] == (
        "none (no timeout label; its time_limit= label is never read)"
    )
    # middlewares/smart_retry_middleware.py: ``retries < max_retries`` counts the first run.
    assert taskiq["tasks:sync_prices"]["retries"] == "3 (max_retries=4 counts the first run)"
    assert {c["dead_letter"] for c in taskiq.values()} == {"none (taskiq keeps no failed tasks)"}


def _contracts(case: str) -> list[dict[str, str]]:
    fixtures = Path(__file__).parent / "fixtures"
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(fixtures / case)])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)["jobs"]


def test_schedules_that_run_their_own_code_are_listed_in_their_schedulers_terms() -> None:
    cronjobs = {c["job"]: c for c in _contracts("frameworks/kubernetes/cronjobs_checked")}
    report = cronjobs["nightly-report"]
    assert report["framework"] == "kubernetes"
    assert report["time_limit"] == "none (no activeDeadlineSeconds)"
    assert report["retries"] == "max 6 pods (backoffLimit, Kubernetes default)"
    assert report["lock"] == "no: concurrencyPolicy Allow (the default)"
    assert report["schedule"] == "CronJob 'nightly-report' (0 3 * * *)"
    assert cronjobs["sync-stock"]["time_limit"] == "600 s (activeDeadlineSeconds)"
    assert cronjobs["sync-stock"]["lock"] == "concurrencyPolicy: Forbid"
    # The CronJob that only runs 'celery call' is the Celery task's: listed once, as it.
    assert "expire-carts" not in cronjobs and "shop.celery.expire_carts" in cronjobs

    lines = {
        (c["path"].rsplit("/", 1)[-1], c["line"]): c
        for c in _contracts("frameworks/crontab/deploy")
    }
    sync = next(c for c in lines.values() if c["job"] == "python manage.py sync_orders")
    assert (sync["time_limit"], sync["lock"]) == ("600 s (timeout)", "flock")
    assert sync["dead_letter"] == "none: cron mails the output to MAILTO"

    clock = {(c["job"], c["line"]): c for c in _contracts("frameworks/apscheduler/job_defaults")}
    assert clock["poll_carriers", 10]["lock"] == "no: max_instances=3"  # job_defaults
    assert clock["poll_banks", 15]["lock"].startswith("one run at a time")
    assert clock["push_orders", 9]["lock"] == "no: max_instances=2"  # configure()
    assert clock["push_orders", 12]["time_limit"] == "none (APScheduler stops no run)"


def test_dramatiq_contracts_follow_the_brokers_middleware() -> None:
    """dramatiq/broker.py: a middleware list replaces the defaults; TimeLimit's and
    Retries' own options are every actor's defaults."""
    dropped = {c["job"]: c for c in _contracts("frameworks/dramatiq/broker_middleware")}[
        "send_email"
    ]
    assert dropped["time_limit"] == "1800 s (TimeLimit middleware)"
    assert dropped["retries"].startswith("none: a failure is dropped")
    assert (dropped["backoff"], dropped["dead_letter"]) == ("none", "none")
    added = {c["job"]: c for c in _contracts("frameworks/dramatiq/broker_middleware_added")}[
        "send_email"
    ]
    assert added["retries"] == "max 3 (Retries middleware)"
    assert added["dead_letter"] == "dead-letter queue (Dramatiq, kept 7 days)"
    django = {c["job"]: c for c in _contracts("frameworks/dramatiq/django_middleware")}
    assert django["reindex_product"]["time_limit"] == (
        'none: 60 s (actor), but no TimeLimit middleware in DRAMATIQ_BROKER["MIDDLEWARE"]'
    )


def test_django_rq_queue_default_timeouts_are_the_jobs_limits(tmp_path: Path) -> None:
    """django_rq/queues.py ``get_queue``: a queue's DEFAULT_TIMEOUT is its jobs' limit."""
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "settings.py").write_text(
        "RQ_QUEUES = {\n"
        "    'default': {'HOST': 'localhost', 'DEFAULT_TIMEOUT': 1800},\n"
        "    'system': {'HOST': 'localhost', 'DEFAULT_TIMEOUT': 120},\n"
        "    'low': {'HOST': 'localhost'},\n"
        "}\n"
    )
    (tmp_path / "shop" / "jobs.py").write_text(
        "from django_rq import job\n"
        "@job('system')\ndef send():\n    pass\n"
        "@job\ndef rebuild():\n    pass\n"
        "@job('low')\ndef prune():\n    pass\n"
    )
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(tmp_path)])
    limits = {
        c["job"].rsplit(".", 1)[-1]: c["time_limit"] for c in json.loads(result.output)["jobs"]
    }
    assert limits == {
        "send": "120 s (RQ_QUEUES['system']['DEFAULT_TIMEOUT'])",
        "rebuild": "1800 s (RQ_QUEUES['default']['DEFAULT_TIMEOUT'])",
        "prune": "180 s (RQ default)",
    }


def test_a_default_timeout_set_for_every_queue_by_a_comprehension(tmp_path: Path) -> None:
    """``RQ_QUEUES = {name: {..., "DEFAULT_TIMEOUT": 300} for name in (...)}`` sets every
    queue's limit: read as the dict it builds, not as RQ's 180 s."""
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "settings.py").write_text(
        "REDIS_URL = 'redis://localhost:6379/0'\n"
        "RQ_QUEUES = {\n"
        "    name: {'URL': REDIS_URL, 'DEFAULT_TIMEOUT': 300}\n"
        "    for name in ('default', 'low')\n"
        "}\n"
    )
    (tmp_path / "shop" / "jobs.py").write_text(
        "from django_rq import job\n@job('low')\ndef prune():\n    pass\n"
        "@job('other')\ndef elsewhere():\n    pass\n"
    )
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(tmp_path)])
    limits = {
        c["job"].rsplit(".", 1)[-1]: c["time_limit"] for c in json.loads(result.output)["jobs"]
    }
    assert limits == {
        "prune": "300 s (RQ_QUEUES['low']['DEFAULT_TIMEOUT'])",
        "elsewhere": "180 s (RQ default)",  # a queue the comprehension does not build
    }


RUBY_FIXTURES = Path(__file__).parent / "fixtures" / "frameworks" / "sidekiq"


def test_jobs_lists_sidekiq_and_activejob_contracts() -> None:
    """Sidekiq and ActiveJob jobs, with Sidekiq's defaults in words: no time limit by
    design, retry_on before Sidekiq's own 25 retries, the dead set or none, unique locks,
    and abstract bases (ApplicationJob) left out."""
    pytest.importorskip("tree_sitter_ruby", reason="Ruby needs the ruby extra")
    runner = CliRunner()
    result = runner.invoke(
        cli, ["jobs", "--format", "json", str(RUBY_FIXTURES / "schedules_and_queues")]
    )
    assert result.exit_code == 0, result.output
    jobs = {c["job"]: c for c in json.loads(result.output)["jobs"]}
    cleanup = jobs["ExportCleanupWorker"]
    assert (cleanup["framework"], cleanup["queue"], cleanup["lock"]) == ("sidekiq", "bulk", "yes")
    assert cleanup["time_limit"] == "none (Sidekiq has no job time limit, by design)"
    assert cleanup["schedule"] == "sidekiq-scheduler entry 'cleanup_exports'"
    assert jobs["DigestJob"]["lock"] == "no"
    result = runner.invoke(cli, ["jobs", "--format", "json", str(RUBY_FIXTURES / "job_bodies")])
    assert result.exit_code == 0, result.output
    jobs = {c["job"]: c for c in json.loads(result.output)["jobs"]}
    assert "ApplicationJob" not in jobs
    assert jobs["ChargeWorker"]["retries"] == "10 (sidekiq_options)"
    assert jobs["ChargeWorker"]["backoff"] == "sidekiq_retry_in { |count| 30 }"
    assert jobs["NotifyWorker"]["dead_letter"].startswith("none: retry: false")
    assert jobs["LoudWorker"]["dead_letter"].startswith("discarded (dead: false)")
    # Its own retry_on, then the one it inherits from ApplicationJob, then Sidekiq's.
    assert jobs["CrmPushJob"]["retries"].startswith(
        "retry_on Faraday::ConnectionFailed: 8 attempts, wait :polynomially_longer; "
        "retry_on ActiveRecord::Deadlocked: 5 attempts, wait 3 s (retry_on's default); then"
    )


def test_a_job_on_a_sidekiq_application_job_is_a_sidekiq_job(tmp_path: Path) -> None:
    """email-alert-api: ``class ApplicationJob; include Sidekiq::Job; end`` in app/jobs
    makes its subclasses Sidekiq jobs, not ActiveJobs."""
    pytest.importorskip("tree_sitter_ruby", reason="Ruby needs the ruby extra")
    jobs = tmp_path / "app" / "jobs"
    jobs.mkdir(parents=True)
    (jobs / "application_job.rb").write_text("class ApplicationJob\n  include Sidekiq::Job\nend\n")
    (jobs / "digest_job.rb").write_text(
        "class DigestJob < ApplicationJob\n  def perform(id)\n    Digest.run(id)\n  end\nend\n"
    )
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert [(c["job"], c["framework"]) for c in json.loads(result.output)["jobs"]] == [
        ("DigestJob", "sidekiq")
    ]


def test_retry_kwargs_max_retries_is_the_cap(tmp_path: Path) -> None:
    (tmp_path / "tasks.py").write_text(
        "from celery import shared_task\n\n\n"
        "@shared_task(autoretry_for=(ConnectionError,), retry_kwargs={'max_retries': 5})\n"
        "def push(order_id):\n    return order_id\n"
    )
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    (push,) = json.loads(result.output)["jobs"]
    assert push["retries"] == "automatic on ConnectionError, max 5 (retry_kwargs)"


def test_a_queue_named_by_an_unset_environment_variable(tmp_path: Path) -> None:
    """saleor: ``queue=settings.X`` with ``X = os.environ.get("X", None)`` is the default
    queue unless the variable is set."""
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "settings.py").write_text(
        "import os\n\nCELERY_BROKER_URL = 'redis://localhost:6379/0'\n"
        'REPORTS_QUEUE_NAME = os.environ.get("REPORTS_QUEUE_NAME", None)\n'
    )
    (tmp_path / "shop" / "tasks.py").write_text(
        "from celery import shared_task\nfrom django.conf import settings\n\n\n"
        "@shared_task(queue=settings.REPORTS_QUEUE_NAME)\n"
        "def build_report(report_id):\n    return report_id\n"
    )
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(tmp_path)])
    assert result.exit_code == 0, result.output
    (report,) = json.loads(result.output)["jobs"]
    assert report["queue"] == "the default queue, unless $REPORTS_QUEUE_NAME names another"


def test_rq_jobs_take_their_queues_default_timeout() -> None:
    """rq/queue.py ``create_job``: a job that sets no timeout takes its queue's
    ``default_timeout``; -1 on the queue is no limit (reported once, at the queue)."""
    case = Path(__file__).parent / "fixtures/SCL-18/missing-time-limit/rq_queue_timeouts"
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(case)])
    assert result.exit_code == 0, result.output
    limits = {c["job"]: c["time_limit"] for c in json.loads(result.output)["jobs"]}
    assert limits == {
        "jobs.crunch": "none (default_timeout=-1)",
        "jobs.render": "3600 s (queue 'slow')",
        "jobs.render_forever": "none (timeout=-1)",
    }


def test_django_celery_beat_rows_the_code_makes_are_schedules() -> None:
    """``PeriodicTask.objects.update_or_create(name=..., task="a.b", interval=...)``: a
    beat entry django-celery-beat's DatabaseScheduler runs (issue 27's last contradiction:
    review showed such a task as never scheduled)."""
    case = Path(__file__).parent / "fixtures/JOB-02/schedule-names-unknown-task/celery_beat_rows"
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(case)])
    assert result.exit_code == 0, result.output
    schedules = {c["job"]: c["schedule"] for c in json.loads(result.output)["jobs"]}
    assert schedules == {
        "site.tasks.check_for_updates": "django-celery-beat row 'check-for-updates'",
        "site.tasks.delete_exports": "-",
        "site.tasks.refresh_feeds": (
            "django-celery-beat row 'refresh-feeds'; django-celery-beat row 'refresh-feeds-fresh'"
        ),
    }


def test_every_django_rq_queue_without_a_timeout_leaves_its_jobs_unlimited() -> None:
    """``RQ_QUEUES = {q: {..., "DEFAULT_TIMEOUT": -1} for q in (...)}`` (neodb): each
    queue's jobs have no limit unless they set their own; review and SCL-18 agree."""
    case = Path(__file__).parent / "fixtures/SCL-18/missing-time-limit"
    result = CliRunner().invoke(
        cli, ["jobs", "--format", "json", str(case / "django_rq_every_queue_unlimited")]
    )
    assert result.exit_code == 0, result.output
    limits = {c["job"]: c["time_limit"] for c in json.loads(result.output)["jobs"]}
    assert limits == {
        "app.jobs.send_digest": "none (DEFAULT_TIMEOUT=-1)",
        "app.jobs.export_library": "600 s (job)",
        "app.jobs.fetch": "none (DEFAULT_TIMEOUT=-1)",
    }


def test_rq_limits_the_calls_give_and_the_scheduler_queue() -> None:
    """A limit every call gives (also in ``**kwargs``, which Queue.enqueue reads job
    options from), calls that differ, and rq-scheduler jobs on their Scheduler's queue
    (Redash: execute_query was "180 s (RQ default)"; the periodic jobs were missing)."""
    case = Path(__file__).parent / "fixtures/SCL-18/missing-time-limit/rq_limits_per_call"
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(case)])
    assert result.exit_code == 0, result.output
    seen = {(c["job"], c["queue"], c["time_limit"]) for c in json.loads(result.output)["jobs"]}
    assert seen == {
        ("jobs.execute_query", "queries", "set by the calls that send it"),
        (
            "jobs.render",
            "queries",
            "unknown (**options may set job_timeout; if not, the queue's default)",
        ),
        ("jobs.export", "queries", "none (job_timeout=-1)"),
        ("jobs.count", "queries", "set by the calls that send it"),
        ("render", "periodic", "600 s (schedule entry)"),
        ("refresh", "periodic", "180 s (RQ default)"),
    }


def test_a_celery_backoff_that_starts_at_its_cap_does_not_grow() -> None:
    """``retry_backoff=600`` with retry_backoff_max left at 600 (plane's webhook task):
    min(600, 600 * 2 ** n) is 600 for every retry (celery/utils/time.py)."""
    contracts = {
        c["job"]: c["backoff"]
        for c in _contracts("SCL-34/retry-without-backoff/celery_backoff_capped")
    }
    assert contracts["tasks.send_webhook"] == (
        "none: every wait is a random 0-600 s (jitter); retry_backoff=600 already "
        "reaches retry_backoff_max=600 (Celery's default) at the first retry"
    )
    assert contracts["tasks.send_growing"] == "exponential with jitter"
    assert contracts["tasks.send_with_higher_cap"] == "exponential with jitter"


def test_jobs_and_review_take_checks_output_exclude_and_cache_options(tmp_path: Path) -> None:
    """``-o``, ``--exclude``, ``--no-cache`` as ``check`` has them; ``jobs --format json``
    is versioned (issue 29: it was a bare list, and neither command had these)."""
    root = tmp_path / "project"
    (root / "legacy").mkdir(parents=True)
    (root / "tasks.py").write_text(SOURCE)
    (root / "legacy" / "old.py").write_text(
        "from celery import shared_task\n\n\n@shared_task\ndef old():\n    pass\n"
    )
    out = root / "jobs.json"
    result = CliRunner().invoke(
        cli, ["jobs", "--format", "json", "-o", str(out), "--no-cache", str(root)]
    )
    assert result.exit_code == 0, result.output
    assert result.output == ""
    document = json.loads(out.read_text())
    assert document["version"] == 1
    assert "old.old" in {c["job"] for c in document["jobs"]}
    result = CliRunner().invoke(
        cli, ["jobs", "--format", "json", "--exclude", "legacy/", str(root)]
    )
    assert "old.old" not in {c["job"] for c in json.loads(result.output)["jobs"]}
    review = root / "review.md"
    result = CliRunner().invoke(
        cli,
        ["review", "--format", "markdown", "-o", str(review), "--exclude", "legacy/", str(root)],
    )
    assert result.exit_code == 0, result.output
    assert review.read_text().startswith("## jobcheck review")
    assert "legacy" not in review.read_text()


def test_a_limit_read_from_the_environment_in_another_module(tmp_path: Path) -> None:
    """``timeout=settings.LIMIT`` where ``LIMIT = int(os.environ.get("X", 300))`` in
    another module (Redash's SCHEMAS_REFRESH_TIMEOUT): review printed the expression with
    a unit, "app.settings.LIMIT s"; the literal default is the limit unless $X is set."""
    (tmp_path / "app" / "settings").mkdir(parents=True)
    (tmp_path / "app" / "__init__.py").write_text("")
    (tmp_path / "app" / "settings" / "__init__.py").write_text(
        'import os\n\nLIMIT = int(os.environ.get("APP_LIMIT", 300))\nOTHER = compute()\n'
    )
    (tmp_path / "app" / "jobs.py").write_text(
        "from rq.decorators import job\n\nfrom app import settings\n\n\n"
        '@job("q", timeout=settings.LIMIT)\ndef work():\n    pass\n\n\n'
        '@job("q", timeout=settings.OTHER)\ndef other():\n    pass\n'
    )
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", "--no-cache", str(tmp_path)])
    assert result.exit_code == 0, result.output
    limits = {c["job"]: c["time_limit"] for c in json.loads(result.output)["jobs"]}
    assert limits["app.jobs.work"] == "300 s (job, the default of $APP_LIMIT)"
    assert limits["app.jobs.other"] == "app.settings.OTHER (job, computed at run time)"
