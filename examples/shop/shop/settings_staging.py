"""Staging settings, built on the production ones."""

from shop.settings import *  # noqa: F403

# Mistake: staging runs every task inline in the request, so it never shows what the
# queues do (SCL-16). Keep eager mode for the test settings.
CELERY_TASK_ALWAYS_EAGER = True
