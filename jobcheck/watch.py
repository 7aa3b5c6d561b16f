"""``jobcheck check --watch``: check, then check again whenever a file changes.

Polling, not file-system events: one walk a second, which the walk cache keeps to one
``stat`` per folder and file. Ctrl-C stops it, between checks or during one, with exit
status 0 and no traceback.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import click

POLL_SECONDS = 1.0


def watch(check: Callable[[], int], signature: Callable[[], object], quiet: bool = False) -> int:
    last: object = None
    try:
        while True:
            current = signature()
            if current != last:
                if last is not None and not quiet:
                    click.echo(f"\njobcheck: change seen at {time.strftime('%H:%M:%S')}", err=True)
                try:
                    check()
                except click.ClickException as error:  # a broken config while editing it
                    error.show()
                if not quiet:
                    click.echo("jobcheck: watching for changes (Ctrl-C to stop)", err=True)
                last = signature()
            time.sleep(POLL_SECONDS)
    except KeyboardInterrupt:
        if not quiet:
            click.echo("jobcheck: stopped watching", err=True)
        return 0
