"""A longer run of tests/test_lsp_incremental.py's random edits (not part of the suite):

    python -m tests.fuzz_lsp_incremental 120

Each seed picks a source (a generated job module, a fixture file or a file of the example
project) and applies 50 random edits, comparing the incremental parse and the replayed
facts with a full parse and extraction after every edit. Prints the failures and ends
with the count.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from benchmarks.generate_module import generate_module
from jobcheck.lsp.incremental import parse_buffer
from tests.test_lsp_incremental import SOURCES, _check_same, _edit

EXAMPLES = sorted((Path(__file__).parent.parent / "examples" / "shop").rglob("*.py"))


def main(seeds: int) -> int:
    texts = [generate_module(120)] + [p.read_text(encoding="utf-8") for p in SOURCES + EXAMPLES]
    failures = 0
    for seed in range(seeds):
        rng = random.Random(1000 + seed)
        buffer = parse_buffer(rng.choice(texts))
        for step in range(50):
            try:
                buffer = _check_same(buffer, _edit(buffer.text, rng))
            except AssertionError as error:
                failures += 1
                print(f"seed {seed} step {step}: {str(error)[:300]}")
                break
    print(f"{failures} failures in {seeds} seeds")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 50))
