"""The README's rule table is generated from rules/*.yaml (scripts/rules_table.py): it
must match them, and the check must notice when a rule's YAML changes."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import rules_table  # noqa: E402


def test_the_readme_table_matches_the_rule_files() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert rules_table.with_table(readme, ROOT / "rules") == readme, (
        "README.md's rule table is out of date: run python scripts/rules_table.py"
    )


def test_a_changed_rule_file_makes_the_check_fail(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(ROOT / "rules", rules)
    page = rules / "SCL-18.yaml"
    page.write_text(
        page.read_text().replace("title: Give every job a time limit", "title: Renamed")
    )
    readme = tmp_path / "README.md"
    shutil.copy(ROOT / "README.md", readme)
    assert rules_table.main(["--check", "--readme", str(readme), "--rules", str(rules)]) == 1
    assert rules_table.main(["--readme", str(readme), "--rules", str(rules)]) == 0
    assert "| [SCL-18](docs/rules/SCL-18.md) | EVT-17 | Renamed |" in readme.read_text()
    assert rules_table.main(["--check", "--readme", str(readme), "--rules", str(rules)]) == 0
