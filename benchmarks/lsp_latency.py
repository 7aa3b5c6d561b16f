"""Latency of ``jobcheck lsp``, driven over stdio like an editor drives it.

1. Typing: a generated 2,000-line Celery module is opened; then one-character edits
   (a digit of a time limit, a letter in a docstring) are sent one at a time, and the time
   from the ``didChange`` notification to the ``publishDiagnostics`` for that version is
   measured. Target: median under 150 ms.
2. Project refresh: examples/shop with its tasks, views and settings modules open; a
   line ``CELERY_TASK_TIME_LIMIT = 300`` is added to (then removed from) the unsaved
   settings buffer, and the time until ``orders/tasks.py``'s diagnostics change is
   measured. Target: under 1 s.
3. Large documents: a module of N Celery tasks (``from celery import shared_task`` and N
   three-line tasks) is opened, then one character of it is changed; the time from
   ``didOpen`` (and from the ``didChange``) to the ``publishDiagnostics`` of that version
   and the server's peak memory (VmHWM) are printed. Target: under 2 s for 5,000 tasks.

Usage: python benchmarks/lsp_latency.py [--edits 60] [--lines 2000] [--tasks 500,2000,5000]
(``--only large`` runs the third part alone)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.generate_module import generate_module  # noqa: E402

SHOP = HERE.parent / "examples" / "shop"


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("jobcheck-benchmark", "1")
        self.published: dict[str, list[tuple[float, int | None, list]]] = {}
        self.events: dict[str, asyncio.Event] = {}
        self.runs: list[str] = []

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def publish(params: types.PublishDiagnosticsParams) -> None:
            entry = (time.perf_counter(), params.version, list(params.diagnostics))
            self.published.setdefault(params.uri, []).append(entry)
            self.event(params.uri).set()

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def log_message(params: types.LogMessageParams) -> None:
            if params.type in (types.MessageType.Error, types.MessageType.Warning):
                print(f"  server: {params.message}", file=sys.stderr)
            elif params.message.startswith("jobcheck: run "):
                self.runs.append(params.message)

    def event(self, uri: str) -> asyncio.Event:
        return self.events.setdefault(uri, asyncio.Event())

    async def wait_for(self, uri: str, accept, timeout: float = 60.0, since: int = 0) -> float:  # type: ignore[no-untyped-def]
        """When the first publication for ``uri`` (from the ``since``-th on) that
        ``accept`` takes arrived."""
        deadline = time.perf_counter() + timeout
        seen = since
        while True:
            entries = self.published.get(uri, [])
            for stamp, version, diagnostics in entries[seen:]:
                if accept(version, diagnostics):
                    return stamp
            seen = len(entries)
            self.event(uri).clear()
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise TimeoutError(uri)
            await asyncio.wait_for(self.event(uri).wait(), remaining)


async def start(root: Path) -> Client:
    client = Client()
    await client.start_io(sys.executable, "-m", "jobcheck", "lsp")
    await client.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                general=types.GeneralClientCapabilities(
                    position_encodings=[types.PositionEncodingKind.Utf16]
                )
            ),
            root_uri=root.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name=root.name)],
            initialization_options={"logTimings": True},
        )
    )
    client.initialized(types.InitializedParams())
    return client


def open_document(client: Client, path: Path, text: str) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=uri, language_id="python", version=1, text=text
            )
        )
    )
    return uri


def change(client: Client, uri: str, version: int, line: int, column: int, old: str, new: str):  # type: ignore[no-untyped-def]
    """Replace ``old`` (on one line) at ``line``:``column`` with ``new``."""
    start = types.Position(line=line, character=column)
    end = types.Position(line=line, character=column + len(old))
    replace(client, uri, version, start, end, new)


def replace(  # type: ignore[no-untyped-def]
    client: Client, uri: str, version: int, start: types.Position, end: types.Position, text: str
):
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=start, end=end), text=text
                )
            ],
        )
    )


async def typing_latency(edits: int, lines: int) -> list[float]:
    folder = Path(tempfile.mkdtemp(prefix="jobcheck-bench-"))
    try:
        (folder / "pyproject.toml").write_text("[tool.jobcheck]\n")
        (folder / "shop").mkdir()
        (folder / "shop" / "__init__.py").write_text("")
        source = generate_module(lines)
        path = folder / "shop" / "tasks.py"
        path.write_text(source)
        client = await start(folder)
        uri = open_document(client, path, source)
        started = time.perf_counter()
        await client.wait_for(uri, lambda version, _: version == 1, timeout=300)
        print(f"  open and first diagnostics: {time.perf_counter() - started:.2f} s")
        text_lines = source.splitlines()
        digits = [
            (i, line.index("time_limit=") + len("time_limit="))
            for i, line in enumerate(text_lines)
            if "time_limit=" in line
        ]
        # Inside one-line docstrings, before the closing quotes.
        docstrings = [
            (i, len(line) - 3)
            for i, line in enumerate(text_lines)
            if line.strip().startswith('"""') and line.endswith('"""') and len(line.strip()) > 6
        ]
        rng = random.Random(7)
        timings = []
        version = 1
        for index in range(edits):
            if index % 2 == 0:
                line, column = rng.choice(digits)
                old = text_lines[line][column]
                new = "7" if old != "7" else "8"
            else:
                line, _ = rng.choice(docstrings)
                column = len(text_lines[line]) - 3
                old, new = "", "x"
            text_lines[line] = (
                text_lines[line][:column] + new + text_lines[line][column + len(old) :]
            )
            version += 1
            sent = time.perf_counter()
            change(client, uri, version, line, column, old, new)
            arrived = await client.wait_for(uri, lambda v, _, want=version: v == want)
            timings.append(arrived - sent)
            await asyncio.sleep(0.05)  # a typist's pause; lets the server go idle
        print("  server's own timings (ms) of the last runs:")
        for line in client.runs[-3:]:
            print("   ", line.removeprefix("jobcheck: "))
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        return timings
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def refresh_latency(rounds: int) -> list[float]:
    folder = Path(tempfile.mkdtemp(prefix="jobcheck-shop-"))
    try:
        root = folder / "shop"
        shutil.copytree(SHOP, root)
        client = await start(root)
        tasks = root / "orders" / "tasks.py"
        settings = root / "shop" / "settings.py"
        tasks_uri = open_document(client, tasks, tasks.read_text())
        open_document(
            client, root / "orders" / "views.py", (root / "orders" / "views.py").read_text()
        )
        settings_text = settings.read_text()
        settings_uri = open_document(client, settings, settings_text)
        await client.wait_for(tasks_uri, lambda v, d: v == 1 and d)
        await client.wait_for(settings_uri, lambda v, _: v == 1)
        line = len(settings_text.splitlines())
        addition = "CELERY_TASK_TIME_LIMIT = 300\n"
        timings = []
        version = 1
        for index in range(rounds):
            adding = index % 2 == 0
            before = len(client.published.get(tasks_uri, []))
            version += 1
            sent = time.perf_counter()
            where = types.Position(line=line, character=0)
            if adding:
                replace(client, settings_uri, version, where, where, addition)
            else:
                after = types.Position(line=line + 1, character=0)
                replace(client, settings_uri, version, where, after, "")
            wanted = (
                (lambda d: not any("missing-time-limit" in str(x.code) for x in d))
                if adding
                else (lambda d: any("missing-time-limit" in str(x.code) for x in d))
            )
            arrived = await client.wait_for(tasks_uri, lambda _, d, w=wanted: w(d), since=before)
            timings.append(arrived - sent)
            await asyncio.sleep(0.1)
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        return timings
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def many_tasks(count: int) -> str:
    """A module of ``count`` Celery tasks (the shape of tests/test_lsp_hostile.py's)."""
    tasks = "".join(f"\n@shared_task\ndef t_{i}(x):\n    return x\n" for i in range(count))
    return "from celery import shared_task\n" + tasks


def peak_memory_mib(pid: int) -> float | None:
    """The resident set's high-water mark of process ``pid`` (Linux only)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


async def large_document(count: int) -> tuple[float, float, float | None]:
    """Seconds from didOpen to diagnostics, from a one-character didChange to
    diagnostics, and the server's peak memory in MiB."""
    folder = Path(tempfile.mkdtemp(prefix="jobcheck-large-"))
    try:
        (folder / "pyproject.toml").write_text("[tool.jobcheck]\n")
        path = folder / "tasks.py"
        source = many_tasks(count)
        path.write_text("")
        client = await start(folder)
        sent = time.perf_counter()
        uri = open_document(client, path, source)
        opened = await client.wait_for(uri, lambda v, d: v == 1 and d, timeout=600) - sent
        line = source.count("\n") - 1  # the last task's ``return x``
        sent = time.perf_counter()
        change(client, uri, 2, line, len("    return "), "x", "y")
        changed = await client.wait_for(uri, lambda v, _: v == 2, timeout=600) - sent
        server = client._server  # the subprocess pygls started
        memory = peak_memory_mib(server.pid) if server is not None else None
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        return opened, changed, memory
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def summary(label: str, timings: list[float]) -> None:
    ordered = sorted(timings)
    p90 = ordered[max(0, round(0.9 * len(ordered)) - 1)]
    print(
        f"{label}: n={len(ordered)} median {statistics.median(ordered) * 1000:.0f} ms, "
        f"p90 {p90 * 1000:.0f} ms, min {ordered[0] * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edits", type=int, default=60)
    parser.add_argument("--lines", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--tasks", default="500,2000,5000", help="sizes of the large documents")
    parser.add_argument("--only", choices=["large"], help="run one part only")
    arguments = parser.parse_args()
    print(f"load average before: {os.getloadavg()[0]:.2f} (cores: {os.cpu_count()})")
    if arguments.only != "large":
        typing_and_refresh(arguments)
    print("large documents (N Celery tasks):")
    for count in (int(n) for n in arguments.tasks.split(",") if n):
        opened, changed, memory = asyncio.run(large_document(count))
        peak = f"{memory:.0f} MiB" if memory is not None else "unknown"
        print(f"  {count} tasks: open {opened:.2f} s, change {changed:.2f} s, peak memory {peak}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


def typing_and_refresh(arguments: argparse.Namespace) -> None:
    print(f"typing into a {arguments.lines}-line Celery module:")
    summary(
        "  change -> diagnostics", asyncio.run(typing_latency(arguments.edits, arguments.lines))
    )
    print("editing the settings module of examples/shop (unsaved):")
    summary(
        "  settings change -> tasks.py diagnostics", asyncio.run(refresh_latency(arguments.rounds))
    )


if __name__ == "__main__":
    main()
