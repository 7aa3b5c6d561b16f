"""What the framework plugins extract: Huey, arq, taskiq, Dramatiq's companions,
APScheduler's extras, Kubernetes CronJobs, crontab files, Procfiles and supervisord.

Most cases read the fixture projects under ``tests/fixtures/<framework>/`` (which the
fixture suite also checks for findings); the rest are snippets of one file."""

from __future__ import annotations

import dataclasses
import functools
from pathlib import Path

import pytest

from jobcheck.config import Options
from jobcheck.discovery import discover, module_name
from jobcheck.engine import RunSettings, collect_facts
from jobcheck.extract import extract_file, files
from jobcheck.facts import FileFacts, ScheduleEntry
from jobcheck.facts.values import Const, Opaque, Ref, SeqV
from jobcheck.frameworks.huey.schedules import huey_crontab
from jobcheck.frameworks.kubernetes.manifests import TEMPLATED, schedule_timing, strip_templates
from jobcheck.prefilter import decide
from jobcheck.project.model import Job, Project
from jobcheck.scan import FileTask, scan_file
from jobcheck.timing import shortest_gap
from tests.conftest import FIXTURES


@functools.cache
def project(case: str) -> Project:
    root = str(FIXTURES / case)
    _, analysis = collect_facts([root], Options(root=root), RunSettings(jobs=1))
    return Project(analysis.facts, loader=analysis.loader)


def jobs(case: str) -> dict[str, Job]:
    return {job.task.qualname: job for job in project(case).all_jobs}


def schedules(case: str) -> dict[str, ScheduleEntry]:
    return {e.name or e.target or e.target_text: e for _, e in project(case).all_schedules()}


def every(case: str, field: str) -> list:
    return [item for f in project(case).files for item in getattr(f, field)]


def facts(source: str, module: str = "app.tasks", path: str = "app/tasks.py") -> FileFacts:
    result = extract_file(path, source.encode(), module)
    assert result.error is None, result.error
    return result


def option(entry: object, key: str) -> object:
    value = entry.option(key)  # type: ignore[attr-defined]
    return value.value if isinstance(value, Const) else value


# -- the Celery misattribution --------------------------------------------------------


def test_tasks_of_taskiq_brokers_are_taskiq_jobs_not_celery_tasks() -> None:
    found = jobs("SCL-18/missing-time-limit/not_celery_taskiq")
    assert {q for q, j in found.items() if j.framework == "celery"} == {"tasks.cleanup"}
    resize, thumbnail = found["tasks.resize"], found["tasks.thumbnail"]
    assert resize.framework == thumbnail.framework == found["tasks.notify"].framework == "taskiq"
    # taskiq/abc/broker.py: named "module:function" unless task_name= is given.
    assert thumbnail.task.registered_name == "tasks:thumbnail"
    assert dict(thumbnail.task.options)["timeout"] == Const(30)
    assert found["local_broker.build_report"].task.registered_name == "reports.build"
    checked = {
        j.task.qualname: j.framework
        for j in project("SCL-18/missing-time-limit/not_celery_taskiq").jobs
    }
    assert checked == {
        "tasks.cleanup": "celery",
        "tasks.resize": "taskiq",
        "tasks.thumbnail": "taskiq",
        "tasks.notify": "taskiq",
        "local_broker.build_report": "taskiq",
    }


def test_tasks_of_a_project_subclass_of_huey_are_huey_jobs() -> None:
    found = jobs("SCL-18/missing-time-limit/not_celery_huey_subclass")
    assert {q for q, j in found.items() if j.framework == "celery"} == {"tasks.cleanup"}
    # AuditedHuey(ShopHuey(RedisHuey)), made in another file than its class.
    assert found["tasks.charge"].framework == "huey"
    assert dict(found["tasks.charge"].task.options)["retries"] == Const(3)
    assert found["local.rebuild_index"].framework == "huey"


def test_djhuey_tasks_are_huey_jobs() -> None:
    found = jobs("SCL-18/missing-time-limit/not_celery_djhuey")
    assert {q for q, j in found.items() if j.framework == "celery"} == {"tasks.cleanup"}
    assert {q for q, j in found.items() if j.framework == "huey"} == {
        "tasks.send_receipt",
        "tasks.refresh",
        "tasks.charge",
        "tasks.archive",
        "tasks.notify",
    }


def test_calling_a_celery_task_runs_it_here_and_is_no_enqueue() -> None:
    tasks = facts("from celery import shared_task\n@shared_task\ndef send(x):\n    pass\n")
    views = facts(
        "from app.tasks import send\ndef view(x):\n    send(x)\n", "app.views", "app/views.py"
    )
    (site,) = views.enqueues
    assert (site.method, site.target) == ("call", "app.tasks.send")  # a Huey candidate
    assert list(Project([tasks, views]).enqueues()) == []


def test_an_imported_celery_app_whose_module_is_not_analysed_still_makes_celery_tasks() -> None:
    result = facts("from proj.celery import app\n@app.task\ndef f(x):\n    return x\n")
    model = Project([result])
    assert [j.framework for j in model.jobs] == ["celery"]


# -- Huey ----------------------------------------------------------------------------------


def test_djhuey_tasks_options_locks_and_settings() -> None:
    found = jobs("frameworks/huey/django_project")
    receipt = found["shop.tasks.send_receipt"].task
    assert receipt.framework == "huey" and receipt.decorator == "huey.contrib.djhuey.db_task"
    assert dict(receipt.options) == {
        "retries": Const(3),
        "retry_delay": Const(60),
        "expires": Const(3600),
    }
    # huey/registry.py task_to_string: the function's module and name= (else its name).
    assert found["shop.tasks.charge"].task.registered_name == "shop.tasks.shop.charge"
    nightly = project("frameworks/huey/django_project").function("shop.tasks.nightly_report")
    assert nightly is not None and [g.kind for g in nightly.guards] == ["lock"]
    (settings,) = [
        c for c in every("frameworks/huey/django_project", "configs") if c.kind == "settings"
    ]
    assert (settings.framework, settings.kind, settings.cls) == (
        "huey",
        "settings",
        "huey.PriorityRedisHuey",
    )
    assert option(settings, "immediate") is False


def test_huey_periodic_tasks_read_crontab_with_its_defaults_and_and_semantics() -> None:
    found = schedules("frameworks/huey/django_project")
    nightly = found["shop.tasks.nightly_report"]
    assert (nightly.framework, nightly.source) == ("huey", "periodic_task")
    assert nightly.timing.fields == ("0", "3", "*", "*", "*")
    first_monday = found["shop.tasks.first_monday"]
    assert first_monday.timing.fields == ("*", "*", "1", "*", "1")
    assert first_monday.timing.days_and and first_monday.timing.minute_defaulted


def test_calling_a_huey_task_enqueues_it_and_call_local_does_not() -> None:
    sites = [s for s in every("frameworks/huey/django_project", "enqueues")]
    assert [(s.method, s.target) for s in sites] == [
        ("call", "shop.tasks.send_receipt"),
        ("schedule", "shop.tasks.send_receipt"),
        ("call", "shop.tasks.charge"),
    ]
    assert [a.text for a in sites[1].arguments] == ["order_id"]
    assert sites[1].option("delay") == Const(60)
    # TaskWrapper.s pops priority out of the call's keywords: an option, not payload.
    assert sites[2].option("priority") == Const(5) and len(sites[2].arguments) == 1


def test_a_huey_instance_of_another_file_is_adopted_with_its_schedule() -> None:
    found = jobs("frameworks/huey/instance_project")
    assert set(found) == {"jobs.sync_inventory", "jobs.purge", "jobs.export"}
    assert {j.framework for j in found.values()} == {"huey"}
    assert found["jobs.sync_inventory"].task.registered_name == "jobs.sync_inventory"
    purge = schedules("frameworks/huey/instance_project")["jobs.purge"]
    assert purge.timing.fields == ("*", "4", "*", "*", "*") and purge.timing.minute_defaulted
    (instance,) = every("frameworks/huey/instance_project", "configs")
    assert (instance.kind, instance.cls) == ("instance", "hueyconf.ShopHuey")
    assert option(instance, "immediate") is True and option(instance, "name") == "shop"
    model = project("frameworks/huey/instance_project")
    assert {job.task.qualname for job in model.jobs} == set(found)  # Huey's are checked


def test_huey_crontab_pieces_huey_ignores_are_unknown() -> None:
    from jobcheck.facts.values import CallV

    def crontab(**fields: object):  # type: ignore[no-untyped-def]
        return huey_crontab(
            CallV("huey.crontab", (), tuple((k, Const(v)) for k, v in fields.items())), "crontab"
        )

    assert crontab(day_of_week="mon").fields == ("*", "*", "*", "*", None)
    assert crontab(day_of_week="*/2").fields == ("*", "*", "*", "*", None)
    assert crontab(minute=0, hour="*/6").fields == ("0", "*/6", "*", "*", "*")
    # Both day fields must match: the 1st when it is a Monday (Feb and Mar 1, 2027, are
    # 28 days apart), where cron would fire on every 1st and every Monday.
    both = crontab(minute=0, hour=0, day="1", day_of_week="1")
    assert shortest_gap(both) == 28 * 86400
    assert shortest_gap(dataclasses.replace(both, days_and=False)) == 86400


# -- arq --------------------------------------------------------------------------------------


def test_arq_worker_settings_read_from_the_class_body_only() -> None:
    workers = [c for c in every("frameworks/arq/worker_project", "configs") if c.kind == "worker"]
    (worker,) = workers
    assert worker.qualname == "worker.WorkerSettings"
    assert option(worker, "job_timeout") == 600 and option(worker, "queue_name") == "arq:reports"
    # arq/worker.py get_kwargs reads settings_cls.__dict__: the base's max_tries is ignored.
    assert worker.option("max_tries") is None and worker.option("redis_settings") is None


def test_arq_functions_and_cron_jobs_are_jobs() -> None:
    found = {
        j.task.registered_name: j.task for j in project("frameworks/arq/worker_project").all_jobs
    }
    assert set(found) == {
        "download",
        "mail_report",
        "refresh_clients",
        "daily-report",
        "cron:cleanup",
    }
    assert found["daily-report"].qualname == "jobs.report"
    assert dict(found["daily-report"].options) == {
        "name": Const("daily-report"),
        "timeout": Const(120),
        "max_tries": Const(2),
    }
    assert found["cron:cleanup"].kind == "cron"
    assert found["download"].app_ref == "worker.WorkerSettings"


def test_arq_cron_entries_none_means_any_and_weekdays_count_from_monday() -> None:
    found = schedules("frameworks/arq/worker_project")
    assert found["cron:cleanup"].timing.fields == ("0", "3,15", "*", "*", "*")
    # arq/typing.py WEEKDAYS: 'mon'..'sun', weekday 0 = Monday.
    assert found["cron:report"].timing.fields == ("30", "6", "*", "*", "mon")


def test_arq_cron_hour_alone_runs_every_minute_of_that_hour() -> None:
    result = facts(
        "from arq import cron\nfrom app.jobs import sync\n"
        "class WorkerSettings:\n    cron_jobs = [cron(sync, hour=3), cron(sync, second=None)]\n",
        "app.worker",
        "app/worker.py",
    )
    hourly, every_second = result.schedules
    assert hourly.timing.fields == ("*", "3", "*", "*", "*") and hourly.timing.minute_defaulted
    assert hourly.name == "cron:sync"
    assert every_second.timing.kind == "other"


def test_arq_enqueue_job_names_the_job_by_a_string() -> None:
    sites = every("frameworks/arq/worker_project", "enqueues")
    assert [(s.method, s.target_text, s.framework_hint) for s in sites] == [
        ("enqueue_job", "download", "arq"),
        ("enqueue_job", "daily-report", "arq"),
        ("enqueue_job", "dowload", "arq"),
        ("enqueue_job", "report", "arq"),
        ("enqueue_job", "name", "arq"),
    ]
    assert [a.text for a in sites[0].arguments] == ["url"]
    # The name is the ``function`` option when it is readable, and only then.
    assert {k for k, _ in sites[0].options} == {"function", "_defer_by", "_job_id"}
    assert sites[0].option("function") == Const("download") and sites[4].option("function") is None
    model = project("frameworks/arq/worker_project")
    found = {site.target_text: job for _, site, job in model.enqueues()}
    assert found["download"] is not None and found["download"].task.qualname == "jobs.download"
    assert (
        found["daily-report"] is not None and found["daily-report"].task.qualname == "jobs.report"
    )
    assert found["dowload"] is None and found["name"] is None


def test_arq_coroutines_blocking_calls_and_swallowed_cancellation() -> None:
    model = project("frameworks/arq/worker_project")
    download, cleanup = model.function("jobs.download"), model.function("jobs.cleanup")
    report = model.function("jobs.report")
    assert download is not None and download.is_async and download.http_calls
    assert cleanup is not None and len(cleanup.cancel_handlers) == 1
    # Kept although nothing in its file says it is a job (the settings are elsewhere).
    assert report is not None and report.is_async and not report.cancel_handlers  # re-raised


def test_a_class_with_a_functions_list_outside_arq_is_not_a_worker() -> None:
    assert not [
        c for c in every("frameworks/arq/worker_project", "configs") if "Pipeline" in c.qualname
    ]


# -- taskiq ------------------------------------------------------------------------------------


def test_taskiq_broker_chain_middlewares_and_scheduler() -> None:
    configs = {c.kind: c for c in every("frameworks/taskiq/fastapi_project", "configs")}
    broker = configs["broker"]
    assert (broker.qualname, broker.cls) == ("broker.broker", "taskiq_redis.RedisStreamBroker")
    assert broker.option("result_backend") is not None
    scheduler = configs["scheduler"]
    assert scheduler.option("broker") == Ref("broker.broker")
    assert scheduler.parts == ("taskiq.schedule_sources.LabelScheduleSource",)
    (middleware,) = every("frameworks/taskiq/fastapi_project", "middleware")
    assert (middleware.framework, middleware.name) == ("taskiq", "SmartRetryMiddleware")
    assert option(middleware, "default_retry_count") == 5


def test_taskiq_tasks_labels_schedules_and_injected_parameters() -> None:
    found = jobs("frameworks/taskiq/fastapi_project")
    feed = found["tasks.import_feed"].task
    assert feed.framework == "taskiq" and feed.registered_name == "tasks:import_feed"
    assert {k for k, _ in feed.options} == {"timeout", "retry_on_error", "max_retries"}
    model = project("frameworks/taskiq/fastapi_project")
    import_feed, refresh = model.function("tasks.import_feed"), model.function("tasks.refresh")
    assert import_feed is not None and refresh is not None
    assert [(p.name, p.injected) for p in import_feed.params] == [
        ("feed_id", False),
        ("context", True),
    ]
    assert [(p.name, p.injected) for p in refresh.params] == [("session", True)]
    (entry,) = schedules("frameworks/taskiq/fastapi_project").values()
    assert entry.target == "tasks.refresh" and entry.timing.fields == ("*/15", "*", "*", "*", "*")
    assert option(entry, "cron_offset") == "Europe/Paris"


def test_taskiq_kiq_and_kicker_are_enqueues() -> None:
    sites = [s for s in every("frameworks/taskiq/fastapi_project", "enqueues") if s.framework_hint]
    assert [(s.method, s.target, s.framework_hint) for s in sites] == [
        ("kiq", "tasks.import_feed", "taskiq"),
        ("kiq", "tasks.import_feed", "taskiq"),
    ]
    assert sites[1].option("delay") == Const(5)
    assert isinstance(sites[1].option("task_id"), Opaque)


def test_taskiq_cron_labels_pycron_reads() -> None:
    result = facts(
        "from taskiq import InMemoryBroker\nbroker = InMemoryBroker()\n"
        '@broker.task(schedule=[{"cron": "@hourly"}, {"interval": 60}, {"cron": "0 3 * * *"}])\n'
        "async def f():\n    pass\n"
    )
    kinds = [(e.timing.kind, e.timing.fields, e.timing.seconds) for e in result.schedules]
    # pycron splits on single spaces into five fields: no @hourly.
    assert kinds == [
        ("other", None, None),
        ("interval", None, 60.0),
        ("cron", ("0", "3", "*", "*", "*"), None),
    ]


# -- Dramatiq's companions ----------------------------------------------------------------


def test_django_dramatiq_broker_without_middleware_and_flask_dramatiq() -> None:
    configs = {c.qualname: c for c in every("frameworks/dramatiq/companions", "configs")}
    broker = configs["settings.DRAMATIQ_BROKER"]
    assert broker.cls == "dramatiq.brokers.redis.RedisBroker"
    # django_dramatiq/apps.py: no MIDDLEWARE key means middleware=[]: none at all.
    assert broker.option("MIDDLEWARE") is None and broker.parts == ()
    assert option(configs["settings.DRAMATIQ_CRONTAB"], "REDIS_URL") == "redis://localhost:6379/1"
    flask = configs["flask_app.worker"]
    assert flask.cls == "flask_dramatiq.Dramatiq" and flask.option("middleware") == SeqV(())


def test_dramatiq_crontab_schedules() -> None:
    found = schedules("frameworks/dramatiq_crontab/actors")
    weekly = found["weekly_report"]
    assert (weekly.framework, weekly.timing.fields) == (
        "dramatiq-crontab",
        ("0", "3", "*", "*", "Mon"),
    )
    numeric = found["numeric_weekday"]
    assert numeric.timing.kind == "other" and "numeric" in str(option(numeric, "invalid"))
    assert found["heartbeat"].timing.seconds == 30.0


# -- APScheduler's extras and delegation -------------------------------------------------------


APSCHEDULER = """
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from app.tasks import send_report

scheduler = BackgroundScheduler(job_defaults={"max_instances": 3, "coalesce": False})

@scheduler.scheduled_job("cron", hour=3, max_instances=2, misfire_grace_time=30)
def nightly():
    '''Hand the report to Celery.'''
    send_report.delay(1)

def weekly():
    send_report.delay(2)
    return 1

scheduler.add_job(weekly, CronTrigger.from_crontab("0 3 * * 1"))
"""


def test_apscheduler_from_crontab_keeps_its_monday_first_weekdays() -> None:
    result = facts(APSCHEDULER, "app.clock", "app/clock.py")
    weekly = next(e for e in result.schedules if e.target == "app.clock.weekly")
    assert weekly.timing.fields == ("0", "3", "*", "*", "tue")


def test_apscheduler_job_defaults_and_job_options() -> None:
    result = facts(APSCHEDULER, "app.clock", "app/clock.py")
    (scheduler,) = result.configs
    assert scheduler.kind == "scheduler" and scheduler.option("job_defaults") is not None
    nightly = next(e for e in result.schedules if e.target == "app.clock.nightly")
    assert option(nightly, "max_instances") == 2 and option(nightly, "misfire_grace_time") == 30


def test_a_scheduled_function_that_only_enqueues_schedules_that_job() -> None:
    result = facts(APSCHEDULER, "app.clock", "app/clock.py")
    by_target = {e.target: e for e in result.schedules}
    assert by_target["app.clock.nightly"].enqueues == ("app.tasks.send_report",)
    assert by_target["app.clock.weekly"].enqueues == ()
    assert result.functions["app.clock.nightly"].enqueues_only == ("app.tasks.send_report",)


# -- Kubernetes ---------------------------------------------------------------------------------


def test_kubernetes_cronjobs_with_their_settings_and_commands() -> None:
    found = {e.name: e for _, e in project("frameworks/kubernetes/manifests").all_schedules()}
    assert set(found) == {"clear-sessions", "send-digest", "{{...}}-reports"}  # not suspended
    sessions = found["clear-sessions"]
    assert (sessions.framework, sessions.source) == ("kubernetes", "cronjob")
    assert sessions.timing.fields == ("7", "0", "*", "*", "*")
    assert sessions.command == "python manage.py clearsessions"
    assert {k: option(sessions, k) for k, _ in sessions.options} == {
        "timeZone": "Europe/Paris",
        "concurrencyPolicy": "Forbid",
        "startingDeadlineSeconds": 300,
        "activeDeadlineSeconds": 600,
        "backoffLimit": 2,
        "restartPolicy": "OnFailure",
        "namespace": "shop",
        "image": "shop:1.4",
    }
    assert sessions.loc.line == 12 and sessions.timing_loc.line == 15
    digest = found["send-digest"]
    assert digest.timing.fields == ("0", "*", "*", "*", "*") and option(digest, "suspend") is False
    assert digest.command == "celery -A shop call shop.tasks.send_digest"


def test_helm_templates_make_values_unknown_and_keep_lines() -> None:
    reports = next(
        e
        for _, e in project("frameworks/kubernetes/manifests").all_schedules()
        if e.name == "{{...}}-reports"
    )
    assert reports.timing.kind == "other"
    assert reports.command == "python -m shop.reports"
    assert isinstance(reports.option("image"), Opaque)
    text = "a: 1\n{{- if .x }}\nb: {{ .y }}\n{{- end }}\n"
    assert strip_templates(text) == f"a: 1\n\nb: {TEMPLATED}\n\n"


def test_kubernetes_schedule_forms() -> None:
    assert schedule_timing("@every 1h30m").seconds == 5400.0
    assert schedule_timing("TZ=UTC 0 3 * * *").kind == "other"
    assert schedule_timing("@weekly").fields == ("0", "0", "*", "*", "0")


def test_yaml_that_is_not_a_cronjob_gives_no_facts_and_no_error() -> None:
    model = project("frameworks/kubernetes/manifests")
    paths = {Path(f.path).name for f in model.files}
    assert "deployment.yml" not in paths  # skipped by the prefilter
    for f in model.files:
        assert f.error is None and f.module == ""
        if Path(f.path).name in ("kustomization.yaml", "broken.yaml"):
            assert not f.schedules


def test_the_prefilter_skips_yaml_without_a_cronjob_or_a_worker() -> None:
    path = str(FIXTURES / "frameworks/kubernetes/manifests/deployment.yml")
    result = scan_file(FileTask(path, path, "", False))
    assert not result.kept and result.facts is None
    assert decide("x.yaml", b"kind: Deployment\n", "").kept is False
    assert decide("x.yaml", b"kind: 'CronJob'\n", "").kept is True
    worker = b"kind: Deployment\nspec:\n  args: [celery, -A, app, worker]\n"
    assert decide("x.yaml", worker, "").kept is True


# -- crontab, Procfile, supervisord --------------------------------------------------------------


def test_crontab_lines_with_locks_time_limits_and_commands() -> None:
    entries = [
        e
        for _, e in project("frameworks/crontab/deploy").all_schedules()
        if e.framework == "crontab"
    ]
    by_runs = {e.target_text: e for e in entries}
    sync = by_runs["python manage.py sync_orders"]
    assert sync.timing.fields == ("*/5", "*", "*", "*", "*")
    assert {k: option(sync, k) for k, _ in sync.options} == {
        "CRON_TZ": "Europe/Paris",
        "lock": "flock",
        "lock_waits": False,
        "timeout": 600.0,
    }
    assert sync.command is not None and sync.command.startswith("cd /app && flock -n")
    daily = by_runs["python -m shop.reports.daily"]
    assert daily.timing.fields == ("0", "0", "*", "*", "*")
    backup = by_runs["/app/bin/backup"]
    assert option(backup, "lock") == "run-one" and backup.command == "run-one /app/bin/backup"
    assert not any("warm-cache" in (e.command or "") for e in entries)  # @reboot
    refresh = by_runs["/usr/local/bin/celery -A shop call shop.tasks.refresh"]
    assert option(refresh, "user") == "www-data"
    purge = by_runs["/app/bin/purge"]
    assert option(purge, "user") == "root" and option(purge, "lock_waits") is True
    assert len(entries) == 13  # with docker/cron_entries.txt (not cron_notes.txt: prose)
    nightly = by_runs["/app/scripts/nightly.sh"]
    # The script's lines reach the code it runs (scripts/nightly.sh: manage.py nightly_export).
    assert project("frameworks/crontab/deploy").command_functions(nightly) == [
        "shop.management.commands.nightly_export.Command.handle"
    ]
    assert "/opt/app/bin/sync.sh" in by_runs


def test_procfile_and_supervisord_processes() -> None:
    processes = {(p.source, p.name): p for p in every("frameworks/crontab/deploy", "processes")}
    assert processes["procfile", "clock"].command == "python clock.py"
    assert processes["procfile", "worker"].command == "celery -A shop worker -B --concurrency 4"
    beat = processes["supervisord", "beat"]
    assert beat.command == "celery -A shop beat --loglevel=info"
    assert option(beat, "numprocs") == "1"
    assert option(processes["supervisord", "worker"], "numprocs") == "2"


# -- discovery and modules ---------------------------------------------------------------------


def test_discovery_finds_the_other_kinds_and_keeps_the_default_excludes(tmp_path: Path) -> None:
    for name in (
        "deploy/cron.yaml",
        "crontab",
        "config/cron",
        "etc/cron.d/backup",
        "Procfile",
        "conf/supervisord.conf",
        "crontab.md",
        "node_modules/pkg/cron.yaml",
        ".venv/crontab",
        "app.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n")
    found = {Path(f.fspath).relative_to(tmp_path).as_posix() for f in discover([str(tmp_path)])}
    assert found == {
        "app.py",
        "crontab",
        "config/cron",
        "deploy/cron.yaml",
        "etc/cron.d/backup",
        "Procfile",
        "conf/supervisord.conf",
    }
    assert module_name(str(tmp_path / "deploy/cron.yaml")) == ("", False)
    assert discover([str(tmp_path)], suffixes=(".md",), patterns=()) != []
    only_python = discover([str(tmp_path)], suffixes=(".py",), patterns=())
    assert {Path(f.fspath).name for f in only_python} == {"app.py"}


def test_taskiq_schedules_added_at_run_time() -> None:
    result = facts(
        "from app.tasks import report\n"
        "async def setup(source):\n"
        '    await report.schedule_by_cron(source, "*/10 * * * *", 1)\n'
        "    await report.schedule_by_interval(source, 90)\n"
    )
    found = [(e.source, e.target, e.timing.fields, e.timing.seconds) for e in result.schedules]
    assert found == [
        ("schedule_by_cron", "app.tasks.report", ("*/10", "*", "*", "*", "*"), None),
        ("schedule_by_interval", "app.tasks.report", None, 90.0),
    ]


def test_a_kubernetes_list_of_cronjobs() -> None:
    manifest = (
        b"kind: List\nitems:\n"
        b"  - kind: CronJob\n    metadata: {name: a}\n    spec: {schedule: '0 1 * * *'}\n"
        b"  - kind: Service\n    metadata: {name: b}\n"
    )
    result = files.extract("k8s/all.yaml", manifest, "", False)
    assert [(e.name, e.timing.fields) for e in result.schedules] == [
        ("a", ("0", "1", "*", "*", "*"))
    ]


@pytest.mark.parametrize(
    ("line", "user", "runs"),
    [
        # A file the image copies to /etc/cron.d: its user column is read by its shape.
        ("5 0 * * * appuser /usr/local/bin/python /app/manage.py expire", "appuser", None),
        ("5 0 * * * deploy python manage.py expire", "deploy", "python manage.py expire"),
        # A command whose first argument is a path is not a user and its program.
        ("5 0 * * * rsync /srv/data /backup/data", None, "rsync /srv/data /backup/data"),
        ("5 0 * * * /app/bin/purge /tmp", None, "/app/bin/purge /tmp"),
    ],
)
def test_crontab_user_column_outside_cron_d(line: str, user: str | None, runs: str | None) -> None:
    from jobcheck.facts import FileFacts
    from jobcheck.frameworks.crontab.reader import read_crontab

    facts = FileFacts(path="deploy/app.cron", module="")
    read_crontab(facts, line + "\n")
    (entry,) = facts.schedules
    assert option(entry, "user") == user
    if runs is not None:
        assert entry.target_text == runs


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        ("*/15 * * * * /app/bin/poll", "7-59/15 * * * * <command>"),
        ("0,30 3 * * * /app/bin/poll", "7-59/30 3 * * *"),
        ("0,20 3 * * * /app/bin/poll", "37,57 3 * * *"),
        ("0 3 * * * /app/bin/poll", "37 3 * * * <command>"),
    ],
)
def test_a_crontab_minute_hint_keeps_the_runs_per_hour(line: str, hint: str) -> None:
    from jobcheck.frameworks.crontab.reader import read_crontab
    from jobcheck.registry import semantics
    from jobcheck.timing import expanded

    facts = FileFacts(path="deploy/crontab", module="")
    read_crontab(facts, line + "\n")
    (entry,) = facts.schedules
    entry = dataclasses.replace(entry, timing=expanded(entry.timing))  # as extraction does
    found = semantics("crontab").minute_hint(entry, 37)
    assert found is not None and found.startswith(hint.removesuffix(" <command>"))
