"""Account emails: jobs a person waits for, with the page open (SCL-20)."""

from celery import shared_task
from django.contrib.auth.models import User
from django.core.mail import send_mail


# Mistake (SCL-20): nothing routes this task, so it runs on Celery's default queue,
# behind every newsletter and export that nothing routes elsewhere either.
@shared_task(time_limit=30)
def send_password_reset(user_id, token):
    user = User.objects.get(pk=user_id)
    send_mail("Reset your password", f"/reset/{token}", "shop@example.com", [user.email])


# Correct twin: a queue of its own, with its own workers (celery -A shop worker -Q
# urgent), and an age bound: a sign-in code is useless after five minutes (SCL-19).
@shared_task(queue="urgent", time_limit=30, expires=300)
def send_login_code(user_id):
    user = User.objects.get(pk=user_id)
    send_mail("Your sign-in code", "...", "shop@example.com", [user.email])
