"""The rule catalog is the single source of rule metadata; docs and README follow it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jobcheck.catalog import load_catalog
from jobcheck.checks import implemented_checks

ROOT = Path(__file__).resolve().parents[1]
SCALING = "https://agentwranglers.se/playbook/scaling/background-jobs-and-queues"
EVENTS = "https://agentwranglers.se/playbook/events/background-jobs-and-queues"
CATALOG = load_catalog()


def test_catalog_has_every_rule_of_the_spec() -> None:
    assert [rule.id for rule in CATALOG] == [
        "SCL-16",
        "SCL-17",
        "SCL-18",
        "SCL-19",
        "SCL-20",
        "SCL-21",
        "SCL-22",
        "SCL-34",
        "SCL-38",
        "EVT-24",
        "JOB-01",
        "JOB-02",
        "JOB-03",
        "JOB-04",
        "JOB-05",
    ]


@pytest.mark.parametrize("rule", list(CATALOG), ids=lambda r: r.id)
def test_rule_metadata(rule) -> None:
    if rule.id.startswith("SCL"):
        assert rule.url.startswith(SCALING + "/")
    if rule.id == "EVT-24":
        assert rule.url == EVENTS
    expected = "error" if rule.required else "warning"
    assert all(check.severity == expected for check in rule.checks)
    assert rule.checks


def test_every_implemented_check_is_in_the_catalog() -> None:
    assert implemented_checks() <= CATALOG.all_checks()


@pytest.mark.parametrize(
    "rule_id", sorted({rule for rule, _ in implemented_checks()}), ids=lambda r: r
)
def test_implemented_rules_have_a_docs_page_with_credit(rule_id: str) -> None:
    page = ROOT / "docs" / "rules" / f"{rule_id}.md"
    assert page.is_file(), f"{page} is missing"
    text = page.read_text(encoding="utf-8")
    credit = EVENTS if rule_id == "EVT-24" else SCALING
    assert f'<a href="{credit}">' in text
    for check in CATALOG.rule(rule_id).checks:
        if (rule_id, check.slug) in implemented_checks():
            assert f"`{check.slug}`" in text


def test_readme_lists_every_rule_and_credits_the_playbook() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for rule in CATALOG:
        assert f"[{rule.id}](docs/rules/{rule.id}.md)" in readme
    assert f'<a href="{SCALING}">Agent Wranglers scaling playbook</a>' in readme


def test_catalog_code_carries_the_credit_link() -> None:
    source = (ROOT / "jobcheck" / "catalog.py").read_text(encoding="utf-8")
    assert SCALING in source
