"""Nothing of the analysed project is ever imported or executed: not while following
what its jobs are passed into the modules it comes from (a ``gi`` package, a native
extension named like a standard module, modules shadowing libraries jobcheck imports),
not through the caches (pickles planted in ``.jobcheck_cache``)."""

from __future__ import annotations

import pickle
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.hostile_helpers import JOB, age, run_jobcheck, write

# A job whose arguments come from calls into other modules: they are read.
INFERRED = """\
from celery import shared_task
import gi
from gi.repository import Gtk
import winreg
import evil_helpers


@shared_task(time_limit=60)
def send(value):
    return value


def view():
    window = Gtk.Window()
    send.delay(window)
    key = winreg.OpenKey()
    send.delay(key)
    record = evil_helpers.load()
    send.delay(record)
"""

EXTENSION_SOURCE = """\
#include <Python.h>
#include <stdio.h>
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "winreg", NULL, -1, NULL};
PyMODINIT_FUNC PyInit_winreg(void) {
    FILE *marker = fopen(MARKER, "w");
    if (marker) { fputs("ran", marker); fclose(marker); }
    return PyModule_Create(&module);
}
"""


def _marker_code(marker: Path) -> str:
    return f"import pathlib\npathlib.Path({str(marker)!r}).write_text('ran')\n"


def _project_with_importable_traps(root: Path, markers: Path) -> None:
    write(
        root,
        {
            "tasks.py": INFERRED,
            "gi/__init__.py": _marker_code(markers / "gi") + "def require_version(*a): pass\n",
            "gi/repository/__init__.py": _marker_code(markers / "gi_repository"),
            "evil_helpers.py": _marker_code(markers / "helpers") + "def load(): return 1\n",
            # Libraries jobcheck imports lazily, shadowed from the current folder.
            "libcst/__init__.py": _marker_code(markers / "libcst"),
            "rich/__init__.py": _marker_code(markers / "rich"),
            "astroid/__init__.py": _marker_code(markers / "astroid"),
        },
    )


def _compile_extension(root: Path, markers: Path) -> bool:
    compiler = shutil.which("gcc") or shutil.which("cc")
    include = sysconfig.get_paths().get("include")
    if compiler is None or include is None or not Path(include, "Python.h").exists():
        return False
    source = root / "winreg.c"
    source.write_text(EXTENSION_SOURCE)
    target = root / f"winreg{sysconfig.get_config_var('EXT_SUFFIX')}"
    done = subprocess.run(
        [
            compiler,
            "-shared",
            "-fPIC",
            f"-I{include}",
            f'-DMARKER="{markers / "extension"}"',
            str(source),
            "-o",
            str(target),
        ],
        capture_output=True,
        check=False,
    )
    source.unlink()
    return done.returncode == 0


def test_following_arguments_imports_nothing_of_the_project(tmp_path: Path) -> None:
    root, markers = tmp_path / "project", tmp_path / "markers"
    markers.mkdir()
    _project_with_importable_traps(root, markers)
    compiled = _compile_extension(root, markers)
    outcome = run_jobcheck("check", ".", "--no-cache", "--format", "json", cwd=root)
    assert outcome.returncode in (0, 1), outcome.stderr
    assert outcome.report["errors"] == []
    assert sorted(p.name for p in markers.iterdir()) == []
    if not compiled:
        pytest.skip("no C compiler or Python headers: the native-extension trap was not built")


def test_the_extension_trap_is_real(tmp_path: Path) -> None:
    """The trap runs when imported, so the test above would see it run."""
    root, markers = tmp_path / "project", tmp_path / "markers"
    markers.mkdir()
    root.mkdir()
    if not _compile_extension(root, markers):
        pytest.skip("no C compiler or Python headers")
    subprocess.run([sys.executable, "-c", "import winreg"], cwd=root, check=True)
    assert (markers / "extension").exists()


class _RunsCode:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):  # type: ignore[no-untyped-def]
        return (Path.write_text, (self.marker, "ran"))


@pytest.mark.parametrize("name", ["runs.pickle", "facts-0000.pickle", "runs.json"])
def test_planted_pickles_in_the_cache_are_never_loaded(tmp_path: Path, name: str) -> None:
    root, marker = tmp_path / "project", tmp_path / "marker"
    write(root, {"tasks.py": JOB, f".jobcheck_cache/{name}": pickle.dumps(_RunsCode(marker))})
    age(root)
    outcome = run_jobcheck("check", ".", "--format", "json", cwd=root)
    assert outcome.returncode == 1
    assert outcome.checks() == [("tasks.py", "missing-time-limit", 4)]
    assert not marker.exists()
    # Run again: whatever the first run stored is read back, still nothing runs.
    again = run_jobcheck("check", ".", "--format", "json", cwd=root)
    assert again.checks() == outcome.checks()
    assert not marker.exists()


def test_the_language_server_imports_nothing_of_the_project(tmp_path: Path) -> None:
    """The same traps, opened in ``jobcheck lsp`` (whose working folder is the project)."""
    pytest.importorskip("pygls")
    from tests.test_lsp_hostile import RawServer

    root, markers = tmp_path / "project", tmp_path / "markers"
    markers.mkdir()
    _project_with_importable_traps(root, markers)
    (root / "pyproject.toml").write_text("[tool.jobcheck]\n")
    _compile_extension(root, markers)
    server = RawServer(root)
    try:
        server.initialize()
        uri = server.open("tasks.py", (root / "tasks.py").read_text())
        server.diagnostics(uri, version=1, timeout=60)
        # A buffer that would overflow libcst's parser is refused, not parsed.
        deep = "from celery import shared_task\nx = " + "(" * 2000 + "1" + ")" * 2000 + "\n"
        other = server.open("deep.py", deep)
        server.diagnostics(other, version=1, timeout=60)
        assert server.process.poll() is None
    finally:
        server.stop()
    assert sorted(p.name for p in markers.iterdir()) == []
