"""Tokens a runbook document's words carry for what it names in other words than "dead
letter" (``jobcheck/extract/docs.py`` adds them; EVT-24 looks for them)."""

RQ_FAILED_TOKEN = "<rq-failed-job-registry>"
"""The document names RQ's failed job registry (``FailedJobRegistry``, ``rq requeue``)."""
FAILED_ITEMS_TOKEN = "<failed-items>"
"""The document talks about failed jobs or messages in general."""
SIDEKIQ_DEAD_SET_TOKEN = "<sidekiq-dead-set>"
"""The document names Sidekiq's dead set (``Sidekiq::DeadSet``, the morgue, the Dead tab
of the Web UI)."""
