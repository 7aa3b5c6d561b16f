"""Hover text for a flagged range: the rule's short explanation and its playbook link."""

from __future__ import annotations

from collections.abc import Iterable

from jobcheck.catalog import UnknownRuleError, load_catalog
from jobcheck.findings import Finding
from jobcheck.output.encoding import md_text


def hover_markdown(findings: Iterable[Finding]) -> str | None:
    """Markdown for the findings under the cursor (each rule once), or None."""
    parts: list[str] = []
    seen: set[tuple[str, str]] = set()
    for finding in findings:
        key = (finding.rule, finding.check)
        if key in seen:
            continue
        seen.add(key)
        parts.append(_explain(finding))
    return "\n\n---\n\n".join(parts) or None


def _explain(finding: Finding) -> str:
    try:
        rule = load_catalog().rule(finding.rule)
    except UnknownRuleError:
        return f"**{md_text(finding.rule)} {md_text(finding.check)}**\n\n{md_text(finding.message)}"
    alias = f" ({rule.alias})" if rule.alias else ""
    try:
        check_summary = rule.check(finding.check).summary
    except KeyError:
        check_summary = ""
    lines = [
        f"**{rule.id}{alias} `{finding.check}`: {rule.title}**",
        "",
        check_summary,
        "",
        rule.summary,
        "",
        f"[{rule.id}: {rule.title}]({finding.url or rule.url})",
    ]
    return "\n".join(lines)
