"""The pipeline: discover files, extract facts per file (in parallel, cached), build
the project model, run the enabled checks, apply suppressions and ignores."""

from __future__ import annotations

import contextlib
import fnmatch
import gc
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from jobcheck import process_exit
from jobcheck.analysis import Analysis, Gatherer, wanted_by
from jobcheck.cache import FactsCache
from jobcheck.catalog import Catalog, load_catalog
from jobcheck.checks import RULE_CLASSES
from jobcheck.config import Layer, Options
from jobcheck.discovery import SourceFile, clear_caches, discover_for, module_name
from jobcheck.discovery.docs import find_docs
from jobcheck.discovery.reading import DEFAULT_MAX_FILE_SIZE
from jobcheck.extract.docs import doc_facts
from jobcheck.facts import UNCLOSED_SUPPRESSION, DocFile, FileFacts, FunctionFacts
from jobcheck.findings import FileError, Finding, Report, UnusedSuppression
from jobcheck.grouping import one_per_file
from jobcheck.guarded import Boundary, ReadError, read_bytes, read_text
from jobcheck.phases import phase
from jobcheck.project import Project
from jobcheck.project.lazy import ModuleLoader
from jobcheck.project.reach import read_reached
from jobcheck.project.units import split_copies


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
    """Called with (files done, files to do) while files are read and parsed."""
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    """Larger files are not parsed (they are reported when they could matter)."""
    fixes: bool = False
    """Attach each finding's automatic fix (``jobcheck/fixes/``), if it has one."""


@dataclass(frozen=True)
class Selection:
    """The enabled (rule, check) pairs, resolved from select/ignore."""

    enabled: frozenset[tuple[str, str]]

    @classmethod
    def resolve(cls, catalog: Catalog, select: Iterable[str], ignore: Iterable[str]) -> Selection:
        """One layer of selectors on its own (see :meth:`layered`)."""
        return cls.layered(catalog, [Layer(tuple(select), (), tuple(ignore))])

    @classmethod
    def for_options(cls, catalog: Catalog, options: Options, cli: Layer | None = None) -> Selection:
        """The configuration's selection (``select``, ``extend-select``, ``ignore``,
        ``extend-ignore``), then the command line's on top."""
        layers = [
            Layer(
                options.select,
                options.extend_select,
                (*options.ignore, *options.extend_ignore),
            )
        ]
        return cls.layered(catalog, [*layers, *([cli] if cli else [])])

    @classmethod
    def layered(cls, catalog: Catalog, layers: Sequence[Layer]) -> Selection:
        """Ruff's rule selection: each layer (the configuration, then the command line)
        applies its selectors from the least specific (ALL, short prefixes) to the most
        (a rule, a check), an ignore after a select of the same specificity; a layer
        that has ``select`` starts afresh, one with only ``extend-select`` or ``ignore``
        changes what the layers before it chose."""
        chosen = set(catalog.default_pairs)
        for layer in layers:
            updates: dict[tuple[str, str], bool] = {}
            ranked = [
                (*catalog.select(s), True) for s in (*(layer.select or ()), *layer.extend_select)
            ]
            ranked += [(*catalog.select(s), False) for s in layer.ignore]
            for pairs, _, enable in sorted(ranked, key=lambda item: (item[1], item[2] is False)):
                for pair in pairs:
                    updates[pair] = enable
            if layer.select is not None:
                chosen = {pair for pair, enable in updates.items() if enable}
            else:
                chosen |= {pair for pair, enable in updates.items() if enable}
                chosen -= {pair for pair, enable in updates.items() if not enable}
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
    """Run jobcheck over ``paths``; raises DiscoveryError for paths that do not exist.

    The cyclic garbage collector is off for the run: parsing makes millions of objects
    in no cycle, and collections that walk them again and again cost a fifth of a run
    (saleor: 2,000 collections, 2.5 s). Reference counting frees them as usual; the
    cycles made meanwhile (astroid's trees, which its caches keep anyway) are collected
    once at the end."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _check_paths(paths, options, selection, settings)
    finally:
        if enabled:
            gc.enable()


def _check_paths(
    paths: Sequence[str],
    options: Options,
    selection: Selection,
    settings: RunSettings | None,
) -> Report:
    settings = replace(settings or RunSettings(), max_file_size=options.max_file_size)
    clear_caches()
    with phase("load cache"):
        cache = FactsCache.open(settings.cache_dir) if settings.cache_dir is not None else None
    with phase("discover"):
        files = discover_for(options, paths, cache.walk if cache is not None else None)
    with phase("gather facts"):
        analysis = gather(files, settings, cache, frozenset(options.django_settings))
    overrides = {p: d.decode("utf-8", "replace") for p, d in settings.overrides.items()}
    units = split_copies(analysis.facts, analysis.loader)
    wants_docs = bool(selection.slugs_of("EVT-24"))
    findings: list[Finding] = []
    projects = []
    with phase("read reached files"):
        for unit in units:
            # Each copy of a project has its own runbook folders.
            roots = [*paths, *sorted(unit.roots)] if len(units) > 1 else paths
            project = Project(
                unit.facts,
                source_of=lambda p: overrides.get(p) or _read_text(p, options.max_file_size),
                docs=read_docs(roots, options, cache) if wants_docs else None,
                settings_modules=options.django_settings,
                celery_app=options.celery_app,
                loader=unit.loader,
            )
            read_all_reached(project, selection)
            projects.append(project)
    with phase("checks"):
        for project in projects:
            findings.extend(run_checks(project, options, selection))
    findings = _once_per_place(findings)
    analysed = analysis.all_facts()
    report = Report(errors=analysis.errors, files_checked=len(files), files_analysed=len(analysed))
    report.warnings = list(dict.fromkeys(t for p in projects for t in p.unmatched_options))
    report.warnings += unclosed_suppressions(analysed)
    with phase("suppressions"):
        helpers = {f.path: f for p in projects for f in p.summaries.part_facts()}
        report.findings, report.unused_suppressions = apply_suppressions(
            findings, {f.path: f for f in analysed}, load_catalog(), options, selection, helpers
        )
        # A report groups configuration findings; the editor shows each at its place.
        report.findings = sorted(one_per_file(report.findings), key=lambda f: f.sort_key)
    if settings.fixes:
        from jobcheck.fixes import attach_fixes, read_text

        with phase("fixes"):
            report.findings = attach_fixes(
                report.findings,
                analysed,
                lambda p: read_text(p, settings.overrides),
                options,
                paths,
            )
    with phase("save cache"):
        analysis.finish(roots=[os.path.normpath(p) for p in paths if os.path.isdir(p)])
    process_exit.keep(analysis, projects)
    return report


def _once_per_place(findings: list[Finding]) -> list[Finding]:
    """One finding per (file, place, check): a file of a library shared by copies of a
    project is checked with each copy (``jobcheck/project/units.py``)."""
    seen: set[tuple[str, object, str, str]] = set()
    kept = []
    for finding in findings:
        key = (finding.path, finding.loc, finding.rule, finding.check)
        if key not in seen:
            seen.add(key)
            kept.append(finding)
    return kept


def gather(
    files: Sequence[SourceFile],
    settings: RunSettings,
    cache: FactsCache | None = None,
    always: frozenset[str] = frozenset(),
) -> Analysis:
    """Facts for every file that can matter (``jobcheck/analysis.py``); modules in
    ``always`` (the configured ``django-settings``) whatever the prefilter says."""
    return Gatherer(
        files,
        jobs=settings.jobs,
        prefilter=settings.prefilter,
        cache=cache,
        overrides=settings.overrides,
        progress=settings.progress,
        always=always,
        max_file_size=settings.max_file_size,
    ).run()


def analyse(
    inputs: list[_Input], settings: RunSettings, always: frozenset[str] = frozenset()
) -> tuple[list[FileFacts], list[FileError]]:
    """Facts and errors for already-read inputs (the language server's entry)."""
    overrides = {i.source.display: i.data for i in inputs if i.data is not None}
    analysis = gather(
        [i.source for i in inputs],
        replace(settings, overrides={**overrides, **settings.overrides}),
        always=always,
    )
    return analysis.facts, analysis.errors


def collect_facts(
    paths: Sequence[str], options: Options, settings: RunSettings
) -> tuple[list[SourceFile], Analysis]:
    """Discover the files under ``paths`` and gather the facts of those that matter
    (the analysis keeps a loader for the rest); raises DiscoveryError for paths that do
    not exist."""
    files = discover_for(options, paths)
    settings = replace(settings, max_file_size=options.max_file_size)
    return files, gather(files, settings, always=frozenset(options.django_settings))


def check_facts(
    facts: Sequence[FileFacts],
    options: Options,
    selection: Selection,
    source_of: Callable[[str], str | None] | None = None,
    on_error: CheckErrorHandler | None = None,
    docs: Sequence[DocFile] | None = None,
    loader: ModuleLoader | None = None,
) -> tuple[list[Finding], list[UnusedSuppression]]:
    """Build the project model from every file's facts, run the enabled checks and
    apply suppressions: the part of a run the language server shares with the CLI."""
    project = Project(
        facts,
        source_of=source_of,
        docs=docs,
        settings_modules=options.django_settings,
        celery_app=options.celery_app,
        loader=loader,
    )
    read_all_reached(project, selection)
    findings = run_checks(project, options, selection, on_error)
    every = [*facts, *(loader.loaded if loader is not None else ())]
    helpers = {f.path: f for f in project.summaries.part_facts()}
    return apply_suppressions(
        findings, {f.path: f for f in every}, load_catalog(), options, selection, helpers
    )


def _second_pass(facts: list[FileFacts], rest: list[_Input]) -> list[_Input]:
    """Of files the prefilter skipped, those the analysed ones show are needed (the
    language server's entry; ``jobcheck check`` runs the same rule in the Gatherer)."""
    wanted = wanted_by(facts)
    return [
        item
        for item in rest
        if item.data is not None and wanted.wants(item.module, item.data, sends=True)
    ]


CheckErrorHandler = Callable[[str, str, Exception], None]


def read_all_reached(project: Project, selection: Selection) -> None:
    """Read every file the enabled checks will reach (``read_reached``): the job bodies'
    helpers, and those of the functions the enabled rules judge by their summaries."""
    roots: list[tuple[FileFacts, FunctionFacts]] = []
    callers: list[tuple[FileFacts, FunctionFacts]] = []
    for rule_class in RULE_CLASSES:
        if selection.slugs_of(rule_class.rule) & rule_class.implemented().keys():
            wanted = rule_class.summary_roots(project)
            roots.extend(wanted.functions)
            callers.extend(wanted.callers)
    read_reached(project, roots, callers)


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
        rule.enabled = set(slugs)
        for slug in sorted(slugs & rule_class.implemented().keys()):
            try:
                findings.extend(list(rule.run({slug})))
            except Exception as error:
                on_error(rule_class.rule, slug, error)
    return findings


def unclosed_suppressions(facts: Iterable[FileFacts]) -> list[str]:
    """A warning for each ``# jobcheck: ignore[...`` without its ``]``."""
    return [
        f"{f.path}:{max(line, 1)}: '# jobcheck: ignore[' has no closing ']', so it suppresses "
        "nothing; close the list of codes"
        for f in facts
        for line, codes in sorted(f.suppressions.items())
        if codes is not None and UNCLOSED_SUPPRESSION in codes
    ]


def apply_suppressions(
    findings: list[Finding],
    facts_by_path: dict[str, FileFacts],
    catalog: Catalog,
    options: Options,
    selection: Selection | None = None,
    helpers: dict[str, FileFacts] | None = None,
) -> tuple[list[Finding], list[UnusedSuppression]]:
    """Drop findings silenced by per-file ignores or ``# jobcheck: ignore`` comments;
    fill in each finding's severity, alias and link from the catalog. A code that
    names only checks ``selection`` leaves out is not reported unused: the run did not
    look for what it suppresses. ``helpers``: files read only in parts (a helper's
    clause several jobs reach is reported there); their comments suppress, but are
    never reported unused, as the rest of the file was not checked."""
    used: dict[tuple[str, int], set[str | None]] = {}
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
        suppressions = facts_by_path.get(finding.path) or (helpers or {}).get(finding.path)
        matched = _suppressing(finding, suppressions, catalog)
        if matched is not None:
            line, codes = matched
            used.setdefault((finding.path, line), set()).update(codes)
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
    unused = _unused(facts_by_path, used, catalog, selection)
    return kept, unused


def _unused(
    facts_by_path: dict[str, FileFacts],
    used: dict[tuple[str, int], set[str | None]],
    catalog: Catalog,
    selection: Selection | None,
) -> list[UnusedSuppression]:
    every_check = selection is None or selection.enabled >= catalog.default_pairs
    found = []
    for path, facts in facts_by_path.items():
        for line, codes in facts.suppressions.items():
            matched = used.get((path, line), set())
            # A file-level "# jobcheck: ignore-file" is kept at line 0, shown at line 1.
            shown, whole = (1, True) if line == 0 else (line, False)
            if codes is None:
                if not matched and every_check:
                    found.append(UnusedSuppression(path, shown, (), file_level=whole))
                continue
            unused, unknown = [], []
            for code in sorted(codes - {UNCLOSED_SUPPRESSION}):
                try:
                    pairs = catalog.resolve(code)
                except ValueError:
                    unknown.append(code)
                    continue
                if code in matched:
                    continue
                if selection is not None and not pairs & selection.enabled:
                    continue  # what it suppresses was not checked this run
                unused.append(code)
            if unused or unknown:
                found.append(
                    UnusedSuppression(path, shown, tuple(unused), tuple(unknown), file_level=whole)
                )
    found.sort(key=lambda u: (u.path, u.line))
    return found


def _suppressing(
    finding: Finding, facts: FileFacts | None, catalog: Catalog
) -> tuple[int, set[str | None]] | None:
    """The line whose suppression silences ``finding``, with the codes that do (None
    for a bare ``# jobcheck: ignore``)."""
    if facts is None or not facts.suppressions:
        return None
    # The finding's lines, then the file's own "# jobcheck: ignore-file" (line 0).
    for line in dict.fromkeys((finding.loc.line, finding.loc.end_line, 0)):
        if line not in facts.suppressions:
            continue
        codes = facts.suppressions[line]
        if codes is None:
            return line, {None}
        matching: set[str | None] = set()
        for code in codes:
            try:
                if (finding.rule, finding.check) in catalog.resolve(code):
                    matching.add(code)
            except ValueError:
                continue
        if matching:
            return line, matching
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


def read_docs(
    paths: Sequence[str], options: Options, cache: FactsCache | None = None
) -> list[DocFile] | None:
    """Facts of the Markdown/reST files under the runbook folders of each folder checked
    (and of the config file's folder); None when only single files are checked, as the
    project's docs are then out of sight. With a cache, unchanged documents (same stat
    signature) are not read again."""
    roots = [Path(p) for p in paths if Path(p).is_dir()]
    if options.config_path:
        roots.append(Path(options.root))
    if not roots:
        return None
    stored: dict = cache.extras.get("docs", {}) if cache is not None else {}  # type: ignore[assignment]
    fresh: dict[str, tuple[tuple[int, int], DocFile]] = {}
    exclude = (*options.exclude, *options.extend_exclude)
    walk = cache.walk if cache is not None else None
    boundary = Boundary.of(roots)
    for source in find_docs(roots, options.runbook_dirs, exclude, options.respect_gitignore, walk):
        try:
            stat = os.stat(source.path)
            signature = (stat.st_mtime_ns, stat.st_size)
            known = stored.get(source.display)
            if known is not None and known[0] == signature:
                fresh[source.display] = known
            else:
                data = read_bytes(source.fspath, boundary=boundary)
                fresh[source.display] = (signature, doc_facts(source.display, data))
        except OSError:
            continue
    if cache is not None and fresh != stored:
        cache.put_extra("docs", fresh)
    return [doc for _, doc in fresh.values()]


def _read(source: SourceFile, overrides: dict[str, bytes]) -> _Input:
    module, is_package = module_name(source.path)
    if source.display in overrides:
        return _Input(source, overrides[source.display], module, is_package)
    if source.error is not None:
        return _Input(source, None, module, is_package, source.error)
    try:
        data = read_bytes(source.fspath, limit=DEFAULT_MAX_FILE_SIZE)
    except ReadError as error:
        return _Input(source, None, module, is_package, str(error))
    return _Input(source, data, module, is_package)


def _read_text(path: str, limit: int) -> str | None:
    """The text of an analysed file, for snippets (it was read before, within the limit)."""
    try:
        return read_text(path, limit)
    except (OSError, UnicodeDecodeError):
        return None
