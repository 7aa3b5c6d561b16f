"""The last lines of the text formats: what was found in how many files, and what
``--fix`` can do about it."""

from __future__ import annotations

from jobcheck.findings import Report


def plural(count: int, noun: str, many: str | None = None) -> str:
    return f"{count} {noun if count == 1 else (many or noun + 's')}"


def summary_text(report: Report) -> str:
    """``Found 2 findings in 1 file (23 files checked).``"""
    checked = f"{plural(report.files_checked, 'file')} checked"
    if not report.failed:
        return f"All checks passed ({checked})."
    parts = []
    if report.findings:
        flagged = len({f.path for f in report.findings})
        parts.append(
            f"Found {plural(len(report.findings), 'finding')} in {plural(flagged, 'file')} "
            f"({checked})"
        )
    else:
        parts.append(f"No findings ({checked})")
    if report.errors:
        parts.append(f"{plural(len(report.errors), 'file')} could not be checked")
    if report.unused_suppressions:
        parts.append(plural(len(report.unused_suppressions), "unused suppression"))
    return "; ".join(parts) + "."


def fix_hint(report: Report, unsafe_fixes: bool, fixes_computed: bool = True) -> str:
    """Ruff's ``[*] 3 fixable with the --fix option`` line ("" when nothing is)."""
    fixes = [f.fix for f in report.findings if f.fix is not None]
    if not fixes:
        if fixes_computed:
            return ""
        from jobcheck.fixes import has_fixer

        # Fixes are made with libcst: Python files only (Ruby and YAML findings have none).
        maybe = sum(
            1 for f in report.findings if f.path.endswith(".py") and has_fixer(f.rule, f.check)
        )
        if not maybe:
            return ""
        # Not a count: which of these findings a fix can be made for is only known
        # once the fixes are made (on saleor, 17 of the 140 candidates).
        return (
            "Some of these findings may have fixes (most unsafe, or suggestions to apply "
            "by hand): list them with --show-fixes, preview with --diff."
        )
    safe = sum(1 for fix in fixes if fix.applicability == "safe")
    unsafe = sum(1 for fix in fixes if fix.applicability == "unsafe")
    shown = sum(1 for fix in fixes if fix.applicability == "display")
    fixable = safe + (unsafe if unsafe_fixes else 0)
    parts = []
    if fixable:
        option = "--fix --unsafe-fixes" if unsafe_fixes and unsafe else "--fix"
        parts.append(f"[*] {fixable} fixable with {option}")
    if unsafe and not unsafe_fixes:
        parts.append(f"{plural(unsafe, 'more fix', 'more fixes')} with --unsafe-fixes")
    if shown:
        parts.append(f"{plural(shown, 'suggestion')} to apply by hand")
    return "; ".join(parts) + "." if parts else ""
