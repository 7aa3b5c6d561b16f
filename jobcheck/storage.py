"""Data-only storage for the caches: JSON records, each checked before use.

The caches (``cache.py``, ``run_cache.py``) used to be pickle files, and loading a
pickle runs whatever code it names: a ``.jobcheck_cache`` committed to a repository,
or restored from a shared CI cache, could run code on the machine that checks it. Here
nothing that is read can do more than build jobcheck's own plain data classes:

- a file is a header line and one line per record: ``<hash> <length> <json>``, the
  hash (BLAKE2b, keyed with this user's secret: :func:`signing_key`) and length of the
  JSON text. A record whose hash or length does not match is dropped alone, so a flipped
  bit costs one file's facts, not the cache; a file made with another key (committed to
  the repository, planted in a published image) is never read;
- JSON holds ``None``, booleans, numbers and strings; every other value is an array
  tagged by its first item (``["t", ...]`` a tuple, ``["o", "Loc", 1, 2, 3, 4]`` an
  instance of a jobcheck data class, by name from :data:`STORED_CLASSES` only);
- each field of a data class is checked against its annotation while it is rebuilt,
  so a record of the wrong shape is refused, not half-used;
- files are opened without following FIFOs or devices, and only when they are regular
  files of at most :data:`MAX_CACHE_BYTES`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
import json
import os
import stat
import types
import typing
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

MAX_CACHE_BYTES = 512 * 1024 * 1024
MAGIC = "jobcheck-cache"

# The modules whose data classes the caches hold: a class is stored by its name, and a
# name read back is looked up among these modules' classes only.
STORED_MODULES = (
    "jobcheck.location",
    "jobcheck.findings",
    "jobcheck.facts.values",
    "jobcheck.facts",
    "jobcheck.discovery",
    "jobcheck.cache",
    "jobcheck.run_cache",
)


class StorageError(ValueError):
    """Stored data that cannot be used: damaged, of the wrong shape or version."""


# -- encoding ------------------------------------------------------------------------


def encode(value: object) -> object:
    """``value`` as JSON-ready data (see the module docstring for the tags)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    kind = type(value)
    if kind is tuple:
        return ["t", *map(encode, value)]  # type: ignore[call-overload]
    if kind is list:
        return ["l", *map(encode, value)]  # type: ignore[call-overload]
    if kind is dict:
        items: list[object] = ["d"]
        for key, item in value.items():  # type: ignore[attr-defined]
            items.append(encode(key))
            items.append(encode(item))
        return items
    if kind is frozenset or kind is set:
        tag = "f" if kind is frozenset else "s"
        return [tag, *sorted((encode(v) for v in value), key=repr)]  # type: ignore[attr-defined]
    if kind is bytes:
        return ["b", value.hex()]  # type: ignore[attr-defined]
    if kind is complex:
        return ["c", value.real, value.imag]  # type: ignore[attr-defined]
    if value is Ellipsis:
        return ["e"]
    name = _stored_name(kind)
    if name is None:
        raise StorageError(f"cannot store a {kind.__module__}.{kind.__qualname__}")
    return ["o", name, *(encode(getattr(value, f)) for f in _fields(kind))]


def _stored_name(kind: type) -> str | None:
    if kind.__module__ in STORED_MODULES and (
        dataclasses.is_dataclass(kind) or hasattr(kind, "_fields")
    ):
        return f"{kind.__module__}:{kind.__qualname__}"
    return None


_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(kind: type) -> tuple[str, ...]:
    names = _FIELDS.get(kind)
    if names is None:
        if dataclasses.is_dataclass(kind):
            names = tuple(f.name for f in dataclasses.fields(kind) if f.init)
        else:
            names = tuple(kind._fields)  # type: ignore[attr-defined]
        _FIELDS[kind] = names
    return names


# -- decoding ------------------------------------------------------------------------


_PLAIN = frozenset({type(None), bool, int, float, str})


def decode(data: object) -> Any:
    """The value :func:`encode` gave ``data`` for; raises StorageError on anything else."""
    if type(data) in _PLAIN:
        return data
    if type(data) is not list or not data:
        raise StorageError("not a stored value")
    decoder = _DECODERS.get(data[0])  # type: ignore[call-overload]
    if decoder is None:
        raise StorageError("unknown tag")
    return decoder(data)


def _decode_tuple(data: list[Any]) -> tuple[Any, ...]:
    return tuple([item if type(item) in _PLAIN else decode(item) for item in data[1:]])


def _decode_list(data: list[Any]) -> list[Any]:
    return [item if type(item) in _PLAIN else decode(item) for item in data[1:]]


def _decode_dict(data: list[Any]) -> dict[Any, Any]:
    if len(data) % 2 != 1:
        raise StorageError("a dict of an odd length")
    result = {}
    try:
        for index in range(1, len(data), 2):
            result[decode(data[index])] = decode(data[index + 1])
    except TypeError:  # an unhashable key
        raise StorageError("an unhashable dict key") from None
    return result


def _decode_set(data: list[Any]) -> frozenset[Any] | set[Any]:
    try:
        items = [decode(item) for item in data[1:]]
        return frozenset(items) if data[0] == "f" else set(items)
    except TypeError:
        raise StorageError("an unhashable set item") from None


def _decode_bytes(data: list[Any]) -> bytes:
    if len(data) != 2 or type(data[1]) is not str:
        raise StorageError("bad bytes")
    try:
        return bytes.fromhex(data[1])
    except ValueError:
        raise StorageError("bad bytes") from None


def _decode_complex(data: list[Any]) -> complex:
    if len(data) != 3 or not all(type(x) in (int, float) for x in data[1:]):
        raise StorageError("bad complex number")
    return complex(data[1], data[2])


def _decode_ellipsis(data: list[Any]) -> object:
    if len(data) != 1:
        raise StorageError("bad ellipsis")
    return Ellipsis


def _decode_object(data: list[Any]) -> object:
    if len(data) < 2 or type(data[1]) is not str:
        raise StorageError("an object without a class")
    stored = _class(data[1])
    if len(data) != stored.length:
        raise StorageError(f"{data[1]}: {len(data) - 2} fields, expected {stored.length - 2}")
    fields = data[2:]
    # Most fields are plain (strings, numbers, None): their exact type is checked, no call.
    for index, plain in stored.plain:
        if type(fields[index]) not in plain:
            raise StorageError(f"{data[1]}: a field of the wrong type")
    for index, check in stored.checked:
        value = fields[index]
        if type(value) not in _PLAIN:
            value = fields[index] = decode(value)
        if check is not _anything and not check(value):
            raise StorageError(f"{data[1]}: a field of the wrong type")
    try:
        return stored.kind(*fields)
    except Exception as error:  # a class that refuses its fields is a damaged record
        raise StorageError(f"{data[1]}: {error}") from None


_DECODERS: dict[str, Callable[[list[Any]], Any]] = {
    "o": _decode_object,
    "t": _decode_tuple,
    "l": _decode_list,
    "d": _decode_dict,
    "f": _decode_set,
    "s": _decode_set,
    "b": _decode_bytes,
    "c": _decode_complex,
    "e": _decode_ellipsis,
}


@dataclasses.dataclass(frozen=True, slots=True)
class _Stored:
    """A class records may hold, with what each of its fields may be."""

    kind: type
    length: int
    """Of its record: the tag, the class's name and one item per field."""
    plain: tuple[tuple[int, frozenset[type]], ...]
    """(field index, the exact types it may hold) of the fields of plain annotations."""
    checked: tuple[tuple[int, Callable[[object], bool]], ...]
    """(field index, predicate) of the others, whose values are decoded first."""


_CLASSES: dict[str, _Stored] = {}


def _class(name: str) -> _Stored:
    known = _CLASSES.get(name)
    if known is not None:
        return known
    module_name, _, qualname = name.partition(":")
    if module_name not in STORED_MODULES:
        raise StorageError(f"{name}: not a stored class")
    module = importlib.import_module(module_name)
    kind: Any = module
    for part in qualname.split("."):
        kind = getattr(kind, part, None)
    if not isinstance(kind, type) or _stored_name(kind) != name:
        raise StorageError(f"{name}: not a stored class")
    hints = _hints(kind, module)
    plain: list[tuple[int, frozenset[type]]] = []
    checked: list[tuple[int, Callable[[object], bool]]] = []
    for index, field in enumerate(_fields(kind)):
        types = _plain_types(hints.get(field))
        if types is not None:
            plain.append((index, types))
        else:
            checked.append((index, _checker(hints.get(field))))
    stored = _Stored(kind, 2 + len(_fields(kind)), tuple(plain), tuple(checked))
    _CLASSES[name] = stored
    return stored


def _hints(kind: type, module: types.ModuleType) -> dict[str, Any]:
    try:
        return typing.get_type_hints(kind, vars(module))
    except Exception:  # an annotation that names something imported for type checking only
        return {}


def _anything(value: object) -> bool:
    return True


_EXACT: dict[object, frozenset[type]] = {
    str: frozenset({str}),
    int: frozenset({int}),  # not bool: JSON's true is no count
    bool: frozenset({bool}),
    float: frozenset({int, float}),
    type(None): frozenset({type(None)}),
}


def _plain_types(annotation: Any) -> frozenset[type] | None:
    """The exact types a field of a plain ``annotation`` (``str``, ``int | None``...)
    may hold, as decoded from JSON; None for any other annotation (its checker)."""
    found = _EXACT.get(annotation)
    if found is not None:
        return found
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        options = [_EXACT.get(a) for a in typing.get_args(annotation)]
        if all(option is not None for option in options):
            return frozenset().union(*options)  # type: ignore[arg-type]
    return None


def _checker(annotation: Any) -> Callable[[object], bool]:
    """A predicate for values of ``annotation`` (permissive where a form is not known)."""
    if annotation is None or annotation is Any or annotation is object:
        return _anything
    if annotation is type(None):
        return lambda value: value is None
    if annotation is float:
        return lambda value: isinstance(value, (int, float)) and not isinstance(value, bool)
    if annotation is int:
        return lambda value: isinstance(value, int) and not isinstance(value, bool)
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return lambda value: isinstance(value, annotation)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        options = tuple(_checker(a) for a in args)
        return lambda value: any(option(value) for option in options)
    if origin is typing.Literal:
        return lambda value: value in args
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            each = _checker(args[0])
            return lambda value: isinstance(value, tuple) and all(map(each, value))
        if args:
            parts = tuple(_checker(a) for a in args)
            return lambda value: (
                isinstance(value, tuple)
                and len(value) == len(parts)
                and all(p(v) for p, v in zip(parts, value))
            )
        return lambda value: isinstance(value, tuple)
    if origin in (list, frozenset, set):
        each = _checker(args[0]) if args else _anything
        return lambda value: isinstance(value, origin) and all(map(each, value))  # type: ignore[arg-type]
    if origin is dict:
        keys = _checker(args[0]) if args else _anything
        items = _checker(args[1]) if len(args) > 1 else _anything
        return lambda value: (
            isinstance(value, dict) and all(keys(k) and items(v) for k, v in value.items())
        )
    if isinstance(origin, type):
        return lambda value: isinstance(value, origin)
    return _anything


# -- files ---------------------------------------------------------------------------


def dump_records(
    header: dict[str, object],
    records: Iterable[tuple[str, object]],
    unchanged: Iterable[bytes] = (),
) -> bytes:
    """A file of ``records`` (name, value) after a header line; ``unchanged`` are
    record lines read by :func:`load_records` and still valid, written back as they are."""
    lines = [_header_line(header) + b"\n"]
    for name, value in records:
        try:
            lines.append(record_line(name, value) + b"\n")
        except (StorageError, RecursionError, ValueError):
            continue  # not kept: the next run computes it again
    lines.extend(line + b"\n" for line in unchanged)
    return b"".join(lines)


def record_line(name: str, value: object) -> bytes:
    text = json.dumps([name, encode(value)], separators=(",", ":")).encode()
    return b"%s %d %s" % (_digest(text), len(text), text)


class Loaded:
    """The records of a file, the line each came from, and how many were damaged."""

    def __init__(self) -> None:
        self.records: dict[str, object] = {}
        self.lines: dict[str, bytes] = {}
        self.damaged = 0


def load_records(data: bytes, header: dict[str, object]) -> Loaded:
    """The records of a file whose header equals ``header``; raises StorageError when
    the file is not such a file at all."""
    lines = data.split(b"\n")
    if not lines or lines[0] != _header_line(header):
        raise StorageError("not a cache of this version, or not made with this user's key")
    loaded = Loaded()
    for line in lines[1:]:
        if not line:
            continue
        try:
            name, value = _record(line)
        # TypeError: a tag that is not a string (unhashable), in a record signed here.
        except (StorageError, ValueError, TypeError, RecursionError, MemoryError):
            loaded.damaged += 1
            continue
        loaded.records[name] = value
        loaded.lines[name] = line
    return loaded


def _header_line(header: dict[str, object]) -> bytes:
    signed = {**header, "signer": key_fingerprint()}
    return f"{MAGIC} {json.dumps(signed, sort_keys=True)}".encode()


def _record(line: bytes) -> tuple[str, object]:
    digest, length, text = line.split(b" ", 2)
    if int(length) != len(text) or _digest(text) != digest:
        raise StorageError("a damaged record")
    loaded = json.loads(text)
    if not (type(loaded) is list and len(loaded) == 2 and type(loaded[0]) is str):
        raise StorageError("a record of the wrong shape")
    return loaded[0], decode(loaded[1])


def _digest(text: bytes) -> bytes:
    return hashlib.blake2b(text, digest_size=16, key=signing_key()).hexdigest().encode()


# -- the signing key -------------------------------------------------------------------

_KEY_BYTES = 32
_key: bytes | None = None


def signing_key() -> bytes:
    """The secret every record's hash is keyed with: a cache committed to a repository,
    or planted where the installation is predictable (a published image), was not made
    with this user's key, so none of its records is used. Kept outside any project, in
    ``$XDG_CACHE_HOME/jobcheck/cache-key`` (``~/.cache``), made on first use; when that
    cannot be read or written, a key for this process only (no cache outlives it)."""
    global _key
    if _key is None:
        _key = _stored_key() or os.urandom(_KEY_BYTES)
    return _key


def key_fingerprint() -> str:
    """Names the signing key in a cache file's header (a file made with another key is
    not this user's cache: replaced, never read)."""
    return hashlib.blake2b(signing_key(), digest_size=8, person=b"jobcheck").hexdigest()


def key_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "jobcheck" / "cache-key"


def _stored_key() -> bytes | None:
    path = key_file()
    key = _read_key(path)
    if key is not None:
        return key
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:
        return _read_key(path)  # another process made it first, or no home to keep it in
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(os.urandom(_KEY_BYTES).hex().encode())
    return _read_key(path)


def _read_key(path: Path) -> bytes | None:
    """The key in ``path``: a regular file of this user's, readable by no one else."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode) or info.st_mode & 0o077:
            return None
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            return None
        text = os.read(descriptor, 2 * _KEY_BYTES + 1)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    try:
        key = bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        return None
    return key if len(key) == _KEY_BYTES else None


def read_regular_file(path: str | os.PathLike[str], limit: int = MAX_CACHE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes; OSError for anything
    else (a FIFO, a device, a folder, a larger file), without blocking on it."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(descriptor)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{os.fspath(path)}: not a regular file")
        if info.st_size > limit:
            raise OSError(f"{os.fspath(path)}: larger than {limit} bytes")
        chunks = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(descriptor, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        if remaining <= 0:
            raise OSError(f"{os.fspath(path)}: larger than {limit} bytes")
        return b"".join(chunks)
    finally:
        os.close(descriptor)
