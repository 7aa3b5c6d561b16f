"""A realistic Celery job module of a given length, for the LSP latency benchmark.

The module mixes what a real ``tasks.py`` of a Django shop holds: imports, a Celery app,
tasks with and without options, ORM reads, HTTP calls, retries, exception handlers,
helpers, and views that enqueue (some inside ``transaction.atomic``). Some blocks carry
mistakes jobcheck flags, most do not, as in real code.
"""

from __future__ import annotations

HEADER = '''"""Background jobs for the shop (generated for jobcheck's LSP benchmark)."""

import logging
import random
from datetime import timedelta

import requests
from celery import Celery, shared_task
from django.core.mail import send_mail
from django.db import transaction
from django.http import JsonResponse
from django.shortcuts import get_object_or_404
from requests.exceptions import ConnectionError, Timeout

from shop.models import Customer, Invoice, Order, Product

logger = logging.getLogger(__name__)

app = Celery("shop")
app.config_from_object("django.conf:settings", namespace="CELERY")

'''

BLOCKS = (
    '''
@shared_task(time_limit=60, soft_time_limit=50)
def send_receipt_{n}(order_id):
    """Mail the receipt of one order, once."""
    order = Order.objects.select_related("customer").get(pk=order_id)
    if order.receipt_sent:
        logger.info("receipt for %s already sent", order_id)
        return
    lines = [f"{{item.product.name}}: {{item.price}}" for item in order.items.all()]
    body = "\\n".join(lines) + f"\\nTotal: {{order.total}}"
    send_mail("Your receipt", body, "shop@example.com", [order.customer.email])
    Order.objects.filter(pk=order_id).update(receipt_sent=True)
''',
    """
@app.task(bind=True, time_limit=120, soft_time_limit=100, max_retries=5)
def sync_inventory_{n}(self, product_id):
    product = Product.objects.get(pk=product_id)
    try:
        response = requests.get(
            f"https://erp.example.com/stock/{{product.sku}}",
            timeout=10,
        )
        response.raise_for_status()
    except (ConnectionError, Timeout) as exc:
        raise self.retry(exc=exc, countdown=2**self.request.retries * 30 + random.randint(0, 30))
    data = response.json()
    product.stock = data["stock"]
    product.save(update_fields=["stock"])
    return product.stock
""",
    """
@shared_task
def rebuild_search_index_{n}(order):
    for item in order.items.all():
        document = {{
            "id": item.pk,
            "name": item.product.name,
            "price": str(item.price),
        }}
        requests.post("https://search.example.com/index", json=document, timeout=5)
""",
    """
def pay_{n}(request, pk):
    order = get_object_or_404(Order, pk=pk)
    with transaction.atomic():
        order.paid = True
        order.save()
        send_receipt_{n}.delay(order.pk)
    return JsonResponse({{"paid": True}})
""",
    """
def pay_correctly_{n}(request, pk):
    order = get_object_or_404(Order, pk=pk)
    with transaction.atomic():
        order.paid = True
        order.save()
        transaction.on_commit(lambda: send_receipt_{n}.delay(order.pk))
    return JsonResponse({{"paid": True}})
""",
    """
@app.task(
    time_limit=300,
    soft_time_limit=280,
    autoretry_for=(ConnectionError, Timeout),
    retry_backoff=True,
    max_retries=6,
)
def charge_invoice_{n}(invoice_id):
    invoice = Invoice.objects.get(pk=invoice_id)
    if invoice.charged_at is not None:
        return invoice.charged_at
    payload = {{
        "amount": invoice.amount_cents,
        "currency": invoice.currency,
        "customer": invoice.customer.external_id,
    }}
    response = requests.post(
        "https://payments.example.com/charges",
        json=payload,
        headers={{"Idempotency-Key": f"invoice-{{invoice.pk}}"}},
        timeout=20,
    )
    response.raise_for_status()
    invoice.mark_charged(response.json()["id"])
    return invoice.charged_at
""",
    """
def _format_address_{n}(customer):
    parts = [customer.street, customer.postcode, customer.city, customer.country]
    return ", ".join(part for part in parts if part)


def _chunks_{n}(items, size=100):
    for start in range(0, len(items), size):
        yield items[start : start + size]
""",
    """
@app.task(time_limit=900, soft_time_limit=870)
def export_customers_{n}(day):
    rows = []
    for customer in Customer.objects.filter(created__date=day).iterator():
        rows.append(
            {{
                "id": customer.pk,
                "email": customer.email,
                "address": _format_address_{n}(customer),
            }}
        )
    for batch in _chunks_{n}(rows):
        requests.post("https://crm.example.com/import", json=batch, timeout=30)
    return len(rows)
""",
    """
@shared_task(time_limit=30, soft_time_limit=25, max_retries=None, autoretry_for=(Exception,))
def notify_warehouse_{n}(order_id):
    requests.post(
        "https://warehouse.example.com/orders",
        json={{"id": order_id, "ts": str(timedelta(seconds=5))}},
        timeout=10,
    )
""",
)


def generate_module(lines: int = 2000) -> str:
    """Python source of about ``lines`` lines (never fewer)."""
    parts = [HEADER]
    count = HEADER.count("\n")
    n = 0
    while count < lines:
        block = BLOCKS[n % len(BLOCKS)].format(n=n)
        parts.append(block)
        count += block.count("\n")
        n += 1
    return "".join(parts)


if __name__ == "__main__":
    print(generate_module(), end="")
