"""SCL-18 ``http-call-without-timeout``: pass a timeout. Unsafe: a call slower than the
timeout now fails instead of waiting.

requests takes ``(connect, read)`` (requests/adapters.py ``HTTPAdapter.send``); 3.05 s
to connect is the value requests' documentation suggests (a little over a multiple of
3 s, TCP's retransmission window). httpx reads a tuple as (connect, read, write, pool)
and leaves the missing ones unlimited (httpx/_config.py ``Timeout.__init__``), so it
gets ``httpx.Timeout(30, connect=3.05)``; urllib and urllib3 take one number.
"""

from __future__ import annotations

import libcst as cst

from jobcheck.findings import Finding, Fix, TextEdit
from jobcheck.fixes import syntax
from jobcheck.fixes.project import ProjectInfo
from jobcheck.fixes.source import Source

RULE, CHECK = "SCL-18", "http-call-without-timeout"

CONNECT_SECONDS = "3.05"
READ_SECONDS = "30"
# urllib.request.urlopen(url, data=None, timeout=...): the third positional parameter.
URLOPEN_TIMEOUT_POSITION = 2


def fix(finding: Finding, source: Source, project: ProjectInfo) -> Fix | None:
    http = project.http_call_at(finding.path, finding.loc)
    call = source.at(finding.loc, cst.Call)
    if http is None or call is None or http.has_timeout or syntax.has_splat(call):
        return None
    library = http.func.split(".")[0]
    value, shown, extra = _timeout(library, source)
    if value is None:
        return None
    positional = syntax.positional(call)
    if library == "urllib" and len(positional) > URLOPEN_TIMEOUT_POSITION:
        slot = positional[URLOPEN_TIMEOUT_POSITION]
        new = call.with_changes(
            args=[a.with_changes(value=value) if a is slot else a for a in call.args]
        )
    else:
        new = syntax.set_keyword(call, "timeout", value, source.module)
    edit = source.replace(call, new) if new is not None else None
    if edit is None:
        return None
    return Fix(f"Pass timeout={shown}", (edit, *extra), "unsafe")


def _timeout(
    library: str, source: Source
) -> tuple[cst.BaseExpression | None, str, tuple[TextEdit, ...]]:
    """The timeout to pass, as code, and the import it needs, if any."""
    extra: tuple[TextEdit, ...] = ()
    if library == "requests":
        text = f"({CONNECT_SECONDS}, {READ_SECONDS})"
    elif library == "httpx":
        spelled = syntax.import_edit(source, "httpx", "Timeout")
        if spelled is None:
            return None, "", ()
        name, import_edit = spelled
        extra = (import_edit,) if import_edit is not None else ()
        text = f"{name}({READ_SECONDS}, connect={CONNECT_SECONDS})"
    elif library in ("urllib", "urllib3"):
        text = READ_SECONDS
    else:
        return None, "", ()
    return syntax.expression(text), text, extra
