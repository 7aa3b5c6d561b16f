"""The command line: ``jobcheck check``, ``jobcheck rules``, ``jobcheck explain``.

Exit status: 0 no findings, 1 findings (or files that could not be checked), 2 a usage,
configuration or internal error. No traceback reaches the user (set JOBCHECK_DEBUG=1 to
see one).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from jobcheck import __version__
from jobcheck.config import ConfigError, Options, find_config, load
from jobcheck.discovery import DiscoveryError
from jobcheck.findings import Report
from jobcheck.output import FORMATS, ScrubbedStream, Writer
from jobcheck.phases import phase
from jobcheck.phases import report as report_timings
from jobcheck.progress import progress_bar
from jobcheck.scope import Scope, ScopeError, changed_files, for_paths

if TYPE_CHECKING:
    from jobcheck import baseline
    from jobcheck.catalog import Catalog
    from jobcheck.engine import Selection
    from jobcheck.run_cache import RunCache

# The catalog, the checks and the engine are imported where they are used, and rich
# too: a run that replays a stored report (jobcheck/run_cache.py) is over before they
# would have finished importing.

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class JobcheckError(click.ClickException):
    """A one-line error with exit status 2."""

    exit_code = EXIT_ERROR

    def show(self, file: TextIO | None = None) -> None:
        click.echo(f"jobcheck: error: {self.format_message()}", err=True)


def _size_option(text: str) -> int:
    from jobcheck.discovery.reading import parse_size

    try:
        return parse_size(text)
    except ValueError:
        raise JobcheckError(
            f"--max-file-size: {text!r} is not a size (1048576, '1 MiB', '512 KiB')"
        ) from None


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
@click.option(
    "--select", multiple=True, help="Rules or checks to enable (ids, aliases, slugs, ALL)."
)
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
@click.option(
    "--config", "config_file", type=click.Path(), help="Read options from this TOML file."
)
@click.option("--exclude", multiple=True, help="Glob patterns of files or folders to skip.")
@click.option(
    "--show-unused-suppressions",
    is_flag=True,
    help="Report '# jobcheck: ignore' comments that suppress nothing.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=0),
    default=0,
    help="Worker processes (0 = one per core, 1 = none).",
)
@click.option(
    "--no-prefilter",
    is_flag=True,
    hidden=True,
    help="Parse every file (for testing the prefilter).",
)
@click.option("--color/--no-color", default=None, help="Force coloured output on or off.")
@click.option(
    "--statistics", is_flag=True, help="Count the findings of each check instead of listing them."
)
@click.option(
    "--baseline",
    "baseline_file",
    type=click.Path(dir_okay=False),
    help="Report only findings that are not recorded in this baseline file.",
)
@click.option(
    "--write-baseline",
    "write_baseline_file",
    type=click.Path(dir_okay=False),
    help="Record today's findings in FILE (for --baseline) and exit 0.",
)
@click.option(
    "--diff",
    "--changed-since",
    "diff_revision",
    metavar="REV",
    help="Report only on Python files changed since git revision REV "
    "(committed, staged, unstaged, untracked); the whole project is still analysed.",
)
@click.option(
    "--no-project",
    is_flag=True,
    help="With file PATHS, check those files alone instead of analysing the project "
    "around them and reporting on the files.",
)
@click.option(
    "--max-file-size",
    metavar="SIZE",
    help="Do not parse files larger than SIZE (bytes, or '2 MiB'; default 1 MiB).",
)
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
    statistics: bool,
    baseline_file: str | None,
    write_baseline_file: str | None,
    diff_revision: str | None,
    no_project: bool,
    max_file_size: str | None,
    no_cache: bool,
    cache_dir: str | None,
) -> None:
    """Check PATHS (files or folders; default: the current folder).

    When every PATH is a file (as pre-commit passes them), jobcheck still analyses the
    project around them (the folder of its configuration, else the git repository) and
    reports only on those files; --no-project checks the files alone.
    """
    targets = paths or (".",)
    options = _options(config_file, targets)
    if exclude:
        options = replace(options, extend_exclude=(*options.extend_exclude, *exclude))
    if max_file_size is not None:
        options = replace(options, max_file_size=_size_option(max_file_size))
    select_codes = _split(select) or options.select
    ignore_codes = (*options.ignore, *_split(ignore))
    cache = None if no_cache else _cache_dir(cache_dir, options, targets)
    known = _load_baseline(Path(baseline_file)) if baseline_file else None
    scope = _scope(targets, options, no_project, diff_revision)
    machine_readable = output_format != "text" or statistics or write_baseline_file
    run = _Run(options, select_codes, ignore_codes, jobs, not no_prefilter, cache)
    report = run.report(scope.targets, show_progress=not machine_readable and not output)
    report_timings()
    report = scope.restrict(report)
    if not show_unused_suppressions:
        report.unused_suppressions = []
    if write_baseline_file:
        _write_baseline(Path(write_baseline_file), report)
        return
    if known is not None:
        report = _apply_baseline(known, report, whole_run=scope.reported is None)
    writer = _statistics_writer(output_format) if statistics else FORMATS[output_format]
    if output:
        try:
            with open(output, "w", encoding="utf-8") as stream:
                writer(report, ScrubbedStream(stream), False)  # type: ignore[arg-type]
        except OSError as error:
            raise JobcheckError(f"cannot write {output}: {error.strerror or error}") from None
    else:
        use_color = color if color is not None else _stdout_is_terminal()
        stdout = ScrubbedStream(sys.stdout)
        writer(report, stdout, use_color and output_format == "text")  # type: ignore[arg-type]
    if report.failed and not exit_zero:
        sys.exit(EXIT_FINDINGS)


@dataclass(frozen=True)
class _Run:
    """What to check and how: produces the report of a set of paths, replayed from the
    results cache when nothing it reads has changed."""

    options: Options
    select: tuple[str, ...]
    ignore: tuple[str, ...]
    jobs: int
    prefilter: bool
    cache_dir: Path | None

    def report(self, targets: tuple[str, ...], show_progress: bool) -> Report:
        if not targets:
            return Report()
        stored = self._run_cache(targets)
        if stored is not None:
            with phase("replay"):
                report = stored.replay(targets, self.options)
            if report is not None:
                return report
        report = self._check(targets, show_progress)
        if stored is not None:
            from jobcheck.project import inference

            stored.store(report, inference.current_memo().files)
        return report

    def _run_cache(self, targets: tuple[str, ...]) -> RunCache | None:
        if self.cache_dir is None:
            return None
        from jobcheck.run_cache import RunCache

        key = (repr(self.options), self.select, self.ignore, targets, self.prefilter, os.getcwd())
        return RunCache.open(self.cache_dir, key)

    def _check(self, targets: tuple[str, ...], show_progress: bool) -> Report:
        from jobcheck.engine import RunSettings, check_paths

        selection = _selection(self.options, self.select, self.ignore)
        settings = RunSettings(jobs=self.jobs, prefilter=self.prefilter, cache_dir=self.cache_dir)
        with progress_bar(enabled=show_progress) as bar:
            settings.progress = bar
            try:
                return check_paths(targets, self.options, selection, settings)
            except DiscoveryError as error:
                raise JobcheckError(str(error)) from None


def _selection(options: Options, select: tuple[str, ...], ignore: tuple[str, ...]) -> Selection:
    """The enabled checks; every code in the configuration and on the command line must
    name a rule, an alias or a check (else a one-line error naming it)."""
    from jobcheck.catalog import UnknownRuleError, load_catalog
    from jobcheck.engine import Selection

    catalog = load_catalog()
    _check_config_codes(options, catalog)
    try:
        return Selection.resolve(catalog, select, ignore)
    except UnknownRuleError as error:
        raise JobcheckError(str(error)) from None


def _scope(
    targets: tuple[str, ...], options: Options, no_project: bool, diff_revision: str | None
) -> Scope:
    config_root = Path(options.root) if options.config_path else None
    scope = for_paths(targets, config_root, isolated=no_project)
    if diff_revision is None:
        return scope
    try:
        changed = changed_files(diff_revision, Path(targets[0]))
    except ScopeError as error:
        raise JobcheckError(str(error)) from None
    return scope.narrowed(changed)


def _statistics_writer(output_format: str) -> Writer:
    from jobcheck.output import statistics as statistics_module

    def write(report: Report, stream: TextIO, color: bool) -> None:
        statistics_module.write(report, stream, as_json=output_format == "json")

    return write


def _write_baseline(path: Path, report: Report) -> None:
    from jobcheck import baseline

    try:
        count = baseline.write(path, report.findings)
    except baseline.BaselineError as error:
        raise JobcheckError(str(error)) from None
    noun = "finding" if count == 1 else "findings"
    click.echo(f"jobcheck: recorded {count} {noun} in the baseline {path}", err=True)
    if report.errors:
        click.echo(
            f"jobcheck: {len(report.errors)} files could not be checked; their findings "
            "are not in the baseline",
            err=True,
        )


def _load_baseline(path: Path) -> baseline.Baseline:
    from jobcheck import baseline

    try:
        return baseline.load(path)
    except baseline.BaselineError as error:
        raise JobcheckError(str(error)) from None


def _apply_baseline(known: baseline.Baseline, report: Report, whole_run: bool) -> Report:
    outcome = known.filter(report.findings)
    if outcome.known:
        click.echo(f"jobcheck: {outcome.known} findings in the baseline not shown", err=True)
    if outcome.stale and whole_run:  # a narrowed run cannot tell what was fixed elsewhere
        click.echo(
            f"jobcheck: {outcome.stale} baseline entries match no finding any more "
            "(fixed?); refresh the baseline with --write-baseline",
            err=True,
        )
    return replace(report, findings=outcome.new)


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


def _check_config_codes(options: Options, catalog: Catalog) -> None:
    """Rule ids, aliases and slugs in the config file must exist: name the key if not."""
    from jobcheck.catalog import UnknownRuleError

    source = options.config_path or "config"
    keyed: list[tuple[str, str]] = [("select", code) for code in options.select]
    keyed += [("ignore", code) for code in options.ignore]
    keyed += [("severity", code) for code in options.severity]
    for pattern, codes in options.per_file_ignores.items():
        keyed += [(f"per-file-ignores.{pattern!r}", code) for code in codes]
    for key, code in keyed:
        try:
            catalog.resolve(code)
        except UnknownRuleError as error:
            raise JobcheckError(f"{source}: {key}: {error}") from None


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

    from jobcheck.catalog import load_catalog
    from jobcheck.checks import implemented_checks

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
    for column in ("Rule", "Alias", "Title", "Level"):
        table.add_column(column)
    table.add_column("Check", no_wrap=True)
    table.add_column("State", no_wrap=True)
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

    from jobcheck.catalog import UnknownRuleError, data_dir, load_catalog

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


@cli.command("lsp")
def lsp_command() -> None:
    """Run the language server on stdin and stdout (for editors; see docs/editors.md)."""
    try:
        from jobcheck.lsp.server import serve
    except ImportError as error:
        if (error.name or "").split(".")[0] not in ("pygls", "lsprotocol", "cattrs", "attrs"):
            raise
        raise JobcheckError(
            "the language server needs pygls and lsprotocol: pip install 'jobcheck[lsp]'"
        ) from None
    sys.exit(serve())


@cli.command("jobs")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
@click.option(
    "--config", "config_file", type=click.Path(), help="Read options from this TOML file."
)
def jobs_command(paths: tuple[str, ...], output_format: str, config_file: str | None) -> None:
    """Review every job in PATHS with its effective contract: queue, time limit,
    retries, backoff, dead letter, schedule and lock."""
    from rich.console import Console

    from jobcheck.engine import RunSettings, collect_facts
    from jobcheck.project import Project
    from jobcheck.review import cards, contracts

    targets = paths or (".",)
    options = _options(config_file, targets)
    try:
        _, analysis = collect_facts(targets, options, RunSettings())
    except DiscoveryError as error:
        raise JobcheckError(str(error)) from None
    project = Project(
        analysis.facts,
        settings_modules=options.django_settings,
        celery_app=options.celery_app,
        loader=analysis.loader,
    )
    found = contracts(project, options)
    if output_format == "json":
        import json

        click.echo(json.dumps([c.as_dict() for c in found], indent=2))
        return
    console = Console(soft_wrap=True, highlight=False)
    for card in cards(found):
        console.print(card)
    console.print(f"{len(found)} jobs.", style="bold")


def _usage_line(error: click.UsageError) -> str:
    """A usage error in one line, with where to read more (click prints four)."""
    message = " ".join(error.format_message().split())
    command = error.ctx.command_path if error.ctx is not None else "jobcheck"
    return f"{message} (see '{command} --help')"


def main() -> None:
    try:
        cli.main(standalone_mode=False, prog_name="jobcheck")
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.ClickException as error:
        if isinstance(error, click.UsageError) and not isinstance(error, JobcheckError):
            click.echo(f"jobcheck: error: {_usage_line(error)}", err=True)
        else:
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
