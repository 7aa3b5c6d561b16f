"""``jobcheck review``: the inventory with contract scores, the queues, the schedule and
its heat map, as JSON (versioned), Markdown (a pull-request comment) and text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from jobcheck.cli import cli
from jobcheck.review_report import SCHEMA_VERSION

TASKS = """\
from celery import Celery
from celery.schedules import crontab
from django.core.mail import send_mail

from shop.models import User

app = Celery("shop")
app.conf.beat_schedule = {
    "nightly-export": {
        "task": "shop.tasks.export_orders",
        "schedule": crontab(hour=3, minute=17),
    },
    "hourly-digest": {"task": "shop.tasks.send_digest", "schedule": crontab(minute=17)},
}


@app.task(queue="bulk", time_limit=600, max_retries=3, retry_backoff=True)
def export_orders():
    return None


@app.task(queue="bulk")
def send_password_reset(user_id):
    user = User.objects.get(pk=user_id)
    if user.reset_sent:
        return
    send_mail("reset", "...", None, [user.email])


@app.task
def send_digest():
    send_mail("digest", "...", None, ["team@example.com"])
"""

VIEWS = """\
from shop.tasks import send_password_reset


def reset(request):
    send_password_reset.delay(request.user.pk)
    send_password_reset.delay(request.user.pk)
"""


def _review(path: Path, *extra: str) -> CliRunner:
    return CliRunner().invoke(cli, ["review", str(path), *extra])


@pytest.fixture
def shop(tmp_path: Path) -> Path:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "tasks.py").write_text(TASKS)
    (tmp_path / "shop" / "views.py").write_text(VIEWS)
    (tmp_path / "shop" / "models.py").write_text(
        "from django.db import models\n\n\nclass User(models.Model):\n    reset_sent = 1\n"
    )
    return tmp_path


def test_json_inventory_scores_queues_and_schedule(shop: Path) -> None:
    result = _review(shop, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["version"] == SCHEMA_VERSION
    jobs = {j["job"]: j for j in data["jobs"]}
    assert set(jobs) == {
        "shop.tasks.export_orders",
        "shop.tasks.send_password_reset",
        "shop.tasks.send_digest",
    }
    reset = jobs["shop.tasks.send_password_reset"]
    assert reset["parameters"] == ["user_id"]
    assert [e.rsplit(":", 1)[1] for e in reset["enqueue_sites"]] == ["5", "6"]
    assert reset["idempotency"] and reset["idempotency"][0].startswith("state-check")
    assert "SCL-20 urgent-job-shares-queue" in " ".join(reset["findings"])
    assert "time_limit" in reset["score"]["missing"]
    assert "idempotency" in reset["score"]["met"]
    export = jobs["shop.tasks.export_orders"]
    assert export["schedule"].startswith("beat entry 'nightly-export'")
    assert export["score"]["met"][:1] == ["payload"]
    assert "single_run" in export["score"]["missing"]  # scheduled, no lock
    assert "single_run" not in reset["score"]["met"] + reset["score"]["missing"]
    digest = jobs["shop.tasks.send_digest"]
    assert digest["idempotency"] == []
    met = sum(len(j["score"]["met"]) for j in data["jobs"])
    total = met + sum(len(j["score"]["missing"]) for j in data["jobs"])
    assert data["score"] == {"met": met, "total": total}
    bulk = next(q for q in data["queues"] if q["name"] == "bulk")
    assert bulk["person_facing"] == ["send_password_reset"]
    assert bulk["bulk"] == ["export_orders"] and bulk["mixed"] is True
    whens = {s["job"]: s["when"] for s in data["schedules"]}
    assert whens == {
        "export_orders": "every day at 03:17",
        "send_digest": "every hour at :17",
    }
    assert data["heat_map"]["03"] == {"17": 2}
    assert data["heat_map"]["04"] == {"17": 1}


def test_markdown_fits_a_pull_request_comment(shop: Path) -> None:
    result = _review(shop, "--format", "markdown")
    assert result.exit_code == 0, result.output
    text = result.output
    summary, _, details = text.partition("<details>")
    assert summary.startswith("## jobcheck review")
    assert "**3 jobs**, contract score" in summary
    assert "| `shop.tasks.send_password_reset` |" in summary
    assert details.count("<summary>") == 4  # jobs, queues, schedule, heat map
    assert "| every day at 03:17 | `export_orders` |" in details


def test_text_shows_cards_queues_schedule_and_heat_map(shop: Path) -> None:
    result = _review(shop)
    assert result.exit_code == 0, result.output
    assert "3 jobs, contract score" in result.output
    assert "idempotency  state-check" in result.output
    assert "every day at 03:17: export_orders" in result.output
    assert "03h" in result.output and ":" in result.output.split("03h", 1)[1].splitlines()[0]


def test_review_reads_sidekiq_schedules_and_queues() -> None:
    pytest.importorskip("tree_sitter_ruby", reason="Ruby needs the ruby extra")
    case = Path(__file__).parent / "fixtures" / "frameworks/sidekiq/schedules_and_queues"
    data = json.loads(_review(case, "--format", "json").output)
    cleanup = next(j for j in data["jobs"] if j["job"] == "ExportCleanupWorker")
    assert cleanup["lock"] == "yes" and "single_run" in cleanup["score"]["met"]
    whens = {(s["job"], s["when"]) for s in data["schedules"]}
    assert ("DigestJob", "every day at 07:00") in whens
    verify = next(q for q in data["queues"] if q["name"] == "bulk")
    assert "VerifyEmailJob" in verify["person_facing"] and verify["mixed"]


def test_queues_name_the_workers_that_consume_them(shop: Path) -> None:
    (shop / "Procfile").write_text(
        "web: gunicorn shop.wsgi\n"
        "worker: celery -A shop worker -Q bulk --concurrency 4\n"
        "mail: celery -A shop worker --queues=mail,celery -X celery\n"
    )
    data = json.loads(_review(shop, "--format", "json").output)
    queues = {q["name"]: q for q in data["queues"]}
    assert queues["bulk"]["workers"] == [f"{shop / 'Procfile'}:2 (worker)"]
    assert queues["celery"]["workers"] == []  # -X celery: nobody consumes the default queue
    markdown = _review(shop, "--format", "markdown").output
    assert "none consumes it" in markdown


def test_a_worker_command_is_read_for_each_framework() -> None:
    import shlex

    from jobcheck.facts import FileFacts, Loc, ProcessDecl
    from jobcheck.project.workers import workers

    def read(command: str) -> tuple[str, tuple[str, ...]] | None:
        facts = FileFacts(path="Procfile", module="")
        facts.processes.append(ProcessDecl("procfile", "worker", command, Loc(1, 0, 1, 1)))
        found = workers([facts])
        assert shlex.split(command)
        return (found[0].framework, found[0].queues) if found else None

    assert read("celery -A shop worker -Q mail,default -X default") == ("celery", ("mail",))
    assert read("celery -A shop worker") == ("celery", ("@configured",))
    assert read("celery -A shop worker -X mail") == ("celery", ("@configured", "!mail"))
    assert read("rq worker -c settings high low --with-scheduler") == ("rq", ("high", "low"))
    assert read("rq worker --url redis://r") == ("rq", ("default",))
    assert read("python manage.py rqworker system default") == ("rq", ("system", "default"))
    assert read("python manage.py rqworker") == ("rq", ("default",))
    assert read("dramatiq shop.actors --queues a b --processes 2") == ("dramatiq", ("a", "b"))
    assert read("dramatiq shop.actors") == ("dramatiq", ("*",))
    assert read("bundle exec sidekiq -q critical,3 -q default") == (
        "sidekiq",
        ("critical", "default"),
    )
    assert read("bundle exec sidekiq -C config/sidekiq.yml") == ("sidekiq", ())
    assert read("python clock.py") is None
    # Queues filled in at run time may be any queue.
    assert read("celery -A p worker --queues ${CELERY_TASK_QUEUES:-celery}") == ("celery", ("*",))


def test_a_schedule_names_its_time_zone() -> None:
    pytest.importorskip("tree_sitter_ruby", reason="Ruby needs the ruby extra")
    case = Path(__file__).parent / "fixtures" / "frameworks/sidekiq/rails_app"
    data = json.loads(_review(case, "--format", "json").output)
    whens = {(s["job"], s["when"]) for s in data["schedules"]}
    assert ("Maintenance::NightlyCleanupJob", "every day at 03:00 Europe/Berlin") in whens
    assert ("Maintenance::NightlyCleanupJob", "every day at 04:30") in whens  # whenever


DELIVERY_CASES = {
    # framework file, what the contract's delivery must say
    "celery_early.py": (
        "from celery import Celery\napp = Celery('s', broker='redis://r')\n\n"
        "@app.task\ndef ping():\n    pass\n",
        "early (Celery's default)",
    ),
    "celery_late.py": (
        "from celery import Celery\napp = Celery('s', broker='redis://r')\n\n"
        "@app.task(acks_late=True, reject_on_worker_lost=True)\ndef ping():\n    pass\n",
        "after the visibility timeout, 3600 s (the redis transport's default); "
        "a killed child process's run is requeued",
    ),
    # A value jobcheck cannot read is not Celery's default (it said "early" before).
    "celery_unknown.py": (
        "import os\nfrom celery import Celery\napp = Celery('s', broker='redis://r')\n\n"
        "@app.task(acks_late=os.environ.get('LATE') == '1')\ndef ping():\n    pass\n",
        "unknown (acks_late=",
    ),
    "rq_job.py": (
        "from redis import Redis\nfrom rq import Queue\nq = Queue(connection=Redis())\n\n"
        "def ping():\n    pass\n\ndef send():\n    q.enqueue(ping)\n",
        "failed as abandoned (AbandonedJobError)",
    ),
    "dramatiq_actor.py": (
        "import dramatiq\nfrom dramatiq.brokers.redis import RedisBroker\n"
        "broker = RedisBroker(url='redis://r')\ndramatiq.set_broker(broker)\n\n"
        "@dramatiq.actor\ndef ping():\n    pass\n",
        "return to the queue once its heartbeat is 60 s old",
    ),
    "huey_task.py": (
        "from huey import RedisHuey\nhuey = RedisHuey()\n\n@huey.task()\ndef ping():\n    pass\n",
        "a consumer killed mid-run loses it",
    ),
    "arq_worker.py": (
        "from arq.connections import RedisSettings\n\nasync def ping(ctx):\n    pass\n\n"
        "class WorkerSettings:\n    functions = [ping]\n    redis_settings = RedisSettings()\n",
        "once the in-progress key expires (the longest job timeout + 10 s)",
    ),
    "taskiq_task.py": (
        "from taskiq_redis import ListQueueBroker\nbroker = ListQueueBroker('redis://r')\n\n"
        "@broker.task\nasync def ping():\n    pass\n",
        "acked when_saved (taskiq's default); ListQueueBroker pops the message",
    ),
}


@pytest.mark.parametrize("name", sorted(DELIVERY_CASES))
def test_the_contract_says_when_a_message_is_acknowledged(tmp_path: Path, name: str) -> None:
    source, expected = DELIVERY_CASES[name]
    (tmp_path / name).write_text(source)
    data = json.loads(_review(tmp_path, "--format", "json").output)
    deliveries = [j["delivery"] for j in data["jobs"] if j["job"].endswith("ping")]
    assert len(deliveries) == 1, data["jobs"]
    assert expected in deliveries[0]


def test_sidekiq_delivery_is_early_with_basic_fetch() -> None:
    pytest.importorskip("tree_sitter_ruby", reason="Ruby needs the ruby extra")
    case = Path(__file__).parent / "fixtures" / "frameworks/sidekiq/rails_app"
    data = json.loads(_review(case, "--format", "json").output)
    sidekiq = [j["delivery"] for j in data["jobs"] if j["framework"] == "sidekiq"]
    assert sidekiq and all("BasicFetch pops the job" in d for d in sidekiq)


def test_a_queue_lists_each_job_once(tmp_path: Path) -> None:
    """A call of a task (``tasks.send.delay()``) is that task, not a second job named by
    the call's text; two tasks of one name in two modules are two jobs, told apart by
    their dotted paths."""
    shop = tmp_path / "shop"
    shop.mkdir()
    (shop / "__init__.py").write_text("")
    (shop / "tasks.py").write_text(
        "from celery import Celery\n\napp = Celery('shop')\n\n\n"
        "@app.task(queue='mail')\ndef send(order_id):\n    return order_id\n"
    )
    (shop / "other.py").write_text(
        "from shop.tasks import app\n\n\n"
        "@app.task(queue='mail')\ndef send(report_id):\n    return report_id\n"
    )
    (shop / "views.py").write_text(
        "from shop import tasks\n\n\ndef checkout(request):\n"
        "    tasks.send.delay(1)\n    tasks.send.apply_async((2,), queue='mail')\n"
    )
    result = _review(tmp_path, "--format", "json")
    queues = {q["name"]: q["jobs"] for q in json.loads(result.output)["queues"]}
    assert queues["mail"] == ["shop.other.send", "shop.tasks.send"]


def test_a_job_a_schedule_sends_to_a_queue_it_names_is_listed_there(tmp_path: Path) -> None:
    """A beat entry's ``options: {"queue": ...}`` sends its task to that queue: the job is
    in that queue's list, though nothing else sends it (before: in no queue's list)."""
    shop = tmp_path / "shop"
    shop.mkdir()
    (shop / "__init__.py").write_text("")
    (shop / "tasks.py").write_text(
        "from celery import Celery\n\napp = Celery('shop')\n"
        "app.conf.beat_schedule = {\n"
        "    'hourly-report': {\n"
        "        'task': 'shop.tasks.report',\n"
        "        'schedule': 3600,\n"
        "        'options': {'queue': 'reports', 'expires': 600},\n"
        "    },\n"
        "}\n\n\n@app.task(time_limit=60)\ndef report():\n    return 1\n"
    )
    result = _review(tmp_path, "--format", "json")
    queues = {q["name"]: q["jobs"] for q in json.loads(result.output)["queues"]}
    assert queues["reports"] == ["report"]


def test_a_crontab_without_a_minute_is_said_in_plain_words() -> None:
    """``crontab(hour=4)`` fires every minute of 04:00 (SCL-22): review said only
    "crontab(hour=4)" (issue 29)."""
    from jobcheck.review_report import plain_words
    from jobcheck.timing import Firing

    every = frozenset(range(60))
    days = (frozenset(range(1, 32)), frozenset(range(1, 13)), frozenset(range(7)))
    at_four = Firing(every, frozenset({4}), *days)
    assert plain_words("cron", at_four, None, "crontab(hour=4)") == (
        "every minute from 04:00 to 04:59"
    )
    night = Firing(every, frozenset({1, 2, 5}), *days)
    assert plain_words("cron", night, None, "x") == (
        "every minute from 01:00 to 02:59, and from 05:00 to 05:59"
    )
    assert plain_words("cron", Firing(every, frozenset(range(24)), *days), None, "x") == (
        "every minute"
    )
