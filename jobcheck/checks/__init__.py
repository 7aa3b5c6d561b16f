"""The checks: one module per check, named after its rule and slug
(``scl18_missing_time_limit.py`` is SCL-18's missing-time-limit), with what a rule's
checks share in a module of its own (``scl38_locks.py``). Each check module has one
:class:`RuleChecks` subclass with one ``@check`` method; the classes are found by
looking in this package, so a new module is all a new check needs (with its
``rules/*.yaml`` entry, its docs and its fixtures)."""

from __future__ import annotations

import importlib
import pkgutil

from jobcheck.checks.base import RuleChecks

# Modules of this package that hold no rule.
NOT_RULES = frozenset({"base"})


def _rule_classes() -> tuple[type[RuleChecks], ...]:
    found: list[type[RuleChecks]] = []
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name in NOT_RULES or info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found.extend(
            value
            for value in vars(module).values()
            if isinstance(value, type)
            and issubclass(value, RuleChecks)
            and value is not RuleChecks
            and value.__module__ == module.__name__
        )
    return tuple(found)


RULE_CLASSES: tuple[type[RuleChecks], ...] = _rule_classes()


def implemented_checks() -> frozenset[tuple[str, str]]:
    """(rule id, check slug) for every check that has an implementation."""
    return frozenset((cls.rule, slug) for cls in RULE_CLASSES for slug in cls.implemented())
