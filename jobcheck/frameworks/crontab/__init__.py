"""crontab files, Procfiles and supervisord programs (read as files of their own kinds:
``jobcheck/extract/files.py``)."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="crontab",
    title="cron",
    semantics="jobcheck.frameworks.crontab.semantics:SEMANTICS",
    check_parts="jobcheck.frameworks.crontab.checks:PARTS",
)
