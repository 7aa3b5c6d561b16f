"""Parts of files read alone for call summaries (jobcheck/extract/parts.py), read before
the checks run (jobcheck/project/reach.py) and kept in the cache: a part's facts are the
facts the whole file gives for that definition, and every way of reading them gives the
same findings."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from jobcheck.catalog import load_catalog
from jobcheck.config import Options
from jobcheck.engine import RunSettings, Selection, check_paths
from jobcheck.extract import extract_file, extract_functions
from jobcheck.extract.parts import outline
from tests.conftest import FIXTURES

ROOT = Path(__file__).resolve().parent.parent
# Real code of many shapes: the fixtures, and some of jobcheck's own modules.
CORPUS = sorted(FIXTURES.rglob("*.py")) + sorted((ROOT / "jobcheck" / "extract").glob("*.py"))[:12]


_ORDER = re.compile(r"order=(\d+)|(?:commit_orders|session_writes)=\[([\d, ]*)\]")


def _without_order(value: object) -> str:
    """A function's facts with the walk's statement counters replaced by their rank (a
    part is walked from its own first statement; the order within the function is what
    counts)."""
    text = repr(value)
    numbers: set[int] = set()
    for single, listed in _ORDER.findall(text):
        numbers.update(int(n) for n in re.findall(r"\d+", single or listed))
    rank = {n: i for i, n in enumerate(sorted(numbers))}

    def ranked(match: re.Match[str]) -> str:
        return re.sub(r"\d+", lambda n: f"#{rank[int(n.group())]}", match.group())

    return _ORDER.sub(ranked, text)


def _targets(tree: ast.Module) -> list[tuple[str, frozenset[str] | None, str]]:
    found: list[tuple[str, frozenset[str] | None, str]] = []
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.append((statement.name, None, statement.name))
        elif isinstance(statement, ast.ClassDef):
            for member in statement.body:
                if isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    methods = frozenset({member.name, "__init__"})
                    found.append((statement.name, methods, f"{statement.name}.{member.name}"))
    return found


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_part_has_the_facts_the_whole_file_gives(path: Path) -> None:
    data = path.read_bytes()
    whole = extract_file(str(path), data, "m", False)
    if whole.error is not None:
        pytest.skip("the fixture is meant not to parse")
    read = outline(data)
    assert read is not None
    # The first part is cut from the tree the outline read, the others parsed again from
    # their lines: both compared with the whole file.
    for name, methods, qualname in _targets(ast.parse(data)):
        part = extract_functions(str(path), data, "m", False, frozenset({name}), methods, read)
        assert part.error is None, (qualname, part.error)
        expected = [f for q, f in whole.functions.items() if q == f"m.{qualname}"]
        got = [f for q, f in part.functions.items() if q == f"m.{qualname}"]
        assert _without_order(got) == _without_order(expected), qualname


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_statements_parsed_again_are_the_ones_first_read(path: Path) -> None:
    """A part's statements parsed again from their lines have the tree (lines and
    columns included) they had when the outline read the whole file."""
    data = path.read_bytes()
    if outline(data) is None:
        pytest.skip("the fixture is meant not to parse")
    names = [n.name for n in ast.parse(data).body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
    for name in names:
        fresh = outline(data)
        assert fresh is not None
        first = fresh.reduced(frozenset({name}), None)
        again = fresh.reduced(frozenset({name}), None)
        assert ast.dump(again, include_attributes=True) == ast.dump(
            first, include_attributes=True
        ), name


def test_statements_sharing_a_line_are_told_apart() -> None:
    source = b"import os; import requests\nx = 1; y = requests.get('u')\ndef f():\n    return y\n"
    read = outline(source)
    assert read is not None
    first = ast.dump(read.reduced(frozenset({"f"}), None), include_attributes=True)
    again = ast.dump(read.reduced(frozenset({"f"}), None), include_attributes=True)
    assert first == again
    assert "col_offset=11" in again  # import requests, and y = ..., after their ";"


def test_a_statement_its_lines_alone_do_not_give_is_read_from_the_whole_file() -> None:
    source = b"import os\n\n\ndef f():\n    return os.sep\n\n\ndef g():\n    return f()\n"
    expected = outline(source)
    assert expected is not None
    wanted = ast.dump(expected.reduced(frozenset({"g"}), None), include_attributes=True)
    read = outline(source)
    assert read is not None
    read.reduced(frozenset({"f"}), None)  # the tree read whole is used up
    read._lines[7] = "def g(:\n"  # its lines, were they read alone, are not Python
    assert ast.dump(read.reduced(frozenset({"g"}), None), include_attributes=True) == wanted


def _part(source: str, name: str, methods: frozenset[str] | None = None):  # type: ignore[no-untyped-def]
    data = source.encode()
    return extract_functions("m.py", data, "m", False, frozenset({name}), methods)


def test_calls_to_the_modules_own_functions_stay_qualified() -> None:
    facts = _part(
        "import logging\n\nlogger = logging.getLogger(__name__)\n\n"
        "def helper():\n    pass\n\n\ndef job():\n    helper()\n    logger.info('x')\n",
        "job",
    )
    assert facts.functions["m.job"].calls == ["m.helper", "m.logger.info"]
    assert "m.helper" not in facts.functions  # not read: only what was asked


def test_a_method_whose_class_starts_with_a_decorated_method() -> None:
    source = (
        "class Base:\n"
        "    @classmethod\n"
        "    def first(cls):\n"
        "        return 1\n\n"
        "    @staticmethod\n"
        "    def second():\n"
        "        import requests\n"
        "        requests.get('https://x')\n"
    )
    facts = _part(source, "Base", frozenset({"second", "__init__"}))
    assert facts.error is None
    assert set(facts.functions) == {"m.Base.second"}
    assert [c.loc.line for c in facts.functions["m.Base.second"].http_calls] == [9]


def test_imports_under_type_checking_are_kept_for_annotations() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from shop.models import Order\n\n"
        "def unrelated():\n    pass\n\n"
        "def job(order: 'Order'):\n    return order\n"
    )
    facts = _part(source, "job")
    assert facts.functions["m.job"].params[0].annotation == "shop.models.Order"


def test_line_numbers_hold_with_form_feeds_crlf_and_tabs() -> None:
    source = (
        "import requests\r\n"
        "\x0c\r\n"
        "x = 1  # a form feed is not a line break for Python\x0c\r\n"
        "class Client:\r\n"
        "\tdef other(self):\r\n"
        "\t\tpass\r\n"
        "\tdef fetch(self):\r\n"
        "\t\treturn requests.get('https://x')\r\n"
    )
    facts = _part(source, "Client", frozenset({"fetch", "__init__"}))
    assert facts.error is None
    assert [c.loc.line for c in facts.functions["m.Client.fetch"].http_calls] == [8]


def test_a_class_named_alone_is_read_for_its_constructor() -> None:
    source = (
        "import requests\n\n"
        "class Service:\n"
        "    def __init__(self):\n        self.token = requests.get('https://x')\n\n"
        "    def other(self):\n        requests.get('https://y')\n"
    )
    facts = _part(source, "Service", frozenset({"__init__"}))
    assert set(facts.functions) == {"m.Service.__init__"}


# -- read at once, in workers, from the cache ---------------------------------------------

HELPERS = 30


def _project(root: Path) -> Path:
    (root / "proj").mkdir(parents=True)
    (root / "proj" / "__init__.py").write_text("")
    (root / "proj" / "helpers").mkdir()
    (root / "proj" / "helpers" / "__init__.py").write_text("")
    jobs = ["from celery import shared_task\n"]
    for i in range(HELPERS):
        (root / "proj" / "helpers" / f"h{i}.py").write_text(
            "import requests\n\n\n"
            f"def fetch_{i}(url):\n    return deeper_{i}(url)\n\n\n"
            f"def deeper_{i}(url):\n    return requests.get(url)\n\n\n"
            "def unused():\n    return requests.get('x', timeout=3)\n"
        )
        jobs.insert(0, f"from proj.helpers.h{i} import fetch_{i}\n")
        jobs.append(
            f"\n\n@shared_task(time_limit=60)\ndef job_{i}(url):\n    return fetch_{i}(url)\n"
        )
    (root / "proj" / "tasks.py").write_text("".join(jobs))
    return root


def _run(root: Path, jobs: int, cache_dir: Path | None = None) -> list[tuple[str, int, str]]:
    options = Options(root=str(root), select=["SCL-18"])
    selection = Selection.resolve(load_catalog(), options.select, options.ignore)
    settings = RunSettings(jobs=jobs, cache_dir=cache_dir)
    report = check_paths([str(root)], options, selection, settings)
    assert not report.errors
    return sorted((f.path, f.loc.line, f.message) for f in report.findings)


def test_helpers_read_in_workers_give_the_findings_read_here(tmp_path: Path) -> None:
    root = _project(tmp_path)
    here, in_workers = _run(root, jobs=1), _run(root, jobs=2)
    assert here == in_workers
    assert len(here) == HELPERS
    assert all("reached through fetch_" in message for _, _, message in here)
    assert all("deeper_" in message for _, _, message in here)


def test_parts_come_from_the_cache_while_their_file_is_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jobcheck.extract
    from jobcheck.cache import FactsCache

    root = _project(tmp_path / "src")
    cache_dir = tmp_path / "cache"
    first = _run(root, jobs=1, cache_dir=cache_dir)
    stored = FactsCache.open(cache_dir).parts
    assert len(stored) == HELPERS  # one record per helper module
    read: list[str] = []
    original = jobcheck.extract.extract_functions

    def counting(display, *args):  # type: ignore[no-untyped-def]
        read.append(display)
        return original(display, *args)

    monkeypatch.setattr(jobcheck.extract, "extract_functions", counting)
    changed = root / "proj" / "helpers" / "h3.py"
    changed.write_text(changed.read_text().replace("requests.get(url)", "requests.get(url) "))
    (root / "proj" / "tasks.py").write_text((root / "proj" / "tasks.py").read_text() + "\n")
    assert _run(root, jobs=1, cache_dir=cache_dir) == first
    assert sorted(set(read)) == [str(changed)], read


def test_a_finding_reached_through_calls_carries_the_chain_in_every_format(
    tmp_path: Path,
) -> None:
    import json

    from jobcheck.output import json_format, sarif

    root = _project(tmp_path)
    options = Options(root=str(root), select=["SCL-18"])
    selection = Selection.resolve(load_catalog(), options.select, options.ignore)
    report = check_paths([str(root)], options, selection, RunSettings(jobs=1))
    finding = next(f for f in report.findings if "fetch_0()" in f.message)
    helpers = str(root / "proj" / "helpers" / "h0.py")
    assert [(r.path, r.loc.line) for r in finding.related] == [
        (str(root / "proj" / "tasks.py"), finding.loc.line),
        (helpers, 5),
        (helpers, 9),
    ]
    as_json = json_format.finding_dict(finding)
    assert [(r["path"], r["line"]) for r in as_json["related"]] == [
        (r.path, r.loc.line) for r in finding.related
    ]
    data = json.loads(json.dumps(sarif.to_dict(report)))
    result = next(r for r in data["runs"][0]["results"] if "fetch_0()" in r["message"]["text"])
    related = result["relatedLocations"]
    assert [r["physicalLocation"]["region"]["startLine"] for r in related] == [
        finding.loc.line,
        5,
        9,
    ]
    assert related[-1]["message"]["text"].startswith("requests.get")


def test_the_language_server_gives_the_chain_as_related_information() -> None:
    from pygls.workspace import PositionCodec

    from jobcheck.facts import Loc
    from jobcheck.findings import Finding, Related
    from jobcheck.lsp.diagnostics import to_diagnostic

    finding = Finding(
        "SCL-18",
        "http-call-without-timeout",
        "/p/tasks.py",
        Loc(3, 5, 3, 14),
        "requests.get(...) reached through fetch()",
        related=(
            Related("/p/tasks.py", Loc(3, 5, 3, 14), "calls fetch()"),
            Related("/p/helpers.py", Loc(9, 12, 9, 30), "requests.get(...)"),
        ),
    )
    lines = ["import x\n", "\n", "    é = fetch(url)\n"]
    diagnostic = to_diagnostic(finding, lines, PositionCodec())
    inside, other = diagnostic.related_information or []
    assert inside.location.uri == "file:///p/tasks.py"
    assert other.location.uri == "file:///p/helpers.py"
    assert (other.location.range.start.line, other.location.range.start.character) == (8, 11)
    assert other.message == "requests.get(...)"
