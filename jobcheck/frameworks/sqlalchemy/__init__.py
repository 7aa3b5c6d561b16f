"""SQLAlchemy: the ORM events whose listeners run before the transaction commits."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="sqlalchemy",
    title="SQLAlchemy",
    recognizers=("jobcheck.frameworks.sqlalchemy.recognizer:EventListenRecognizer",),
)
