"""What third-party calls do: HTTP clients and their default timeouts, email and
notification senders, payment SDKs, PDF/export renderers and image resizers.

The effects recognizer (``jobcheck.extract.effects``) reads these tables. Library
defaults are verified from each library's source; the citation sits next to the value.
"""

from __future__ import annotations

from dataclasses import dataclass

# -- HTTP clients ------------------------------------------------------------------


@dataclass(frozen=True)
class HttpLibrary:
    name: str
    default_timeout: bool
    """Whether a call without ``timeout=`` still has a finite timeout."""
    timeout_position: int | None = None
    """0-based index of ``timeout`` among positional arguments, when it can be passed so."""


# requests/api.py and requests/sessions.py ``Session.request(..., timeout=None, ...)``:
# no timeout unless one is passed; a Session has no default of its own.
REQUESTS = HttpLibrary("requests", default_timeout=False)
# httpx/_config.py ``DEFAULT_TIMEOUT_CONFIG = Timeout(timeout=5.0)``, the default of the
# top-level functions (httpx/_api.py) and of ``Client``/``AsyncClient``
# (httpx/_client.py): only an explicit ``timeout=None`` removes it.
HTTPX = HttpLibrary("httpx", default_timeout=True)
# urllib/request.py ``urlopen(url, data=None, timeout=socket._GLOBAL_DEFAULT_TIMEOUT)``:
# the socket default, which is None (blocking) unless socket.setdefaulttimeout() is called.
URLLIB = HttpLibrary("urllib", default_timeout=False, timeout_position=2)
# urllib3/__init__.py ``request(..., timeout=3)``: the module-level function has a default.
URLLIB3_FUNCTION = HttpLibrary("urllib3", default_timeout=True)
# urllib3/connectionpool.py and poolmanager.py: pools default to
# ``Timeout.DEFAULT_TIMEOUT``, which util/timeout.py resolves to
# ``socket.getdefaulttimeout()`` (None unless set).
URLLIB3_POOL = HttpLibrary("urllib3", default_timeout=False)

HTTP_VERBS = frozenset({"get", "post", "put", "patch", "delete", "head", "options", "request"})

HTTP_FUNCTIONS: dict[str, HttpLibrary] = {
    **{f"requests.{verb}": REQUESTS for verb in HTTP_VERBS},
    **{f"requests.api.{verb}": REQUESTS for verb in HTTP_VERBS},
    **{f"httpx.{verb}": HTTPX for verb in (*HTTP_VERBS, "stream")},
    "urllib.request.urlopen": URLLIB,
    "six.moves.urllib.request.urlopen": URLLIB,
    "urllib3.request": URLLIB3_FUNCTION,
}

# Client constructors: calls made on their instances are HTTP calls.
HTTP_CLIENTS: dict[str, HttpLibrary] = {
    "requests.Session": REQUESTS,
    "requests.session": REQUESTS,
    "requests.sessions.Session": REQUESTS,
    "requests.sessions.session": REQUESTS,
    "httpx.Client": HTTPX,
    "httpx.AsyncClient": HTTPX,
    "urllib3.PoolManager": URLLIB3_POOL,
    "urllib3.poolmanager.PoolManager": URLLIB3_POOL,
    "urllib3.ProxyManager": URLLIB3_POOL,
    "urllib3.HTTPConnectionPool": URLLIB3_POOL,
    "urllib3.HTTPSConnectionPool": URLLIB3_POOL,
    "urllib3.connection_from_url": URLLIB3_POOL,
    # urllib/request.py ``build_opener(...)`` -> OpenerDirector, whose
    # ``open(fullurl, data=None, timeout=socket._GLOBAL_DEFAULT_TIMEOUT)`` is urlopen's.
    "urllib.request.build_opener": URLLIB,
    "urllib.request.OpenerDirector": URLLIB,
}
# Methods of those clients that send a request (requests/sessions.py, httpx/_client.py,
# urllib3/_request_methods.py and poolmanager.py).
HTTP_CLIENT_METHODS = {
    "requests": HTTP_VERBS | {"send"},
    "httpx": HTTP_VERBS | {"send", "stream"},
    "urllib3": frozenset({"request", "urlopen", "request_encode_url", "request_encode_body"}),
    "urllib": frozenset({"open"}),
}

# Calls that sleep the thread: in a coroutine they stop its event loop (asyncio.sleep
# is the awaitable one).
BLOCKING_SLEEPS = frozenset({"time.sleep"})

# -- email and notifications ----------------------------------------------------------

# Functions that send email. django/core/mail/__init__.py: send_mail, send_mass_mail,
# mail_admins, mail_managers all open an SMTP (or backend) connection and send.
EMAIL_FUNCTIONS = frozenset(
    {
        "django.core.mail.send_mail",
        "django.core.mail.send_mass_mail",
        "django.core.mail.mail_admins",
        "django.core.mail.mail_managers",
        "templated_email.send_templated_mail",
        "aiosmtplib.send",
    }
)
# Classes whose instances send with ``.send()``.
EMAIL_MESSAGE_CLASSES = frozenset(
    {
        "django.core.mail.EmailMessage",
        "django.core.mail.EmailMultiAlternatives",
        "django.core.mail.message.EmailMessage",
        "django.core.mail.message.EmailMultiAlternatives",
    }
)
# Flask-Mail: ``mail.send(Message(...))`` or ``message.send(connection)``
# (flask_mail/__init__.py Mail.send, Message.send).
FLASK_MAIL_MESSAGES = frozenset({"flask_mail.Message", "flask_mailman.EmailMessage"})
# Objects whose ``send``/``send_message`` methods send mail: an SMTP connection, a
# Flask-Mail client, fastapi-mail's FastMail.send_message (fastapi_mail/fastmail.py),
# SendGrid's API client (sendgrid/base_interface.py ``send``).
MAIL_CLIENTS = frozenset(
    {
        "smtplib.SMTP",
        "smtplib.SMTP_SSL",
        "smtplib.LMTP",
        "aiosmtplib.SMTP",
        "flask_mail.Mail",
        "fastapi_mail.FastMail",
        "sendgrid.SendGridAPIClient",
    }
)
SMTP_CLASSES = frozenset({"smtplib.SMTP", "smtplib.SMTP_SSL", "smtplib.LMTP", "aiosmtplib.SMTP"})
# Calls that talk to a mail server on the calling thread: smtplib's constructors connect
# when given a host (smtplib.py ``SMTP.__init__`` calls ``self.connect``), Django's mail
# functions send through a blocking SMTP backend. In a coroutine they stop its event loop.
BLOCKING_MAIL = frozenset(
    {"smtplib.SMTP", "smtplib.SMTP_SSL", "smtplib.LMTP"}
    | {f for f in EMAIL_FUNCTIONS if not f.startswith("aiosmtplib.")}
)
MAIL_CLIENT_METHODS = frozenset({"send", "send_message", "sendmail", "send_messages"})
# ``user.email_user(...)``: django/contrib/auth/models.py AbstractUser.email_user calls
# send_mail. The method name is Django's own, so any receiver counts.
EMAIL_METHODS = frozenset({"email_user"})

# Notifications other than email. firebase_admin/messaging.py send, send_each,
# send_each_for_multicast (send_all/send_multicast in releases before 7);
# pywebpush/__init__.py webpush.
NOTIFICATION_FUNCTIONS = frozenset(
    {
        "firebase_admin.messaging.send",
        "firebase_admin.messaging.send_all",
        "firebase_admin.messaging.send_each",
        "firebase_admin.messaging.send_multicast",
        "firebase_admin.messaging.send_each_for_multicast",
        "pywebpush.webpush",
    }
)
NOTIFICATION_CLIENTS: dict[str, frozenset[str]] = {
    # slack_sdk/web/client.py WebClient.chat_postMessage/chat_postEphemeral,
    # slack_sdk/webhook/client.py WebhookClient.send; pyfcm/fcm.py notify (the
    # notify_* methods of pyfcm 1.x); apns2/client.py send_notification(_batch).
    "slack_sdk.WebClient": frozenset({"chat_postMessage", "chat_postEphemeral"}),
    "slack_sdk.web.WebClient": frozenset({"chat_postMessage", "chat_postEphemeral"}),
    "slack.WebClient": frozenset({"chat_postMessage", "chat_postEphemeral"}),
    "slack_sdk.webhook.WebhookClient": frozenset({"send"}),
    "pyfcm.FCMNotification": frozenset(
        {"notify", "notify_single_device", "notify_multiple_devices", "notify_topic_subscribers"}
    ),
    "apns2.client.APNsClient": frozenset({"send_notification", "send_notification_batch"}),
}
# twilio/rest/__init__.py Client: ``client.messages.create(...)`` sends an SMS,
# ``client.calls.create(...)`` places a call.
TWILIO_CLIENTS = frozenset({"twilio.rest.Client"})
TWILIO_RESOURCES = frozenset({"messages", "calls"})
# boto3 clients by service name: SES sends email, SNS publishes SMS/push.
BOTO3_CLIENT = frozenset({"boto3.client"})
BOTO3_SENDS = {
    "ses": (
        "email",
        frozenset(
            {"send_email", "send_raw_email", "send_templated_email", "send_bulk_templated_email"}
        ),
    ),
    "sesv2": ("email", frozenset({"send_email", "send_bulk_email"})),
    "sns": ("notification", frozenset({"publish", "publish_batch"})),
}

# -- payments -------------------------------------------------------------------------

# Stripe resources whose methods move money or bill a customer (stripe/_charge.py
# create/capture, _payment_intent.py create/confirm/capture, _refund.py, _transfer.py,
# _payout.py create, _invoice.py pay, _invoice_item.py create, _subscription.py create).
# Without ``idempotency_key`` the SDK makes up a random key per call
# (stripe/_api_requestor.py ``_generate_idempotency_key``), which protects its own
# network retries but not a second run of the job.
STRIPE_CHARGES: dict[str, frozenset[str]] = {
    "Charge": frozenset({"create", "capture"}),
    "PaymentIntent": frozenset({"create", "confirm", "capture"}),
    "Refund": frozenset({"create"}),
    "Transfer": frozenset({"create"}),
    "Payout": frozenset({"create"}),
    "Invoice": frozenset({"pay"}),
    "InvoiceItem": frozenset({"create"}),
    "Subscription": frozenset({"create"}),
}
# The StripeClient services (``client.v1.charges.create(params, options)``).
STRIPE_SERVICES: dict[str, frozenset[str]] = {
    "charges": frozenset({"create", "capture"}),
    "payment_intents": frozenset({"create", "confirm", "capture"}),
    "refunds": frozenset({"create"}),
    "transfers": frozenset({"create"}),
    "payouts": frozenset({"create"}),
    "invoices": frozenset({"pay"}),
    "invoice_items": frozenset({"create"}),
    "subscriptions": frozenset({"create"}),
}
STRIPE_CLIENTS = frozenset({"stripe.StripeClient"})
# Braintree has no idempotency keys at all (no such option anywhere in the braintree
# SDK): a repeated ``Transaction.sale`` charges again unless the job guards it.
BRAINTREE_CHARGES = frozenset(
    {"braintree.Transaction.sale", "braintree.transaction.Transaction.sale"}
)
BRAINTREE_GATEWAY_METHODS = frozenset({"sale"})

# -- exports, PDFs and images -----------------------------------------------------------

EXPORT_FUNCTIONS = frozenset(
    {
        "xhtml2pdf.pisa.CreatePDF",
        "xhtml2pdf.pisa.pisaDocument",
        "pdfkit.from_string",
        "pdfkit.from_url",
        "pdfkit.from_file",
        "reportlab.pdfgen.canvas.Canvas",
        "reportlab.platypus.SimpleDocTemplate",
        "reportlab.platypus.doctemplate.SimpleDocTemplate",
        "openpyxl.Workbook",
        "xlsxwriter.Workbook",
    }
)
# weasyprint: ``HTML(...).write_pdf()``.
PDF_DOCUMENTS = frozenset({"weasyprint.HTML"})
PDF_METHODS = frozenset({"write_pdf"})

# Pillow: Image.open/new/... return images whose thumbnail()/resize() do the work.
PIL_IMAGE_FACTORIES = frozenset(
    {
        "PIL.Image.open",
        "PIL.Image.new",
        "PIL.Image.frombytes",
        "PIL.Image.fromarray",
        "PIL.ImageOps.exif_transpose",
    }
)
# Methods of a Pillow image that return another image.
PIL_IMAGE_METHODS = frozenset({"convert", "copy", "crop", "rotate", "transpose", "filter"})
PIL_RESIZE_METHODS = frozenset({"thumbnail", "resize"})
IMAGE_FUNCTIONS = frozenset(
    {
        "PIL.ImageOps.fit",
        "PIL.ImageOps.contain",
        "PIL.ImageOps.cover",
        "PIL.ImageOps.pad",
        "cv2.resize",
        "sorl.thumbnail.get_thumbnail",
    }
)
