"""arq."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="arq",
    title="arq",
    recognizers=("jobcheck.frameworks.arq.recognizer:ArqRecognizer",),
    semantics="jobcheck.frameworks.arq.semantics:SEMANTICS",
    fixes="jobcheck.frameworks.arq.fixes:FIXES",
    schedule_readers=("jobcheck.frameworks.arq.schedules:ArqSchedules",),
)
