"""One number in a pull request never ends the run: ``time_limit=0xfff...``,
``"schedule": 1e999``, a 5,000-digit int (Python refuses to print it), ``10**10**10``
(Python would compute it), ``.inf`` in YAML. Such a number is unknown, like any value
jobcheck cannot read; the rest of the file, and every other file, is checked.

Each literal is written into Celery, Dramatiq and APScheduler code, settings, a Sidekiq
configuration and schedule, a Kubernetes CronJob and Deployment, a crontab, a Procfile
and a Ruby job, beside an ordinary job whose finding must survive (exit 1, valid JSON,
no internal error)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.hostile_helpers import JOB, run_jobcheck, write

HEX = "0x" + "f" * 300
DIGITS = "9" * 5000
PYTHON_LITERALS = {
    "hex": HEX,
    "negative hex": "-" + HEX,
    "1e999": "1e999",
    "-1e999": "-1e999",
    "float inf": 'float("inf")',
    "float nan": 'float("nan")',
    "power tower": "10**10**10",
    "5000 digits": DIGITS,
    "product": "2**4096 * 2**4096",
    "overflowing sum": "1e308 + 1e308",
}
YAML_LITERALS = {
    "hex": HEX,
    "1e999": "1e999",
    ".inf": ".inf",
    "-.inf": "-.inf",
    ".nan": ".nan",
    "5000 digits": DIGITS,
}


def python_files(number: str) -> dict[str, str]:
    return {
        "hostile_tasks.py": f"""\
            from datetime import timedelta

            import dramatiq
            from apscheduler.schedulers.background import BackgroundScheduler
            from celery import Celery, shared_task
            from celery.schedules import crontab

            app = Celery("x")
            app.conf.worker_prefetch_multiplier = {number}
            app.conf.beat_schedule = {{
                "a": {{"task": "hostile_tasks.a", "schedule": {number}}},
                "b": {{"task": "hostile_tasks.a", "schedule": timedelta(seconds={number})}},
                "c": {{"task": "hostile_tasks.a", "schedule": crontab(minute={number})}},
                "d": {{"task": "hostile_tasks.a", "schedule": crontab(hour=range(0, {number}))}},
                "e": {{"task": "hostile_tasks.a", "schedule": 9,
                      "options": {{"expires": {number}}}}},
            }}


            @shared_task(time_limit={number}, soft_time_limit={number}, max_retries={number})
            def a(x):
                a.apply_async((x,), countdown={number}, expires={number})
                return x


            @dramatiq.actor(max_retries={number}, time_limit={number}, min_backoff={number})
            def b(x):
                return x


            scheduler = BackgroundScheduler()
            scheduler.add_job(a, "interval", seconds={number}, hours={number})
            scheduler.add_job(a, "cron", minute={number}, day_of_week={number})
            scheduler.start()
            """,
        "celeryconfig.py": f"broker_pool_limit = {number}\nCELERY_RESULT_EXPIRES = {number}\n",
    }


def yaml_files(number: str) -> dict[str, str]:
    return {
        "config/sidekiq.yml": f"""\
            :concurrency: {number}
            :timeout: {number}
            :queues:
              - [critical, {number}]
              - "low,{number}"
            :scheduler:
              :schedule:
                job_a:
                  every: {number}
                  class: HardWorker
                job_b:
                  every: "{number}s"
                  class: HardWorker
            """,
        "config/schedule.yml": f"""\
            job_c:
              cron: "*/{number} * * * *"
              class: HardWorker
            job_d:
              cron: "every {number} minutes"
              class: HardWorker
            """,
        "k8s/cron.yaml": f"""\
            apiVersion: batch/v1
            kind: CronJob
            metadata:
              name: x
            spec:
              schedule: "@every {number}s"
              startingDeadlineSeconds: {number}
              jobTemplate:
                spec:
                  activeDeadlineSeconds: {number}
                  template:
                    spec:
                      containers:
                      - name: x
                        command: ["timeout", "{number}", "python", "manage.py", "x"]
            ---
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: w
            spec:
              replicas: {number}
              template:
                spec:
                  containers:
                  - name: w
                    command: ["celery", "-A", "x", "worker", "--concurrency", "{number}"]
            """,
        "crontab": f"*/5 * * * * timeout {number} flock -w {number} /tmp/l python manage.py x\n",
        "Procfile": f"worker: celery -A x worker --concurrency={number} -Q a\n",
        "app/workers/hard_worker.rb": f"""\
            class HardWorker
              include Sidekiq::Job
              sidekiq_options retry: {number}, queue: "a"

              def perform
                self.class.perform_in({number}.seconds)
              end
            end
            """,
    }


CASES = [
    *(pytest.param(python_files(n), id=f"python {name}") for name, n in PYTHON_LITERALS.items()),
    *(pytest.param(yaml_files(n), id=f"yaml {name}") for name, n in YAML_LITERALS.items()),
]


@pytest.mark.parametrize("files", CASES)
def test_a_number_too_large_is_unknown_and_the_run_goes_on(
    tmp_path: Path, files: dict[str, str]
) -> None:
    root = tmp_path / "project"
    write(root, {**files, "tasks.py": JOB})
    for command in (("check", ".", "--no-cache"), ("review", ".")):
        outcome = run_jobcheck(*command, "--format", "json", cwd=root)
        assert outcome.returncode == (1 if command[0] == "check" else 0), outcome.stderr
        report = outcome.report  # valid JSON
        assert "internal error" not in outcome.stderr
        if command[0] == "check":
            assert ("tasks.py", "missing-time-limit", 4) in outcome.checks()
            assert [e for e in report["errors"] if "internal error" in e["message"]] == []


def test_literals_beyond_the_bound_are_unknown() -> None:
    from jobcheck.facts.values import Const, Opaque
    from jobcheck.syntax.evaluate import Evaluator
    from jobcheck.syntax.names import Names
    from jobcheck.syntax.source import parse

    def value(source: str) -> object:
        module = parse(f"x = {source}\n")
        expression = module.body[0].body[0].value  # type: ignore[attr-defined]
        return Evaluator(module, Names("m", False)).value(expression)

    assert value("600") == Const(600)
    assert value("-2**63") == Const(-(2**63))
    assert value("1.5e3") == Const(1500.0)
    assert value("2**10 * 60") == Const(61440)
    for large in (HEX, "1e999", "-1e999", DIGITS, "10**10**10", "2**64", "1e308 * 10", "2**0.5j"):
        assert isinstance(value(large), Opaque), large


def test_numbers_read_from_text_are_bounded() -> None:
    from jobcheck.commandline import timeout_seconds
    from jobcheck.timing import bounded, read_number

    assert read_number("600") == 600
    assert read_number("1.5") == 1.5
    assert read_number("9" * 19) is None  # beyond 2**63
    assert read_number(DIGITS) is None
    assert read_number("١٢") is None  # digits, but not ASCII
    assert read_number("1e5") is None
    assert bounded(float("inf")) is None
    assert bounded(float("nan")) is None
    assert bounded(True) is True
    assert timeout_seconds("10m") == 600.0
    assert timeout_seconds(DIGITS) is None
