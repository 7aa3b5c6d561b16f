"""The rule catalog: rule metadata loaded from the YAML files under ``rules/``.

The rules come from the Agent Wranglers scaling playbook
(https://agentwranglers.se/playbook/scaling/background-jobs-and-queues) and the
events playbook (https://agentwranglers.se/playbook/events/background-jobs-and-queues),
both CC BY 4.0: every finding carries its rule's link.

The YAML files are the single source of rule metadata. They ship inside the wheel as
``jobcheck/_data/rules``; in a source checkout they are read from ``rules/``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml

PACKAGE_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class CheckInfo:
    slug: str
    severity: str
    summary: str


@dataclass(frozen=True)
class Rule:
    id: str
    alias: str | None
    title: str
    summary: str
    level: str
    url: str
    checks: tuple[CheckInfo, ...]

    @property
    def required(self) -> bool:
        return self.level == "required"

    @property
    def opt_in(self) -> bool:
        """Off unless named by its id, alias or a check's slug (``ALL`` and prefixes such
        as ``JOB`` leave it out)."""
        return self.level == "opt-in"

    def check(self, slug: str) -> CheckInfo:
        for check in self.checks:
            if check.slug == slug:
                return check
        raise KeyError(f"{self.id} has no check {slug!r}")


SPECIFICITY_ALL = 0
SPECIFICITY_RULE = 20
SPECIFICITY_CHECK = 30


class UnknownRuleError(ValueError):
    """A rule id, alias or check slug that the catalog does not know."""


def data_dir(name: str) -> Path:
    """The folder of shipped data ``name`` ("rules" or "docs"), installed or in a checkout."""
    installed = PACKAGE_DIR / "_data" / name
    if installed.is_dir():
        return installed
    checkout = PACKAGE_DIR.parent / ("rules" if name == "rules" else "docs/rules")
    return checkout


class Catalog:
    def __init__(self, rules: Iterable[Rule]) -> None:
        self.rules: dict[str, Rule] = {rule.id: rule for rule in rules}
        self._by_alias = {rule.alias: rule for rule in self.rules.values() if rule.alias}
        self._rule_of_slug = {
            check.slug: rule for rule in self.rules.values() for check in rule.checks
        }

    def __iter__(self):
        return iter(sorted(self.rules.values(), key=_rule_sort_key))

    def rule(self, ident: str) -> Rule:
        """The rule named by its primary id or its alias (case-insensitive)."""
        key = ident.strip().upper()
        rule = self.rules.get(key) or self._by_alias.get(key)
        if rule is None:
            raise UnknownRuleError(f"unknown rule {ident!r}")
        return rule

    def rule_of_slug(self, slug: str) -> Rule:
        return self._rule_of_slug[slug]

    def resolve(self, selector: str) -> frozenset[tuple[str, str]]:
        """The (rule id, check slug) pairs a selector names: ALL, a check slug, a rule's
        id or alias, or the start of ids or aliases (``SCL``, ``SCL-1``, ``JOB``)."""
        return self.select(selector)[0]

    def select(self, selector: str) -> tuple[frozenset[tuple[str, str]], int]:
        """:meth:`resolve`'s pairs with the selector's specificity, as Ruff ranks them
        (ALL, then longer and longer prefixes, then a rule, then a single check): when a
        select and an ignore of one configuration both name a check, the more specific
        one wins."""
        text = selector.strip()
        if text.upper() == "ALL":
            return self.default_pairs, SPECIFICITY_ALL
        if text.lower() in self._rule_of_slug:
            slug = text.lower()
            return frozenset({(self._rule_of_slug[slug].id, slug)}), SPECIFICITY_CHECK
        try:
            rule = self.rule(text)
        except UnknownRuleError:
            pass
        else:
            return frozenset((rule.id, c.slug) for c in rule.checks), SPECIFICITY_RULE
        prefix = text.upper()
        if prefix:
            matched = [
                rule
                for rule in self.rules.values()
                if (rule.id.startswith(prefix) or (rule.alias or "").startswith(prefix))
                and not rule.opt_in
            ]
            if matched:
                pairs = frozenset((r.id, c.slug) for r in matched for c in r.checks)
                return pairs, SPECIFICITY_ALL + len(prefix)
        raise UnknownRuleError(
            f"unknown rule or check {selector!r} (expected an id such as SCL-18 or a "
            "prefix such as SCL, an alias such as EVT-17, or a check slug such as "
            f"missing-time-limit){self.suggestion(text)}"
        )

    def suggestion(self, text: str) -> str:
        """``"; did you mean 'SCL-19'?"`` for a near miss of an id, alias or slug."""
        close = self.close_matches(text)
        return f"; did you mean {close[0]!r}?" if close else ""

    def close_matches(self, text: str) -> list[str]:
        import difflib

        names = [*self.rules, *self._by_alias, *self._rule_of_slug]
        folded = {name.lower(): name for name in names}
        found = difflib.get_close_matches(text.strip().lower(), list(folded), n=3, cutoff=0.6)
        return [folded[name] for name in found]

    @functools.cached_property
    def all_pairs(self) -> frozenset[tuple[str, str]]:
        return frozenset(
            (rule.id, check.slug) for rule in self.rules.values() for check in rule.checks
        )

    @functools.cached_property
    def default_pairs(self) -> frozenset[tuple[str, str]]:
        """Every check but those of opt-in rules: what runs when nothing is selected."""
        return frozenset(
            (rule.id, check.slug)
            for rule in self.rules.values()
            if not rule.opt_in
            for check in rule.checks
        )

    def all_checks(self) -> frozenset[tuple[str, str]]:
        """Every check of every rule, opt-in ones included."""
        return self.all_pairs


def _rule_sort_key(rule: Rule) -> tuple[int, str]:
    order = {"SCL": 0, "EVT": 1, "JOB": 2}
    return order.get(rule.id.split("-")[0], 9), rule.id


def _load_rule(path: Path) -> Rule:
    # libyaml's loader when PyYAML has it: several times faster, read on every run.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    checks = tuple(
        CheckInfo(slug=c["slug"], severity=c["severity"], summary=c["summary"])
        for c in data["checks"]
    )
    return Rule(
        id=data["id"],
        alias=data.get("alias"),
        title=data["title"],
        summary=data["summary"],
        level=data["level"],
        url=data["url"],
        checks=checks,
    )


@functools.cache
def load_catalog() -> Catalog:
    folder = data_dir("rules")
    return Catalog(_load_rule(path) for path in sorted(folder.glob("*.yaml")))
