"""Sidekiq and ActiveJob (Ruby), with the schedulers Rails apps run them from:
sidekiq-cron, sidekiq-scheduler, whenever and rufus-scheduler. Read by the Ruby front end
(``jobcheck/ruby``); see docs/frameworks/sidekiq.md."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="sidekiq",
    title="Sidekiq",
    semantics="jobcheck.frameworks.sidekiq.semantics:SIDEKIQ",
    check_parts="jobcheck.frameworks.sidekiq.checks:PARTS",
    aliases=("activejob", "sidekiq-cron", "sidekiq-scheduler", "whenever", "rufus"),
    ruby_recognizers=("jobcheck.frameworks.sidekiq.recognizer:SidekiqRecognizer",),
    triggers="jobcheck.frameworks.sidekiq.triggers:TRIGGERS",
    config_reader="jobcheck.frameworks.sidekiq.config:read_config",
)
