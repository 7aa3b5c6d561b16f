"""Fixes never add a keyword argument that options spread into the same call may already
pass (issue 25).

``@app.task(autoretry_for=(X,), **OPTS)`` with ``OPTS["retry_backoff"] = True`` set
elsewhere: SCL-34's fix appended ``retry_backoff=True`` after the spread, and importing
the fixed module raised ``TypeError: ... got multiple values for keyword argument``.
The shared helper (``jobcheck.fixes.syntax.set_keyword``) now refuses to add a keyword
to a call that spreads ``*args`` or ``**options``, unless the module shows the spread
dict's keys (a dict display only ever spread) and the keyword is not among them; every
fix that adds keywords goes through it. The finding is still reported, without a fix.
"""

from __future__ import annotations

import builtins
import sys
import textwrap
from pathlib import Path
from typing import Any
from unittest import mock

import libcst as cst
import pytest

from jobcheck.fixes import syntax
from tests.conftest import FIXTURES, run_case
from tests.test_fixes import _fixed_case

SPREAD_CASES = [
    FIXTURES / "SCL-34" / "retry-without-backoff" / "celery_spread_options_set_elsewhere",
    FIXTURES / "SCL-19" / "schedule-without-expiry" / "celery_spread_options",
    FIXTURES / "SCL-18" / "missing-time-limit" / "celery_spread_options",
]


def _run_module(path: Path, text: str, folder: Path) -> None:
    """Execute a fixture module as an import would (every import a stub, except the
    case's own modules), then call its Celery signal handlers: a keyword passed twice
    raises TypeError at the call, whatever is called."""
    real_import = builtins.__import__

    def stub_import(name: str, *args: Any, **kwargs: Any) -> Any:
        own = (folder / (name.replace(".", "/") + ".py")).is_file()
        if own:
            return real_import(name, *args, **kwargs)
        return mock.MagicMock(name=name)

    namespace: dict[str, Any] = {"__name__": "fixture", "__builtins__": builtins.__dict__}
    code = compile(text, str(path), "exec")
    with (
        mock.patch.object(builtins, "__import__", stub_import),
        mock.patch.object(sys, "path", [str(folder)]),
        mock.patch.dict(sys.modules),  # the case's own modules are forgotten after
    ):
        exec(code, namespace)
        handler = namespace.get("setup_periodic_tasks")
        if callable(handler) and not isinstance(handler, mock.MagicMock):
            handler(mock.MagicMock())


@pytest.mark.parametrize("case", SPREAD_CASES, ids=lambda c: f"{c.parent.parent.name}/{c.name}")
def test_fixed_files_still_import_without_a_keyword_passed_twice(
    case: Path, tmp_path: Path
) -> None:
    root, outcome = _fixed_case(case, tmp_path)
    assert outcome.fixed, "the readable spread keeps its fix: something is fixed"
    for path, text in outcome.fixed.items():
        _run_module(Path(path), text, root)


def _fixes_by_function(case: Path) -> dict[str, bool]:
    """Whether each flagged line's finding has a fix, by the name on the next line."""
    report = run_case(case, fixes=True)
    found: dict[str, bool] = {}
    for head in report.findings:
        # A grouped finding's fix holds the edits of each place it stands for.
        edited = {edit.loc.line for edit in head.fix.edits} if head.fix else set()
        for finding in (head, *head.grouped):
            lines = Path(finding.path).read_text(encoding="utf-8").splitlines()
            following = lines[finding.loc.line] if finding.loc.line < len(lines) else ""
            if following.startswith("def "):
                span = range(finding.loc.line, finding.loc.end_line + 1)
                found[following[4:].split("(")[0]] = any(line in edited for line in span)
    return found


def test_retry_backoff_is_not_added_beside_a_spread_that_may_set_it() -> None:
    case = FIXTURES / "SCL-34" / "retry-without-backoff" / "celery_spread_options_set_elsewhere"
    assert _fixes_by_function(case) == {
        "subscript": False,
        "updated": False,
        "imported": False,
        "positional_spread": False,
        "only_spread": True,
    }


def test_time_limits_are_not_added_beside_a_spread_that_may_set_them() -> None:
    case = FIXTURES / "SCL-18" / "missing-time-limit" / "celery_spread_options"
    assert _fixes_by_function(case) == {
        "none_with_spread": False,
        "spread_only": False,
        "none_with_readable_spread": True,
        "readable_spread_only": True,
    }


def test_expires_is_not_added_beside_a_spread_that_may_set_it() -> None:
    case = FIXTURES / "SCL-19" / "schedule-without-expiry" / "celery_spread_options"
    report = run_case(case, fixes=True)
    found = [f for f in report.findings if f.check == "schedule-without-expiry"]
    flagged = {Path(g.path).name + f":{g.loc.line}" for f in found for g in (f, *f.grouped)}
    assert flagged == {"settings.py:9", "worker.py:19", "worker.py:20"}
    # worker.py's two entries are one finding; its fix edits only the entry without a spread
    fixed = {
        Path(f.path).name + f":{edit.loc.line}"
        for f in found
        if f.fix is not None
        for edit in f.fix.edits
    }
    assert fixed == {"worker.py:20"}


# -- the helper ------------------------------------------------------------------------------


def _call(code: str, module: str = "") -> tuple[cst.Call, cst.Module]:
    tree = cst.parse_module(textwrap.dedent(module) + f"\n{code}\n")
    statement = tree.body[-1]
    assert isinstance(statement, cst.SimpleStatementLine)
    expression = statement.body[0]
    assert isinstance(expression, cst.Expr) and isinstance(expression.value, cst.Call)
    return expression.value, tree


def _set(code: str, module: str = "", name: str = "retry_backoff") -> str | None:
    call, tree = _call(code, module)
    new = syntax.set_keyword(call, name, cst.Name("True"), tree)
    return None if new is None else tree.code_for_node(new)


SPREADS_THAT_MAY_PASS_IT = {
    "unknown-name": ("f(a=1, **OPTS)", ""),
    "subscripted": ("f(**OPTS)", "OPTS = {}\nOPTS['retry_backoff'] = True\n"),
    "updated": ("f(**OPTS)", "OPTS = {}\nOPTS.update(retry_backoff=True)\n"),
    "rebound": ("f(**OPTS)", "OPTS = {}\nOPTS = make()\n"),
    "imported": ("f(**OPTS)", "from settings import OPTS\n"),
    "bound-to-a-call": ("f(**OPTS)", "OPTS = dict(max_retries=3)\n"),
    "spread-inside": ("f(**OPTS)", "OPTS = {**BASE, 'max_retries': 3}\n"),
    "computed-key": ("f(**OPTS)", "OPTS = {KEY: True}\n"),
    "passed-elsewhere": ("f(**OPTS)", "OPTS = {}\nconfigure(OPTS)\n"),
    "global-in-a-function": (
        "f(**OPTS)",
        "OPTS = {}\ndef g():\n    global OPTS\n    OPTS = {'retry_backoff': 1}\n",
    ),
    "holds-it": ("f(**OPTS)", "OPTS = {'retry_backoff': False}\n"),
    "literal-holds-it": ("f(**{'retry_backoff': False})", ""),
    "positional-spread": ("f(*ARGS)", ""),
    "call-result": ("f(**options())", ""),
}


@pytest.mark.parametrize(
    "code, module", SPREADS_THAT_MAY_PASS_IT.values(), ids=SPREADS_THAT_MAY_PASS_IT.keys()
)
def test_no_keyword_is_added_beside_a_spread_that_may_pass_it(code: str, module: str) -> None:
    assert _set(code, module) is None


def test_a_keyword_is_added_beside_a_dict_that_is_only_ever_spread() -> None:
    module = "OPTS = {'max_retries': 3}\nf(**OPTS)\n"
    assert _set("g(x, **OPTS)", module) == "g(x, **OPTS, retry_backoff=True)"
    assert _set("g(**{'max_retries': 3})") == "g(**{'max_retries': 3}, retry_backoff=True)"


def test_a_keyword_written_beside_a_spread_is_still_replaced() -> None:
    # Replacing a value passes the keyword no more often than before.
    assert _set("f(retry_backoff=False, **OPTS)") == "f(retry_backoff=True, **OPTS)"


def test_without_the_module_no_spread_is_trusted() -> None:
    call, _ = _call("f(**OPTS)", "OPTS = {}\n")
    assert syntax.set_keyword(call, "retry_backoff", cst.Name("True")) is None
