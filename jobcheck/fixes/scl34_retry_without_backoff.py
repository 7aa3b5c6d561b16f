"""SCL-34 ``retry-without-backoff``: a Celery task with ``autoretry_for`` and no
``retry_backoff`` gets ``retry_backoff=True``: waits that double from 1 s up to
``retry_backoff_max`` (600 s), with full jitter (``retry_jitter`` defaults to True),
celery/app/autoretry.py ``add_autoretry_behaviour``. Unsafe: retries come at other
times. Fixed countdowns and RQ's ``Retry`` are left to a person (the right waits depend
on what fails)."""

from __future__ import annotations

import libcst as cst

from jobcheck.findings import Finding, Fix
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source

RULE, CHECK = "SCL-34", "retry-without-backoff"


def fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    arg = source.at(finding.loc, cst.Arg)
    if arg is None or arg.keyword is None or arg.keyword.value != "autoretry_for":
        return None
    call = source.parent(arg)
    if not isinstance(call, cst.Call) or syntax.keyword(call, "retry_backoff") is not None:
        return None
    # None when the call spreads options that may set retry_backoff already.
    new = syntax.set_keyword(call, "retry_backoff", cst.Name("True"), source.module)
    edit = source.replace(call, new) if new is not None else None
    return (
        Fix("Set retry_backoff=True (exponential backoff with jitter)", (edit,), "unsafe")
        if edit
        else None
    )
