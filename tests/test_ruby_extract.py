"""The Ruby front end and the Sidekiq/ActiveJob plugin, at the level of facts: small Ruby
snippets and YAML files, and the Rails-style fixture project under
tests/fixtures/frameworks/sidekiq/rails_app extracted through discovery, the prefilter and
the scan."""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

from jobcheck import ruby
from jobcheck.facts import Argument, EnqueueSite, FileFacts, Loc, QueueDecl, TaskDef
from jobcheck.facts.values import CallV, Const, Opaque, Ref, SeqV

HAS_TREE_SITTER = all(
    importlib.util.find_spec(name) is not None for name in ("tree_sitter", "tree_sitter_ruby")
)
needs_ruby = pytest.mark.skipif(
    not HAS_TREE_SITTER,
    reason="tree-sitter and tree-sitter-ruby are not installed (pip install 'jobcheck[ruby]')",
)
FIXTURE = Path(__file__).parent / "fixtures" / "frameworks/sidekiq/rails_app"


def extract(source: str, path: str = "app/workers/example.rb") -> FileFacts:
    facts = ruby.extract_file(path, textwrap.dedent(source).encode(), "example")
    assert facts.error is None, facts.error
    return facts


def only(items: list):  # type: ignore[no-untyped-def]
    assert len(items) == 1, items
    return items[0]


# -- job classes --------------------------------------------------------------------------


@needs_ruby
def test_sidekiq_job_class_with_options() -> None:
    facts = extract(
        """
        module Billing
          class ChargeWorker
            include Sidekiq::Job
            sidekiq_options queue: "critical", retry: 0, dead: false
            sidekiq_retries_exhausted { |msg, ex| Rails.logger.warn(msg) }

            def perform(id)
            end
          end
        end
        """
    )
    task = only(facts.tasks)
    assert task == TaskDef(
        framework="sidekiq",
        qualname="Billing.ChargeWorker",
        name="Billing::ChargeWorker",
        registered_name="Billing::ChargeWorker",
        loc=Loc(3, 9, 3, 21),
        decorator="include Sidekiq::Job",
        options=(
            ("queue", Const("critical")),
            ("retry", Const(0)),
            ("dead", Const(False)),
            ("sidekiq_retries_exhausted", Opaque("{ |msg, ex| Rails.logger.warn(msg) }")),
        ),
        option_locs=(
            ("queue", Loc(5, 21, 5, 38)),
            ("retry", Loc(5, 40, 5, 48)),
            ("dead", Loc(5, 50, 5, 61)),
            ("sidekiq_retries_exhausted", Loc(6, 5, 6, 67)),
        ),
        base=None,
        kind="class",
        bound=True,
        function="Billing.ChargeWorker.perform",
    )
    assert "Billing.ChargeWorker.perform" in facts.functions


@needs_ruby
def test_activejob_class_with_queue_as_retry_on_and_discard_on() -> None:
    facts = extract(
        """
        class WelcomeJob < ApplicationJob
          queue_as :mailers
          retry_on Net::ReadTimeout, wait: 5.minutes, attempts: 3
          discard_on ActiveJob::DeserializationError

          def perform(user)
          end
        end
        """,
        path="app/jobs/welcome_job.rb",
    )
    task = only(facts.tasks)
    assert (task.framework, task.qualname) == ("activejob", "WelcomeJob")
    assert task.base == "ApplicationJob"
    assert task.options == (
        ("queue", Const("mailers")),
        (
            "retry_on",
            CallV(
                "retry_on",
                (Ref("Net.ReadTimeout"),),
                (("wait", Const(300)), ("attempts", Const(3))),
            ),
        ),
        ("discard_on", CallV("discard_on", (Ref("ActiveJob.DeserializationError"),), ())),
    )


@needs_ruby
def test_a_job_whose_base_is_elsewhere_is_known_by_its_folder() -> None:
    source = """
        class ReportWorker < BaseWorker
          def perform(id)
          end
        end
        """
    task = only(extract(source, path="app/workers/report_worker.rb").tasks)
    assert (task.framework, task.decorator) == ("sidekiq", "< BaseWorker in app/workers/")
    task = only(extract(source, path="app/jobs/report_job.rb").tasks)
    assert task.framework == "activejob"
    assert extract(source, path="app/services/report.rb").tasks == []
    # A plain class without a base is no job, wherever it is.
    assert extract("class Report\n  def perform; end\nend\n", "app/jobs/r.rb").tasks == []
    # A project mixin that brings Sidekiq in (GitLab's ``include ApplicationWorker``).
    mixin = "class ExportWorker\n  include ApplicationWorker\n  def perform(id); end\nend\n"
    task = only(extract(mixin, path="app/workers/export_worker.rb").tasks)
    assert (task.framework, task.decorator) == (
        "sidekiq",
        "include ApplicationWorker in app/workers/",
    )
    assert extract(mixin, path="lib/export.rb").tasks == []


# -- enqueue sites ------------------------------------------------------------------------


@needs_ruby
def test_enqueue_sites_with_transaction_callback_and_commit_context() -> None:
    facts = extract(
        """
        class Order < ApplicationRecord
          after_save :sync
          after_create_commit :notify
          after_commit { AuditWorker.perform_async(id) }

          def sync
            SyncWorker.perform_async(self)
          end

          def notify
            NotifyJob.perform_later(self)
          end

          def pay!
            transaction do
              ReceiptWorker.perform_async(id, attributes)
            end
            with_lock { LockedWorker.perform_async(id) }
            ActiveRecord.after_all_transactions_commit { LaterWorker.perform_async(id) }
            NowJob.perform_now(id)
          end
        end
        """,
        path="app/models/order.rb",
    )
    by_target = {site.target: site for site in facts.enqueues}
    assert set(by_target) == {
        "AuditWorker",
        "SyncWorker",
        "NotifyJob",
        "ReceiptWorker",
        "LockedWorker",
        "LaterWorker",
    }  # perform_now runs the job here: not an enqueue
    context = {t: (s.atomic, s.deferred, s.framework_hint) for t, s in by_target.items()}
    assert context == {
        "AuditWorker": (None, True, "sidekiq"),
        "SyncWorker": ("callback", False, "sidekiq"),
        "NotifyJob": (None, True, "activejob"),
        "ReceiptWorker": ("block", False, "sidekiq"),
        "LockedWorker": ("block", False, "sidekiq"),
        "LaterWorker": (None, True, "sidekiq"),
    }
    assert by_target["SyncWorker"].function == "Order.sync"
    kinds = {t: [a.kind for a in s.arguments] for t, s in by_target.items()}
    # A record is a copy for Sidekiq (not JSON-native) and a GlobalID for ActiveJob.
    assert kinds["SyncWorker"] == ["record"]
    assert kinds["NotifyJob"] == ["globalid"]
    assert kinds["ReceiptWorker"] == ["id", "copy"]
    assert facts.models[0].qualname == "Order"


@needs_ruby
def test_enqueue_options_arguments_and_client_push() -> None:
    facts = extract(
        """
        class OrdersController < ApplicationController
          def create
            order = Order.create!(total: 1)
            HardWorker.set(queue: "low").perform_in(5.minutes, order.id, "x")
            WelcomeJob.set(wait: 10.minutes).perform_later(order)
            HardWorker.perform_async(order.to_json, params)
            Sidekiq::Client.push("class" => "HardWorker", "args" => [order.id], "queue" => "bulk")
            HardWorker.perform_bulk([[1], [2]], batch_size: 50)
          end
        end
        """,
        path="app/controllers/orders_controller.rb",
    )
    first, later, fat, push, bulk = facts.enqueues
    assert first == EnqueueSite(
        method="perform_in",
        target="HardWorker",
        target_text="HardWorker",
        loc=Loc(5, 5, 5, 70),
        order=first.order,
        function="OrdersController.create",
        arguments=(
            Argument("id", "", "order.id", Loc(5, 56, 5, 64)),
            Argument("scalar", "", '"x"', Loc(5, 66, 5, 69)),
        ),
        options=(("queue", Const("low")), ("in", Const(300))),
        framework_hint="sidekiq",
    )
    assert later.options == (("wait", Const(600)),)
    assert [a.kind for a in later.arguments] == ["globalid"]
    assert [(a.kind, a.reason) for a in fat.arguments] == [
        ("copy", "a copy of 'order' (to_json)"),
        ("request", "the request parameters (params)"),
    ]
    assert (push.method, push.target, push.options) == (
        "push",
        "HardWorker",
        (("queue", Const("bulk")),),
    )
    assert [a.kind for a in push.arguments] == ["id"]
    assert bulk.options == (("batch_size", Const(50)),)
    assert facts.functions["OrdersController.create"].view == "rails"


@needs_ruby
def test_enqueue_in_a_loop_over_a_whole_table() -> None:
    facts = extract(
        """
        class Reindex
          def self.run
            User.find_each { |user| IndexWorker.perform_async(user.id) }
            User.where(active: true).each { |user| IndexWorker.perform_async(user.id) }
            User.limit(10).each { |user| IndexWorker.perform_async(user) }
          end
        end
        """,
        path="lib/reindex.rb",
    )
    streamed, filtered, limited = facts.enqueues
    assert (streamed.in_loop, filtered.in_loop) == ("User", "User.where(active: true)")
    assert [a.kind for a in limited.arguments] == ["record"]  # a block parameter of a query
    loop = only(facts.loop_enqueues)  # a filtered query iterated with each is not unbounded
    assert (loop.order, loop.source, loop.batched) == (streamed.order, "query", False)


# -- what a job body does -----------------------------------------------------------------


@needs_ruby
def test_perform_http_side_effects_guards_and_swallowing_rescue() -> None:
    facts = extract(
        """
        class HardWorker
          include Sidekiq::Job

          def perform(id)
            user = User.find(id)
            return if user.processed?
            Faraday.get("https://a.example")
            HTTP.timeout(5).post("https://b.example")
            conn = Faraday.new(url: "https://c.example", request: { timeout: 3 })
            body = conn.get("/x")
            Stripe::Charge.create({ amount: 1 }, { idempotency_key: "c-#{id}" })
            Stripe::Refund.create(charge: "ch_1")
            user.increment!(:runs)
            UserMailer.welcome(user).deliver_now
            Report.find_or_create_by(name: "x")
          rescue Faraday::Error
            nil
          rescue ActiveRecord::RecordNotFound
            nil
          end
        end
        """
    )
    function = facts.functions["HardWorker.perform"]
    assert [(h.func, h.has_timeout, h.result_used) for h in function.http_calls] == [
        ("Faraday.get", False, False),
        ("HTTP.post", True, False),
        ("Faraday.get", True, True),
    ]
    assert [(e.kind, e.func, e.has_key) for e in function.side_effects] == [
        ("charge", "Stripe::Charge.create", True),
        ("charge", "Stripe::Refund.create", False),
        ("counter", "user.increment!", False),
        ("send", "UserMailer.welcome.deliver_now", False),
    ]
    assert [g.kind for g in function.guards] == ["state-check", "get_or_create"]
    handler = only(function.handlers)  # RecordNotFound is an expected outcome
    assert (handler.catches, handler.catches_all, handler.loc.line) == (
        ("Faraday::Error",),
        False,
        17,
    )
    assert "User.find" in function.calls and "HardWorker.user" not in function.calls


# -- configuration and schedules in Ruby ----------------------------------------------------


@needs_ruby
def test_initializer_settings_and_schedules() -> None:
    facts = extract(
        """
        Sidekiq.transactional_push!
        Sidekiq::Cron::Job.create(name: "digest", cron: "*/15 * * * *", class: "DigestWorker")
        scheduler = Rufus::Scheduler.new
        scheduler.every "5m" do
          HeartbeatWorker.perform_async
        end
        scheduler.cron "30 2 * * *" do
          ReportWorker.perform_async(1)
        end
        """,
        path="config/initializers/sidekiq.rb",
    )
    setting = only(facts.settings)
    assert (setting.key, setting.raw_key, setting.value) == (
        "sidekiq.transactional_push",
        "Sidekiq.transactional_push!",
        Const(True),
    )
    cron, every, rufus_cron = facts.schedules
    assert (cron.framework, cron.name, cron.task_name, cron.target) == (
        "sidekiq-cron",
        "digest",
        "DigestWorker",
        "DigestWorker",
    )
    assert cron.timing.fields == ("*/15", "*", "*", "*", "*")
    assert cron.timing.gap == 900
    assert (every.framework, every.target, every.timing.kind, every.timing.seconds) == (
        "rufus",
        "HeartbeatWorker",
        "interval",
        300.0,
    )
    assert rufus_cron.timing.fields == ("30", "2", "*", "*", "*")
    assert only(facts.scheduler_starts).kind == "rufus"


@needs_ruby
def test_whenever_schedule() -> None:
    facts = extract(
        """
        every 1.day, at: '4:30 am' do
          runner "Maintenance::CleanupJob.perform_later"
        end
        every :hour do
          rake "reports:refresh"
        end
        every 10.minutes do
          command "echo hi"
        end
        every 7.minutes do
          runner "Tick.perform_async"
        end
        """,
        path="config/schedule.rb",
    )
    daily, hourly, ten, seven = facts.schedules
    assert (daily.framework, daily.task_name, daily.target) == (
        "whenever",
        "Maintenance::CleanupJob",
        "Maintenance.CleanupJob",
    )
    assert daily.timing.fields == ("30", "4", "*", "*", "*")
    assert (hourly.name, hourly.timing.fields) == ("reports:refresh", ("0", "*", "*", "*", "*"))
    assert ten.timing.fields[0] == "0,10,20,30,40,50"
    # whenever's own minute list for a step that does not divide the hour starts at 7.
    assert seven.timing.fields[0] == "7,14,21,28,35,42,49,56"


# -- YAML ---------------------------------------------------------------------------------


def test_sidekiq_yml_queues_settings_erb_and_scheduler() -> None:
    facts = ruby.extract_file(
        "config/sidekiq.yml",
        textwrap.dedent(
            """\
            :concurrency: <%= ENV.fetch("SIDEKIQ_CONCURRENCY", 10) %>
            :timeout: 25
            :max_retries: 9
            :queues:
              - [critical, 3]
              - default
              - "low,1"
            <% if ENV["RAILS_ENV"] == "production" %>
            :scheduler:
              :schedule:
                refresh_feeds:
                  every: ["10m", first_in: "1m"]
                  class: RefreshFeedsWorker
                  queue: low
            <% end %>
            """
        ).encode(),
        "sidekiq",
    )
    assert facts.error is None
    assert facts.queues == [
        QueueDecl("sidekiq", "critical", Loc(5, 5, 5, 18), (("weight", Const(3)),)),
        QueueDecl("sidekiq", "default", Loc(6, 5, 6, 12)),
        QueueDecl("sidekiq", "low", Loc(7, 5, 7, 12), (("weight", Const(1)),)),
    ]
    assert [(s.key, s.value) for s in facts.settings] == [
        ("sidekiq.concurrency", Opaque('<%= ENV.fetch("SIDEKIQ_CONCURRENCY", 10) %>')),
        ("sidekiq.timeout", Const(25)),
        ("sidekiq.max_retries", Const(9)),
    ]
    entry = only(facts.schedules)
    assert (entry.framework, entry.name, entry.task_name, entry.timing.seconds) == (
        "sidekiq-scheduler",
        "refresh_feeds",
        "RefreshFeedsWorker",
        600.0,
    )
    assert entry.options == (("queue", Const("low")),)
    assert (entry.loc.line, entry.timing_loc.line) == (11, 12)


def test_sidekiq_cron_schedule_yml() -> None:
    facts = ruby.extract_file(
        "config/schedule.yml",
        textwrap.dedent(
            """\
            nightly_cleanup:
              cron: "0 3 * * * Europe/Berlin"
              class: "Maintenance::NightlyCleanupJob"
              args: [1]
            every_minute:
              cron: "*/30 * * * * *"
              class: Ping
            """
        ).encode(),
        "schedule",
    )
    nightly, ping = facts.schedules
    assert (nightly.framework, nightly.source, nightly.name) == (
        "sidekiq-cron",
        "schedule.yml",
        "nightly_cleanup",
    )
    assert (nightly.task_name, nightly.target) == (
        "Maintenance::NightlyCleanupJob",
        "Maintenance.NightlyCleanupJob",
    )
    assert nightly.timing.fields == ("0", "3", "*", "*", "*")
    assert nightly.options == (("args", SeqV((Const(1),))),)
    assert (nightly.task_loc.line, nightly.timing_loc.line) == (3, 2)
    # fugit reads a leading seconds field: this fires every minute.
    assert ping.timing.fields == ("*", "*", "*", "*", "*")


def test_broken_yaml_is_one_error_line() -> None:
    facts = ruby.extract_file("config/sidekiq.yml", b":queues:\n  - [a\n", "sidekiq")
    assert facts.error is not None and facts.error.startswith("cannot read this YAML file")


def test_erb_is_never_rendered() -> None:
    stripped, erb = ruby_config().strip_erb("a: <%= `rm -rf /` %>\n<% x = 1 %>\nb: 2\n")
    assert stripped == "a: __jobcheck_erb_0__\n\nb: 2\n"
    assert erb == ["`rm -rf /`"]


def ruby_config():  # type: ignore[no-untyped-def]
    from jobcheck.frameworks.sidekiq import config

    return config


# -- without tree-sitter ------------------------------------------------------------------


def test_without_tree_sitter_a_ruby_file_is_one_error_line(monkeypatch) -> None:
    from jobcheck.ruby import parse

    def missing():  # type: ignore[no-untyped-def]
        raise parse.RubyUnavailable(
            "Ruby files need tree-sitter and tree-sitter-ruby (pip install 'jobcheck[ruby]')"
        )

    monkeypatch.setattr(parse, "parser", missing)
    facts = ruby.extract_file("app/jobs/a.rb", b"class A < ApplicationJob; end\n", "a")
    assert facts.error == (
        "Ruby files need tree-sitter and tree-sitter-ruby (pip install 'jobcheck[ruby]')"
    )
    assert facts.parsed is False


# -- the fixture project ------------------------------------------------------------------


@needs_ruby
def test_fixture_project_goes_through_discovery_prefilter_and_scan() -> None:
    from jobcheck.discovery import discover
    from jobcheck.engine import RunSettings, gather

    files = discover([str(FIXTURE)])
    names = {Path(f.display).relative_to(FIXTURE).as_posix() for f in files}
    assert {"config/sidekiq.yml", "config/schedule.yml", "app/models/user.rb"} <= names
    analysis = gather(files, RunSettings(jobs=1))
    facts = {Path(f.path).relative_to(FIXTURE).as_posix(): f for f in analysis.facts}
    assert analysis.errors == []
    assert {t.qualname for f in facts.values() for t in f.tasks} == {
        "HardWorker",
        "ReportWorker",
        "WelcomeJob",
        "Maintenance.NightlyCleanupJob",
    }
    frameworks = sorted({e.framework for f in facts.values() for e in f.schedules})
    assert frameworks == ["rufus", "sidekiq-cron", "sidekiq-scheduler", "whenever"]
    assert [q.name for q in facts["config/sidekiq.yml"].queues] == ["critical", "default", "low"]
    settings = {s.key for f in facts.values() for s in f.settings}
    assert "sidekiq.transactional_push" in settings
    assert "rails.load_defaults" in settings
    user = facts["app/models/user.rb"]
    assert [(e.target, e.atomic, e.deferred) for e in user.enqueues] == [
        ("AuditWorker", None, True),
        ("CrmSyncWorker", "callback", False),
        ("WelcomeJob", None, True),
        ("IndexWorker", None, False),
    ]


def test_sidekiq_yml_without_colons_is_kept_by_the_prefilter() -> None:
    from jobcheck.prefilter import compiled

    data = b"concurrency: 3\nqueues:\n  - [scheduled, 10]\n  - default\n"
    assert compiled().decide(data, "sidekiq").kept
    facts = ruby.extract_file("config/sidekiq.yml", data, "sidekiq")
    assert [(q.name, q.option("weight")) for q in facts.queues] == [
        ("scheduled", Const(10)),
        ("default", None),
    ]
