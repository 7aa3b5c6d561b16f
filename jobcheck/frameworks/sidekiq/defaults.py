"""Sidekiq's and ActiveJob's verified defaults and the names their code uses.

Every value was read in the library's own source (sidekiq/sidekiq tag v8.1.7 unless a
line says otherwise; 7.x is branch 7-x, 7.3.10; rails/rails tag v8.1.3; sidekiq-cron
@44c12804 (2.3.1); sidekiq-scheduler @fd3ddc89 (6.0.2); whenever @756163ed (1.1.2)).
A leaf module: the recognizer, the semantics and the checks all read it.
"""

from __future__ import annotations

# Enqueue methods (sidekiq lib/sidekiq/job.rb ``ClassMethods``: perform_async, perform_in,
# perform_at, perform_bulk; ``Setter`` for ``set(...)``; activejob enqueuing.rb
# ``perform_later``). ``perform_inline``/``perform_now`` run the job here: not enqueues.
SIDEKIQ_ENQUEUE = frozenset({"perform_async", "perform_in", "perform_at", "perform_bulk"})
ACTIVEJOB_ENQUEUE = frozenset({"perform_later"})
CLIENT_ENQUEUE = frozenset(
    {"push", "push_bulk", "enqueue", "enqueue_to", "enqueue_in", "enqueue_at"}
)

# -- retries (lib/sidekiq/job_retry.rb) -----------------------------------------------------
DEFAULT_MAX_RETRY_ATTEMPTS = 25
"""``DEFAULT_MAX_RETRY_ATTEMPTS = 25`` (job_retry.rb:73); the ``:max_retries`` config key
overrides it globally (``Sidekiq.default_configuration[:max_retries] || ...``, :77)."""
BACKOFF_FORMULA = (
    "count**4 + 15 s plus jitter (rand(10 * (count + 1)) on 8.x, rand(10) * (count + 1) on 7.x)"
)
"""``delay_for``: ``(count**4) + 15`` (job_retry.rb:238); ``process_retry`` adds
``jitter = rand(10 * (count + 1))`` (:202-203), also after a custom ``sidekiq_retry_in``.
7.x jitter is ``rand(10) * (count + 1)`` (7-x job_retry.rb:192). The default 25 retries
span about 20.4 days."""
RETRIES_SPAN_DAYS = 20.4


def retry_delay(count: int) -> float:
    """Seconds before retry number ``count`` (0-based), without the random jitter."""
    return float(count**4 + 15)


def retries_span(count: float) -> float:
    """Seconds from the first failure to the last of ``count`` retries, by the formula
    without jitter (25 retries: about 20 days)."""
    return sum(retry_delay(n) for n in range(int(count)))


RETRY_FALSE = "no retry, no dead set, no sidekiq_retries_exhausted; only death handlers"
"""``retry: false``: ``raise e unless msg["retry"]`` in ``local`` (job_retry.rb:133) and
``global`` runs only the death handlers (:96-104)."""
RETRY_ZERO = "no retry; sidekiq_retries_exhausted runs, then the job goes to the dead set"
"""``retry: 0``: 0 is truthy in Ruby, so ``process_retry`` sees ``count 0 >= 0`` and calls
``retries_exhausted`` (:186-187), which runs the block and ``send_to_morgue``."""
DEAD_FALSE = "after the last retry the job is discarded instead of kept in the dead set"
"""``dead: false``: ``discarded = msg["dead"] == false || rv == :discard`` in
``retries_exhausted`` (:250-273); death handlers still run in 8.x (7.x skips them when the
block returns ``:discard``, 7-x job_retry.rb:245-247)."""
RETRY_IN_SPECIAL = ("discard", "kill")
"""``sidekiq_retry_in`` may return ``:discard`` (drop, death handlers run) or ``:kill``
(dead set now) (job_retry.rb:192-197, :219-248); anything else falls back to the formula."""
RETRY_FOR_SINCE = "7.1.3"
"""``retry_for:`` (seconds) bounds retries by time instead of count (:181-188)."""

# -- dead set (lib/sidekiq/config.rb) ------------------------------------------------------
DEAD_MAX_JOBS = 10_000
"""``dead_max_jobs: 10_000`` (config.rb:35); trimmed in ``send_to_morgue``
(job_retry.rb:283-295)."""
DEAD_TIMEOUT_SECONDS = 180 * 24 * 60 * 60
"""``dead_timeout_in_seconds: 180 * 24 * 60 * 60`` (config.rb:36): six months."""

# -- runtime ---------------------------------------------------------------------------------
JOB_TIME_LIMIT: float | None = None
"""No per-job execution time limit, by design: no ``Timeout`` anywhere in lib/ (v8.1.7).
A job runs until it returns; a stuck job holds its thread until the process stops."""
SHUTDOWN_TIMEOUT_SECONDS = 25
"""``timeout: 25`` (config.rb:16, CLI ``-t``): the shutdown grace; jobs still busy after
it are pushed back with ``bulk_requeue`` (manager.rb:51-107 ``stop``/``hard_shutdown``)."""
DEFAULT_CONCURRENCY = 5
"""``concurrency: 5`` (config.rb:11-41); without a config file, ``RAILS_MAX_THREADS`` sets
it (cli.rb:289-291)."""
DEFAULT_QUEUE = "default"
"""``Sidekiq.default_job_options = {"retry" => true, "queue" => "default"}`` (sidekiq.rb:94)."""
BASIC_FETCH_LOSES_IN_FLIGHT = True
"""BasicFetch (fetch.rb:8-49) uses ``brpop`` and ``UnitOfWork#acknowledge`` does nothing:
a job in flight when the process is killed (SIGKILL, OOM) is lost; a graceful shutdown
requeues it. Sidekiq Pro's super_fetch (closed source) is not verified."""
STRICT_ARGS_DEFAULT = "raise"
"""``on_complex_arguments: :raise`` (config.rb:19, since 7.0): ``verify_json``
(job_util.rb:21-40) raises ArgumentError at push for arguments that are not native JSON
(an ActiveRecord object, a Time, a Symbol); ``Sidekiq.strict_args!(false)`` turns it off."""
BULK_BATCH_SIZE = 1_000
"""``push_bulk``/``perform_bulk`` push in batches of 1,000 (100 with ``at``)
(client.rb:160; job.rb:253-256)."""
TRANSACTIONAL_PUSH_SINCE = "6.5.0"
"""``Sidekiq.transactional_push!`` (transaction_aware_client.rb) defers every ``push``
until the transaction commits (``ActiveRecord.after_all_transactions_commit`` on AR >= 7.2,
after_commit_everywhere before); ``push_bulk`` and batches are not deferred."""
TRANSACTIONAL_PUSH_COVERS = frozenset({"perform_async", "perform_in", "perform_at", "push"})

# -- ActiveJob (rails/rails v8.1.3, activejob/lib/active_job) --------------------------------
ACTIVEJOB_RETRY_ON_WAIT_SECONDS = 3
ACTIVEJOB_RETRY_ON_ATTEMPTS = 5
"""``retry_on(*exceptions, wait: 3.seconds, attempts: 5, queue: nil, priority: nil,
jitter: JITTER_DEFAULT, report: false)`` (exceptions.rb:64). Once the attempts are used up
with no block, the error is re-raised to the adapter (:75-82): on Sidekiq, Sidekiq's own
retries (25 by default) start."""
ACTIVEJOB_RETRY_JITTER = 0.15
"""``retry_jitter`` is 0.0 in the class, 0.15 with ``load_defaults "6.1"`` or later
(railties configuration.rb:189)."""
ACTIVEJOB_DISCARD_ON = "swallows the error (optional block runs)"
"""``discard_on(*exceptions, report: false)`` (exceptions.rb:109)."""
ACTIVEJOB_DEFAULT_QUEUE = "default"
"""``mattr_accessor :default_queue_name, default: "default"`` (queue_name.rb:9, :39)."""
ACTIVEJOB_RECORDS_BY_GLOBALID = True
"""A record argument is serialized as ``{"_aj_globalid" => gid}`` and loaded again when the
job runs (arguments.rb:10, :54, :90, :132, :192); a deleted record raises
``ActiveJob::DeserializationError``."""
SIDEKIQ_ADAPTER_DEFERS_AFTER_COMMIT = True
"""Sidekiq's adapter answers ``enqueue_after_transaction_commit? -> true``
(sidekiq lib/active_job/queue_adapters/sidekiq_adapter.rb:58-60): Rails 7.2 with
``load_defaults "7.2"`` defers enqueues made in a transaction; Rails 8.0 and 8.1 do not
(the class default is ``false``, enqueuing.rb:53); unreleased 8.2 with ``load_defaults
"8.2"`` does again."""

# -- schedulers --------------------------------------------------------------------------------
CRON_POLL_INTERVAL_SECONDS = 30
CRON_RESCHEDULE_GRACE_SECONDS = 60
"""sidekiq-cron (lib/sidekiq/cron.rb:70-77): ``cron_poll_interval = 30``,
``reschedule_grace_period = 60``: a run later than 60 s past its time is skipped
(job.rb:678-683). Every process polls; ``should_enqueue?`` dedupes with a Redis ZADD of
the slot (job.rb:103-112)."""
SCHEDULER_DEDUPES = True
"""sidekiq-scheduler dedupes enqueues across processes (``register_job_instance``, a ZADD
with TTL: scheduler.rb:153-164, redis_manager.rb:130-140)."""
WHENEVER_DEDUPES = False
"""whenever writes the host crontab of every machine it runs on (job_list.rb:142 roles):
no cluster-level dedupe."""


# -- HTTP clients' own timeouts (SCL-18) ------------------------------------------------------
NET_HTTP_DEFAULTS = "Net::HTTP waits 60 s to connect and 60 s for each read by default"
"""Ruby's net-http: ``open_timeout`` and ``read_timeout`` are 60 (ruby/spec
library/net/http/http/open_timeout_spec.rb, read_timeout_spec.rb); a read timeout is per
read, so a server that trickles bytes holds the call as long as it trickles."""
HTTP_NO_TIMEOUT_REASONS = {
    "Net::HTTP": NET_HTTP_DEFAULTS + ", per read: a server that trickles bytes never times out",
    "Faraday": "Faraday sets none: its Net::HTTP adapter waits 60 s per read",
    "HTTParty": "HTTParty sets none: Net::HTTP waits 60 s per read",
    "RestClient": "RestClient waits 60 s per read by default",
    "Excon": "Excon waits 60 s to connect and per read by default",
    # httprb/http lib/http/timeout/null.rb: the default timeout class sets none.
    "HTTP": "HTTP.rb's default is no timeout at all",
    # Typhoeus: libcurl's defaults, 300 s to connect and no limit on the transfer.
    "Typhoeus": "Typhoeus leaves libcurl's defaults: no limit on the transfer",
}
HTTP_TIMEOUT_HINTS = {
    "Net::HTTP": "use Net::HTTP.start(host, port, open_timeout: 5, read_timeout: 30)",
    "Faraday": "build the connection with Faraday.new(url, request: { open_timeout: 5, "
    "timeout: 30 })",
    "HTTParty": "pass timeout: 30 (or set default_timeout 30 in the class)",
    "RestClient": "pass open_timeout: 5, read_timeout: 30",
    "Excon": "pass connect_timeout: 5, read_timeout: 30",
    "HTTP": "call HTTP.timeout(connect: 5, read: 30) first",
    "Typhoeus": "pass connecttimeout: 5, timeout: 30",
}

GUARDS_LOOKED_FOR = (
    "an early return on a state check (return if ...), find_or_create_by, with_lock/lock!, "
    "upsert/insert_all or a rescued RecordNotUnique, an idempotency key, a Redis SET NX or "
    "Rails.cache.write(unless_exist: true)"
)
RUBY_LOCK_EXAMPLES = (
    "sidekiq_options lock: :until_executed (sidekiq-unique-jobs), unique_for: (Sidekiq "
    "Enterprise), with_advisory_lock(..., timeout_seconds: 0), a Redis SET NX with an expiry"
)
UNIQUE_OPTIONS = ("lock", "unique_for", "unique", "unique_across_queues")
"""sidekiq-unique-jobs ``sidekiq_options lock: :until_executed`` (``lock`` types
until_executing, until_executed, until_and_while_executing, while_executing,
until_expired), Sidekiq Enterprise ``unique_for:``; sidekiq-unique-jobs 6 and older
spelled it ``unique:``."""
ACTIVEJOB_UNIQUE_DECLARATIONS = (
    "unique",
    "good_job_control_concurrency_with",
    "limits_concurrency",
)
"""activejob-uniqueness ``unique :until_executed``, GoodJob's concurrency control, Solid
Queue's ``limits_concurrency``: a class-level declaration that keeps a second copy out."""


# -- error trackers ----------------------------------------------------------------------
ERROR_TRACKERS = frozenset(
    {"Honeybadger", "Sentry", "Raven", "Bugsnag", "Rollbar", "Airbrake", "Appsignal"}
)
"""Error trackers whose Sidekiq integration reports every exception a job raises, on
each attempt, ``retry: false`` jobs included (honeybadger's plugins/sidekiq.rb,
sentry-sidekiq's error handler, bugsnag's, rollbar's, airbrake's, appsignal's
``Sidekiq.configure_server`` error handlers): a job's failure is recorded there."""
ERROR_TRACKER_GEMS = frozenset(
    {
        "honeybadger",
        "sentry-sidekiq",
        "sentry-raven",
        "bugsnag",
        "rollbar",
        "airbrake",
        "appsignal",
    }
)
"""Their gems (sentry-ruby reports Sidekiq errors only with sentry-sidekiq)."""
