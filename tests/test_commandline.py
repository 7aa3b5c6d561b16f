"""Command lines as schedulers run them (``jobcheck/commandline.py``): the program past
its wrappers, and the lock and time limit those wrappers give it."""

from __future__ import annotations

import pytest

from jobcheck.commandline import programs, wrappers
from jobcheck.facts.values import Const


def _options(command: str) -> dict[str, object]:
    return {k: v.value for k, v in wrappers(command).options if isinstance(v, Const)}


@pytest.mark.parametrize(
    ("command", "runs", "options"),
    [
        (
            "cd /app && flock -n /tmp/x.lock timeout 10m python manage.py sync",
            "python manage.py sync",
            {"lock": "flock", "lock_waits": False, "timeout": 600.0},
        ),
        # The lock and the limit inside a shell's -c string count (a crontab line that
        # runs everything through bash).
        (
            "/bin/bash -c 'cd /app && flock -n /tmp/a.lock timeout 5m python manage.py x'",
            "python manage.py x",
            {"lock": "flock", "lock_waits": False, "timeout": 300.0},
        ),
        (
            'flock -n /tmp/a.lock -c "cd /app && timeout 5m python manage.py y"',
            "python manage.py y",
            {"lock": "flock", "lock_waits": False, "timeout": 300.0},
        ),
        ("timeout -k 30s 15m python -m app.jobs", "python -m app.jobs", {"timeout": 900.0}),
        (
            "flock -w 0 /tmp/e.lock python run.py",
            "python run.py",
            {"lock": "flock", "lock_waits": False},  # waits 0 seconds
        ),
        ("flock /tmp/e.lock python run.py", "python run.py", {"lock": "flock", "lock_waits": True}),
        ("sudo -u app nohup python run.py >> /var/log/x 2>&1", "python run.py", {}),
        ("su - app -c 'python run.py'", "python run.py", {}),
        ("sh scripts/nightly.sh", "sh scripts/nightly.sh", {}),
        # mySociety's lock wrapper runs one quoted command through sh -c.
        (
            'run-with-lockfile -n /tmp/send.lock "cd /app && ./manage.py send_reviews"',
            "./manage.py send_reviews",
            {"lock": "run-with-lockfile"},
        ),
    ],
)
def test_wrappers_read_through_to_the_program(
    command: str, runs: str, options: dict[str, object]
) -> None:
    found = wrappers(command)
    assert found.runs == runs
    assert _options(command) == options


def test_every_program_of_a_line_but_its_setup() -> None:
    assert programs("cd /app && export X=1 && python a.py; python b.py | tee log") == [
        ["python", "a.py"],
        ["python", "b.py"],
        ["tee", "log"],
    ]


def test_an_unclosed_quote_is_read_as_plain_words() -> None:
    assert wrappers("python -c 'unbalanced").runs == "python -c ''\"'\"'unbalanced'"
