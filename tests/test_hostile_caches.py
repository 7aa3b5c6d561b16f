"""A damaged cache never changes a report and never breaks a run: bit flips, garbage,
records of the wrong shape, a FIFO or a folder where a cache file should be."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from jobcheck import storage
from tests.hostile_helpers import JOB, age, run_jobcheck, write

SEND = """\
from tasks import work


def view(order):
    work.delay(order)
"""


def _primed(tmp_path: Path) -> tuple[Path, list[tuple[str, str, int]]]:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, "views.py": SEND})
    age(root)
    first = run_jobcheck("check", ".", "--format", "json", cwd=root)
    assert first.returncode == 1
    return root, first.checks()


def _cache_files(root: Path) -> list[Path]:
    return sorted(p for p in (root / ".jobcheck_cache").iterdir() if p.suffix == ".json")


def test_bit_flips_never_change_the_report(tmp_path: Path) -> None:
    root, expected = _primed(tmp_path)
    pristine = {path: path.read_bytes() for path in _cache_files(root)}
    assert len(pristine) == 2
    chance = random.Random(20261201)
    for _ in range(12):
        for path, data in pristine.items():
            damaged = bytearray(data)
            for _ in range(3):
                index = chance.randrange(len(damaged))
                damaged[index] ^= 1 << chance.randrange(8)
            path.write_bytes(bytes(damaged))
        outcome = run_jobcheck("check", ".", "--format", "json", cwd=root)
        assert outcome.returncode == 1, outcome.stderr
        assert outcome.checks() == expected
        assert len(outcome.stderr.splitlines()) <= 2  # at most a warning per cache file


@pytest.mark.parametrize(
    "content",
    [
        b"\x80\x05\x95\xff\xff\xff\xff\xff\xff\xff\xff",
        b"",
        b"jobcheck-cache {}\n",
        b"\xff" * 4096,
        b"[" * 100_000,
    ],
)
def test_garbage_in_every_cache_file(tmp_path: Path, content: bytes) -> None:
    root, expected = _primed(tmp_path)
    for path in _cache_files(root):
        path.write_bytes(content)
    for _ in range(2):  # and the run after, which reads what the first one wrote
        outcome = run_jobcheck("check", ".", "--format", "json", cwd=root)
        assert outcome.returncode == 1, outcome.stderr
        assert outcome.checks() == expected


def _line(name: str, encoded: object) -> bytes:
    text = json.dumps([name, encoded]).encode()
    return b"%s %d %s" % (storage._digest(text), len(text), text)


def _wrong_shapes(value: object) -> object:
    """Swap the types of fields: strings become numbers, lists become strings."""
    if isinstance(value, list):
        if value and value[0] == "o":
            return ["o", value[1], *(_swap(v) for v in value[2:])]
        return [value[0], *(_wrong_shapes(v) for v in value[1:])] if value else value
    return value


def _swap(value: object) -> object:
    if isinstance(value, str):
        return 12345
    if isinstance(value, bool):
        return "yes"
    if isinstance(value, int):
        return "many"
    return _wrong_shapes(value)


@pytest.mark.parametrize(
    "mutate",
    [
        _wrong_shapes,
        lambda value: ["o", "builtins:object"],
        lambda value: ["o", "jobcheck.cli:JobcheckError", "boom"],
        lambda value: ["o", "os:system", "true"],
        lambda value: ["x", 1],
        lambda value: ["o", "jobcheck.location:Loc", 1, 2],
    ],
)
def test_records_of_the_wrong_shape_are_refused(tmp_path: Path, mutate) -> None:  # type: ignore[no-untyped-def]
    root, expected = _primed(tmp_path)
    for path in _cache_files(root):
        lines = path.read_bytes().split(b"\n")
        out = [lines[0]]
        for line in lines[1:]:
            if line:
                name, value = json.loads(line.split(b" ", 2)[2])
                out.append(_line(name, mutate(value)))
        path.write_bytes(b"\n".join(out) + b"\n")
    outcome = run_jobcheck("check", ".", "--format", "json", cwd=root)
    assert outcome.returncode == 1, outcome.stderr
    assert outcome.checks() == expected
    assert "internal error" not in outcome.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_fifo_or_folder_in_place_of_a_cache_file(tmp_path: Path) -> None:
    root, expected = _primed(tmp_path)
    facts, runs = _cache_files(root)
    facts.unlink()
    os.mkfifo(facts)
    runs.unlink()
    runs.mkdir()
    outcome = run_jobcheck("check", ".", "--format", "json", cwd=root, timeout=30)
    assert outcome.returncode == 1, outcome.stderr
    assert outcome.checks() == expected
    assert len(outcome.stderr.splitlines()) <= 2


def test_a_symbolic_link_to_dev_zero_as_cache_file(tmp_path: Path) -> None:
    root, expected = _primed(tmp_path)
    for path in _cache_files(root):
        path.unlink()
        path.symlink_to("/dev/zero")
    outcome = run_jobcheck("check", ".", "--format", "json", cwd=root, timeout=30)
    assert outcome.returncode == 1, outcome.stderr
    assert outcome.checks() == expected


def test_storage_round_trips_every_kind_of_value() -> None:
    from jobcheck.facts.values import CallV, Const, DictV, Opaque, Ref, SeqV
    from jobcheck.location import Loc

    value = {
        "tuple": (1, 2.5, "x", None, True),
        "list": [b"\x00\xff", 3j, ...],
        "set": frozenset({"a", "b"}),
        (1, "key"): SeqV((Const(1), Ref("a.b"), Opaque("?"))),
        "call": CallV("crontab", (Const(0),), (("hour", Const(3)),)),
        "dict": DictV(((Const("k"), Const(float("inf"))), (None, Ref("x")))),
        "loc": Loc(1, 2, 3, 4),
        "surrogate": "bad\udcff.py",
    }
    assert storage.decode(json.loads(json.dumps(storage.encode(value)))) == value


def test_storage_refuses_what_is_not_its_own() -> None:
    class Elsewhere:
        pass

    with pytest.raises(storage.StorageError):
        storage.encode(Elsewhere())
    for bad in (["o", "subprocess:Popen", "ls"], ["o", "jobcheck.location:Nope"], {"a": 1}):
        with pytest.raises(storage.StorageError):
            storage.decode(bad)
