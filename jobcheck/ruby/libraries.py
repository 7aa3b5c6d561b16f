"""What Ruby libraries' calls mean to job checks: HTTP clients, mail deliveries, charges,
counters, guards and error trackers. Matched on the constant a call chain starts from
(``Faraday.new(...).get``, ``HTTP.timeout(5).post``) and on method names."""

from __future__ import annotations

import re

# HTTP clients, by the constant a chain starts from: the methods that send a request.
HTTP_VERBS = frozenset(
    {"get", "post", "put", "patch", "delete", "head", "options", "request", "execute"}
)
HTTP_ROOTS = {
    "Net.HTTP": frozenset({"get", "get_response", "post", "post_form", "start", "get_print"}),
    "Faraday": HTTP_VERBS | {"run_request"},
    "HTTParty": HTTP_VERBS,
    "Excon": HTTP_VERBS,
    "HTTP": HTTP_VERBS | {"follow"},
    "RestClient": HTTP_VERBS,
    "RestClient.Request": frozenset({"execute"}),
    "Typhoeus": HTTP_VERBS,
}
# Constructors whose objects send requests later (``conn = Faraday.new(...)``).
HTTP_CONSTRUCTORS = {
    "Net.HTTP": frozenset({"new", "start"}),
    "Faraday": frozenset({"new"}),
    "Excon": frozenset({"new"}),
    "HTTP": frozenset({"timeout", "headers", "auth", "basic_auth", "via", "persistent"}),
    "RestClient.Resource": frozenset({"new"}),
}
HTTP_CLIENT_METHODS = HTTP_VERBS | {"get_response", "post_form", "run_request", "request_get"}
# Keyword options and setters that give a request a timeout: Net::HTTP ``open_timeout``,
# ``read_timeout``, ``write_timeout``; Faraday ``request: { timeout: }`` or
# ``options.timeout =``; HTTParty ``timeout:`` and the class-level ``default_timeout``;
# Excon ``connect_timeout``/``read_timeout``/``write_timeout``; HTTP.rb ``.timeout(...)``;
# RestClient ``timeout:``/``read_timeout:``/``open_timeout:``; Typhoeus ``timeout:``.
TIMEOUT_WORDS = frozenset(
    {
        "timeout",
        "open_timeout",
        "read_timeout",
        "write_timeout",
        "connect_timeout",
        "ssl_timeout",
        "default_timeout",
        "timeout_ms",
        "connecttimeout",
    }
)

# ActionMailer deliveries: ``UserMailer.welcome(user).deliver_now``.
MAIL_DELIVERIES = frozenset({"deliver_now", "deliver_now!", "deliver_later", "deliver_later!"})
SYNC_MAIL_DELIVERIES = frozenset({"deliver_now", "deliver_now!", "deliver", "deliver!"})
# Stripe objects whose ``create`` moves money (stripe-ruby: Stripe::Charge, PaymentIntent,
# Refund, Transfer, Payout); ``Stripe::Invoice#pay`` charges too.
STRIPE_MONEY = frozenset(
    {
        "Stripe.Charge",
        "Stripe.PaymentIntent",
        "Stripe.Refund",
        "Stripe.Transfer",
        "Stripe.Payout",
        "Stripe.Invoice",
        "Stripe.Subscription",
    }
)
STRIPE_MONEY_METHODS = frozenset({"create", "pay", "confirm", "capture"})
# ActiveRecord counter updates (activerecord/lib/active_record/persistence.rb
# ``increment!``/``decrement!``, counter_cache.rb ``update_counters``,
# ``increment_counter``, ``decrement_counter``).
COUNTER_METHODS = frozenset(
    {"increment!", "decrement!", "update_counters", "increment_counter", "decrement_counter"}
)

# Guards: what makes a second run harmless (kinds as the Python side names them).
GET_OR_CREATE = frozenset(
    {"find_or_create_by", "find_or_create_by!", "create_or_find_by", "create_or_find_by!"}
)
# ``insert``/``insert_all`` skip rows that conflict (ON CONFLICT DO NOTHING); ``insert!``/
# ``insert_all!`` raise on them (activerecord/lib/active_record/persistence.rb).
CONFLICT_METHODS = frozenset({"upsert", "upsert_all", "insert_all", "insert"})
ROW_LOCKS = frozenset({"with_lock", "lock!"})
# with_advisory_lock gem (ClosureTree/with_advisory_lock): ``Model.with_advisory_lock(name,
# timeout_seconds: 0) { }`` runs the block only while holding a database advisory lock.
ADVISORY_LOCKS = frozenset(
    {"with_advisory_lock", "with_advisory_lock!", "with_advisory_lock_result", "advisory_lock"}
)

# Error trackers and loggers: a rescue that calls one records the failure.
TRACKER_ROOTS = frozenset(
    {"Sentry", "Raven", "Honeybadger", "Bugsnag", "Rollbar", "Airbrake", "Appsignal", "NewRelic"}
)
TRACKER_METHODS = frozenset(
    {
        "capture_exception",
        "capture_message",
        "notify",
        "notice_error",
        "report",
        "error",
        "critical",
        "warning",
        "send_error",
        "set_error",
    }
)
LOG_LEVELS_RECORDED = frozenset({"info", "warn", "error", "fatal", "unknown", "add", "log"})
INERT_CALLS = frozenset({"puts", "p", "print", "pp", "debug"})

# Exceptions a correct job rescues on purpose: the record is gone or already exists, a
# lock another run holds (names as in handlers.py for Python).
EXPECTED_EXCEPTION = re.compile(
    r"RecordNotFound|NotFound|RecordNotUnique|RecordInvalid|DeserializationError|Lock|"
    r"NotSupported|NotImplemented|KeyError|IndexError|ArgumentError|JSON::ParserError|"
    r"Errno::ENOENT|Errno::EEXIST"
)
CATCH_ALL = frozenset({"StandardError", "Exception", "::StandardError", "::Exception"})


def is_expected(name: str) -> bool:
    return EXPECTED_EXCEPTION.search(name) is not None
