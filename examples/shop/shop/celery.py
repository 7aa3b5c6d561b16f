import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shop.settings")

app = Celery("shop")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Mistake: a typo; no task is registered as "orders.tasks.send_reciept_by_id", so this
# rate limit never applies (JOB-02). Name tasks by reference (send_receipt_by_id.name).
app.conf.task_annotations = {"orders.tasks.send_reciept_by_id": {"rate_limit": "10/s"}}
