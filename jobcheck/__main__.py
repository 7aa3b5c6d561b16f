"""``python -m jobcheck``.

``-m`` puts the current folder first on ``sys.path``. Run from the root of the project
being checked, that would let a ``libcst.py`` or a ``rich/`` folder of the project
shadow a library jobcheck imports later, and run. jobcheck itself is imported by now,
so the folder can go.
"""

import os
import sys

_here = os.getcwd()
sys.path[:] = [entry for entry in sys.path if entry not in ("", ".", _here)]

from jobcheck.cli import entry  # noqa: E402

entry()
