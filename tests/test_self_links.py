"""The links jobcheck prints to its own pages (JOB rules, unused suppressions, parse
errors, ``[project.urls]``) each name a file of the checkout and, with ``#anchor``, one
of its headings: a renamed document or heading fails here, not in a user's SARIF."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib
import yaml

from jobcheck import REPOSITORY
from jobcheck.output.locations import PARSE_ERROR_URL
from jobcheck.output.suppressions import UNUSED_URL

ROOT = Path(__file__).resolve().parent.parent
BLOB = f"{REPOSITORY}/blob/main/"


def _slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading: lower case, punctuation dropped except
    '-' and '_', spaces as '-'."""
    text = re.sub(r"`", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(document: Path) -> set[str]:
    text = document.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, re.M)}


def _self_links() -> list[tuple[str, str]]:
    """(where, url) for every link to jobcheck's own repository it ships or documents."""
    links = [("UNUSED_URL", UNUSED_URL), ("PARSE_ERROR_URL", PARSE_ERROR_URL)]
    for rule in sorted((ROOT / "rules").glob("*.yaml")):
        url = yaml.safe_load(rule.read_text(encoding="utf-8")).get("url", "")
        if url.startswith(REPOSITORY):
            links.append((rule.name, url))
    for document in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        for url in re.findall(rf"{re.escape(REPOSITORY)}[^)\s>\"'`,]*", document.read_text()):
            links.append((document.relative_to(ROOT).as_posix(), url))
    return links


def test_every_self_link_names_a_file_and_heading_of_the_checkout() -> None:
    links = _self_links()
    assert len([w for w, _ in links if w.startswith("JOB-")]) == len(
        list((ROOT / "rules").glob("JOB-*.yaml"))
    )
    for where, url in links:
        if url.rstrip("/") == REPOSITORY:
            continue
        assert url.startswith(BLOB), (where, url)
        path, _, anchor = url.removeprefix(BLOB).partition("#")
        assert (ROOT / path).is_file(), f"{where}: {url} names no file of the checkout"
        if anchor:
            assert anchor in _anchors(ROOT / path), f"{where}: {url}: no heading '{anchor}'"


def test_the_package_metadata_names_the_same_repository() -> None:
    metadata = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    urls = metadata["project"]["urls"]
    assert urls["Repository"] == REPOSITORY
    assert urls["Documentation"].startswith(BLOB)


def test_slugs_are_githubs() -> None:
    assert _slug("Output formats") == "output-formats"
    assert _slug("`per-file-ignores` — table of glob → list of rules (default `{}`)") == (
        "per-file-ignores--table-of-glob--list-of-rules-default-"
    )
