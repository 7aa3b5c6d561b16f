"""Payments run on Celery: charges, receipts and the ERP sync."""

import logging

import requests
import stripe
from celery import shared_task
from django.db import transaction
from requests.exceptions import RequestException

from orders.models import Order

logger = logging.getLogger(__name__)


# Mistake: a retried or redelivered job charges the customer again (SCL-17): Stripe
# gets no idempotency key and nothing checks whether the order was already paid.
@shared_task(time_limit=60, soft_time_limit=50)
def charge_order(order_id):
    order = Order.objects.get(pk=order_id)
    stripe.PaymentIntent.create(amount=int(order.total * 100), currency="eur")
    Order.objects.filter(pk=order_id).update(paid=True)


# Correct twin: an idempotency key derived from the order, and a state check under a
# row lock so a second run does nothing.
@shared_task(time_limit=60, soft_time_limit=50)
def charge_order_once(order_id):
    with transaction.atomic():
        order = Order.objects.select_for_update().get(pk=order_id)
        if order.paid:
            return
        stripe.PaymentIntent.create(
            amount=int(order.total * 100),
            currency="eur",
            idempotency_key=f"order-{order.pk}-charge",
        )
        order.paid = True
        order.save(update_fields=["paid"])


# Mistakes: the ERP call has no timeout, so a silent ERP holds the worker (SCL-18), and
# the except clause swallows the failure, so the job "succeeds" and the order is never
# synced (SCL-34).
@shared_task(time_limit=60, soft_time_limit=50)
def sync_to_erp(order_id):
    try:
        requests.post("https://erp.example.com/orders", json={"id": order_id})
    except RequestException:
        pass


# Correct twin: a timeout well below the time limit, and a failure that is logged and
# retried with backoff, then dead-lettered.
@shared_task(
    time_limit=60,
    soft_time_limit=50,
    autoretry_for=(RequestException,),
    retry_backoff=True,
    max_retries=5,
)
def sync_to_erp_safely(order_id):
    try:
        requests.post("https://erp.example.com/orders", json={"id": order_id}, timeout=10)
    except RequestException:
        logger.warning("ERP sync failed for order %s; retrying", order_id, exc_info=True)
        raise
