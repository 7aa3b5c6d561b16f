"""A damaged cache never changes a report and never breaks a run: bit flips, garbage,
records of the wrong shape, a FIFO or a folder where a cache file should be."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from jobcheck import run_cache, storage
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


def test_plain_fields_take_only_their_exact_types() -> None:
    """Fields annotated ``int``, ``str``, ``str | None``... are checked by exact type
    (``true`` is no line number, ``1`` no file name)."""
    from jobcheck.facts import Decorator
    from jobcheck.location import Loc

    assert storage.decode(["o", "jobcheck.location:Loc", 1, 2, 3, 4]) == Loc(1, 2, 3, 4)
    for bad in (
        ["o", "jobcheck.location:Loc", True, 2, 3, 4],
        ["o", "jobcheck.location:Loc", 1.5, 2, 3, 4],
        ["o", "jobcheck.location:Loc", "1", 2, 3, 4],
    ):
        with pytest.raises(storage.StorageError):
            storage.decode(bad)
    stored = storage.encode(Decorator("celery.shared_task", None, Loc(1, 1, 1, 2)))
    assert storage.decode(json.loads(json.dumps(stored))).qualname == "celery.shared_task"
    with pytest.raises(storage.StorageError):
        storage.decode(["o", *stored[1:2], 7, None, stored[4]])


# -- a cache that is not this user's ----------------------------------------------------


def _in_home(home: Path) -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(home)}


def test_a_cache_folder_linked_elsewhere_is_neither_written_nor_pruned(tmp_path: Path) -> None:
    """``.jobcheck_cache`` committed as a link to another folder: jobcheck would write
    into it and delete its ``facts-*`` files."""
    root = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere"
    write(root, {"tasks.py": JOB})
    write(elsewhere, {"facts-keep.json": "data\n", "facts-0123456789abcdef0123.json": "{}\n"})
    before = sorted(p.name for p in elsewhere.iterdir())
    (root / ".jobcheck_cache").symlink_to(elsewhere, target_is_directory=True)
    outcome = run_jobcheck("check", ".", "--format", "json", cwd=root)
    assert outcome.returncode == 1, outcome.stderr
    assert outcome.checks() == [("tasks.py", "missing-time-limit", 4)]
    assert sorted(p.name for p in elsewhere.iterdir()) == before
    assert "symbolic link" in outcome.stderr


def test_a_folder_that_is_not_a_jobcheck_cache_is_left_alone(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, ".jobcheck_cache/facts-0123456789abcdef0123.json": "mine\n"})
    outcome = run_jobcheck("check", ".", "--format", "json", cwd=root)
    assert outcome.returncode == 1, outcome.stderr
    assert sorted(p.name for p in (root / ".jobcheck_cache").iterdir()) == [
        "facts-0123456789abcdef0123.json"
    ]


def _resigned_without_findings(path: Path, key_home: Path) -> None:
    """What an attacker does to a cache made on a machine like the victim's (a published
    image): drop every stored finding and sign the records again with the key they
    have (their own: they cannot read the victim's)."""
    key_file = key_home / "jobcheck" / "cache-key"
    if key_file.exists():
        storage._key = bytes.fromhex(key_file.read_text())
    try:
        header = {"kind": "runs", "format": run_cache._FORMAT}
        loaded = storage.load_records(path.read_bytes(), header)
        records = []
        for name, value in loaded.records.items():
            if name.startswith("run:"):
                value.report.findings.clear()
            records.append((name, value))
        path.write_bytes(storage.dump_records(header, records))
    finally:
        storage._key = None


def test_a_planted_cache_cannot_hide_findings(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB})
    age(root)
    attacker, victim = tmp_path / "attacker-home", tmp_path / "victim-home"
    first = run_jobcheck("check", ".", "--format", "json", cwd=root, env=_in_home(attacker))
    assert first.checks() == [("tasks.py", "missing-time-limit", 4)]
    _resigned_without_findings(root / ".jobcheck_cache" / "runs.json", attacker)
    replayed = run_jobcheck("check", ".", "--format", "json", cwd=root, env=_in_home(attacker))
    assert replayed.checks() == []  # the attacker's own key accepts what they signed
    outcome = run_jobcheck("check", ".", "--format", "json", cwd=root, env=_in_home(victim))
    assert outcome.returncode == 1, outcome.stderr
    assert outcome.checks() == [("tasks.py", "missing-time-limit", 4)]


def test_records_signed_with_another_key_are_never_read(tmp_path: Path) -> None:
    storage._key = b"a" * 32
    try:
        data = storage.dump_records({"kind": "facts"}, [("entry:x", (1, 2))])
        assert storage.load_records(data, {"kind": "facts"}).records == {"entry:x": (1, 2)}
        storage._key = b"b" * 32
        with pytest.raises(storage.StorageError):
            storage.load_records(data, {"kind": "facts"})
    finally:
        storage._key = None


def test_the_key_is_private_to_its_user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(storage, "_key", None)
    key = storage.signing_key()
    path = tmp_path / "jobcheck" / "cache-key"
    assert path.stat().st_mode & 0o777 == 0o600
    assert bytes.fromhex(path.read_text()) == key
    path.chmod(0o644)  # readable by others: not trusted, a key for this process instead
    monkeypatch.setattr(storage, "_key", None)
    assert storage.signing_key() != key
