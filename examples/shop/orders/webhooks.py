"""Order confirmation endpoints."""

import requests
from django.core.mail import send_mail
from django.db import transaction
from django.http import JsonResponse
from django.shortcuts import get_object_or_404

from .models import Order
from .tasks import send_receipt_by_id


# Mistakes (SCL-16): the visitor waits for the mail server and for the partner's
# webhook, and the request fails when either is down.
@transaction.non_atomic_requests
def confirm(request, pk):
    order = get_object_or_404(Order, pk=pk)
    send_mail("Order confirmed", f"Order {order.pk}", "shop@example.com", [order.customer.email])
    requests.post("https://partner.example.com/hooks/order", json={"id": order.pk}, timeout=5)
    return JsonResponse({"confirmed": True})


# Correct twin: the receipt is a job, enqueued after the commit; the partner's answer is
# part of the response, so that call stays.
@transaction.non_atomic_requests
def confirm_correctly(request, pk):
    order = get_object_or_404(Order, pk=pk)
    transaction.on_commit(lambda: send_receipt_by_id.delay(order.pk))
    quote = requests.get("https://partner.example.com/quote", params={"id": order.pk}, timeout=5)
    return JsonResponse({"confirmed": True, "delivery": quote.json()})
