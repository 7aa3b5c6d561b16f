"""The command line: ``jobcheck check``, ``jobcheck rules``, ``jobcheck explain``.

Exit status: 0 no findings, 1 findings (or files that could not be checked), 2 a usage,
configuration or internal error. No traceback reaches the user (set JOBCHECK_DEBUG=1 to
see one).
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import click

from jobcheck import __version__
from jobcheck.config import ConfigError, Layer, Options, find_config, load
from jobcheck.discovery import DiscoveryError, discover_for
from jobcheck.discovery.repository import project_boundary
from jobcheck.findings import Finding, Report, UnusedSuppression
from jobcheck.guarded import WriteError, write_atomically
from jobcheck.notices import say
from jobcheck.output import FORMATS, ScrubbedStream, Writer
from jobcheck.phases import phase
from jobcheck.phases import report as report_timings
from jobcheck.progress import progress_bar
from jobcheck.scope import Scope, ScopeError, analysed_kind, changed_files, for_paths

if TYPE_CHECKING:
    from jobcheck import baseline, fixing
    from jobcheck.catalog import Catalog
    from jobcheck.engine import RunSettings, Selection
    from jobcheck.project import Project
    from jobcheck.review_diff import Change
    from jobcheck.run_cache import RunCache

# The catalog, the checks and the engine are imported where they are used, and rich
# too: a run that replays a stored report (jobcheck/run_cache.py) is over before they
# would have finished importing.

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


class JobcheckError(click.ClickException):
    """A one-line error with exit status 2."""

    exit_code = EXIT_ERROR

    def show(self, file: TextIO | None = None) -> None:
        say(f"jobcheck: error: {self.format_message()}")


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


CONFIG_OPTION = click.option(
    "--config", "config_file", type=click.Path(), help="Read options from this TOML file."
)
EXCLUDE_OPTION = click.option(
    "--exclude",
    "--extend-exclude",
    "exclude",
    multiple=True,
    help="Files or folders to skip, gitignore-style globs ('legacy/' is a folder; "
    "comma-separated or repeated), on top of the configuration's.",
)
"""Options ``check``, ``jobs`` and ``review`` share."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="jobcheck")
def cli() -> None:
    """jobcheck: a static linter for background-job code (Celery, RQ, Dramatiq, Huey, arq,
    taskiq, APScheduler, Kubernetes CronJobs, crontab files, Sidekiq and ActiveJob).

    Rules from the Agent Wranglers scaling playbook,
    https://agentwranglers.se/playbook/scaling/background-jobs-and-queues (CC BY 4.0).
    """


FORMAT_NAMES = sorted({*FORMATS, "full"})
STATISTICS_FORMATS = ("text", "full", "concise", "json")


@cli.command("check")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--select",
    multiple=True,
    help="Rules or checks to enable (ids, aliases, slugs, id prefixes such as SCL, ALL); "
    "replaces the configuration's selection.",
)
@click.option(
    "--extend-select", multiple=True, help="Rules or checks to enable on top of the selection."
)
@click.option("--ignore", multiple=True, help="Rules or checks to disable (same forms).")
@click.option(
    "--extend-ignore", multiple=True, help="Rules or checks to disable, as --ignore does."
)
@click.option(
    "--output-format",
    "--format",
    "output_format",
    type=click.Choice(FORMAT_NAMES),
    default=None,
    help="Output format (default: text; full is the same).",
)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the report to FILE.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option(
    "--fixable",
    multiple=True,
    metavar="CODES",
    help="With --fix: fix only findings of these rules or checks (comma-separated).",
)
@click.option(
    "--unfixable",
    multiple=True,
    metavar="CODES",
    help="With --fix: never fix findings of these rules or checks (comma-separated).",
)
@click.option(
    "--exit-non-zero-on-fix",
    is_flag=True,
    help="With --fix: exit 1 when a fix was applied, even if no finding is left (Ruff's).",
)
@CONFIG_OPTION
@EXCLUDE_OPTION
@click.option(
    "--force-exclude/--no-force-exclude",
    default=None,
    help="Skip a file the excludes match even when it is named on the command line, as "
    "pre-commit names every staged file (config: force-exclude; default: check it).",
)
@click.option(
    "--per-file-ignores",
    multiple=True,
    metavar="GLOB:CODES",
    help="Disable rules or checks in files matching GLOB (comma-separated codes; "
    "repeatable); replaces the configuration's per-file-ignores.",
)
@click.option(
    "--extend-per-file-ignores",
    multiple=True,
    metavar="GLOB:CODES",
    help="Like --per-file-ignores, on top of the configuration's.",
)
@click.option(
    "--include-tests",
    is_flag=True,
    default=None,
    help="Also check test code found by walking folders (tests/, test_*.py, conftest.py...; "
    "skipped by default).",
)
@click.option(
    "--show-unused-suppressions",
    is_flag=True,
    default=None,
    help="Report '# jobcheck: ignore' comments that suppress nothing, and unknown codes "
    "in them (config: show-unused-suppressions).",
)
@click.option(
    "--fix/--no-fix", default=False, help="Apply the safe fixes, then report what is left."
)
@click.option(
    "--unsafe-fixes/--no-unsafe-fixes",
    default=None,
    help="Apply (with --fix or --diff) or show the fixes that may change what the "
    "program does, too (config: unsafe-fixes).",
)
@click.option(
    "--show-fixes/--no-show-fixes",
    default=None,
    help="Show each finding's fix, and with --fix what was fixed (config: show-fixes).",
)
@click.option(
    "--diff",
    "show_diff",
    is_flag=True,
    help="Print the fixes as a unified diff instead of applying them (exit 1 when there "
    "is one). To report only on changed files, see --changed-since.",
)
@click.option(
    "--add-ignore",
    is_flag=True,
    help="Add '# jobcheck: ignore[...]' to the line of every finding (like Ruff's "
    "--add-noqa), merging with comments already there.",
)
@click.option(
    "--changed-since",
    "changed_since",
    metavar="REV",
    help="Report only on Python files changed since git revision REV (committed, staged, "
    "unstaged, untracked); the whole project is still analysed.",
)
@click.option(
    "--stdin-filename",
    metavar="PATH",
    help="With PATH '-', the name of the file read from standard input.",
)
@click.option("--show-settings", is_flag=True, help="Print the settings in effect and exit.")
@click.option("--show-files", is_flag=True, help="Print the files that would be checked and exit.")
@click.option("--quiet", "-q", is_flag=True, help="Print the findings and nothing else.")
@click.option(
    "--watch", "-w", is_flag=True, help="Check again whenever a file changes (Ctrl-C stops)."
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
    "--statistics",
    is_flag=True,
    help="Count the findings of each check instead of listing them (text or json).",
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
def check_command(paths: tuple[str, ...], **given: object) -> None:
    """Check PATHS (files or folders; default: the current folder; '-' reads a file from
    standard input, named with --stdin-filename).

    When every PATH is a file (as pre-commit passes them), jobcheck still analyses the
    project around them (the folder of its configuration, else the git repository) and
    reports only on those files; --no-project checks the files alone.
    """
    request = _Request.from_cli(paths, given)
    if request.show_settings:
        _show_settings(request)
        return
    if request.show_files:
        _show_files(request)
        return
    if request.watch:
        from jobcheck.watch import watch

        sys.exit(watch(lambda: _execute(request), lambda: _signature(request), request.quiet))
    sys.exit(_execute(request))


@dataclass(frozen=True)
class _Request:
    """A ``jobcheck check`` command line, with the configuration it reads."""

    targets: tuple[str, ...]
    options: Options
    cli_layer: Layer
    output_format: str
    output: str | None
    exit_zero: bool
    exit_non_zero_on_fix: bool
    fixable: tuple[str, ...]
    unfixable: tuple[str, ...]
    show_unused: bool
    fix: bool
    unsafe_fixes: bool
    unsafe_given: bool
    show_fixes: bool
    show_diff: bool
    add_ignore: bool
    changed_since: str | None
    stdin: bytes | None
    stdin_name: str | None
    show_settings: bool
    show_files: bool
    quiet: bool
    watch: bool
    jobs: int
    prefilter: bool
    color: bool | None
    statistics: bool
    baseline_file: str | None
    write_baseline_file: str | None
    no_project: bool
    cache_dir: Path | None

    @classmethod
    def from_cli(cls, paths: tuple[str, ...], given: dict[str, object]) -> _Request:
        stdin_name = given["stdin_filename"]
        stdin = None
        if paths == ("-",):
            stdin = getattr(sys.stdin, "buffer", sys.stdin).read()
            paths = (str(stdin_name),) if stdin_name else ()
        elif "-" in paths:
            raise JobcheckError("'-' (standard input) cannot be combined with other paths")
        elif stdin_name:
            raise JobcheckError("--stdin-filename names the file read with PATH '-'")
        _refuse_old_diff(paths, bool(given["show_diff"]))
        targets = paths or (".",)
        options = _options(given["config_file"], targets)  # type: ignore[arg-type]
        exclude = _split(given["exclude"])  # type: ignore[arg-type]
        if given["include_tests"]:
            options = replace(options, include_tests=True)
        if exclude:
            options = replace(options, extend_exclude=(*options.extend_exclude, *exclude))
        if given["force_exclude"] is not None:
            options = replace(options, force_exclude=bool(given["force_exclude"]))
        options = _with_per_file_ignores(
            options,
            given["per_file_ignores"],  # type: ignore[arg-type]
            given["extend_per_file_ignores"],  # type: ignore[arg-type]
        )
        if given["max_file_size"] is not None:
            options = replace(options, max_file_size=_size_option(str(given["max_file_size"])))
        output_format = str(given["output_format"] or "text")
        if output_format == "full":
            output_format = "text"
        statistics = bool(given["statistics"])
        if statistics and output_format not in STATISTICS_FORMATS:
            raise JobcheckError(
                f"--statistics prints text or json, not {output_format} "
                "(use --output-format text or json with it)"
            )
        select = _split(given["select"])  # type: ignore[arg-type]
        layer = Layer(
            select or None,
            _split(given["extend_select"]),  # type: ignore[arg-type]
            (*_split(given["ignore"]), *_split(given["extend_ignore"])),  # type: ignore[arg-type]
        )
        show_unused = given["show_unused_suppressions"]
        unsafe = given["unsafe_fixes"]
        show_fixes = given["show_fixes"]
        cache = None if given["no_cache"] else _cache_dir(given["cache_dir"], options, targets)  # type: ignore[arg-type]
        return cls(
            targets=targets if stdin is None or paths else (),
            options=options,
            cli_layer=layer,
            output_format=output_format,
            output=given["output"],  # type: ignore[arg-type]
            exit_zero=bool(given["exit_zero"]),
            exit_non_zero_on_fix=bool(given["exit_non_zero_on_fix"]),
            fixable=_split(given["fixable"]),  # type: ignore[arg-type]
            unfixable=_split(given["unfixable"]),  # type: ignore[arg-type]
            show_unused=options.show_unused_suppressions
            if show_unused is None
            else bool(show_unused),
            fix=bool(given["fix"]),
            unsafe_fixes=options.unsafe_fixes if unsafe is None else bool(unsafe),
            unsafe_given=unsafe is not None,
            show_fixes=options.show_fixes if show_fixes is None else bool(show_fixes),
            show_diff=bool(given["show_diff"]),
            add_ignore=bool(given["add_ignore"]),
            changed_since=given["changed_since"],  # type: ignore[arg-type]
            stdin=stdin,
            stdin_name=str(stdin_name) if stdin_name else None,
            show_settings=bool(given["show_settings"]),
            show_files=bool(given["show_files"]),
            quiet=bool(given["quiet"]),
            watch=bool(given["watch"]),
            jobs=int(given["jobs"]),  # type: ignore[arg-type]
            prefilter=not given["no_prefilter"],
            color=given["color"],  # type: ignore[arg-type]
            statistics=statistics,
            baseline_file=given["baseline_file"],  # type: ignore[arg-type]
            write_baseline_file=given["write_baseline_file"],  # type: ignore[arg-type]
            no_project=bool(given["no_project"]),
            cache_dir=None if stdin is not None else cache,
        )

    @property
    def wants_fixes(self) -> bool:
        return self.fix or self.show_diff or self.show_fixes or self.unsafe_given

    @property
    def machine_readable(self) -> bool:
        return self.output_format not in ("text", "concise") or bool(
            self.statistics or self.write_baseline_file or self.show_diff
        )


def _refuse_old_diff(paths: tuple[str, ...], show_diff: bool) -> None:
    """``--diff REV`` used to name a revision; now --diff prints fixes (as Ruff's does)
    and the revision option is --changed-since. An old command line would check a path
    named after the revision: say what changed instead."""
    if not show_diff:
        return
    for path in paths:
        if not os.path.exists(path) and path != "-":
            raise JobcheckError(
                f"{path}: no such file or directory (--diff now prints the fixes as a diff; "
                f"to report only on files changed since {path}, use --changed-since {path})"
            )


def _execute(request: _Request) -> int:
    """One check as the command line asks; the exit status."""
    from jobcheck.fingerprint import OVERRIDES

    scope, stdin_path = _scope_of(request)
    overrides: dict[str, bytes] = {}
    if request.stdin is not None and stdin_path is not None:
        overrides[stdin_path] = request.stdin
        OVERRIDES[stdin_path] = request.stdin
    run = _Run(
        request.options,
        request.cli_layer,
        request.jobs,
        request.prefilter,
        request.cache_dir,
        fixes=request.wants_fixes,
    )
    known = _load_baseline(Path(request.baseline_file)) if request.baseline_file else None
    show_progress = not request.machine_readable and not request.output and not request.quiet
    if request.fix or request.show_diff:
        return _fix(request, run, scope, overrides, known, show_progress)
    report = run.report(scope.targets, show_progress, overrides)
    report_timings()
    return _finish(request, _restricted(request, scope, report), scope, known)


def _restricted(request: _Request, scope: Scope, report: Report) -> Report:
    """The report on the files the scope reports on; its count of files checked is theirs
    (those the excludes keep, with ``--force-exclude``), not the project's read around
    them."""
    restricted = scope.restrict(report)
    if scope.reported is None:
        return restricted
    named = [str(path) for path in scope.reported if analysed_kind(str(path)) and path.is_file()]
    try:
        kept = discover_for(request.options, named) if named else []
    except DiscoveryError:
        return restricted
    return replace(restricted, files_checked=len(kept))


def _finish(
    request: _Request,
    report: Report,
    scope: Scope,
    known: baseline.Baseline | None,
    fixed: int = 0,
) -> int:
    """Print (or write) the report; the exit status."""
    _warn_unknown_codes(request, report)
    if not request.show_unused:
        report = replace(report, unused_suppressions=[])
    if request.write_baseline_file:
        _write_baseline(Path(request.write_baseline_file), report, scope.targets or (".",))
        return EXIT_CLEAN
    if known is not None:
        report = _apply_baseline(
            known, report, whole_run=scope.reported is None, quiet=request.quiet
        )
    if request.add_ignore:
        return _add_ignore(request, report)
    writer = _writer(request)
    if request.output:
        buffer = io.StringIO()
        writer(report, ScrubbedStream(buffer), False)  # type: ignore[arg-type]
        boundary = project_boundary(scope.targets or (".",))
        try:
            write_atomically(request.output, buffer.getvalue().encode("utf-8"), boundary)
        except WriteError as error:
            raise JobcheckError(str(error)) from None
    else:
        use_color = request.color if request.color is not None else _stdout_is_terminal()
        colored = use_color and request.output_format == "text"
        stream = sys.stderr if request.fix and request.stdin is not None else sys.stdout
        writer(report, ScrubbedStream(stream), colored)  # type: ignore[arg-type]
    if report.failed and not request.exit_zero:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _writer(request: _Request) -> Writer:
    if request.statistics:
        return _statistics_writer(request.output_format)
    write = FORMATS[request.output_format]
    settings: dict[str, object] = {
        "unsafe_fixes": request.unsafe_fixes,
        "show_fixes": request.show_fixes,
        "quiet": request.quiet,
        "fixes_computed": request.wants_fixes,
    }
    if request.output_format == "text":
        settings["width"] = _terminal_width()

    def with_settings(report: Report, stream: TextIO, color: bool) -> None:
        write(report, stream, color, **settings)  # type: ignore[call-arg]

    return with_settings


def _terminal_width() -> int:
    from jobcheck.output.text import DEFAULT_WIDTH

    if not sys.stdout.isatty():
        return DEFAULT_WIDTH
    return max(60, min(shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns, 160))


def _warn_unknown_codes(request: _Request, report: Report) -> None:
    """Codes in suppressions that name no rule are a mistake worth a line even when
    unused suppressions are not asked for (with the flag they are in the report)."""
    if request.show_unused or request.quiet:
        return
    from jobcheck.output.suppressions import describe

    for unused in report.unused_suppressions:
        if unused.unknown:
            shown = replace(unused, codes=())
            say(f"jobcheck: warning: {unused.path}:{unused.line}: {describe(shown)}")


def _fix(
    request: _Request,
    run: _Run,
    scope: Scope,
    overrides: dict[str, bytes],
    known: baseline.Baseline | None,
    show_progress: bool,
) -> int:
    from jobcheck import fixing

    fixable = _checks_named(request.fixable, "--fixable") if request.fixable else None
    unfixable = _checks_named(request.unfixable, "--unfixable")

    def wanted(finding: Finding) -> bool:
        if not scope.includes(finding.path):
            return False
        key = (finding.rule, finding.check)
        if (fixable is not None and key not in fixable) or key in unfixable:
            return False
        return known is None or bool(known.filter([finding]).new)

    def check(buffers: dict[str, bytes]) -> Report:
        return run.check(scope.targets, show_progress, buffers)

    outcome = fixing.fix_rounds(
        check,
        request.unsafe_fixes,
        wanted,
        rounds=1 if known is not None else fixing.MAX_ROUNDS,
        overrides=overrides,
    )
    report_timings()
    stdin_path = next(iter(overrides), None)
    if request.show_diff:
        return _print_diff(request, outcome, stdin_path)
    if request.stdin is not None:
        text = outcome.fixed.get(stdin_path or "") if stdin_path else None
        sys.stdout.write(text if text is not None else request.stdin.decode("utf-8", "replace"))
    else:
        fixing.write_files(outcome, project_boundary(scope.targets))
        for reason in outcome.unwritten:
            say(f"jobcheck: error: {reason}")
        if request.show_unused:
            outcome.report = _remove_unused_suppressions(request, scope, outcome.report)
    if not request.quiet:
        _say_fixed(request, outcome)
    restricted = _restricted(request, scope, outcome.report)
    status = _finish(request, restricted, scope, known, len(outcome.applied))
    if outcome.unwritten:
        return EXIT_ERROR
    if request.exit_non_zero_on_fix and outcome.applied and status == EXIT_CLEAN:
        return EXIT_FINDINGS  # the files changed: a pre-commit hook must stop the commit
    return status


def _remove_unused_suppressions(request: _Request, scope: Scope, report: Report) -> Report:
    """With --fix and unused suppressions shown (Ruff's RUF100 and its fix): take the
    unused codes out of their comments; the report keeps those it could not remove."""
    from jobcheck.fixes import read_text
    from jobcheck.suppress import kind_of, without_unused

    by_path: dict[str, list[UnusedSuppression]] = {}
    for item in report.unused_suppressions:
        if scope.includes(item.path) and not item.file_level:
            by_path.setdefault(item.path, []).append(item)
    boundary = project_boundary(scope.targets or (".",))
    removed: set[UnusedSuppression] = set()
    for path, items in sorted(by_path.items()):
        text = read_text(path)
        if text is None:
            continue
        new = without_unused(text, items, kind_of(path, text))
        if new == text:
            continue
        try:
            write_atomically(path, new.encode("utf-8"), boundary)
        except WriteError as error:
            say(f"jobcheck: error: {error}")
            continue
        removed.update(items)
    if removed and not request.quiet:
        say(f"jobcheck: removed {_plural(len(removed), 'unused suppression')}")
    left = [u for u in report.unused_suppressions if u not in removed]
    return replace(report, unused_suppressions=left)


def _checks_named(codes: tuple[str, ...], option: str) -> frozenset[tuple[str, str]]:
    """The (rule, check) pairs ``codes`` name; a code naming none is a usage error."""
    from jobcheck.catalog import load_catalog

    catalog = load_catalog()
    found: set[tuple[str, str]] = set()
    for code in codes:
        try:
            found |= catalog.resolve(code)
        except ValueError:
            close = catalog.close_matches(code)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise JobcheckError(f"{option}: '{code}' names no rule, alias or check{hint}") from None
    return frozenset(found)


def _print_diff(request: _Request, outcome: fixing.Outcome, stdin_path: str | None) -> int:
    from jobcheck.fixes.edits import unified_diff
    from jobcheck.output.encoding import source_lines

    stream = ScrubbedStream(sys.stdout)
    for path in outcome.changed:
        shown = request.stdin_name or "-" if path == stdin_path else path
        diff = unified_diff(shown.replace(os.sep, "/"), outcome.original[path], outcome.fixed[path])
        stream.write(source_lines(diff))
    if not request.quiet:
        count = len(outcome.applied)
        left = len(outcome.report.findings)
        say(
            f"jobcheck: would fix {_plural(count, 'finding')} in "
            f"{_plural(len(outcome.changed), 'file')} ({left} left)"
        )
    return EXIT_FINDINGS if outcome.changed else EXIT_CLEAN


def _say_fixed(request: _Request, outcome: fixing.Outcome) -> None:
    count = len(outcome.applied)
    if not count:
        return
    say(f"jobcheck: fixed {_plural(count, 'finding')} in {_plural(len(outcome.changed), 'file')}")
    if request.show_fixes:
        by_path: dict[str, list[Finding]] = {}
        for finding in outcome.applied:
            by_path.setdefault(finding.path, []).append(finding)
        for path in sorted(by_path):
            say(f"  {path}:")
            for finding in by_path[path]:
                title = finding.fix.title if finding.fix else ""
                say(
                    f"    {finding.loc.line}:{finding.loc.column} {finding.rule} "
                    f"{finding.check}: {title}"
                )


def _plural(count: int, noun: str) -> str:
    from jobcheck.output.summary import plural

    return plural(count, noun)


def _add_ignore(request: _Request, report: Report) -> int:
    from jobcheck.fixes import read_text
    from jobcheck.suppress import add_ignores

    added = add_ignores(report.findings, read_text)
    failed = False
    if request.stdin is not None:
        before_after = next(iter(added.texts.values()), None)
        text = before_after[1] if before_after else request.stdin.decode("utf-8", "replace")
        sys.stdout.write(text)
    else:
        boundary = project_boundary(request.targets or (".",))
        for path, (_, new) in list(added.texts.items()):
            try:
                write_atomically(path, new.encode("utf-8"), boundary)
            except WriteError as error:
                say(f"jobcheck: error: {error}")
                del added.texts[path]
                failed = True
    if not request.quiet:
        say(
            f"jobcheck: added a suppression for {_plural(added.count, 'finding')} in "
            f"{_plural(len(added.texts), 'file')}"
        )
        for finding in added.skipped:
            say(
                f"jobcheck: {finding.path}:{finding.loc.line}: no line of this finding can "
                f"carry a comment; suppress {finding.rule} {finding.check} by hand"
            )
    return EXIT_ERROR if failed else EXIT_CLEAN


def _scope_of(request: _Request) -> tuple[Scope, str | None]:
    """The scope of the run, and the path the engine gives text read from standard
    input (None without it)."""
    if request.stdin is None:
        return _scope(
            request.targets, request.options, request.no_project, request.changed_since
        ), None
    name = request.stdin_name
    if name and os.path.isfile(name) and not request.no_project:
        scope = _scope((name,), request.options, False, request.changed_since)
        return scope, _engine_path(scope, name, request.options)
    # Not on disk: the text is checked alone, as a file of its name in a folder of its own.
    folder = Path(tempfile.mkdtemp(prefix="jobcheck-stdin-"))
    atexit.register(shutil.rmtree, folder, True)
    relative = Path(name or "stdin.py")
    if relative.is_absolute() or ".." in relative.parts:
        relative = Path(relative.name)
    file = folder / relative
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_bytes(request.stdin)
    shown = (name or "-").replace(os.sep, "/")
    scope = Scope((str(file),), reported={file.resolve(): shown})
    return scope, str(file)


def _engine_path(scope: Scope, name: str, options: Options) -> str | None:
    """How the engine spells ``name`` when it walks the scope's targets."""

    wanted = Path(name).resolve()
    try:
        files = discover_for(options, scope.targets)
    except DiscoveryError as error:
        raise JobcheckError(str(error)) from None
    for file in files:
        if file.path.resolve() == wanted:
            return file.display
    return None


@dataclass(frozen=True)
class _Run:
    """What to check and how: produces the report of a set of paths, replayed from the
    results cache when nothing it reads has changed."""

    options: Options
    layer: Layer
    jobs: int
    prefilter: bool
    cache_dir: Path | None
    fixes: bool = False

    def report(
        self,
        targets: tuple[str, ...],
        show_progress: bool,
        overrides: dict[str, bytes] | None = None,
    ) -> Report:
        if not targets:
            return Report()
        stored = self._run_cache(targets) if not overrides else None
        if stored is not None:
            with phase("replay"):
                report = stored.replay(targets, self.options)
            if report is not None:
                return _warned(report)
        report = self.check(targets, show_progress, overrides)
        if stored is not None and not _interrupted(report):
            stored.store(report, {})
        return _warned(report)

    def _run_cache(self, targets: tuple[str, ...]) -> RunCache | None:
        if self.cache_dir is None:
            return None
        from jobcheck.run_cache import RunCache

        key = (repr(self.options), self.layer, targets, self.prefilter, self.fixes, os.getcwd())
        return RunCache.open(self.cache_dir, key)

    def check(
        self,
        targets: tuple[str, ...],
        show_progress: bool,
        overrides: dict[str, bytes] | None = None,
    ) -> Report:
        from jobcheck.engine import RunSettings, check_paths

        if not targets:
            return Report()
        selection = _selection(self.options, self.layer)
        settings = RunSettings(
            jobs=self.jobs,
            prefilter=self.prefilter,
            cache_dir=self.cache_dir,
            overrides=dict(overrides or {}),
            fixes=self.fixes,
        )
        with progress_bar(enabled=show_progress) as bar:
            settings.progress = bar
            try:
                return check_paths(targets, self.options, selection, settings)
            except DiscoveryError as error:
                raise JobcheckError(str(error)) from None


def _selection(options: Options, layer: Layer) -> Selection:
    """The enabled checks; every code in the configuration and on the command line must
    name a rule, an alias, a check or a prefix of ids (else a one-line error naming it)."""
    from jobcheck.catalog import UnknownRuleError, load_catalog
    from jobcheck.engine import Selection

    catalog = load_catalog()
    _check_config_codes(options, catalog)
    try:
        return Selection.for_options(catalog, options, layer)
    except UnknownRuleError as error:
        raise JobcheckError(str(error)) from None


def _scope(
    targets: tuple[str, ...], options: Options, no_project: bool, changed_since: str | None
) -> Scope:
    config_root = Path(options.root) if options.config_path else None
    scope = for_paths(targets, config_root, isolated=no_project)
    if changed_since is None:
        return scope
    try:
        changed = changed_files(changed_since, Path(targets[0]))
    except ScopeError as error:
        raise JobcheckError(str(error)) from None
    return scope.narrowed(changed)


def _show_settings(request: _Request) -> None:
    """The configuration in effect, as TOML keys, and the checks it enables."""
    import json

    from jobcheck.config import toml_items

    options = request.options
    selection = _selection(options, request.cli_layer)
    click.echo(f"config file: {options.config_path or '(none: the defaults)'}")
    click.echo(f"root: {options.root}")
    click.echo("[tool.jobcheck]")
    for key, value in toml_items(options):
        if value is None:
            click.echo(f"# {key}: not set")
            continue
        shown = list(value) if isinstance(value, tuple) else value
        click.echo(f"{key} = {json.dumps(shown, ensure_ascii=False)}")
    layer = request.cli_layer
    if layer.select is not None or layer.extend_select or layer.ignore:
        click.echo("[command line]")
        click.echo(f"select = {json.dumps(list(layer.select or ()))}")
        click.echo(f"extend-select = {json.dumps(list(layer.extend_select))}")
        click.echo(f"ignore = {json.dumps(list(layer.ignore))}")
    click.echo(f"# enabled checks ({len(selection.enabled)}):")
    for rule, slug in sorted(selection.enabled):
        click.echo(f"#   {rule} {slug}")


def _show_files(request: _Request) -> None:

    options = request.options
    scope = _scope(request.targets, options, request.no_project, request.changed_since)
    try:
        files = discover_for(options, scope.targets)
    except DiscoveryError as error:
        raise JobcheckError(str(error)) from None
    for file in files:
        if scope.includes(file.display):
            click.echo(file.display)


def _signature(request: _Request) -> object:
    """What --watch compares between polls: every file's path and stat, and the
    configuration's."""

    options = request.options
    try:
        files = discover_for(options, request.targets)
    except DiscoveryError:
        return None
    seen = []
    for path in [f.fspath for f in files] + ([options.config_path] if options.config_path else []):
        try:
            stat = os.stat(path)
        except OSError:
            seen.append((path, None))
        else:
            seen.append((path, stat.st_mtime_ns, stat.st_size))
    return tuple(seen)


def _statistics_writer(output_format: str) -> Writer:
    from jobcheck.output import statistics as statistics_module

    def write(report: Report, stream: TextIO, color: bool) -> None:
        statistics_module.write(report, stream, as_json=output_format == "json")

    return write


def _write_baseline(path: Path, report: Report, targets: tuple[str, ...]) -> None:
    from jobcheck import baseline

    try:
        count = baseline.write(path, report.findings, boundary=project_boundary(targets))
    except baseline.BaselineError as error:
        raise JobcheckError(str(error)) from None
    say(f"jobcheck: recorded {_plural(count, 'finding')} in the baseline {path}")
    if report.errors:
        say(
            f"jobcheck: {_plural(len(report.errors), 'file')} could not be checked; their "
            "findings are not in the baseline"
        )


def _load_baseline(path: Path) -> baseline.Baseline:
    from jobcheck import baseline

    try:
        return baseline.load(path)
    except baseline.BaselineError as error:
        raise JobcheckError(str(error)) from None


def _apply_baseline(
    known: baseline.Baseline, report: Report, whole_run: bool, quiet: bool = False
) -> Report:
    outcome = known.filter(report.findings)
    if outcome.known and not quiet:
        say(f"jobcheck: {outcome.known} findings in the baseline not shown")
    if outcome.stale and whole_run and not quiet:  # a narrowed run cannot tell what was fixed
        say(
            f"jobcheck: {outcome.stale} baseline entries match no finding any more "
            "(fixed?); refresh the baseline with --write-baseline"
        )
    return replace(report, findings=outcome.new)


def _warned(report: Report) -> Report:
    """Say the report's warnings (a configured name that names nothing), also when the
    report is a replay of a cached run."""
    from jobcheck.notices import warn_once

    for text in report.warnings:
        warn_once(text)
    return report


def _interrupted(report: Report) -> bool:
    """A report with a file stopped at the time budget or lost with its worker: what
    the next run finds may differ (a quieter machine), so it is not replayed."""
    from jobcheck.scan import CRASHED, OVER_BUDGET_WORDS

    return any(e.message == CRASHED or OVER_BUDGET_WORDS in e.message for e in report.errors)


def _cache_dir(given: str | None, options: Options, targets: tuple[str, ...]) -> Path:
    from jobcheck.cache import default_directory

    if given:
        return Path(given)
    return default_directory(options.root if options.config_path else None, list(targets))


def _with_excludes(options: Options, exclude: tuple[str, ...]) -> Options:
    """``--exclude`` given on the command line (comma-separated or repeated), on top of
    the configuration's."""
    globs = _split(exclude)
    return replace(options, exclude=(*options.exclude, *globs)) if globs else options


def _with_per_file_ignores(
    options: Options, replacing: tuple[str, ...], extending: tuple[str, ...]
) -> Options:
    """``--per-file-ignores GLOB:CODES`` (replacing the configuration's table) and
    ``--extend-per-file-ignores GLOB:CODES`` (added to it), as Ruff takes them."""
    if not replacing and not extending:
        return options
    table = {} if replacing else dict(options.per_file_ignores)
    for flag, values in (
        ("--per-file-ignores", replacing),
        ("--extend-per-file-ignores", extending),
    ):
        for value in values:
            pattern, codes = _pattern_codes(flag, value)
            table[pattern] = (*table.get(pattern, ()), *codes)
    return replace(options, per_file_ignores=table)


def _pattern_codes(flag: str, value: str) -> tuple[str, tuple[str, ...]]:
    from jobcheck.catalog import UnknownRuleError, load_catalog

    pattern, colon, listed = value.rpartition(":")
    codes = _split((listed,))
    if not colon or not pattern or not codes:
        raise JobcheckError(
            f"{flag}: expected GLOB:CODES (such as 'scripts/*:SCL-21'), got {value!r}"
        )
    catalog = load_catalog()
    for code in codes:
        try:
            catalog.resolve(code)
        except UnknownRuleError as error:
            raise JobcheckError(f"{flag}: {error}") from None
    return pattern, codes


def _options(config_file: str | None, targets: tuple[str, ...]) -> Options:
    try:
        if config_file:
            return load(Path(config_file))
        found = find_config(Path(targets[0]) if targets else Path("."))
        return load(found) if found else Options()
    except ConfigError as error:
        raise JobcheckError(str(error)) from None


def _check_config_codes(options: Options, catalog: Catalog) -> None:
    """Rule ids, aliases and slugs in the config file must exist: name the key if not."""
    from jobcheck.catalog import UnknownRuleError

    source = options.config_path or "config"
    keyed: list[tuple[str, str]] = [("select", code) for code in options.select]
    keyed += [("extend-select", code) for code in options.extend_select]
    keyed += [("ignore", code) for code in options.ignore]
    keyed += [("extend-ignore", code) for code in options.extend_ignore]
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
    """List every rule and check, implemented or planned, and which have a fix."""
    from jobcheck.catalog import load_catalog
    from jobcheck.checks import implemented_checks
    from jobcheck.fixes import has_fixer

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
                        "fix": has_fixer(rule.id, c.slug),
                    }
                    for c in rule.checks
                ],
            }
            for rule in catalog
        ]
        click.echo(json.dumps(data, indent=2))
        return
    rows = []
    for rule in catalog:
        for index, c in enumerate(rule.checks):
            rows.append(
                (
                    rule.id if index == 0 else "",
                    (rule.alias or "-") if index == 0 else "",
                    rule.level if index == 0 else "",
                    c.slug,
                    "implemented" if (rule.id, c.slug) in implemented else "planned",
                    "fix" if has_fixer(rule.id, c.slug) else "",
                    rule.title if index == 0 else "",
                )
            )
    if _stdout_is_terminal():
        _rules_table(rows)
        return
    # Piped or redirected: plain columns, never cut (rich would fit them to 80 columns).
    header = ("Rule", "Alias", "Level", "Check", "State", "Fix", "Title")
    widths = [max(len(r[i]) for r in (header, *rows)) for i in range(len(header) - 1)]
    for row in (header, *rows):
        cells = [cell.ljust(width) for cell, width in zip(row, widths)]
        click.echo(("  ".join(cells) + "  " + row[-1]).rstrip())


def _rules_table(rows: list[tuple[str, ...]]) -> None:
    """On a terminal: a rich table that folds the titles and check names to the width,
    never the ids (at 80 columns rich used to cut them to "SCL…")."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title="jobcheck rules", show_lines=False)
    table.add_column("Rule", no_wrap=True, min_width=6)
    table.add_column("Alias", no_wrap=True, min_width=6)
    table.add_column("Check", overflow="fold", min_width=34)
    table.add_column("Fix", no_wrap=True, min_width=3)
    table.add_column("Title", overflow="fold", ratio=1)
    for rule_id, alias, level, slug, state, fix, title in rows:
        check = slug if state == "implemented" else f"[dim]{slug} (planned)[/]"
        shown = f"{title} [bold](REQUIRED)[/]" if title and level == "required" else title
        table.add_row(rule_id, alias, check, fix, shown)
    Console(soft_wrap=False).print(table)


@cli.command("explain")
@click.argument("ident", required=False)
@click.option("--all", "show_all", is_flag=True, help="Show the documentation of every rule.")
def explain_command(ident: str | None, show_all: bool) -> None:
    """Show the documentation of a rule (by id, alias, check slug or id prefix).

    On a terminal the Markdown is rendered, links written out; piped, it is printed as
    it is, so nothing (the playbook links in particular) is lost.
    """
    from jobcheck.catalog import UnknownRuleError, data_dir, load_catalog

    catalog = load_catalog()
    if show_all == bool(ident):
        raise JobcheckError("give a rule (explain SCL-18) or --all, not both nor neither")
    if show_all:
        rules = list(catalog)
    else:
        try:
            pairs = catalog.resolve(str(ident))
        except UnknownRuleError as error:
            raise JobcheckError(str(error)) from None
        chosen = {rule_id for rule_id, _ in pairs}
        rules = [rule for rule in catalog if rule.id in chosen]
    pages = []
    for rule in rules:
        page = data_dir("docs") / f"{rule.id}.md"
        if page.is_file():
            pages.append(page.read_text(encoding="utf-8"))
        else:
            checks = "\n".join(f"- `{c.slug}`: {c.summary}" for c in rule.checks)
            pages.append(f"# {rule.id} {rule.title}\n\n{rule.summary}\n\n{checks}\n\n{rule.url}\n")
    text = "\n\n".join(page.rstrip("\n") + "\n" for page in pages)
    if not _stdout_is_terminal():
        click.echo(text, nl=False)
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(text, hyperlinks=False))


@cli.command("version")
def version_command() -> None:
    """Print jobcheck's version (as --version does)."""
    click.echo(f"jobcheck {__version__}")


@cli.command("clean")
@click.argument("paths", nargs=-1, type=click.Path())
def clean_command(paths: tuple[str, ...]) -> None:
    """Remove jobcheck's caches (.jobcheck_cache folders) under PATHS (default: the
    current folder), as Ruff's clean does. Only folders jobcheck made (its CACHEDIR.TAG)
    are removed; links are never followed."""
    from jobcheck.cache import remove_caches

    for removed in remove_caches([Path(p) for p in paths or (".",)]):
        click.echo(f"Removed {removed}")


@cli.command("lsp")
@click.option(
    "--stdio",
    is_flag=True,
    help="Talk over stdin and stdout (the only transport; accepted because editor clients "
    "such as vscode-languageclient and coc.nvim append it).",
)
def lsp_command(stdio: bool) -> None:
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


def _review_options(command: Callable[..., None]) -> Callable[..., None]:
    """The options ``jobs`` and ``review`` share with ``check``: where to write, what to
    skip, which configuration, whether to use the facts cache."""
    for option in reversed(
        (
            click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to FILE."),
            CONFIG_OPTION,
            EXCLUDE_OPTION,
            click.option("--no-cache", is_flag=True, help="Read every file again."),
        )
    ):
        command = option(command)
    return command


def _emit(text: str, output: str | None, targets: tuple[str, ...]) -> None:
    """``text`` on standard output, or written to ``output`` (inside the project only, as
    ``check -o`` writes)."""
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        write_atomically(output, text.encode("utf-8"), project_boundary(targets))
    except WriteError as error:
        raise JobcheckError(str(error)) from None


JOBS_SCHEMA_VERSION = 1
"""The version of ``jobs --format json``: ``{"version": 1, "jobs": [...]}``, each job's
contract with the fields of ``review.Contract`` (docs/review.md)."""


@cli.command("jobs")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text")
@_review_options
def jobs_command(
    paths: tuple[str, ...],
    output_format: str,
    config_file: str | None,
    output: str | None,
    exclude: tuple[str, ...],
    no_cache: bool,
) -> None:
    """Review every job in PATHS with its effective contract: queue, time limit,
    retries, backoff, dead letter, schedule and lock."""
    from rich.console import Console

    from jobcheck.engine import RunSettings
    from jobcheck.review import cards, contracts

    targets = paths or (".",)
    options = _with_excludes(_options(config_file, targets), exclude)
    cache = None if no_cache else _cache_dir(None, options, targets)
    project = _project_of(targets, options, RunSettings(cache_dir=cache))
    found = contracts(project, options)
    if output_format == "json":
        import json

        document = {"version": JOBS_SCHEMA_VERSION, "jobs": [c.as_dict() for c in found]}
        _emit(json.dumps(document, indent=2) + "\n", output, targets)
        return
    buffer = io.StringIO()
    console = Console(file=buffer if output else None, soft_wrap=True, highlight=False)
    for card in cards(found):
        console.print(card)
    console.print(f"{len(found)} jobs.", style="bold")
    if output:
        _emit(buffer.getvalue(), output, targets)


@cli.command("review")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--format",
    "--output-format",
    "output_format",
    type=click.Choice(["text", "markdown", "json", "html"]),
    default="text",
    help="text: cards and lists; markdown: a pull-request comment; json: versioned; html: "
    "one self-contained page with sortable tables and pictures (docs/review.md).",
)
@click.option(
    "--changed-since",
    "--diff",
    "changed_since",
    metavar="REV",
    help="Also say what changed for jobs since git revision REV that breaks jobs already "
    "in the queues during a rolling deploy; exit 1 when something does.",
)
@_review_options
def review_command(
    paths: tuple[str, ...],
    output_format: str,
    changed_since: str | None,
    config_file: str | None,
    output: str | None,
    exclude: tuple[str, ...],
    no_cache: bool,
) -> None:
    """The whole picture of PATHS: every job with its contract and score, the queues,
    the schedule with a heat map of start minutes (docs/review.md). With
    --changed-since REV (or --diff REV: here a revision, not check's fix preview), the
    changes since REV that break queued jobs in a rolling deploy come first."""
    from jobcheck.catalog import load_catalog
    from jobcheck.engine import RunSettings, Selection, run_checks
    from jobcheck.output import review as render
    from jobcheck.review_report import review

    targets = paths or (".",)
    options = _with_excludes(_options(config_file, targets), exclude)
    # Facts cached as check caches them (the tree at REV is read without a cache).
    settings = RunSettings(cache_dir=None if no_cache else _cache_dir(None, options, targets))
    # A progress bar on long runs in a terminal (text output only: never in a file or CI).
    with progress_bar(enabled=output_format == "text" and output is None) as bar:
        settings.progress = bar
        project = _project_of(targets, options, settings)
    selection = Selection.resolve(load_catalog(), options.select, options.ignore)
    found = review(project, options, run_checks(project, options, selection))
    changes = None
    if changed_since is not None:
        changes = _changes_since(changed_since, targets, options, project)
    if output_format == "json":
        _emit(render.json_document(found, changes, changed_since) + "\n", output, targets)
    elif output_format == "html":
        from jobcheck.output.review_html import html

        _emit(html(found, changes, changed_since or ""), output, targets)
    elif output_format == "markdown":
        before = (
            render.changes_markdown(changed_since or "", changes) if changes is not None else ""
        )
        _emit(before + render.markdown(found), output, targets)
    elif output is not None:
        buffer = io.StringIO()
        render.write_text(found, changes, changed_since or "", buffer)
        _emit(buffer.getvalue(), output, targets)
    else:
        render.write_text(found, changes, changed_since or "")
    if changes and any(c.breaking for c in changes):
        sys.exit(1)


def _changes_since(
    revision: str, targets: tuple[str, ...], options: Options, project: Project
) -> list[Change]:
    """The tree at ``revision`` read like the current one, and what changed for jobs."""
    import tempfile

    from jobcheck.engine import RunSettings
    from jobcheck.review_diff import changes
    from jobcheck.scope import ScopeError, tree_at

    if len(targets) != 1:
        raise JobcheckError("--changed-since reviews one folder: give a single path")
    with tempfile.TemporaryDirectory(prefix="jobcheck-rev-") as folder:
        try:
            old_root = tree_at(revision, Path(targets[0]), Path(folder))
        except ScopeError as error:
            raise JobcheckError(str(error)) from None
        old = _project_of((str(old_root),), options, RunSettings(cache_dir=None))
        return changes(old, project, str(old_root), targets[0].rstrip("/"))


def _project_of(targets: tuple[str, ...], options: Options, settings: RunSettings) -> Project:
    """The project model of ``targets``, for the commands that review rather than check:
    gathered as ``check`` gathers it (the files the enabled checks reach read, then
    nothing more), so what they print is what the checks judge."""
    from jobcheck.catalog import load_catalog
    from jobcheck.engine import Selection, collect_facts, read_all_reached
    from jobcheck.project import Project

    try:
        _, analysis = collect_facts(targets, options, settings)
    except DiscoveryError as error:
        raise JobcheckError(str(error)) from None
    project = Project(
        analysis.facts,
        settings_modules=options.django_settings,
        celery_app=options.celery_app,
        loader=analysis.loader,
    )
    read_all_reached(project, Selection.for_options(load_catalog(), options))
    return project


def _usage_line(error: click.UsageError) -> str:
    """A usage error in one line, with where to read more (click prints four)."""
    message = " ".join(error.format_message().split())
    if "'--diff' does not take a value" in message:
        message += (
            " (--diff now prints the fixes as a diff; to report only on files changed "
            "since a git revision, use --changed-since REV)"
        )
    command = error.ctx.command_path if error.ctx is not None else "jobcheck"
    return f"{message} (see '{command} --help')"


def entry() -> None:
    """The ``jobcheck`` command: :func:`main`, then an exit that does not free what the
    run built, one object at a time (mypy's ``hard_exit`` does the same): a large
    project's facts and syntax trees take a tenth of a second of CPU to free, for a
    process about to end. Output is flushed and exit handlers run first."""
    from jobcheck import process_exit

    process_exit.HARD_EXIT = True
    code: int = 0
    try:
        main()
    except SystemExit as done:
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
        if done.code is not None and not isinstance(done.code, int):
            say(str(done.code))
    if sys.getprofile() is not None or sys.gettrace() is not None:
        sys.exit(code)  # a profiler, a debugger or coverage: they write on the way out
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def main() -> None:
    try:
        cli.main(standalone_mode=False, prog_name="jobcheck")
    except click.exceptions.Exit as done:
        sys.exit(done.exit_code)
    except click.ClickException as error:
        if isinstance(error, click.UsageError) and not isinstance(error, JobcheckError):
            say(f"jobcheck: error: {_usage_line(error)}")
        else:
            error.show()
        sys.exit(error.exit_code if isinstance(error, JobcheckError) else EXIT_ERROR)
    except click.exceptions.Abort:
        say("jobcheck: aborted")
        sys.exit(EXIT_ERROR)
    except KeyboardInterrupt:
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(EXIT_ERROR)
    except Exception as error:  # never a traceback for the user
        if os.environ.get("JOBCHECK_DEBUG"):
            raise
        say(
            f"jobcheck: internal error: {type(error).__name__}: {error} "
            "(set JOBCHECK_DEBUG=1 for a traceback, and please report it)"
        )
        sys.exit(EXIT_ERROR)
