"""The pipeline: discover files, extract facts per file (in parallel, cached), build
the project model, run the enabled checks, apply suppressions and ignores."""

from __future__ import annotations

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
from jobcheck.extract import extract_file
from jobcheck.extract.prefilter import decorated_with, may_matter, sends_to
from jobcheck.facts import FileFacts
from jobcheck.findings import FileError, Finding, Report, UnusedSuppression
from jobcheck.project import Project
from jobcheck.project import inference

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
    def resolve(
        cls, catalog: Catalog, select: Iterable[str], ignore: Iterable[str]
    ) -> Selection:
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
    files = discover(
        paths,
        exclude=(*options.exclude, *options.extend_exclude),
        respect_gitignore=options.respect_gitignore,
    )
    inputs = [_read(source, settings.overrides) for source in files]
    facts, errors = analyse(inputs, settings)
    report = Report(errors=errors, files_checked=len(files), files_analysed=len(facts))
    overrides = {p: d.decode("utf-8", "replace") for p, d in settings.overrides.items()}
    project = Project(facts, source_of=lambda p: overrides.get(p) or _read_text(p))
    try:
        findings = run_checks(project, options, selection)
    finally:
        inference.clear()
    report.findings, report.unused_suppressions = apply_suppressions(
        findings, {f.path: f for f in facts}, load_catalog(), options
    )
    return report


def analyse(inputs: list[_Input], settings: RunSettings) -> tuple[list[FileFacts], list[FileError]]:
    """Facts for every file that can matter, in two passes: files the prefilter keeps,
    then files the first pass shows are needed (Dramatiq actors sent from a module that
    never names Dramatiq, RQ jobs defined in plain modules)."""
    errors: list[FileError] = []
    first: list[_Input] = []
    rest: list[_Input] = []
    for item in inputs:
        if item.read_error is not None:
            errors.append(FileError(item.source.display, item.read_error))
        elif item.source.explicit and not item.data.strip():  # type: ignore[union-attr]
            errors.append(FileError(item.source.display, "file is empty"))
        elif item.source.explicit or not settings.prefilter or may_matter(item.data):  # type: ignore[arg-type]
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
    wanted_modules = {
        (site.target or "").rpartition(".")[0]
        for f in facts
        for site in f.enqueues
        if site.framework_hint == "rq" and site.target
    }
    decorators = decorated_with({q for f in facts for q in f.job_decorators})
    chosen = []
    for item in rest:
        if item.module in wanted_modules or (
            pattern is not None and pattern.search(item.data)  # type: ignore[arg-type]
        ):
            chosen.append(item)
        elif any(d.match(item.data) for d in decorators):  # type: ignore[arg-type]
            chosen.append(item)
    return chosen


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


def run_checks(project: Project, options: Options, selection: Selection) -> list[Finding]:
    findings: list[Finding] = []
    for rule_class in RULE_CLASSES:
        slugs = selection.slugs_of(rule_class.rule)
        if not slugs:
            continue
        findings.extend(rule_class(project, options).run(slugs))
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
        pattern: _resolve_codes(catalog, codes) for pattern, codes in options.per_file_ignores.items()
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
        severity = options.severity.get(finding.rule) or options.severity.get(finding.check)
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


def _suppressing_line(
    finding: Finding, facts: FileFacts | None, catalog: Catalog
) -> int | None:
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
    try:
        candidates.add(Path(os.path.relpath(Path(path).resolve(), Path(root).resolve())).as_posix())
    except ValueError:
        pass
    for pattern, codes in per_file.items():
        if key in codes and any(fnmatch.fnmatch(c, pattern) for c in candidates):
            return True
    return False


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
