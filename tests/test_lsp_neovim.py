"""A real editor as the client: headless Neovim with the documented configuration
(editors/neovim/jobcheck.lua) opens a file, and the diagnostics Neovim received are read
back. Skipped when Neovim is not installed (``apt-get install -y neovim``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pygls")

HERE = Path(__file__).parent
CONFIG = HERE.parent / "editors" / "neovim" / "jobcheck.lua"
COLLECT = HERE / "nvim_collect_diagnostics.lua"
NVIM = shutil.which("nvim")

TASKS = """from celery import shared_task

from shop.models import Order


@shared_task
def send_receipt(order_id):
    order = Order.objects.get(pk=order_id)
    return order.total


def pay(pk):
    order = Order.objects.get(pk=pk)
    send_receipt.delay(order)
"""


@pytest.mark.skipif(NVIM is None, reason="Neovim (nvim) is not installed")
def test_neovim_receives_jobcheck_diagnostics(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "shop").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[tool.jobcheck]\n")
    (root / "shop" / "__init__.py").write_text("")
    (root / "shop" / "models.py").write_text(
        "from django.db import models\n\n\nclass Order(models.Model):\n    pass\n"
    )
    (root / "shop" / "tasks.py").write_text(TASKS)
    out = tmp_path / "diagnostics.json"
    actions_out = tmp_path / "actions.json"
    command = json.dumps([sys.executable, "-m", "jobcheck", "lsp"])
    env = {
        **os.environ,
        "JOBCHECK_NVIM_OUT": str(out),
        "JOBCHECK_NVIM_COUNT": "2",
        "JOBCHECK_NVIM_ACTIONS_OUT": str(actions_out),
        "PYTHONPATH": str(HERE.parent),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    subprocess.run(
        [
            NVIM,
            "--headless",
            "-n",
            "-i",
            "NONE",
            "--cmd",
            f"let g:jobcheck_cmd = json_decode('{command}')",
            "-u",
            str(CONFIG),
            "-c",
            f"luafile {COLLECT}",
            "shop/tasks.py",
        ],
        cwd=root,
        env=env,
        timeout=120,
        check=True,
        stdin=subprocess.DEVNULL,
        capture_output=True,
    )
    found = json.loads(out.read_text())
    by_code = {d["code"]: d for d in found}
    assert set(by_code) == {"SCL-18 missing-time-limit", "SCL-21 fat-payload"}
    payload = by_code["SCL-21 fat-payload"]
    assert (payload["lnum"], payload["col"], payload["end_col"]) == (13, 23, 28)
    assert payload["source"] == "jobcheck"
    assert by_code["SCL-18 missing-time-limit"]["lnum"] == 5
    # Code actions, asked as Neovim asks: with a kind filter and without.
    actions = json.loads(actions_out.read_text())
    suppress = "Suppress SCL-21 on this line (# jobcheck: ignore[SCL-21])"
    for asked in ("only_quickfix", "unfiltered"):
        answer = actions["SCL-21 fat-payload"][asked]
        assert answer["errors"] == [], answer
        assert suppress in answer["titles"], answer
    assert actions["SCL-21 fat-payload"]["fix_all"]["errors"] == []
