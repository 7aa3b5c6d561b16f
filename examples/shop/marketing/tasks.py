"""Newsletters and exports: bulk work (SCL-19)."""

from celery import shared_task
from django.contrib.auth.models import User

from orders.models import Order


# Mistake (SCL-19 unbounded-queue): nothing bounds the "bulk" queue. The broker is
# Redis, which has no queue-length limit, so while the bulk workers lag the queue
# grows without end.
@shared_task(queue="bulk", time_limit=600)
def send_newsletter(customer_id):
    return User.objects.filter(pk=customer_id).values("email").first()


# Correct twin: on Redis the bound is an age. Exports that waited an hour are dropped
# (expires), and the "exports" queue cannot pile up for ever.
@shared_task(queue="exports", time_limit=600, expires=3600)
def export_customers(customer_ids):
    return User.objects.filter(pk__in=customer_ids).values("email")


def announce_sale():
    # Mistake (SCL-19 unbounded-fan-out): one job per order row, all at once; next
    # year's table makes next year's backlog.
    for order in Order.objects.all():
        send_newsletter.delay(order.customer_id)


def export_everyone():
    # Correct twin: one job per 500 customers.
    customer_ids = list(User.objects.values_list("pk", flat=True))
    for start in range(0, len(customer_ids), 500):
        export_customers.delay(customer_ids[start : start + 500])
