"""Settings read from the environment with a literal default: the default is the value.

``task_time_limit = int(os.environ.get("TASK_TIME_LIMIT", "600"))``,
``env.int("TIMEOUT", default=600)`` (django-environ), ``config("TIMEOUT", default=600,
cast=int)`` (python-decouple): a static reader cannot know the deployment's environment,
but the default is what runs wherever the variable is not set, and what the code's author
chose. It comes back as an :class:`EnvDefault` (a ``Const`` naming its variable), so a
message can say where the number came from; a read with no literal default stays what it
was (unknown). django-environ returns a default of None as it is: that None is the value
too (``env.int("TIME_LIMIT", None)``: none wherever the variable is unset).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from jobcheck.facts.values import CallV, Const, EnvDefault, Value

# os.environ.get(key, default=None) / os.getenv(key, default=None) (CPython os.py).
_STDLIB_READS = frozenset({"os.environ.get", "os.getenv", "os.environ.setdefault"})
# python-decouple: config(option, default=Undefined, cast=Undefined) (decouple.py
# ``Config.__call__``); django-environ: Env.<type>(var, default=NOTSET) (environ/environ.py).
_DECOUPLE_READS = frozenset({"decouple.config"})
_ENV_CLASSES = frozenset({"environ.Env", "environ.environ.Env"})
_ENV_CASTS: Mapping[str, Callable[[object], object]] = {
    "int": int,
    "float": float,
    "str": str,
    "bool": lambda v: str(v).lower() in ("1", "true", "yes", "on"),
}


def env_default(value: Value | None, instances: Mapping[str, str]) -> Value | None:
    """``value`` with an environment read that has a literal default replaced by the
    default (cast as the read casts it); ``instances``: module-level object -> class."""
    if not isinstance(value, CallV):
        return value
    cast = _ENV_CASTS.get(value.func or "")
    if cast is not None and len(value.args) == 1:
        inner = env_default(value.args[0], instances)
        if isinstance(inner, EnvDefault):
            return _cast(inner, cast)  # int(os.environ.get("X", "600"))
        return value
    read = _read(value, instances)
    return read if read is not None else value


def unset_read(value: Value | None) -> str | None:
    """The variable of a standard-library environment read that falls back to None
    (``os.environ.get("X")``, ``os.getenv("X", None)``): the value is None wherever the
    variable is unset."""
    if not isinstance(value, CallV) or value.func not in _STDLIB_READS:
        return None
    variable = value.arg(0, "key")
    default = value.arg(1, "default")
    if not isinstance(variable, Const) or not isinstance(variable.value, str):
        return None
    if default is not None and not (isinstance(default, Const) and default.value is None):
        return None
    return variable.value


def _read(call: CallV, instances: Mapping[str, str]) -> EnvDefault | None:
    func = call.func or ""
    variable = call.arg(0, "key") if func in _STDLIB_READS else call.arg(0, "option")
    if func in _STDLIB_READS:
        default = call.arg(1, "default")
        return _default(variable, default, None)
    if func in _DECOUPLE_READS:
        cast = call.kwarg("cast")
        name = cast.qualname if cast is not None and hasattr(cast, "qualname") else None
        return _default(variable, call.kwarg("default"), _ENV_CASTS.get(name or ""))
    # django-environ: ``Env.int(var, default=NOTSET)`` takes the default second;
    # ``Env.__call__(var, cast=None, default=NOTSET)`` by keyword (environ/environ.py).
    # Its ``get_value`` returns a default of None as it is: None is what runs where the
    # variable is unset (``env.int("TIME_LIMIT", None)``: no limit there).
    owner, _, method = func.rpartition(".")
    if instances.get(owner) in _ENV_CLASSES and method in _ENV_CASTS:
        default = call.arg(1, "default")
        return _default(call.arg(0, "var"), default, _ENV_CASTS[method], none_counts=True)
    if instances.get(func) in _ENV_CLASSES:
        return _default(call.arg(0, "var"), call.kwarg("default"), None, none_counts=True)
    return None


def _default(
    variable: Value | None,
    default: Value | None,
    cast: Callable[[object], object] | None,
    none_counts: bool = False,
) -> EnvDefault | None:
    """``none_counts``: a default of None is the value too (the reader returns it as it
    is), not an unknown."""
    if not isinstance(variable, Const) or not isinstance(variable.value, str):
        return None
    if not isinstance(default, Const) or (default.value is None and not none_counts):
        return None
    found = EnvDefault(default.value, variable.value)
    if cast is None or default.value is None:
        return found
    return _cast(found, cast)


def _cast(value: EnvDefault, cast: Callable[[object], object]) -> EnvDefault:
    try:
        return EnvDefault(cast(value.value), value.variable)
    except (TypeError, ValueError):
        return value
