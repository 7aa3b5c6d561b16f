"""Django settings for the example shop."""

import os

from shop.schedules import CELERY_BEAT_SCHEDULE  # noqa: F401  (beat entries live there)

SECRET_KEY = os.environ.get("SECRET_KEY", "example-only")
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "orders",
    "payments",
    "reports",
]

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "shop",
        # Every view runs in a transaction: a job enqueued by a view must wait for the
        # commit (JOB-01).
        "ATOMIC_REQUESTS": True,
    }
}

CELERY_BROKER_URL = os.environ.get("CELERY_BROKER_URL", "redis://localhost:6379/0")
# Mistake: the result backend's password is in the repository, as the default of an
# environment read (JOB-03); the broker URL above has no password.
CELERY_RESULT_BACKEND = os.environ.get(
    "CELERY_RESULT_BACKEND", "redis://:shop-7Rq2vXk9@cache.shop.internal:6379/1"
)
# Mistake: workers accept pickle, so whoever can write to Redis runs code on them (JOB-03).
CELERY_ACCEPT_CONTENT = ["json", "pickle"]
CELERY_TASK_ACKS_LATE = True
# Mistake: no CELERY_TASK_TIME_LIMIT, so every task without its own limit can run forever.
