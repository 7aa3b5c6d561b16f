"""jobcheck: a static linter and reviewer for background-job code."""

__version__ = "0.1.0"
