"""The layers hold: import-linter's contracts (``[tool.importlinter]`` in pyproject.toml),
and no code outside ``jobcheck/frameworks/`` compares a framework's name: what differs
between frameworks is asked of their plugins' semantics."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jobcheck.registry import plugins

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "jobcheck"
# Names of web frameworks a request handler may belong to (FunctionFacts.view).
VIEW_NAMES = frozenset({"django", "flask", "fastapi", "starlette", "quart"})


def test_import_contracts_hold() -> None:
    pytest.importorskip("importlinter")
    command = shutil.which("lint-imports") or str(Path(sys.executable).parent / "lint-imports")
    if not Path(command).exists():
        pytest.skip("import-linter's lint-imports command is not installed")
    done = subprocess.run(
        [command, "--config", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert " 0 broken" in done.stdout


def test_checks_and_contracts_type_check() -> None:
    """mypy over ``[tool.mypy] files``: the checks, the contract module and the plugins'
    semantics, checks and contracts (a check's parameters are typed, none ``Any``)."""
    pytest.importorskip("mypy")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:]


def _framework_names() -> frozenset[str]:
    names = {name for p in plugins() for name in (p.name, *p.aliases)}
    return frozenset(names | VIEW_NAMES)


def _compared_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """String constants a comparison (``==``, ``!=``, ``in``, ``not in``) tests against."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        for operand in (node.left, *node.comparators):
            candidates = [operand]
            if isinstance(operand, (ast.Tuple, ast.List, ast.Set)):
                candidates = list(operand.elts)
            for candidate in candidates:
                if isinstance(candidate, ast.Constant) and isinstance(candidate.value, str):
                    found.append((node.lineno, candidate.value))
    return found


def test_no_framework_name_is_compared_outside_the_plugins() -> None:
    names = _framework_names()
    offences = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "frameworks":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        offences += [
            f"{relative}:{line}: {value!r}"
            for line, value in _compared_strings(tree)
            if value in names
        ]
    assert offences == []


def test_the_name_check_finds_a_comparison() -> None:
    """The check above would catch ``job.framework == "celery"``."""
    tree = ast.parse('if job.framework == "celery" or x in ("rq", "y"):\n    pass\n')
    assert {value for _, value in _compared_strings(tree)} >= {"celery", "rq"}


def test_each_check_is_a_module_of_its_own() -> None:
    """One module per check, named after its rule and slug
    (``scl18_missing_time_limit.py``), holding one class with that one check; what a
    rule's checks share lives in modules with no check."""
    from jobcheck.checks import RULE_CLASSES, implemented_checks

    modules = [cls.__module__ for cls in RULE_CLASSES]
    assert len(modules) == len(set(modules)) == len(implemented_checks())
    for cls in RULE_CLASSES:
        slug = cls.slug()
        expected = f"{cls.rule.lower().replace('-', '')}_{slug.replace('-', '_')}"
        assert cls.__module__ == f"jobcheck.checks.{expected}"
        assert cls.info().severity in ("error", "warning")


def test_a_checks_fix_has_the_checks_name() -> None:
    """A check is one name everywhere: ``jobcheck/checks/<name>.py``, its fix in
    ``jobcheck/fixes/<name>.py`` (apart: fixes read syntax trees, checks never do), its
    fixtures under ``tests/fixtures/<RULE>/<slug>/``."""
    from jobcheck.checks import RULE_CLASSES
    from jobcheck.fixes import FIX_MODULES

    check_modules = {
        (cls.rule, slug): cls.__module__.rsplit(".", 1)[1]
        for cls in RULE_CLASSES
        for slug in cls.implemented()
    }
    for key, module in FIX_MODULES.items():
        assert check_modules[key] == module
    fixtures = Path(__file__).parent / "fixtures"
    for rule, slug in check_modules:
        assert (fixtures / rule / slug).is_dir(), f"no fixtures for {rule} {slug}"
