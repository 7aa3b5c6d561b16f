"""Project configuration: ``[tool.jobcheck]`` in ``pyproject.toml`` or ``--config FILE``.

Every key is validated: an unknown key or a wrong type is a :class:`ConfigError` that
names the key, and the CLI turns it into exit status 2.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from jobcheck.discovery.reading import (
    CONFIGURED_MAX_FILE_SIZE,
    DEFAULT_MAX_FILE_SIZE,
    describe_size,
    parse_size,
)
from jobcheck.findings import SEVERITIES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# SCL-20: words that mark a job a person waits for, and bulk work. Matched on word
# boundaries of the job's name (jobcheck/vocabulary/words.py): "sign_in" also matches
# "signin" and "SignIn"; a plural "s" is allowed. Phrases rather than single words
# where a word alone is ambiguous ("reset_counters" and "last_login" are not urgent).
DEFAULT_URGENT_WORDS = (
    "password",
    "passphrase",
    "reset_email",
    "reset_link",
    "magic_link",
    "login_link",
    "login_code",
    "sign_in",
    "otp",
    "2fa",
    "two_factor",
    "mfa",
    "verification_code",
    "verify_email",
    "email_verification",
    "verification_email",
    "confirm_email",
    "email_confirmation",
    "account_confirmation",
    "confirm_account",
    "activation_email",
    "activate_account",
)
DEFAULT_BULK_WORDS = (
    "export",
    "report",
    "newsletter",
    "digest",
    "reindex",
    "backfill",
    "sync",
    "import",
    "cleanup",
    "bulk",
    "batch",
)
DEFAULT_RUNBOOK_DIRS = ("docs", "doc", "runbooks", "runbook", "ops", "playbooks", ".")


@dataclass(frozen=True)
class Layer:
    """The rule selectors of one source of options (the configuration file, the command
    line), applied in that order: ``select`` None when the source sets none."""

    select: tuple[str, ...] | None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()


class ConfigError(ValueError):
    """Configuration that jobcheck cannot use; the message names the key."""


@dataclass(frozen=True)
class Options:
    select: tuple[str, ...] = ("ALL",)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    extend_ignore: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    severity: dict[str, str] = field(default_factory=dict)
    respect_gitignore: bool = True
    force_exclude: bool = False
    include_tests: bool = False
    urgent_words: tuple[str, ...] = DEFAULT_URGENT_WORDS
    bulk_words: tuple[str, ...] = DEFAULT_BULK_WORDS
    lock_decorators: tuple[str, ...] = ()
    lock_base_classes: tuple[str, ...] = ()
    runbook_dirs: tuple[str, ...] = DEFAULT_RUNBOOK_DIRS
    django_settings: tuple[str, ...] = ()
    celery_app: str | None = None
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    show_unused_suppressions: bool = False
    unsafe_fixes: bool = False
    show_fixes: bool = False
    config_path: str | None = None
    root: str = "."


# key in TOML -> (attribute, expected type)
_KEYS: dict[str, tuple[str, str]] = {
    "select": ("select", "list[str]"),
    "extend-select": ("extend_select", "list[str]"),
    "ignore": ("ignore", "list[str]"),
    "extend-ignore": ("extend_ignore", "list[str]"),
    "exclude": ("exclude", "list[str]"),
    "extend-exclude": ("extend_exclude", "list[str]"),
    "per-file-ignores": ("per_file_ignores", "dict[str, list[str]]"),
    "severity": ("severity", "dict[str, str]"),
    "respect-gitignore": ("respect_gitignore", "bool"),
    "force-exclude": ("force_exclude", "bool"),
    "include-tests": ("include_tests", "bool"),
    "urgent-words": ("urgent_words", "list[str]"),
    "bulk-words": ("bulk_words", "list[str]"),
    "lock-decorators": ("lock_decorators", "list[str]"),
    "lock-base-classes": ("lock_base_classes", "list[str]"),
    "runbook-dirs": ("runbook_dirs", "list[str]"),
    "django-settings": ("django_settings", "list[str]"),
    "celery-app": ("celery_app", "str"),
    "max-file-size": ("max_file_size", "size"),
    "show-unused-suppressions": ("show_unused_suppressions", "bool"),
    "unsafe-fixes": ("unsafe_fixes", "bool"),
    "show-fixes": ("show_fixes", "bool"),
}


MAX_CONFIG_BYTES = 1024 * 1024


def find_config(start: Path) -> Path | None:
    """The nearest configuration, looking upwards: in each folder a ``jobcheck.toml``
    or ``.jobcheck.toml``, else a ``pyproject.toml`` with a ``[tool.jobcheck]`` table.
    A ``pyproject.toml`` on the way that cannot be read is an error: it may hold the
    configuration, and checking with defaults instead would be silently wrong."""
    current = start.resolve()
    if current.is_file():
        current = current.parent
    for folder in (current, *current.parents):
        for name in ("jobcheck.toml", ".jobcheck.toml"):
            if (folder / name).is_file():
                return folder / name
        candidate = folder / "pyproject.toml"
        if candidate.exists() and _jobcheck_table(read_toml(candidate), candidate) is not None:
            return candidate
    return None


def read_toml(path: Path) -> dict[str, Any]:
    """A TOML file's table; ConfigError (one line naming the file) for anything that
    is not a readable, regular, reasonably small TOML file."""
    from jobcheck.discovery.reading import ReadError, open_regular

    try:
        with open_regular(str(path)) as stream:
            data = stream.read(MAX_CONFIG_BYTES + 1)
    except ReadError as error:
        if "broken symbolic link" in str(error) or not path.exists():
            raise ConfigError(f"{path}: config file not found") from None
        raise ConfigError(f"{path}: {error}") from None
    if len(data) > MAX_CONFIG_BYTES:
        raise ConfigError(f"{path}: larger than 1 MiB; not a configuration file")
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ConfigError(f"{path}: not UTF-8 ({error.reason} at byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except (RecursionError, MemoryError):
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None


def _jobcheck_table(data: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """``[tool.jobcheck]`` of a ``pyproject.toml`` (None when it has none)."""
    tool = data.get("tool")
    if tool is None:
        return None
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: 'tool' must be a table, not {type(tool).__name__}")
    table = tool.get("jobcheck")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.jobcheck] must be a table")
    return table


def load(path: Path) -> Options:
    """Options from a ``pyproject.toml`` (its ``[tool.jobcheck]`` table) or a
    ``jobcheck.toml`` (top level, or its own ``[tool.jobcheck]``)."""
    data = read_toml(path)
    table = _jobcheck_table(data, path)
    if table is None:
        table = {} if path.name == "pyproject.toml" else data
    return from_mapping(table, source=str(path), root=str(path.parent))


def from_mapping(table: dict[str, Any], source: str, root: str = ".") -> Options:
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: [tool.jobcheck] must be a table")
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in _KEYS:
            known = ", ".join(sorted(_KEYS))
            raise ConfigError(
                f"{source}: unknown key {key!r} in [tool.jobcheck]{did_you_mean(key, _KEYS)} "
                f"(known: {known})"
            )
        attribute, expected = _KEYS[key]
        values[attribute] = _coerce(value, expected, f"{source}: {key}")
        _check_value(key, values[attribute], f"{source}: {key}")
    return replace(Options(), config_path=source, root=root, **values)


def _coerce(value: Any, expected: str, where: str) -> Any:
    if expected == "bool":
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, not {value!r}")
        return value
    if expected == "size":
        try:
            return parse_size(value)
        except ValueError:
            raise ConfigError(
                f'{where} must be a size in bytes (1048576) or with a unit ("1 MiB", '
                f'"512 KiB"), not {value!r}'
            ) from None
    if expected == "str":
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, not {value!r}")
        return value
    if expected == "list[str]":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where} must be a list of strings, not {value!r}")
        return tuple(value)
    if expected == "dict[str, str]":
        if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
            raise ConfigError(f"{where} must be a table of strings, not {value!r}")
        return dict(value)
    if expected == "dict[str, list[str]]":
        if not isinstance(value, dict) or not all(
            isinstance(v, list) and all(isinstance(x, str) for x in v) for v in value.values()
        ):
            raise ConfigError(f"{where} must be a table of lists of strings, not {value!r}")
        return {k: tuple(v) for k, v in value.items()}
    raise AssertionError(expected)


_WORD = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_ -]*$")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")
_APP = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*(?::[A-Za-z_]\w*)?$")


def _check_value(key: str, value: Any, where: str) -> None:
    """Values that have the right type but cannot mean anything."""
    if key in ("urgent-words", "bulk-words"):
        for word in value:
            if not _WORD.match(word):
                raise ConfigError(
                    f"{where}: {word!r} is not a word (letters, digits, '_', '-' or spaces)"
                )
    elif key == "runbook-dirs":
        for folder in value:
            if not folder.strip():
                raise ConfigError(f'{where}: an empty folder name (use "." for the root)')
            if not _inside_the_project(folder):
                raise ConfigError(
                    f"{where}: {folder!r} is not a folder inside the project (a relative "
                    "path without '..')"
                )
    elif key == "max-file-size" and value > CONFIGURED_MAX_FILE_SIZE:
        raise ConfigError(
            f"{where}: {describe_size(value)} is more than a configuration may allow "
            f"({describe_size(CONFIGURED_MAX_FILE_SIZE)}); give --max-file-size on the "
            "command line to check larger files"
        )
    elif key == "django-settings":
        for module in value:
            if not _DOTTED.match(module):
                raise ConfigError(f"{where}: {module!r} is not a module name (a.b.settings)")
    elif key == "celery-app":
        if not _APP.match(value):
            raise ConfigError(
                f"{where}: {value!r} is not a Celery app path (module:name or module.name)"
            )
    elif key == "severity":
        for code, level in value.items():
            if level not in SEVERITIES:
                raise ConfigError(
                    f"{where}: {code} = {level!r}, expected one of {', '.join(SEVERITIES)}"
                )


def _inside_the_project(folder: str) -> bool:
    """A relative path that stays below the folder it is relative to: the repository's
    configuration cannot send jobcheck to read ``/`` or ``../..``."""
    path = folder.replace("\\", "/")
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path) or "\0" in path:
        return False
    return ".." not in path.split("/")


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """``"; did you mean 'extend-exclude'?"`` for a near miss, else ``""``."""
    import difflib

    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


def toml_items(options: Options) -> list[tuple[str, Any]]:
    """Every configuration key with its value in ``options`` (for --show-settings)."""
    return [(key, getattr(options, attribute)) for key, (attribute, _) in sorted(_KEYS.items())]


def option_names() -> list[str]:
    return [f.name for f in fields(Options)]
