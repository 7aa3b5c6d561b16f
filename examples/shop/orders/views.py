from django.db import transaction
from django.http import JsonResponse
from django.shortcuts import get_object_or_404

from .models import Order
from .tasks import export_orders, send_receipt, send_receipt_by_id


# ATOMIC_REQUESTS is on: this view runs inside a transaction.
def pay(request, pk):
    order = get_object_or_404(Order, pk=pk)
    order.paid = True
    order.save()
    # Mistakes: the job is enqueued before the request's transaction commits (JOB-01),
    # and it carries the whole row instead of its ID (SCL-21).
    send_receipt.delay(order)
    return JsonResponse({"paid": True})


def pay_correctly(request, pk):
    order = get_object_or_404(Order, pk=pk)
    order.paid = True
    order.save()
    # Correct: the ID, enqueued once the transaction has committed.
    transaction.on_commit(lambda: send_receipt_by_id.delay(order.pk))
    return JsonResponse({"paid": True})


@transaction.non_atomic_requests
def schedule_export(request, day):
    # Mistake: a countdown above the Redis visibility timeout (SCL-18): the message is
    # redelivered while it waits.
    export_orders.apply_async((day,), countdown=6 * 3600)
    return JsonResponse({"scheduled": day})
