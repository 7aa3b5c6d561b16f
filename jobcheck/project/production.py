"""Which settings are the production ones: a value set only in test or development
settings (``settings/test.py``, ``settings/local.py``, ``conftest.py``, anything under
tests) says nothing about how the deployed project runs its jobs."""

from __future__ import annotations

from jobcheck.facts import FileFacts
from jobcheck.project.test_code import is_test_code

# Module names (the last part) of settings kept for a developer's machine or a test run.
NOT_PRODUCTION = frozenset(
    {
        "test",
        "tests",
        "testing",
        "ci",
        "dev",
        "develop",
        "development",
        "local",
        "debug",
        "conftest",
        "example",
        "sample",
    }
)
_PREFIXES = ("test_", "tests_", "testing_", "local_", "dev_", "development_", "ci_")
_SUFFIXES = ("_test", "_tests", "_testing", "_local", "_dev", "_development", "_ci", "_example")


def is_production(f: FileFacts) -> bool:
    """Neither test code nor a test or development settings module (by its module name,
    or its file name for a file outside any package)."""
    if is_test_code(f):
        return False
    name = f.module.rsplit(".", 1)[-1] if f.module else ""
    if not name:
        name = f.path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".py")
    name = name.lower()
    return (
        name not in NOT_PRODUCTION
        and not name.startswith(_PREFIXES)
        and not name.endswith(_SUFFIXES)
    )


def settings_module(f: FileFacts) -> str:
    """How a message names the settings module a value comes from."""
    return f.module or f.path
