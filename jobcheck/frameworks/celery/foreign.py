"""Objects whose ``.task`` decorators are not Celery's: made by another job library.

Light on purpose (no libcst): the Celery recognizer reads it while walking a file, and
the project model reads it to tell whose ``<obj>.task`` a decorator is when ``obj`` is
made in another file (``huey = MyHuey()``, ``broker = ListQueueBroker(...)``).
"""

from __future__ import annotations

# Libraries whose ``.task`` decorators are not Celery's.
NOT_CELERY_ROOTS = frozenset(
    {
        "huey",
        "django_huey",
        "hueyx",
        "dramatiq",
        "rq",
        "django_rq",
        "arq",
        "taskiq",
        "prefect",
        "invoke",
        "fabric",
        "airflow",
        "luigi",
        "dagster",
        "asyncio",
        "trio",
        "anyio",
        "dask",
        "ray",
        "modal",
        "metaflow",
        "kfp",
        "flytekit",
        "nox",
        "pytest",
        # Locust's ``@task`` weighs a load-test user's methods (locust/__init__.py
        # re-exports ``locust.user.task.task``).
        "locust",
        "apscheduler",
        "flask_apscheduler",
    }
)
# taskiq's broker packages are separate distributions named ``taskiq-*`` (taskiq_redis,
# taskiq_aio_pika, taskiq_nats, taskiq_memory...): every ``taskiq_`` root is one.
NOT_CELERY_PREFIXES = ("taskiq_",)


def is_foreign(qualname: str | None) -> bool:
    """Whether ``qualname`` (a class or function's dotted path) belongs to a library
    other than Celery whose objects have ``.task`` decorators of their own."""
    if not qualname:
        return False
    root = qualname.split(".")[0]
    return root in NOT_CELERY_ROOTS or root.startswith(NOT_CELERY_PREFIXES)


def constructor(func: str | None) -> bool:
    """A callee that looks like a class (``RedisHuey``, ``taskiq_redis.ListQueueBroker``),
    as opposed to a factory function or a method."""
    return bool(func) and func.rpartition(".")[2][:1].isupper()  # type: ignore[union-attr]
