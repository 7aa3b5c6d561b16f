"""The pipeline: discover files, extract facts per file (in parallel, cached), build
the project model, run the enabled checks, apply suppressions and ignores."""

from __future__ import annotations

import contextlib
import fnmatch
import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

from jobcheck.catalog import Catalog, load_catalog
from jobcheck.checks import RULE_CLASSES
from jobcheck.config import Options
from jobcheck.discovery import SourceFile, discover, module_name
from jobcheck.discovery.docs import find_docs
from jobcheck.extract import extract_file
from jobcheck.extract.docs import doc_facts
from jobcheck.extract.prefilter import decorated_with, may_matter, sends_to
from jobcheck.facts import DocFile, FileFacts
from jobcheck.findings import FileError, Finding, Report, UnusedSuppression
from jobcheck.project import Project, inference

# Below this many files to parse, a process pool costs more than it saves.
MIN_FILES_FOR_POOL = 24


@dataclass
class RunSettings:
    """How to run, as opposed to what to check (that is :class:`Options`)."""

    jobs: int = 0
    """Worker processes; 0 means one per core, 1 means in this process."""
    prefilter: bool = True
    cache_dir: Path | None = None
    overrides: dict[str, bytes] = field(default_factory=dict)
    """Unsaved editor buffers: path -> content, used instead of the file on disk."""
    progress: Callable[[int, int], None] | None = None


@dataclass(frozen=True)
class Selection:
    """The enabled (rule, check) pairs, resolved from select/ignore."""

    enabled: frozenset[tuple[str, str]]

    @classmethod
    def resolve(cls, catalog: Catalog, select: Iterable[str], ignore: Iterable[str]) -> Selection:
        chosen: set[tuple[str, str]] = set()
        for selector in select:
            chosen |= catalog.resolve(selector)
        for selector in ignore:
            chosen -= catalog.resolve(selector)
        return cls(frozenset(chosen))

    def slugs_of(self, rule: str) -> set[str]:
        return {slug for rule_id, slug in self.enabled if rule_id == rule}


@dataclass
class _Input:
    source: SourceFile
    data: bytes | None
    module: str
    is_package: bool
    read_error: str | None = None


def check_paths(
    paths: Sequence[str],
    options: Options,
    selection: Selection,
    settings: RunSettings | None = None,
) -> Report:
    """Run jobcheck over ``paths``; raises DiscoveryError for paths that do not exist."""
    settings = settings or RunSettings()
    files, facts, errors = collect_facts(paths, options, settings)
    report = Report(errors=errors, files_checked=len(files), files_analysed=len(facts))
    overrides = {p: d.decode("utf-8", "replace") for p, d in settings.overrides.items()}
    report.findings, report.unused_suppressions = check_facts(
        facts,
        options,
        selection,
        source_of=lambda p: overrides.get(p) or _read_text(p),
        docs=read_docs(paths, options) if selection.slugs_of("EVT-24") else None,
    )
    return report


def analyse(
    inputs: list[_Input], settings: RunSettings, always: frozenset[str] = frozenset()
) -> tuple[list[FileFacts], list[FileError]]:
    """Facts for every file that can matter, in two passes: files the prefilter keeps,
    then files the first pass shows are needed (Dramatiq actors sent from a module that
    never names Dramatiq, RQ jobs defined in plain modules). Modules in ``always`` (the
    configured ``django-settings``) are analysed whatever the prefilter says."""
    errors: list[FileError] = []
    first: list[_Input] = []
    rest: list[_Input] = []
    for item in inputs:
        if item.read_error is not None:
            errors.append(FileError(item.source.display, item.read_error))
        elif item.source.explicit and not item.data.strip():  # type: ignore[union-attr]
            errors.append(FileError(item.source.display, "file is empty"))
        elif (
            item.source.explicit
            or not settings.prefilter
            or may_matter(item.data)  # type: ignore[arg-type]
            or item.module in always
        ):
            first.append(item)
        else:
            rest.append(item)
    facts = _extract_all(first, settings)
    second = _second_pass(facts, rest)
    if second:
        facts.extend(_extract_all(second, settings))
    for f in facts:
        if f.error is not None:
            errors.append(FileError(f.path, f.error))
    facts.sort(key=lambda f: f.path)
    errors.sort(key=lambda e: e.path)
    return facts, errors


def _second_pass(facts: list[FileFacts], rest: list[_Input]) -> list[_Input]:
    if not rest:
        return []
    actors = {t.name for f in facts for t in f.tasks if t.framework == "dramatiq"}
    pattern = sends_to(actors)
    decorators = decorated_with(_custom_job_decorators(facts))
    wanted_modules = {
        (site.target or "").rpartition(".")[0]
        for f in facts
        for site in f.enqueues
        if site.framework_hint == "rq" and site.target
    }
    # Schedules may name plain functions (RQ jobs) in modules that mention no job system.
    wanted_modules |= {
        (entry.target or entry.task_name or "").rpartition(".")[0]
        for f in facts
        for entry in f.schedules
    }
    chosen = []
    for item in rest:
        if (
            item.module in wanted_modules
            or (pattern is not None and pattern.search(item.data))  # type: ignore[arg-type]
            or (decorators is not None and decorators.search(item.data))  # type: ignore[arg-type]
        ):
            chosen.append(item)
    return chosen


def _custom_job_decorators(facts: list[FileFacts]) -> set[str]:
    """Local names of the project's own wrappers of job decorators."""
    project = Project(facts)
    names = set()
    for f in facts:
        for qualname in (*f.aliases, *f.classes):
            if project.resolve_callable(qualname) is not None:
                names.add(qualname.rsplit(".", 1)[-1])
    return names


def _extract_all(items: list[_Input], settings: RunSettings) -> list[FileFacts]:
    jobs = settings.jobs or os.cpu_count() or 1
    arguments = [(i.source.display, i.data, i.module, i.is_package) for i in items]
    if jobs <= 1 or len(items) < MIN_FILES_FOR_POOL:
        return [extract_file(*a) for a in arguments]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        chunk = max(1, len(arguments) // (jobs * 8))
        return list(pool.map(_extract_star, arguments, chunksize=chunk))


def _extract_star(arguments: tuple) -> FileFacts:
    return extract_file(*arguments)


CheckErrorHandler = Callable[[str, str, Exception], None]


def run_checks(
    project: Project,
    options: Options,
    selection: Selection,
    on_error: CheckErrorHandler | None = None,
) -> list[Finding]:
    """Findings of every enabled check. With ``on_error`` (the language server), a check
    that raises is reported to it as (rule, slug, error) and skipped; without it the
    error propagates."""
    findings: list[Finding] = []
    for rule_class in RULE_CLASSES:
        slugs = selection.slugs_of(rule_class.rule)
        if not slugs:
            continue
        if on_error is None:
            findings.extend(rule_class(project, options).run(slugs))
            continue
        rule = rule_class(project, options)
        for slug in sorted(slugs & rule_class.implemented().keys()):
            try:
                findings.extend(list(rule.run({slug})))
            except Exception as error:
                on_error(rule_class.rule, slug, error)
    return findings


def apply_suppressions(
    findings: list[Finding],
    facts_by_path: dict[str, FileFacts],
    catalog: Catalog,
    options: Options,
) -> tuple[list[Finding], list[UnusedSuppression]]:
    """Drop findings silenced by per-file ignores or ``# jobcheck: ignore`` comments;
    fill in each finding's severity, alias and link from the catalog."""
    used: set[tuple[str, int]] = set()
    kept: list[Finding] = []
    seen: set[tuple] = set()
    per_file = {
        pattern: _resolve_codes(catalog, codes)
        for pattern, codes in options.per_file_ignores.items()
    }
    for finding in findings:
        key = (finding.rule, finding.check)
        if _per_file_ignored(finding.path, key, per_file, options.root):
            continue
        suppressions = facts_by_path.get(finding.path)
        line = _suppressing_line(finding, suppressions, catalog)
        if line is not None:
            used.add((finding.path, line))
            continue
        rule = catalog.rule(finding.rule)
        # The most specific entry wins: the check's slug, then the rule's id or alias.
        severity = options.severity.get(finding.check) or options.severity.get(finding.rule)
        if severity is None and rule.alias:
            severity = options.severity.get(rule.alias)
        enriched = replace(
            finding,
            severity=severity or rule.check(finding.check).severity,
            alias=rule.alias,
            url=rule.url,
        )
        identity = (enriched.path, enriched.loc, enriched.rule, enriched.check, enriched.message)
        if identity not in seen:
            seen.add(identity)
            kept.append(enriched)
    kept.sort(key=lambda f: f.sort_key)
    unused = [
        UnusedSuppression(path, line, tuple(sorted(codes or ())))
        for path, f in facts_by_path.items()
        for line, codes in f.suppressions.items()
        if (path, line) not in used
    ]
    unused.sort(key=lambda u: (u.path, u.line))
    return kept, unused


def _suppressing_line(finding: Finding, facts: FileFacts | None, catalog: Catalog) -> int | None:
    if facts is None or not facts.suppressions:
        return None
    for line in {finding.loc.line, finding.loc.end_line}:
        if line not in facts.suppressions:
            continue
        codes = facts.suppressions[line]
        if codes is None:
            return line
        for code in codes:
            try:
                if (finding.rule, finding.check) in catalog.resolve(code):
                    return line
            except ValueError:
                continue
    return None


def _resolve_codes(catalog: Catalog, codes: Iterable[str]) -> frozenset[tuple[str, str]]:
    resolved: set[tuple[str, str]] = set()
    for code in codes:
        resolved |= catalog.resolve(code)
    return frozenset(resolved)


def _per_file_ignored(
    path: str,
    key: tuple[str, str],
    per_file: dict[str, frozenset[tuple[str, str]]],
    root: str,
) -> bool:
    if not per_file:
        return False
    candidates = {path}
    with contextlib.suppress(ValueError):  # a path on another drive than the root
        candidates.add(Path(os.path.relpath(Path(path).resolve(), Path(root).resolve())).as_posix())
    for pattern, codes in per_file.items():
        if key in codes and any(fnmatch.fnmatch(c, pattern) for c in candidates):
            return True
    return False


def read_docs(paths: Sequence[str], options: Options) -> list[DocFile] | None:
    """Facts of the Markdown/reST files under the runbook folders of each folder checked
    (and of the config file's folder); None when only single files are checked, as the
    project's docs are then out of sight."""
    roots = [Path(p) for p in paths if Path(p).is_dir()]
    if options.config_path:
        roots.append(Path(options.root))
    if not roots:
        return None
    docs = []
    exclude = (*options.exclude, *options.extend_exclude)
    for source in find_docs(roots, options.runbook_dirs, exclude, options.respect_gitignore):
        with contextlib.suppress(OSError):
            docs.append(doc_facts(source.display, source.path.read_bytes()))
    return docs


def _read(source: SourceFile, overrides: dict[str, bytes]) -> _Input:
    module, is_package = module_name(source.path)
    if source.display in overrides:
        return _Input(source, overrides[source.display], module, is_package)
    try:
        data = source.path.read_bytes()
    except OSError as error:
        return _Input(source, None, module, is_package, f"cannot read: {error.strerror or error}")
    return _Input(source, data, module, is_package)


def _read_text(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def collect_facts(
    paths: Sequence[str], options: Options, settings: RunSettings
) -> tuple[list[SourceFile], list[FileFacts], list[FileError]]:
    """Discover the files under ``paths`` and extract the facts of those that matter;
    raises DiscoveryError for paths that do not exist."""
    files = discover(
        paths,
        exclude=(*options.exclude, *options.extend_exclude),
        respect_gitignore=options.respect_gitignore,
    )
    inputs = [_read(source, settings.overrides) for source in files]
    facts, errors = analyse(inputs, settings, frozenset(options.django_settings))
    return files, facts, errors


def check_facts(
    facts: Sequence[FileFacts],
    options: Options,
    selection: Selection,
    source_of: Callable[[str], str | None] | None = None,
    on_error: CheckErrorHandler | None = None,
    clear_inference: bool = True,
    inference_memo: dict | None = None,
    docs: Sequence[DocFile] | None = None,
) -> tuple[list[Finding], list[UnusedSuppression]]:
    """Build the project model from every file's facts, run the enabled checks and
    apply suppressions: the part of a run the CLI and the language server share (the
    server keeps astroid's cache, forgets only its project's modules and remembers
    inference answers across runs in ``inference_memo``)."""
    project = Project(
        facts,
        source_of=source_of,
        docs=docs,
        settings_modules=options.django_settings,
        celery_app=options.celery_app,
    )
    if inference_memo is not None:
        project.inference_memo = inference_memo  # type: ignore[attr-defined]
    try:
        findings = run_checks(project, options, selection, on_error)
    finally:
        if clear_inference:
            inference.clear()
    return apply_suppressions(findings, {f.path: f for f in facts}, load_catalog(), options)
