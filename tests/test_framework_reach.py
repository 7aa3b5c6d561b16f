"""What the framework plugins see through one step of indirection, on real-project shapes:
a project factory of a job library's decorator (linkding's Huey ``task()``), django-huey's
decorators (tubesync), arq's ``functions = JOBS`` (mavedb), methods of a project class
instantiated in the job, and failure reports that are not the job's side effects."""

from __future__ import annotations

import textwrap
from pathlib import Path

from jobcheck.catalog import load_catalog
from jobcheck.config import Options
from jobcheck.engine import RunSettings, Selection, check_paths
from tests.conftest import each_place


def _run(tmp_path: Path, files: dict[str, str]) -> set[tuple[str, int, str]]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    selection = Selection.resolve(load_catalog(), ["ALL"], [])
    report = check_paths([str(tmp_path)], Options(root=str(tmp_path)), selection, RunSettings())
    assert not report.errors
    return {
        (Path(f.path).name, f.loc.line, f"{f.check}: {f.message}")
        for f in each_place(report.findings)
    }


def _checks(found: set[tuple[str, int, str]]) -> set[tuple[str, int, str]]:
    return {(name, line, text.partition(":")[0]) for name, line, text in found}


def test_a_project_factory_of_hueys_task_makes_huey_tasks(tmp_path: Path) -> None:
    found = _run(
        tmp_path,
        {
            "tasks.py": """\
                import functools
                from huey.contrib.djhuey import HUEY as huey

                def task(retries=5, retry_delay=15):
                    def deco(fn):
                        @functools.wraps(fn)
                        def inner(*args, **kwargs):
                            return fn(*args, **kwargs)
                        return huey.task(retries=retries, retry_delay=retry_delay)(inner)
                    return deco

                @task()
                def load_favicon(bookmark_id: int) -> None:
                    pass
                """,
        },
    )
    messages = [text for _, _, text in found]
    assert any(m.startswith("missing-time-limit: Huey task 'load_favicon'") for m in messages)
    assert not any("Celery" in m for m in messages)


def test_django_huey_decorators_are_hueys(tmp_path: Path) -> None:
    found = _run(
        tmp_path,
        {
            "tasks.py": """\
                from django_huey import db_task, task as huey_task

                @db_task(retries=3, queue="net")
                def refresh(source_id): ...

                @huey_task(expires=3600, queue="net")
                def terminate(pid): ...
                """,
        },
    )
    assert ("tasks.py", 3, "retry-without-backoff") in _checks(found)
    assert not any("Celery" in text for _, _, text in found)
    assert {(n, line) for n, line, t in found if t.startswith("missing-time-limit")} == {
        ("tasks.py", 3),
        ("tasks.py", 6),
    }


def test_arq_functions_named_by_a_module_list_and_blocking_methods(tmp_path: Path) -> None:
    found = _run(
        tmp_path,
        {
            "services.py": """\
                import time
                import requests

                class Registry:
                    def submit(self, ids):
                        return requests.put("https://registry.example.com", json=ids, timeout=10)

                    def wait(self):
                        time.sleep(5)
                """,
            "worker.py": """\
                from services import Registry

                async def submit_ids(ctx, ids):
                    registry = Registry()
                    registry.submit(ids)
                    await ctx["redis"].enqueue_job("poll_ids")

                async def poll_ids(ctx):
                    Registry().wait()

                JOBS = [submit_ids, poll_ids]

                class WorkerSettings:
                    functions = JOBS
                """,
        },
    )
    checks = _checks(found)
    # the job's method call on a local instance is followed into the project class
    assert ("worker.py", 5, "blocking-call-in-async-job") in checks
    # poll_ids is registered through JOBS: enqueue_job("poll_ids") names a known job
    assert not any(c == "enqueue-names-unknown-task" for _, _, c in checks)
    assert not any(c == "missing-time-limit" for _, _, c in checks)  # arq's 300 s default


def test_alerts_sent_from_except_clauses_are_failure_reports(tmp_path: Path) -> None:
    found = _run(
        tmp_path,
        {
            "alerts.py": """\
                from slack_sdk.webhook import WebhookClient

                def send_slack_message(text):
                    WebhookClient(url="https://hooks.slack.com/x").send(text=text)
                """,
            "tasks.py": """\
                from celery import shared_task
                from django.core.mail import send_mail

                from alerts import send_slack_message

                @shared_task(time_limit=60, acks_late=True)
                def import_feed(feed_id):
                    try:
                        parse(feed_id)
                    except ValueError as error:
                        send_slack_message(str(error))
                        raise
                    send_mail("Imported", "done", "shop@example.com", ["a@example.com"])

                @shared_task(time_limit=60, acks_late=True)
                def charge_renewal(order_id):
                    try:
                        parse(order_id)
                    except ValueError:
                        send_mail("Payment failed", "retry", "shop@example.com", ["c@x.com"])
                    log_and_email_customer(order_id)
                    send_medical_records(order_id)

                def parse(feed_id): ...

                def log_and_email_customer(order_id):
                    send_mail("Renewed", "ok", "shop@example.com", ["c@x.com"])

                def send_medical_records(order_id):
                    send_mail("Records", "attached", "shop@example.com", ["c@x.com"])
                """,
        },
    )
    sends = {(n, line) for n, line, t in found if t.startswith("non-idempotent-side-effect")}
    # The email after the alert, and every send that reaches a customer (in an except
    # clause too, and through helpers whose names also say "log" or "record"); not the
    # Slack alert reporting the failure.
    assert sends == {("tasks.py", 13), ("tasks.py", 20), ("tasks.py", 21), ("tasks.py", 22)}


def test_calling_a_huey_task_enqueues_it_so_its_body_is_not_the_callers(tmp_path: Path) -> None:
    found = _run(
        tmp_path,
        {
            "tasks.py": """\
                import requests
                from huey import RedisHuey

                huey = RedisHuey("shop")

                @huey.task(timeout=30)
                def load_favicon(url):
                    requests.get(url)

                @huey.task(timeout=30)
                def load_all(urls):
                    for url in urls:
                        load_favicon(url)
                """,
        },
    )
    http = {(n, line) for n, line, t in found if t.startswith("http-call-without-timeout")}
    assert http == {("tasks.py", 8)}  # in load_favicon only: load_all enqueues it


def test_new_instances_and_with_targets_are_followed(tmp_path: Path) -> None:
    found = _run(
        tmp_path,
        {
            "svc.py": """\
                import requests

                class MailHandler:
                    def handle(self, account):
                        requests.get("https://mail.example.com")

                    def __enter__(self):
                        return self

                    def __exit__(self, *exc):
                        return False
                """,
            "tasks.py": """\
                from celery import shared_task

                from svc import MailHandler

                @shared_task(time_limit=60)
                def process_mail(account):
                    MailHandler().handle(account)

                @shared_task(time_limit=60)
                def process_mail_in_context(account):
                    with MailHandler() as handler:
                        handler.handle(account)
                """,
        },
    )
    http = {(n, line) for n, line, t in found if t.startswith("http-call-without-timeout")}
    assert http == {("tasks.py", 7), ("tasks.py", 12)}


def test_a_signal_handler_registered_by_a_call_and_pool_acquire(tmp_path: Path) -> None:
    found = _run(
        tmp_path,
        {
            "hueyconf.py": """\
                from huey import RedisHuey

                from history import keep_failure

                huey = RedisHuey("shop")
                huey.signal()(keep_failure)
                """,
            "history.py": """\
                def keep_failure(signal, task, exc=None):
                    save(task.id, repr(exc))

                def save(task_id, error): ...
                """,
            "tasks.py": """\
                from taskiq_redis import ListQueueBroker

                broker = ListQueueBroker("redis://localhost")

                @broker.task(timeout=30, schedule=[{"cron": "*/10 * * * *"}])
                async def send_messages(pool) -> None:
                    async with pool.acquire() as connection:
                        await connection.fetch("SELECT 1")
                """,
        },
    )
    checks = _checks(found)
    # huey.signal()(keep_failure) may keep failures: Huey's no-dead-letter is silent
    assert not [c for c in checks if c[0] == "hueyconf.py" and c[2] == "no-dead-letter"]
    # asyncpg's pool.acquire() hands out a connection: it is no lock
    assert ("tasks.py", 5, "scheduled-job-without-lock") in checks


def test_huey_consumers_in_several_processes_enqueue_periodic_tasks_each(tmp_path: Path) -> None:
    found = _run(
        tmp_path,
        {
            "tasks.py": """\
                from huey import RedisHuey, crontab

                huey = RedisHuey("shop")

                @huey.periodic_task(crontab(minute="17", hour="3"), expires=3600, timeout=60)
                @huey.lock_task("nightly")
                def nightly():
                    pass
                """,
            "supervisord.conf": """\
                [program:huey]
                command=python manage.py run_huey
                numprocs=3

                [program:huey-quiet]
                command=python manage.py run_huey --no-periodic
                numprocs=3
                """,
        },
    )
    every = {(n, line) for n, line, t in found if t.startswith("scheduler-in-every-instance")}
    assert every == {("supervisord.conf", 2)}


def test_a_loop_over_rows_still_to_do_that_marks_them_done_is_guarded(tmp_path: Path) -> None:
    found = _run(
        tmp_path,
        {
            "tasks.py": """\
                from datetime import datetime

                from celery import shared_task
                from django.core.mail import send_mail

                from shop.models import Question

                def notify(email):
                    send_mail("Your question", "answered", "shop@example.com", [email])

                @shared_task(time_limit=60, acks_late=True)
                def send_answers():
                    pending = Question.objects.filter(answer_sent_at__isnull=True)
                    for question in pending:
                        notify(question.email)
                        question.answer_sent_at = datetime.now()
                        question.save()

                @shared_task(time_limit=60, acks_late=True)
                def send_reminders():
                    pending = Question.objects.filter(reminder_sent_at__isnull=True)
                    for question in pending:
                        send_mail("Reminder", "open", "shop@example.com", [question.email])

                @shared_task(time_limit=60, acks_late=True)
                def send_digests():
                    pending = Question.objects.filter(digest_sent_at__isnull=True)
                    for question in pending:
                        send_mail("Digest", "news", "shop@example.com", [question.email])
                        question.digest_sent_at = datetime.now()
                        question.save()
                """,
        },
    )
    sends = {(n, line) for n, line, t in found if t.startswith("non-idempotent-side-effect")}
    # send_reminders never marks its rows: a second run sends every reminder again
    assert sends == {("tasks.py", 23)}
