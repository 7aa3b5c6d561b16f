"""Plain, picklable values for the expressions that job configuration is written in.

Extraction turns an option such as ``time_limit=60 * 5``, ``crontab(minute=0)`` or
``{"visibility_timeout": 3600}`` into one of these, so project-wide checks can read it
without the syntax tree.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Const:
    """A literal: int, float, str, bytes, bool or None."""

    value: object


@dataclass(frozen=True, slots=True)
class EnvDefault(Const):
    """The literal default of a setting read from the environment
    (``os.environ.get("TIMEOUT", "600")``): the value wherever ``variable`` is unset."""

    variable: str = ""


def env_note(value: object) -> str:
    """``", the default of $TIMEOUT"`` for an environment read's default, else ``""``
    (for messages that say where a value comes from)."""
    return f", the default of ${value.variable}" if isinstance(value, EnvDefault) else ""


@dataclass(frozen=True, slots=True)
class Ref:
    """A name, resolved through the file's imports to a dotted path where possible."""

    qualname: str


@dataclass(frozen=True, slots=True)
class CallV:
    """A call, with the callee's dotted path (None when it is not a plain name)."""

    func: str | None
    args: tuple[Value, ...] = ()
    kwargs: tuple[tuple[str, Value], ...] = ()

    def kwarg(self, name: str) -> Value | None:
        for key, value in self.kwargs:
            if key == name:
                return value
        return None

    def arg(self, index: int, name: str | None = None) -> Value | None:
        """A positional argument, or the keyword argument that may stand for it."""
        if index < len(self.args):
            return self.args[index]
        return self.kwarg(name) if name else None


@dataclass(frozen=True, slots=True)
class SeqV:
    """A tuple, list or set display."""

    items: tuple[Value, ...]


@dataclass(frozen=True, slots=True)
class DictV:
    """A dict display (``**spread`` entries become ``(None, value)``)."""

    items: tuple[tuple[Value | None, Value], ...]

    def get(self, key: str) -> Value | None:
        for k, v in self.items:
            if isinstance(k, Const) and k.value == key:
                return v
        return None

    def str_keys(self) -> list[str]:
        return [k.value for k, _ in self.items if isinstance(k, Const) and isinstance(k.value, str)]


@dataclass(frozen=True, slots=True)
class Opaque:
    """Anything that cannot be evaluated statically; ``text`` is a short source excerpt."""

    text: str


Value = Const | Ref | CallV | SeqV | DictV | Opaque

UNKNOWN = Opaque("?")

JOIN = "<join>"
"""``CallV(JOIN, parts)``: a string built from parts some of which are names of other
modules' constants (``f"{PREFIX}-high"``, ``"*/" + str(EVERY)``); a part is a string
constant, a name, a ``str(name)`` call or another join. The project model makes it a
string when every part resolves (``Project.value``)."""

CONNECTS = "<connects>"
"""``CallV(CONNECTS, (Const(i),))``: what a decorator factory that connects the function
to the signal in its ``i``-th argument stands for (``def search_receiver(signal, sender):
... signal.connect(wrapped, sender=sender)``), like Django's ``receiver(signal)``."""

TYPE_ALIAS = Opaque("a type alias")
"""What a module-level ``Kind = Literal["a", "b"]`` binds: a type, not a class."""


def number(value: Value | None) -> float | None:
    """The numeric value of a constant, or None."""
    if isinstance(value, Const) and isinstance(value.value, (int, float)):
        if isinstance(value.value, bool):
            return None
        return float(value.value)
    return None


def string(value: Value | None) -> str | None:
    if isinstance(value, Const) and isinstance(value.value, str):
        return value.value
    return None


def is_none(value: Value | None) -> bool:
    return isinstance(value, Const) and value.value is None


def truthy(value: Value | None) -> bool | None:
    """Whether a constant is truthy; None when unknown or absent."""
    if isinstance(value, Const):
        return bool(value.value)
    return None


def is_infinite(value: Value | None) -> bool:
    """``float("inf")``, ``math.inf`` or ``numpy.inf``."""
    if isinstance(value, Const) and isinstance(value.value, float):
        return value.value == float("inf")
    if isinstance(value, Ref):
        return value.qualname in {"math.inf", "numpy.inf", "np.inf"}
    if isinstance(value, CallV) and value.func == "float" and value.args:
        text = string(value.args[0])
        return text is not None and text.strip().lower() in {"inf", "infinity", "+inf"}
    return False


def describe(value: Value | None) -> str:
    """A short human-readable rendering for messages."""
    if value is None:
        return "unset"
    if isinstance(value, Const):
        return repr(value.value)
    if isinstance(value, Ref):
        return value.qualname
    if is_join(value):
        return "f'" + "".join(_join_part(p) for p in value.args) + "'"
    if isinstance(value, CallV):
        return f"{value.func or '...'}(...)"
    if isinstance(value, Opaque):
        return value.text
    return "..."


def _join_part(value: Value) -> str:
    if isinstance(value, Const):
        return str(value.value)
    return "{" + (value.qualname.rsplit(".", 1)[-1] if isinstance(value, Ref) else "...") + "}"


def is_join(value: Value | None) -> bool:
    """A string built from parts (``CallV(JOIN, parts)``)."""
    return isinstance(value, CallV) and value.func == JOIN
