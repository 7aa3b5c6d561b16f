"""When the shop's periodic jobs run: Celery beat entries (imported into settings), and an
in-process APScheduler for the warehouse feed."""

from datetime import timedelta

from apscheduler.schedulers.background import BackgroundScheduler
from celery.schedules import crontab

from orders.periodic import (
    cancel_unpaid_orders_once,
    mail_unpaid_digest,
    mail_unpaid_digest_once,
    refresh_exchange_rates,
    sync_stock_levels,
)

CELERY_BEAT_SCHEDULE = {
    # Mistakes: every hour at minute 0 like everyone else's cron (SCL-22), a job with no
    # lock and no expiry (SCL-38, SCL-19).
    "cancel-unpaid-orders": {
        "task": "orders.periodic.cancel_unpaid_orders",
        "schedule": crontab(minute=0),
    },
    # Correct twin: a minute of its own, a lock and an expiry in the task.
    "cancel-unpaid-orders-once": {
        "task": cancel_unpaid_orders_once.name,
        "schedule": crontab(minute=17),
    },
    # Mistake: crontab(hour=4) without minute= fires every minute from 04:00 to 04:59.
    "refresh-rates-nightly": {
        "task": refresh_exchange_rates.name,
        "schedule": crontab(hour=4),
    },
    # Correct twin.
    "refresh-rates-nightly-once": {
        "task": refresh_exchange_rates.name,
        "schedule": crontab(minute=23, hour=4),
    },
    # Mistake: counted from when beat starts; deploying every few hours, it never runs.
    "refresh-rates-6h": {
        "task": refresh_exchange_rates.name,
        "schedule": timedelta(hours=6),
    },
    # Correct twin: fixed times.
    "refresh-rates-6h-fixed": {
        "task": refresh_exchange_rates.name,
        "schedule": crontab(minute=29, hour="*/6"),
    },
    # Mistake: starts at 01:17 together with "cancel-unpaid-orders-once" above.
    "refresh-rates-early": {
        "task": refresh_exchange_rates.name,
        "schedule": crontab(minute=17, hour=1),
    },
    # Mistake: a daily mail sent again whenever the job runs twice (see the task).
    "mail-unpaid-digest": {
        "task": mail_unpaid_digest.name,
        "schedule": crontab(minute=37, hour=7),
    },
    # Correct twin.
    "mail-unpaid-digest-once": {
        "task": mail_unpaid_digest_once.name,
        "schedule": crontab(minute=47, hour=7),
    },
    # Mistake: every minute, for a task that may run five (see the task).
    "sync-stock-levels": {
        "task": sync_stock_levels.name,
        "schedule": 60.0,
    },
    # Mistake: a typo; no task is registered as "orders.periodic.refresh_exchange_rate",
    # so beat sends messages no worker accepts (JOB-02). The entries above name tasks by
    # reference (``.name``), which cannot go wrong.
    "refresh-rates-typo": {
        "task": "orders.periodic.refresh_exchange_rate",
        "schedule": crontab(minute=31, hour=5),
    },
}


def sync_warehouse_feed():
    pass


warehouse_scheduler = BackgroundScheduler()
warehouse_scheduler.add_job(sync_warehouse_feed, "cron", minute=41)


def start_warehouse_scheduler():
    warehouse_scheduler.start()


if __name__ == "__main__":
    # Correct: the scheduler runs in one process of its own (python -m shop.schedules).
    start_warehouse_scheduler()
