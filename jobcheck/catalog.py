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

    def check(self, slug: str) -> CheckInfo:
        for check in self.checks:
            if check.slug == slug:
                return check
        raise KeyError(f"{self.id} has no check {slug!r}")


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
        """The (rule id, check slug) pairs a selector names: an id, an alias, a slug or ALL."""
        text = selector.strip()
        if text.upper() == "ALL":
            return frozenset(
                (rule.id, check.slug) for rule in self.rules.values() for check in rule.checks
            )
        if text.lower() in self._rule_of_slug:
            return frozenset({(self._rule_of_slug[text.lower()].id, text.lower())})
        try:
            rule = self.rule(text)
        except UnknownRuleError:
            raise UnknownRuleError(
                f"unknown rule or check {selector!r} (expected an id such as SCL-18, "
                "an alias such as EVT-17, or a check slug such as missing-time-limit)"
            ) from None
        return frozenset((rule.id, check.slug) for check in rule.checks)

    def all_checks(self) -> frozenset[tuple[str, str]]:
        return self.resolve("ALL")


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
