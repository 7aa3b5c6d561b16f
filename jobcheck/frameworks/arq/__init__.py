"""arq."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="arq",
    title="arq",
    recognizers=("jobcheck.frameworks.arq.recognizer:ArqRecognizer",),
    semantics="jobcheck.frameworks.arq.semantics:SEMANTICS",
    check_parts="jobcheck.frameworks.arq.checks:PARTS",
    fixes="jobcheck.frameworks.arq.fixes:FIXES",
    schedule_readers=("jobcheck.frameworks.arq.schedules:ArqSchedules",),
)
