"""Reports run on RQ."""

from redis import Redis
from rq import Queue, Retry

from orders.models import Order

redis = Redis()
reports = Queue("reports", connection=redis)
# Mistake: default_timeout=-1 disables RQ's timeout for every job on this queue (SCL-18).
archive = Queue("archive", connection=redis, default_timeout=-1)


def build_report(order_id):
    return Order.objects.filter(pk=order_id).values("total").first()


def request_report(order_id):
    order = Order.objects.get(pk=order_id)
    # Mistake: the record instead of its ID (SCL-21), and retries at a fixed pace (SCL-34).
    reports.enqueue(build_report, order, retry=Retry(max=3, interval=60))
    # Correct: the ID, RQ's default timeout (180 s), growing retry intervals.
    reports.enqueue(build_report, order.pk, retry=Retry(max=3, interval=[10, 60, 300]))
