"""arq."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="arq",
    title="arq",
    recognizers=("jobcheck.frameworks.arq.recognizer:ArqRecognizer",),
    checked=False,  # facts only: the checks do not speak its semantics yet
    schedule_readers=("jobcheck.frameworks.arq.schedules:ArqSchedules",),
)
