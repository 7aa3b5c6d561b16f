"""Top-level packages that are libraries, never the project: a call into them is not a
helper whose body jobcheck should follow (``FunctionFacts.call_sites``)."""

from __future__ import annotations

import builtins
import sys

THIRD_PARTY_ROOTS = frozenset(
    {
        # job systems and their brokers
        "celery",
        "kombu",
        "billiard",
        "rq",
        "django_rq",
        "rq_scheduler",
        "dramatiq",
        "periodiq",
        "huey",
        "arq",
        "taskiq",
        "taskiq_redis",
        "taskiq_aio_pika",
        "apscheduler",
        "schedule",
        "redis",
        "pika",
        "aio_pika",
        # web frameworks, ORMs and their ecosystems
        "django",
        "rest_framework",
        "flask",
        "flask_sqlalchemy",
        "fastapi",
        "starlette",
        "quart",
        "sqlalchemy",
        "alembic",
        "pydantic",
        "marshmallow",
        "graphene",
        "strawberry",
        "channels",
        "asgiref",
        "werkzeug",
        "jinja2",
        # clients and tools
        "requests",
        "httpx",
        "urllib3",
        "aiohttp",
        "boto3",
        "botocore",
        "stripe",
        "twilio",
        "sentry_sdk",
        "structlog",
        "PIL",
        "numpy",
        "pandas",
        "weasyprint",
        "dateutil",
        "pytz",
        "yaml",
        "ujson",
        "orjson",
        "attr",
        "attrs",
        "click",
        "typer",
        "rich",
        "tenacity",
        "backoff",
        "pytest",
        "mock",
        "factory",
        "faker",
        "freezegun",
        "gevent",
        "eventlet",
        "psycopg2",
        "psycopg",
        "pymysql",
        "MySQLdb",
        "pymongo",
        "elasticsearch",
        "environ",
        "decouple",
        "dj_database_url",
        "opentelemetry",
        "prometheus_client",
        "statsd",
    }
)


def is_library(qualname: str) -> bool:
    """Whether a dotted path names something of the standard library or a well-known
    third-party package (builtins included)."""
    root = qualname.partition(".")[0]
    return root in THIRD_PARTY_ROOTS or root in sys.stdlib_module_names or root in _BUILTINS


_BUILTINS = frozenset(dir(builtins))
