"""Search indexing runs on Dramatiq."""

import dramatiq
from django.db import transaction

from orders.models import Order


# Mistakes: time_limit=None breaks Dramatiq's TimeLimit middleware (SCL-18) and
# max_retries=None retries forever (SCL-34).
@dramatiq.actor(time_limit=None, max_retries=None)
def index_order(order_id):
    return Order.objects.get(pk=order_id)


# Correct twin: Dramatiq's defaults (10 minute limit, 20 retries with backoff).
@dramatiq.actor(max_retries=5)
def index_order_safely(order_id):
    return Order.objects.get(pk=order_id)


def reindex(order_id):
    with transaction.atomic():
        order = Order.objects.select_for_update().get(pk=order_id)
        order.save()
        # Mistake: sent inside the transaction (JOB-01).
        index_order.send(order.pk)
    # Correct: sent after the commit.
    index_order_safely.send(order_id)
