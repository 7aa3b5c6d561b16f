"""Process definitions beyond Procfiles: docker-compose services, Kubernetes workloads
and Helm values, systemd units, Dockerfiles and shell entrypoints, read into the worker
map of ``jobcheck review`` (and SCL-20's queue-without-worker)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from jobcheck.cli import cli
from jobcheck.commandline import programs
from jobcheck.extract.files import extract
from jobcheck.project.workers import workers

TASKS = """\
from celery import Celery

app = Celery("shop", broker="redis://localhost")


@app.task(queue="mail")
def send_receipt(order_id):
    pass


@app.task(queue="reports")
def export_orders():
    pass


@app.task(queue="search")
def reindex():
    pass


@app.task(queue="images")
def resize(image_id):
    pass


@app.task(queue="orphans")
def forgotten():
    pass
"""

COMPOSE = """\
services:
  web:
    image: shop
    command: gunicorn shop.wsgi
  worker:
    image: shop
    command: ["celery", "-A", "shop", "worker", "-Q", "mail,reports"]
    deploy:
      replicas: 2
"""

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: search-worker
spec:
  replicas: 3
  template:
    spec:
      containers:
        - name: worker
          image: shop
          command: ["/bin/sh", "-c"]
          args: ["cd /app && exec celery -A shop worker --queues search"]
"""

VALUES = """\
imageWorker:
  command:
    - celery
    - -A
    - shop
    - worker
    - -Q
    - images
"""

UNIT = """\
[Unit]
Description=celery default worker

[Service]
ExecStart=/srv/venv/bin/celery -A shop worker \\
    --loglevel info
"""

DOCKERFILE = """\
FROM python:3.12
ENTRYPOINT ["/entrypoint.sh"]
CMD ["celery", "-A", "shop", "beat"]
"""

ENTRYPOINT = """\
#!/bin/sh
set -e
python manage.py migrate
exec rq worker high low
"""


@pytest.fixture
def deployed(tmp_path: Path) -> Path:
    (tmp_path / "shop").mkdir()
    (tmp_path / "shop" / "__init__.py").write_text("")
    (tmp_path / "shop" / "tasks.py").write_text(TASKS)
    (tmp_path / "docker-compose.yml").write_text(COMPOSE)
    (tmp_path / "k8s").mkdir()
    (tmp_path / "k8s" / "search.yaml").write_text(DEPLOYMENT)
    (tmp_path / "chart").mkdir()
    (tmp_path / "chart" / "values.yaml").write_text(VALUES)
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "celery.service").write_text(UNIT)
    (tmp_path / "Dockerfile").write_text(DOCKERFILE)
    (tmp_path / "entrypoint.sh").write_text(ENTRYPOINT)
    return tmp_path


def _facts(name: str, text: str):  # type: ignore[no-untyped-def]
    return extract(name, text.encode(), "", False)


def test_each_kind_of_file_gives_its_processes() -> None:
    compose = _facts("docker-compose.yml", COMPOSE).processes
    assert [(p.source, p.name, p.loc.line) for p in compose] == [
        ("compose", "web", 4),
        ("compose", "worker", 7),
    ]
    assert compose[1].option("replicas") is not None
    k8s = _facts("k8s/search.yaml", DEPLOYMENT).processes
    assert [(p.source, p.name) for p in k8s] == [
        ("workload", "Deployment search-worker, container worker")
    ]
    values = _facts("chart/values.yaml", VALUES).processes
    assert [(p.source, p.name) for p in values] == [("values", "imageWorker")]
    unit = _facts("deploy/celery.service", UNIT).processes
    assert [(p.name, p.command, p.loc.line) for p in unit] == [
        ("celery", "/srv/venv/bin/celery -A shop worker  --loglevel info", 5)
    ]
    docker = _facts("Dockerfile", DOCKERFILE).processes
    assert [p.command for p in docker] == ["/entrypoint.sh celery -A shop beat"]
    script = _facts("entrypoint.sh", ENTRYPOINT).processes
    assert [(p.command, p.loc.line) for p in script] == [("exec rq worker high low", 4)]


def test_a_worker_command_is_read_through_shells_and_set_up_commands() -> None:
    """The command lines of process definitions go through ``commandline.programs``, as
    crontab lines do: ``sh -c``, ``&&`` chains, ``cd``, ``exec`` and ``VAR=x`` read through."""
    assert programs("sh -c 'cd /app && exec celery -A x worker -Q a'") == [
        ["celery", "-A", "x", "worker", "-Q", "a"],
    ]
    assert programs("python manage.py migrate; rq worker high") == [
        ["python", "manage.py", "migrate"],
        ["rq", "worker", "high"],
    ]
    assert programs("REMAP_SIGTERM=SIGQUIT celery --app p worker --queues celery --beat") == [
        ["celery", "--app", "p", "worker", "--queues", "celery", "--beat"]
    ]


def test_workers_are_read_from_every_kind(deployed: Path) -> None:
    from jobcheck.extract.files import kind_of

    files = [
        _facts(str(p.relative_to(deployed)), p.read_text())
        for p in deployed.rglob("*")
        if p.is_file() and kind_of(str(p.relative_to(deployed))) is not None
    ]
    found = {(w.framework, w.queues, w.where.split(":")[0]) for w in workers(files)}
    assert found == {
        ("celery", ("mail", "reports"), "docker-compose.yml"),
        ("celery", ("search",), "k8s/search.yaml"),
        ("celery", ("images",), "chart/values.yaml"),
        ("celery", ("@configured",), "deploy/celery.service"),
        ("rq", ("high", "low"), "entrypoint.sh"),
    }


def test_review_maps_queues_to_the_workers_that_consume_them(deployed: Path) -> None:
    result = CliRunner().invoke(cli, ["review", str(deployed), "--format", "json"])
    data = json.loads(result.output)
    consumed = {q["name"]: q["workers"] for q in data["queues"] if q["framework"] == "celery"}
    assert [w.split("/")[-1] for w in consumed["mail"]] == ["docker-compose.yml:7 (worker)"]
    assert "k8s/search.yaml:" in consumed["search"][0]
    assert "chart/values.yaml:" in consumed["images"][0]
    assert consumed["orphans"] == []


def test_a_compose_file_with_a_worker_is_not_taken_for_a_manifest() -> None:
    from jobcheck.extract.files import kind_for

    kind = kind_for("docker-compose.yml", COMPOSE.encode())
    assert kind is not None and kind.name == "compose"
    sidekiq = b":queues:\n  - default\n# celery worker docs\n"
    ruby = kind_for("config/sidekiq.yml", sidekiq)
    assert ruby is not None and ruby.name == "ruby"


def test_a_kubernetes_deployment_runs_beat_in_every_replica(tmp_path: Path) -> None:
    (tmp_path / "tasks.py").write_text(TASKS)
    (tmp_path / "worker.yaml").write_text(
        DEPLOYMENT.replace("--queues search", "--queues search -B")
    )
    result = CliRunner().invoke(
        cli, ["check", str(tmp_path), "--select", "SCL-38", "--format", "json"]
    )
    found = json.loads(result.output)["findings"]
    messages = [f["message"] for f in found if f["check"] == "scheduler-in-every-instance"]
    assert len(messages) == 1
    assert messages[0].startswith(
        "Deployment search-worker, container worker runs a Celery worker with an embedded "
        "beat (-B): each of its 3 copies sends every schedule"
    )


def test_yaml_aliases_are_read_once() -> None:
    """An alias may repeat a node or make a cycle (``&a [*a]``): each node is read once,
    so a few hundred bytes cannot make the reader walk millions of nodes."""
    fan_out = b"a: &a\n  - worker\n  - [" + b", ".join([b"*a"] * 50) + b"]\n"
    text = fan_out + b"  - command: [celery, worker]\n"
    facts = extract("chart/values.yaml", text, "", False)
    assert facts.error is None
    assert [p.command for p in facts.processes] == ["celery worker"]


FLY = """\
app = "shop"

[processes]
  app = "gunicorn shop.wsgi"
  worker = "celery -A shop worker -Q mail,default -B"
"""

RENDER = """\
services:
  - type: worker
    name: celery-images
    runtime: python
    startCommand: celery -A shop worker -Q images
  - type: web
    name: web
    startCommand: gunicorn shop.wsgi
"""


def test_fly_process_groups_and_render_services_are_processes() -> None:
    fly = _facts("fly.toml", FLY).processes
    assert [(p.source, p.name, p.loc.line) for p in fly] == [
        ("fly", "app", 4),
        ("fly", "worker", 5),
    ]
    render = _facts("render.yaml", RENDER).processes
    assert [(p.name, p.command) for p in render] == [
        ("celery-images", "celery -A shop worker -Q images"),
        ("web", "gunicorn shop.wsgi"),
    ]
    found = {(w.framework, w.queues) for w in workers([_facts("fly.toml", FLY)])}
    assert found == {("celery", ("mail", "default"))}


def test_a_fly_worker_with_beat_runs_it_in_every_machine(tmp_path: Path) -> None:
    (tmp_path / "tasks.py").write_text(TASKS)
    (tmp_path / "fly.toml").write_text(FLY)
    result = CliRunner().invoke(
        cli, ["check", str(tmp_path), "--select", "scheduler-in-every-instance", "--format", "json"]
    )
    (finding,) = json.loads(result.output)["findings"]
    assert finding["path"].endswith("fly.toml") and finding["line"] == 5
    assert finding["message"].startswith("fly.io process group 'worker' runs a Celery worker")
