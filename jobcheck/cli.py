"""The command line: ``jobcheck check``, ``jobcheck rules``, ``jobcheck explain``.

Exit status: 0 no findings, 1 findings (or files that could not be checked), 2 a usage,
configuration or internal error. No traceback reaches the user (set JOBCHECK_DEBUG=1 to
see one).
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TextIO

import click

from jobcheck import __version__
from jobcheck.catalog import UnknownRuleError, data_dir, load_catalog
from jobcheck.checks import implemented_checks
from jobcheck.config import ConfigError, Options, find_config, load
from jobcheck.discovery import DiscoveryError
from jobcheck.engine import RunSettings, Selection, check_paths
from jobcheck.output import FORMATS
from jobcheck.progress import progress_bar
from jobcheck.timing import report as report_timings

# rich is imported where it is used: a run that reads every fact from the cache and
# prints plain text is over before rich would have finished importing.

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class JobcheckError(click.ClickException):
    """A one-line error with exit status 2."""

    exit_code = EXIT_ERROR

    def show(self, file: TextIO | None = None) -> None:
        click.echo(f"jobcheck: error: {self.format_message()}", err=True)


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    """``--select A,B --select C`` -> (A, B, C)."""
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="jobcheck")
def cli() -> None:
    """jobcheck: a static linter for background-job code (Celery, RQ, Dramatiq).

    Rules from the Agent Wranglers scaling playbook,
    https://agentwranglers.se/playbook/scaling/background-jobs-and-queues (CC BY 4.0).
    """


@cli.command("check")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--select", multiple=True, help="Rules or checks to enable (ids, aliases, slugs, ALL).")
@click.option("--ignore", multiple=True, help="Rules or checks to disable (ids, aliases, slugs).")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(sorted(FORMATS)),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to FILE.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--config", "config_file", type=click.Path(), help="Read options from this TOML file.")
@click.option("--exclude", multiple=True, help="Glob patterns of files or folders to skip.")
@click.option(
    "--show-unused-suppressions",
    is_flag=True,
    help="Report '# jobcheck: ignore' comments that suppress nothing.",
)
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, help="Worker processes (0 = one per core, 1 = none).")
@click.option("--no-prefilter", is_flag=True, hidden=True, help="Parse every file (for testing the prefilter).")
@click.option("--color/--no-color", default=None, help="Force coloured output on or off.")
@click.option("--no-cache", is_flag=True, help="Neither read nor write the results cache.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False),
    envvar="JOBCHECK_CACHE_DIR",
    help="Folder of the results cache (default: .jobcheck_cache in the project root).",
)
def check_command(
    paths: tuple[str, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    output_format: str,
    output: str | None,
    exit_zero: bool,
    config_file: str | None,
    exclude: tuple[str, ...],
    show_unused_suppressions: bool,
    jobs: int,
    no_prefilter: bool,
    color: bool | None,
    no_cache: bool,
    cache_dir: str | None,
) -> None:
    """Check PATHS (files or folders; default: the current folder)."""
    targets = paths or (".",)
    options = _options(config_file, targets)
    if exclude:
        options = replace(options, extend_exclude=(*options.extend_exclude, *exclude))
    catalog = load_catalog()
    try:
        selection = Selection.resolve(
            catalog,
            _split(select) or options.select,
            (*options.ignore, *_split(ignore)),
        )
        for codes in options.per_file_ignores.values():
            for code in codes:
                catalog.resolve(code)
    except UnknownRuleError as error:
        raise JobcheckError(str(error)) from None
    settings = RunSettings(jobs=jobs, prefilter=not no_prefilter)
    if not no_cache:
        settings.cache_dir = _cache_dir(cache_dir, options, targets)
    with progress_bar(enabled=output_format == "text" and not output) as bar:
        settings.progress = bar
        try:
            report = check_paths(targets, options, selection, settings)
        except DiscoveryError as error:
            raise JobcheckError(str(error)) from None
    if not show_unused_suppressions:
        report.unused_suppressions = []
    writer = FORMATS[output_format]
    report_timings()
    if output:
        try:
            with open(output, "w", encoding="utf-8") as stream:
                writer(report, stream, False)
        except OSError as error:
            raise JobcheckError(f"cannot write {output}: {error.strerror or error}") from None
    else:
        use_color = color if color is not None else _stdout_is_terminal()
        writer(report, sys.stdout, use_color and output_format == "text")
    if report.failed and not exit_zero:
        sys.exit(EXIT_FINDINGS)


def _cache_dir(given: str | None, options: Options, targets: tuple[str, ...]) -> Path:
    from jobcheck.cache import default_directory

    if given:
        return Path(given)
    return default_directory(options.root if options.config_path else None, list(targets))


def _options(config_file: str | None, targets: tuple[str, ...]) -> Options:
    try:
        if config_file:
            return load(Path(config_file))
        found = find_config(Path(targets[0]))
        return load(found) if found else Options()
    except ConfigError as error:
        raise JobcheckError(str(error)) from None


def _stdout_is_terminal() -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty()


@cli.command("rules")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
def rules_command(output_format: str) -> None:
    """List every rule and check, implemented or planned."""
    from rich.console import Console
    from rich.table import Table

    catalog = load_catalog()
    implemented = implemented_checks()
    if output_format == "json":
        import json

        data = [
            {
                "id": rule.id,
                "alias": rule.alias,
                "title": rule.title,
                "level": rule.level,
                "url": rule.url,
                "checks": [
                    {
                        "slug": c.slug,
                        "severity": c.severity,
                        "implemented": (rule.id, c.slug) in implemented,
                    }
                    for c in rule.checks
                ],
            }
            for rule in catalog
        ]
        click.echo(json.dumps(data, indent=2))
        return
    table = Table(title="jobcheck rules", show_lines=False)
    for column in ("Rule", "Alias", "Title", "Level", "Check", "State"):
        table.add_column(column)
    for rule in catalog:
        for index, c in enumerate(rule.checks):
            state = "implemented" if (rule.id, c.slug) in implemented else "planned"
            table.add_row(
                rule.id if index == 0 else "",
                (rule.alias or "-") if index == 0 else "",
                rule.title if index == 0 else "",
                rule.level if index == 0 else "",
                c.slug,
                f"[green]{state}[/]" if state == "implemented" else f"[dim]{state}[/]",
            )
    Console(soft_wrap=False).print(table)


@cli.command("explain")
@click.argument("ident")
def explain_command(ident: str) -> None:
    """Show the documentation of a rule (by id, alias or check slug)."""
    from rich.console import Console
    from rich.markdown import Markdown

    catalog = load_catalog()
    try:
        pairs = catalog.resolve(ident)
    except UnknownRuleError as error:
        raise JobcheckError(str(error)) from None
    rule = catalog.rule(next(iter(pairs))[0])
    page = data_dir("docs") / f"{rule.id}.md"
    if page.is_file():
        text = page.read_text(encoding="utf-8")
    else:
        checks = "\n".join(f"- `{c.slug}`: {c.summary}" for c in rule.checks)
        text = f"# {rule.id} {rule.title}\n\n{rule.summary}\n\n{checks}\n\n{rule.url}\n"
    Console().print(Markdown(text))


def main() -> None:
    try:
        cli.main(standalone_mode=False, prog_name="jobcheck")
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.ClickException as error:
        if isinstance(error, click.UsageError) and not isinstance(error, JobcheckError):
            error.exit_code = EXIT_ERROR
        error.show()
        sys.exit(error.exit_code if isinstance(error, JobcheckError) else EXIT_ERROR)
    except click.exceptions.Abort:
        click.echo("jobcheck: aborted", err=True)
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(EXIT_ERROR)
    except Exception as error:  # never a traceback for the user
        if os.environ.get("JOBCHECK_DEBUG"):
            raise
        click.echo(
            f"jobcheck: internal error: {type(error).__name__}: {error} "
            "(set JOBCHECK_DEBUG=1 for a traceback, and please report it)",
            err=True,
        )
        sys.exit(EXIT_ERROR)
