"""Periodic order maintenance, run by Celery beat (see shop/schedules.py)."""

import redis
from celery import shared_task
from django.core.cache import cache
from django.core.mail import send_mail
from django.utils import timezone

from .models import Order

redis_client = redis.Redis()


# Mistake: nothing stops two runs from overlapping (SCL-38), and nothing expires the
# messages beat keeps sending while the workers are down (SCL-19).
@shared_task(time_limit=600, soft_time_limit=540)
def cancel_unpaid_orders():
    Order.objects.filter(paid=False, created__lt=timezone.now()).update(cancelled=True)


# Correct twin: a second run finds the lock taken and skips; stale messages expire.
@shared_task(time_limit=600, soft_time_limit=540, expires=3000)
def cancel_unpaid_orders_once():
    if not cache.add("lock:cancel-unpaid-orders", "1", timeout=600):
        return
    try:
        Order.objects.filter(paid=False, created__lt=timezone.now()).update(cancelled=True)
    finally:
        cache.delete("lock:cancel-unpaid-orders")


@shared_task(time_limit=300, soft_time_limit=270, expires=3000)
def refresh_exchange_rates():
    if not cache.add("lock:refresh-exchange-rates", "1", timeout=300):
        return


# Mistake: the lock keeps two runs from overlapping (so SCL-38 is satisfied), but not a
# run that repeats after the first one ended (a second beat, a caught-up tick): the
# staff get the digest twice (SCL-17).
@shared_task(time_limit=300, soft_time_limit=270, expires=3000)
def mail_unpaid_digest():
    with redis_client.lock("lock:unpaid-digest", timeout=300):
        count = Order.objects.filter(paid=False).count()
        send_mail("Unpaid orders", f"{count} unpaid", "shop@example.com", ["staff@example.com"])


# Correct twin: one digest a day, whichever run gets there first.
@shared_task(time_limit=300, soft_time_limit=270, expires=3000)
def mail_unpaid_digest_once():
    if not cache.add(f"digest:unpaid:{timezone.now().date()}", "1", timeout=2 * 86400):
        return
    count = Order.objects.filter(paid=False).count()
    send_mail("Unpaid orders", f"{count} unpaid", "shop@example.com", ["staff@example.com"])


# Mistake: started every minute (shop/schedules.py) with a five-minute limit and no
# lock: up to five runs overlap by design (SCL-38).
@shared_task(time_limit=300, soft_time_limit=270, expires=50)
def sync_stock_levels():
    Order.objects.filter(paid=True, shipped=False).update(stock_checked=timezone.now())
