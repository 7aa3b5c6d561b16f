"""jobcheck: a static linter and reviewer for background-job code."""

__version__ = "0.1.0"

REPOSITORY = "https://github.com/jobcheck/jobcheck"
"""Where jobcheck's own pages are linked from (``[project.urls]`` in pyproject.toml says
the same; docs/releasing.md step 7). tests/test_self_links.py checks every link made
from it names a file and heading of the checkout."""


def page_url(path: str, anchor: str | None = None) -> str:
    """The address of one of jobcheck's own documents (``path`` from the checkout's top)."""
    return f"{REPOSITORY}/blob/main/{path}" + (f"#{anchor}" if anchor else "")
