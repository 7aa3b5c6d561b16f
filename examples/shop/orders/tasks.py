import random

import requests
from celery import shared_task
from django.core.mail import send_mail
from requests.exceptions import ConnectionError, Timeout

from shop.celery import app

from .models import Order


# Mistakes: no time limit (SCL-18), a model instance as parameter (SCL-21), and an
# email a retried job sends again (SCL-17).
@shared_task
def send_receipt(order: Order):
    send_mail("Your receipt", f"Total: {order.total}", "shop@example.com", [order.customer.email])


# Correct twin: an ID, a time limit, a state check so a second run sends nothing.
@shared_task(time_limit=60, soft_time_limit=50)
def send_receipt_by_id(order_id):
    order = Order.objects.get(pk=order_id)
    if order.receipt_sent:
        return
    send_mail("Your receipt", f"Total: {order.total}", "shop@example.com", [order.customer.email])
    Order.objects.filter(pk=order_id).update(receipt_sent=True)


# Mistakes: retries forever, on every exception, at a fixed pace (SCL-34);
# soft limit not below the hard one (SCL-18).
@app.task(
    time_limit=120,
    soft_time_limit=120,
    max_retries=None,
    autoretry_for=(Exception,),
)
def notify_warehouse(order_id):
    requests.post("https://warehouse.example.com/orders", json={"id": order_id}, timeout=10)


# Correct twin: transient errors only, exponential backoff with jitter, capped.
@app.task(
    time_limit=120,
    soft_time_limit=100,
    autoretry_for=(ConnectionError, Timeout),
    retry_backoff=True,
    max_retries=5,
)
def notify_warehouse_safely(order_id):
    requests.post("https://warehouse.example.com/orders", json={"id": order_id}, timeout=10)


# Mistake: a fixed countdown on manual retries (SCL-34), and a time limit above the
# Redis visibility timeout while acks_late is on (SCL-18).
@app.task(bind=True, time_limit=7200, soft_time_limit=7000)
def export_orders(self, day):
    try:
        return requests.get(f"https://erp.example.com/export/{day}", timeout=30).json()
    except Timeout as exc:
        raise self.retry(exc=exc, countdown=30)


# Correct twin: the countdown grows with each attempt and has jitter.
@app.task(bind=True, time_limit=600, soft_time_limit=550)
def export_orders_safely(self, day):
    try:
        return requests.get(f"https://erp.example.com/export/{day}", timeout=30).json()
    except Timeout as exc:
        raise self.retry(exc=exc, countdown=2**self.request.retries * 30 + random.randint(0, 30))
