"""What makes a Ruby or YAML file worth parsing for Sidekiq and ActiveJob (the
prefilter, ``jobcheck/prefilter.py``): a job class, an enqueue, a schedule, a
Sidekiq configuration. Light: no parser is imported here."""

from jobcheck.triggers import Trigger

SAVE_CALLBACK = rb"(?m)^[ \t]*(?:after|before|around)_(?:save|create|update|destroy|touch)\b"

TRIGGERS = (
    Trigger("Sidekiq", b"Sidekiq"),
    Trigger("sidekiq_options", b"sidekiq_options"),
    Trigger("ActiveJob", b"ActiveJob"),
    Trigger("ActiveJob job class", b"ApplicationJob"),
    Trigger("ActiveJob queue", b"queue_as"),
    Trigger("Sidekiq enqueue", b"perform_async"),
    Trigger("Sidekiq enqueue", b"perform_in"),
    Trigger("Sidekiq enqueue", b"perform_at"),
    Trigger("Sidekiq enqueue", b"perform_bulk"),
    Trigger("ActiveJob enqueue", b"perform_later"),
    # A job class whose base is defined elsewhere (``class ReportJob < JobBase``).
    Trigger("job class", b"def perform", rb"(?m)^[ \t]*def perform\b(?!_)"),
    # Enqueues from model callbacks and transactions need the models' facts.
    Trigger("ActiveRecord callback", b"after_commit"),
    # Code that runs inside a transaction and calls helpers that may enqueue (JOB-01 is
    # read through the calls): transaction blocks, row locks, save/destroy callbacks.
    Trigger("transaction", b"transaction", rb"\.transaction\b|\btransaction\s+do\b"),
    Trigger("row lock", b"with_lock"),
    *(
        Trigger("ActiveRecord callback", literal, SAVE_CALLBACK)
        for literal in (b"_save", b"_create", b"_update", b"_destroy", b"_touch")
    ),
    Trigger("mail delivery", b"deliver_"),
    # Models: which names are records (``order.to_json`` is a copy when Order is one).
    Trigger("ActiveRecord model", b"ApplicationRecord"),
    Trigger("ActiveRecord model", b"ActiveRecord::Base"),
    Trigger("rufus-scheduler", b"Rufus::Scheduler"),
    # Helpers a job calls (a client class, a service): what their bodies do counts as the
    # job's (call summaries), so files with network calls, charges, counters and locks
    # are read too.
    *(
        Trigger("HTTP client", library)
        for library in (b"Faraday", b"Net::HTTP", b"HTTParty", b"Excon", b"RestClient", b"Typhoeus")
    ),
    Trigger(
        "HTTP client", b"HTTP.", rb"\bHTTP\.(?:timeout|get|post|put|patch|delete|headers|auth)\b"
    ),
    Trigger("charge", b"Stripe::"),
    Trigger("counter", b"increment!"),
    Trigger("counter", b"update_counters"),
    Trigger("lock", b"advisory_lock"),
    Trigger("lock", b"nx: true"),
    # Deletions of records: a job's lookup of a model nothing deletes cannot miss its row.
    Trigger("record deletion", b"destroy"),
    Trigger("record deletion", b"delete_all"),
    Trigger("record deletion", b"delete_by"),
    # An error tracker that reports every failed job (its gem in the Gemfile, or its
    # configuration in an initializer): a failure is recorded even without the dead set.
    Trigger(
        "error tracker gem",
        b"gem ",
        rb"(?m)^[ \t]*gem\s*\(?\s*[\"'](?:honeybadger|sentry-sidekiq|sentry-raven|bugsnag|"
        rb"rollbar|airbrake|appsignal)[\"']",
    ),
    *(
        Trigger(
            "error tracker",
            name,
            rb"\b(?:Honeybadger|Sentry|Raven|Bugsnag|Rollbar|"
            rb"Airbrake|Appsignal)\.(?:configure|init|start)\b",
        )
        for name in (b".configure", b".init", b".start")
    ),
    # Rails configuration that decides whether enqueues wait for the commit.
    Trigger("Rails defaults", b"load_defaults", rb"config\.load_defaults"),
    Trigger("ActiveJob configuration", b"config.active_job"),
    # whenever's config/schedule.rb and the YAML schedules.
    Trigger("whenever", b"every", rb"(?m)^[ \t]*every\s+(?:[\d:'\"]|\d+\.\w+)"),
    # config/sidekiq.yml keys, with or without the leading colon (Sidekiq symbolizes them).
    Trigger("sidekiq.yml", b"queues:", rb"(?m)^[ \t]*:?queues:"),
    Trigger("sidekiq.yml", b"concurrency:", rb"(?m)^[ \t]*:?concurrency:"),
    Trigger("sidekiq.yml", b"scheduler:", rb"(?m)^[ \t]*:?scheduler:"),
    Trigger("sidekiq-cron schedule", b"cron:", rb"(?m)^[ \t]+cron:[ \t]*['\"]?[\d*@]"),
    Trigger("sidekiq-scheduler schedule", b"every:", rb"(?m)^[ \t]+every:[ \t]*['\"\[]?\d"),
)
