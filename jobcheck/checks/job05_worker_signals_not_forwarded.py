"""JOB-05 A deploy lets running jobs finish: worker-signals-not-forwarded.

A worker started by a shell script without ``exec`` runs as the script's child: when a
container is stopped (``docker stop``, a Kubernetes rollout, supervisord) the stop signal
goes to the script's shell, which does not pass it on. The worker never starts its
graceful shutdown (stop taking jobs, finish the running ones) and is killed mid-job when
the grace period ends. Docs: docs/rules/JOB-05.md.

Judged only for scripts a container or supervisord runs (a Dockerfile, a compose
service, a Kubernetes workload or Helm values, a fly.toml process, a supervisord program
without ``stopasgroup``): Heroku signals every process of a dyno and systemd every
process of a unit, so a script a Procfile or a unit runs is left alone, and so is one
nothing in sight runs. ``sh -c "..."`` strings are left alone too: whether the shell
replaces itself with their last command depends on the shell and its version.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.facts import FileFacts, Loc, ProcessDecl
from jobcheck.facts.values import string, truthy
from jobcheck.findings import Finding, Fix, TextEdit
from jobcheck.project.test_code import is_test_code
from jobcheck.project.workers import started_workers
from jobcheck.registry import semantics

# Deployment files whose stop signal reaches only the process they started.
SIGNALLED_ALONE = frozenset({"dockerfile", "compose", "workload", "values", "fly"})
# ``exec`` at the start of the command or of a part of a list (``cd /app && exec ...``),
# after variable assignments.
_EXEC = re.compile(r"(?:^|&&|\|\||;)\s*(?:[A-Za-z_]\w*=\S*\s+)*exec\s")
_ASSIGNMENTS = re.compile(r"(?:[A-Za-z_]\w*=\S*\s+)*")
_LIST = re.compile(r"&&|\|\||;|\|")


class WorkerSignalsNotForwarded(RuleChecks):
    rule = "JOB-05"

    @check("worker-signals-not-forwarded")
    def worker_signals_not_forwarded(self) -> Iterator[Finding]:
        runners = self._runners()
        for f in self.project.files:
            if is_test_code(f):
                continue
            for process in f.processes:
                if process.source != "script" or not _keeps_the_shell(process):
                    continue
                framework = worker_of(process.command)
                if framework is None:
                    continue
                runner = runners.get(process.name)
                if runner is None:
                    continue
                yield self._finding(f, process, framework, runner)

    def _runners(self) -> dict[str, str]:
        """Script file name -> the first deployment file that runs it and whose stop
        signal reaches only the process it started (``compose.yml:60``)."""
        found: dict[str, str] = {}
        for f in self.project.files:
            for process in f.processes:
                if process.source == "script" or not _signalled_alone(process):
                    continue
                for word in process.command.replace("[", " ").replace('"', " ").split():
                    name = word.rsplit("/", 1)[-1]
                    if name.endswith((".sh", ".bash")) or "entrypoint" in name:
                        found.setdefault(name, f"{f.path}:{process.loc.line}")
        return found

    def _finding(self, f: FileFacts, process: ProcessDecl, framework: str, runner: str) -> Finding:
        title = semantics(framework).title
        return self.finding(
            "worker-signals-not-forwarded",
            f.path,
            process.loc,
            f"script '{process.name}' starts the {title} worker without exec "
            f"('{_short(process.command)}') and {runner} runs it: the shell stays the "
            "process the platform signals, and it does not pass the stop signal on, so the "
            "worker never begins its graceful shutdown (stop taking jobs, finish the "
            "running ones) and is killed mid-job when the grace period ends; start it "
            "with 'exec', so the worker replaces the shell",
            fix=self._exec_fix(f.path, process),
        )

    def _exec_fix(self, path: str, process: ProcessDecl) -> Fix | None:
        """``exec`` before the command, when the line starts with it (after variable
        assignments). Unsafe: whatever the script does after the worker exits no longer
        runs."""
        if process.loc.line != process.loc.end_line:
            return None
        text = self.project.source_of(path)
        lines = text.splitlines() if text is not None else []
        if len(lines) < process.loc.line:
            return None
        line = lines[process.loc.line - 1]
        indent = len(line) - len(line.lstrip())
        start = indent + _ASSIGNMENTS.match(line[indent:]).end()  # type: ignore[union-attr]
        if _LIST.search(line) or worker_of(line[start:]) is None:
            return None  # ``cd /app && celery ...``: where exec goes is for a person
        # ``X=1 exec cmd`` may not hand X to cmd in every shell; ``exec env X=1 cmd`` does.
        inserted = "exec env " if start > indent else "exec "
        at = Loc(process.loc.line, indent + 1, process.loc.line, indent + 1)
        return Fix("Start the worker with exec", (TextEdit(at, inserted),), "unsafe")


def _keeps_the_shell(process: ProcessDecl) -> bool:
    """The script's shell waits for the command: no ``exec`` before it, not sent to the
    background, and no ``trap`` in the script (which may forward the signal)."""
    command = process.command.rstrip()
    if _EXEC.search(command) or process.option("trap") is not None:
        return False
    return not (command.endswith("&") and not command.endswith("&&"))


def worker_of(command: str) -> str | None:
    """The framework whose worker ``command`` starts, if it starts one."""
    return next((framework for framework, _ in started_workers(command)), None)


def _signalled_alone(process: ProcessDecl) -> bool:
    if process.source == "supervisord":
        grouped = string(process.option("stopasgroup")) or ""
        return truthy(process.option("stopasgroup")) is not True and grouped.lower() != "true"
    return process.source in SIGNALLED_ALONE


def _short(command: str, limit: int = 80) -> str:
    return command if len(command) <= limit else command[: limit - 3] + "..."
