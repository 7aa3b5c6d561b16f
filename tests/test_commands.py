"""The code a scheduled command line runs (``jobcheck/project/commands.py``)."""

from __future__ import annotations

import pytest

from jobcheck.project.commands import command_targets, script_wrappers, scripts_run

MODULES = {
    "shop.management.commands.sync_orders",
    "shop.reports.daily",
    "scripts.backup",
    "shop.reports",
}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "python manage.py sync_orders --dry-run",
            ["shop.management.commands.sync_orders.Command.handle"],
        ),
        (
            "cd /app && flock -n /tmp/sync.lock timeout 10m python3 manage.py sync_orders",
            ["shop.management.commands.sync_orders.Command.handle"],
        ),
        (
            "/bin/sh -c 'exec python /app/manage.py sync_orders'",
            ["shop.management.commands.sync_orders.Command.handle"],
        ),
        ("django-admin sync_orders", ["shop.management.commands.sync_orders.Command.handle"]),
        ("python -m shop.reports.daily", ["shop.reports.daily.main"]),
        (
            "DJANGO_SETTINGS_MODULE=shop.settings python /srv/app/scripts/backup.py",
            ["scripts.backup.main"],
        ),
        # A CronJob's ["/bin/sh", "-c", "..."] joined with quotes (the manifest reader).
        (
            "/bin/sh -c 'cd /app && python manage.py sync_orders'",
            ["shop.management.commands.sync_orders.Command.handle"],
        ),
        (
            "bash -lc 'cd /app && flock -n /tmp/x.lock timeout 5m python -m shop.reports.daily'",
            ["shop.reports.daily.main"],
        ),
        (
            'flock -n /tmp/a.lock -c "cd /app && timeout 5m python manage.py sync_orders"',
            ["shop.management.commands.sync_orders.Command.handle"],
        ),
        (
            "sudo -u app python manage.py sync_orders",
            ["shop.management.commands.sync_orders.Command.handle"],
        ),
        ("nohup python -m shop.reports.daily > /dev/null 2>&1", ["shop.reports.daily.main"]),
        ("timeout -k 30s 15m python -m shop.reports.daily", ["shop.reports.daily.main"]),
        ("flock -w 0 /tmp/e.lock python -m shop.reports.daily", ["shop.reports.daily.main"]),
        ("su - app -c 'python /app/scripts/backup.py'", ["scripts.backup.main"]),
        (
            "python manage.py sync_orders && python -m shop.reports.daily",
            ["shop.management.commands.sync_orders.Command.handle", "shop.reports.daily.main"],
        ),
        ("celery -A shop call shop.tasks.report", []),
        ("python manage.py unknown_command", []),
        ("python -m celery -A shop worker", []),
        ("/app/bin/backup % weekday", []),
        ("python -c 'unbalanced", []),
    ],
)
def test_command_targets(command: str, expected: list[str]) -> None:
    assert command_targets(command, MODULES) == expected


SCRIPTS = {
    "deploy/scripts/nightly.sh": ["cd /app && python manage.py sync_orders"],
    "deploy/a/run.sh": ["python -m shop.reports.daily"],
    "deploy/b/run.sh": ["python -m shop.reports"],
}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("/app/scripts/nightly.sh", ["shop.management.commands.sync_orders.Command.handle"]),
        (
            "cd /app && bash scripts/nightly.sh >> /var/log/n 2>&1",
            ["shop.management.commands.sync_orders.Command.handle"],
        ),
        ("/app/a/run.sh", ["shop.reports.daily.main"]),
        ("/app/run.sh", []),  # two scripts of that name: cannot tell which
        ("/app/scripts/other.sh", []),
    ],
)
def test_command_targets_through_shell_scripts(command: str, expected: list[str]) -> None:
    assert command_targets(command, MODULES, SCRIPTS) == expected


WRAPPED_SCRIPTS = {
    "src/run-manage.bash": ["flock -n 200 || exit 0", 'timeout 10m ./manage.py "$@"'],
    "bin/locked.sh": ["run-one python -m shop.reports.daily"],
    "bin/unlimited.sh": ["timeout 0 python -m shop.reports.daily"],
    "bin/plain.sh": ["python -m shop.reports.daily"],
}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("/usr/src/app/run-manage.bash parse_statistic", {"lock", "lock_waits", "timeout"}),
        ("bash /app/bin/locked.sh", {"lock"}),
        ("/app/bin/unlimited.sh", set()),  # timeout 0 disables the limit
        ("/app/bin/plain.sh", set()),
        ("flock -n /tmp/x /app/bin/plain.sh", set()),  # the entry's own flock is not the script's
        ("python manage.py sync", set()),
    ],
)
def test_script_wrappers(command: str, expected: set[str]) -> None:
    assert script_wrappers(command, WRAPPED_SCRIPTS) == expected


ARGUMENT_SCRIPTS = {
    "src/run-manage.bash": ["flock -n 200 || exit 0", 'cmd="./manage.py $@"'],
    "bin/one.sh": ['python manage.py "$1" --fast', "timeout 5m python -m ${2}"],
}


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        # clist's run-manage.bash stores the command in a variable and runs $cmd.
        (
            "/usr/src/clist/run-manage.bash parse_statistic --split-by 3",
            ["flock -n 200 || exit 0", "./manage.py parse_statistic --split-by 3"],
        ),
        (
            "bash /app/bin/one.sh sync shop.job",
            ["python manage.py sync --fast", "timeout 5m python -m shop.job"],
        ),
        ("/app/bin/one.sh", ["python manage.py  --fast", "timeout 5m python -m "]),
    ],
)
def test_scripts_run_with_their_arguments(command: str, expected: list[str]) -> None:
    assert scripts_run(command, ARGUMENT_SCRIPTS) == expected


def test_a_command_passed_to_a_wrapper_script_is_the_job() -> None:
    modules = ["clist.notification.management.commands.sendout_tasks", "shop.job"]
    targets = command_targets(
        "/usr/src/clist/run-manage.bash sendout_tasks", modules, ARGUMENT_SCRIPTS
    )
    assert targets == ["clist.notification.management.commands.sendout_tasks.Command.handle"]
    assert command_targets("/app/bin/one.sh x shop.job", modules, ARGUMENT_SCRIPTS) == [
        "shop.job.main"
    ]
