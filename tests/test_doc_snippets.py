"""Every jobcheck command line the README and the docs show, run as written on a copy of
the bundled example (issue 29: snippets broke without a test noticing). A command that
needs what a test cannot have (a git remote, an editor, a placeholder to fill in, a
watch loop) is skipped; every other one must exit 0 or 1, never 2 (a usage error: an
option renamed or a format dropped)."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

CHECKOUT = Path(__file__).resolve().parents[1]
DOCS = [CHECKOUT / "README.md", *sorted((CHECKOUT / "docs").rglob("*.md"))]
# What a command in a snippet may need that no test has.
UNRUNNABLE = ("<", "origin/", " lsp", "--watch", "REV", "$")


def _commands() -> dict[str, list[str]]:
    """Each document's runnable jobcheck commands, in the order it shows them (a
    baseline is written before it is read)."""
    found: dict[str, list[str]] = {}
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for fence, block in re.findall(r"```(sh|bash|shell|yaml)\n(.*?)```", text, re.S):
            for raw in block.splitlines():
                line = raw.strip()
                if fence == "yaml":
                    line = re.sub(r"^(?:- run:|-|run:)\s*", "", line)
                if line.startswith("jobcheck ") and not any(u in line for u in UNRUNNABLE):
                    command = re.split(r"\s+#\s", line, maxsplit=1)[0].strip()
                    found.setdefault(str(doc.relative_to(CHECKOUT)), []).append(command)
    return found


COMMANDS = _commands()


def test_the_docs_show_commands_to_run() -> None:
    assert sum(len(commands) for commands in COMMANDS.values()) >= 20


@pytest.mark.parametrize("doc", sorted(COMMANDS))
def test_every_documented_command_runs(tmp_path: Path, doc: str) -> None:
    shop = tmp_path / "shop"
    shutil.copytree(CHECKOUT / "examples" / "shop", shop)
    for command in COMMANDS[doc]:
        done = subprocess.run(
            [sys.executable, "-m", "jobcheck", *shlex.split(command)[1:]],
            cwd=shop,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert done.returncode in (0, 1), f"{doc}: {command}\n{done.stderr[-2000:]}"
