"""Account views: what they hand the account jobs."""

from django.contrib.auth.tokens import default_token_generator
from django.db import transaction
from django.http import JsonResponse

from .tasks import send_login_code, send_password_reset


def request_password_reset(request):
    token = default_token_generator.make_token(request.user)
    # Mistake (SCL-21 secret-in-payload): the reset token rides in the message, where
    # the broker, Flower and error reports keep it; the job can make it from the ID.
    transaction.on_commit(lambda: send_password_reset.delay(request.user.pk, token))
    return JsonResponse({"sent": True})


def request_login_code(request):
    # Correct: only the ID; the job makes the code and stores its hash.
    transaction.on_commit(lambda: send_login_code.delay(request.user.pk))
    return JsonResponse({"sent": True})
