"""The Ruby front end: Ruby sources (``*.rb``) and Sidekiq's YAML files, read into the
same per-file facts the Python extractor produces (``jobcheck/facts``).

Ruby is parsed with tree-sitter (the optional ``ruby`` extra: ``pip install
'jobcheck[ruby]'``). Without it, every Ruby file that the prefilter keeps is reported
with one error line saying how to install it, and the rest of the run goes on; YAML
files need only PyYAML and are read either way. Nothing is ever run: ERB in YAML is
stripped, not rendered (each plugin's ``config_reader``, e.g. Sidekiq's).
"""

from __future__ import annotations

import os
import traceback

from jobcheck.facts import FileFacts

RUBY_SUFFIXES = (".rb", "Gemfile")
CONFIG_SUFFIXES = (
    "sidekiq.yml",
    "sidekiq.yaml",
    "sidekiq.yml.erb",
    "schedule.yml",
    "schedule.yaml",
    "scheduler.yml",
    "scheduler.yaml",
    "cron.yml",
    "cron.yaml",
)
"""The YAML files read: ``config/sidekiq.yml`` (and ``.yml.erb``, which Sidekiq finds too,
cli.rb), sidekiq-cron's ``config/schedule.yml`` and their common variants
(``sidekiq_scheduler.yml``, ``sidekiq_cron.yml``)."""
SUFFIXES = RUBY_SUFFIXES + CONFIG_SUFFIXES


def handles(path: str) -> bool:
    """Whether ``path`` is a file this front end reads (not Python): a Ruby source, or a
    YAML file of one of Sidekiq's names (``config/sidekiq.yml``, not ``nightly-cron.yaml``,
    a Kubernetes manifest)."""
    return path.endswith(RUBY_SUFFIXES) or os.path.basename(path) in CONFIG_SUFFIXES


def extract_file(path: str, data: bytes, module: str) -> FileFacts:
    """Every fact about one Ruby or YAML file. Never raises: problems become
    ``FileFacts.error``."""
    facts = FileFacts(path=path, module=module)
    try:
        if path.endswith(RUBY_SUFFIXES):
            return _ruby(facts, data)
        return _config(facts, data)
    except RecursionError:
        return _failed(facts, "the file is nested too deeply to analyse")
    except Exception as error:  # a bug in jobcheck must not hide other files' findings
        where = traceback.extract_tb(error.__traceback__)[-1]
        return _failed(
            facts,
            f"internal error while analysing this file: {type(error).__name__}: {error} "
            f"({where.filename.rsplit('/', 1)[-1]}:{where.lineno}); please report it",
        )


def _ruby(facts: FileFacts, data: bytes) -> FileFacts:
    from jobcheck.ruby.parse import RubyUnavailable, Source

    source = Source(data)
    try:
        tree = source.parse()
    except RubyUnavailable as error:
        return _failed(facts, str(error))
    from jobcheck.registry import ruby_recognizers
    from jobcheck.ruby.walker import RubyWalker
    from jobcheck.syntax.deep import run_deep

    walker = RubyWalker(facts, source, tree)
    walker.recognizers = [recognizer(walker) for recognizer in ruby_recognizers()]
    from jobcheck.syntax.comments import ruby_suppressions

    facts.suppressions = ruby_suppressions(tree, data.decode("utf-8", "replace"))
    return run_deep(lambda: _expanded(walker.run()))


def _config(facts: FileFacts, data: bytes) -> FileFacts:
    from jobcheck.registry import config_readers

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return _failed(facts, "not UTF-8: cannot read this YAML file")
    facts.suppressions = _suppressions(data)
    for read_config in config_readers():
        facts = read_config(facts, text)
    return _expanded(facts)


def _expanded(facts: FileFacts) -> FileFacts:
    """Schedules with their cron fields expanded at extraction (``jobcheck.timing``), as
    the Python side does for cached facts."""
    import dataclasses

    from jobcheck import timing

    facts.schedules[:] = [
        dataclasses.replace(entry, timing=timing.expanded(entry.timing))
        for entry in facts.schedules
    ]
    return facts


def _suppressions(data: bytes) -> dict[int, frozenset[str] | None]:
    """``# jobcheck: ignore[...]`` comments: Ruby and YAML comments start with ``#`` too."""
    if b"jobcheck" not in data.lower():
        return {}
    from jobcheck.syntax.comments import suppressions

    return suppressions(data.decode("utf-8", "replace"), "yaml")


def _failed(facts: FileFacts, message: str) -> FileFacts:
    failed = FileFacts(path=facts.path, module=facts.module, suppressions=facts.suppressions)
    failed.error = message
    failed.parsed = False
    return failed
