"""Linear time on any input: a pull request controls every byte jobcheck reads, so no
pattern, template, nesting or size in it may make a run take minutes or hours.

Each case runs jobcheck as its own process (``tests/hostile_helpers.py``) beside an
ordinary job whose finding must survive, with a time limit far above what the fixed code
needs (well under a second of work) and far below what the quadratic or exponential
code needed (minutes to hours): a hang shows up as a failed test, not a stuck suite.
"""

from __future__ import annotations

import fnmatch
import os
import random
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from tests.hostile_helpers import JOB, age, run_jobcheck, write

SURVIVOR = ("tasks.py", "missing-time-limit", 4)
TIMEOUT = 60


def _check(root: Path, *extra: str, env: dict[str, str] | None = None) -> tuple[list, list]:
    outcome = run_jobcheck(
        "check", ".", "--no-cache", "--format", "json", *extra, cwd=root, env=env, timeout=TIMEOUT
    )
    assert outcome.returncode in (0, 1), outcome.stderr
    return outcome.checks(), outcome.report["errors"]


# -- .gitignore and exclude globs --------------------------------------------------------


def test_a_gitignore_line_of_stars_does_not_backtrack(tmp_path: Path) -> None:
    """27 bytes of ``.gitignore`` against one 45-character name: Python's ``re`` took 69 s
    with ten stars a side, and never finished with twelve."""
    root = tmp_path / "project"
    hostile = "a" * 42 + ".py"
    write(root, {"tasks.py": JOB, hostile: JOB, ".gitignore": "*" * 12 + "q" + "*" * 12 + "z\n"})
    checks, errors = _check(root)
    assert errors == []
    assert SURVIVOR in checks
    assert (hostile, "missing-time-limit", 4) in checks  # not ignored: no q, no z


def test_a_megabyte_of_hostile_gitignore_lines_is_read_in_seconds(tmp_path: Path) -> None:
    """Many long lines of ``*?`` (each a run of wildcards that backtracks), and lines
    too long to be patterns (pathspec's translation of one is quadratic in its length)."""
    root = tmp_path / "project"
    lines = ["*?" * 256] * 1500 + ["*" * 20_000 + "q"] * 20 + ["[" * 5000 + "a"] * 20
    write(
        root,
        {
            "tasks.py": JOB,
            "sub/" + "b" * 200 + ".py": JOB,
            ".gitignore": "\n".join(lines) + "\n",
            "sub/.gitignore": "\n".join(reversed(lines)) + "\n",
        },
    )
    checks, errors = _check(root)
    assert errors == []
    assert SURVIVOR in checks
    # "*?" repeated needs 512 characters: the 204-character name is not ignored.
    assert ("b" * 200 + ".py", "missing-time-limit", 4) in checks


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero")
def test_a_gitignore_that_is_no_regular_file_is_empty(tmp_path: Path) -> None:
    """A ``.gitignore`` linked to ``/dev/zero`` (read whole: memory runs out), a FIFO (an
    open blocks forever) or one over the size cap is read as empty."""
    root = tmp_path / "project"
    write(
        root,
        {
            "tasks.py": JOB,
            "zero/jobs.py": JOB,
            "fifo/jobs.py": JOB,
            "large/jobs.py": JOB,
            "large/.gitignore": "*.py\n" + "#" * (2 << 20) + "\n",
        },
    )
    (root / "zero" / ".gitignore").symlink_to("/dev/zero")
    os.mkfifo(root / "fifo" / ".gitignore")
    checks, errors = _check(root)
    assert errors == []
    assert sorted(path for path, check, _ in checks if check == "missing-time-limit") == [
        "jobs.py",
        "jobs.py",
        "jobs.py",
        "tasks.py",
    ]


def _random_text(rng: random.Random, alphabet: list[str], longest: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(1, longest)))


GITIGNORE_ALPHABET = [
    *"ab/*?!#. -\\[]é",
    "**/",
    "/**",
    "**",
    "[a-b]",
    "[!a]",
    "[]]",
    "[z-a]",
    "[!]",
    "[[:alpha:]]",
    "\\ ",
]
PATHS = [
    *("a", "b", "ab", "a/b", "b/a", "a/b/c", "aa/bb/", "a/", "b/", "ab/ba", "c", "é"),
    *("a.b", "a b", "[a]", "*", "x/a/y", "a/a", "a/a/", "a/b/", "b/b/b/", "!a", "#a"),
    *(" a", "a ", "a\udcff/b", "l", ":", "[", "]"),
]


def test_gitignore_matching_is_pathspecs() -> None:
    """The linear matcher decides as pathspec's own (backtracking) one on random
    patterns, negations, folder patterns, sets and POSIX-looking sets included."""
    import pathspec

    from jobcheck.discovery import _GitIgnore

    rng = random.Random(25)
    compared = 0
    for _ in range(1500):
        lines = [_random_text(rng, GITIGNORE_ALPHABET, 5) for _ in range(rng.randint(1, 5))]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = pathspec.GitIgnoreSpec.from_lines(
                [line for line in lines if _pathspec_reads(line)], backend="simple"
            )
        ours = _GitIgnore(lines)  # a line pathspec refuses ("[z-a]") is skipped
        for path in PATHS:
            assert ours.match_file(path) == expected.match_file(path), (lines, path)
            compared += 1
    assert compared == 1500 * len(PATHS)


def _pathspec_reads(line: str) -> bool:
    import pathspec

    try:
        pathspec.GitIgnoreSpec.from_lines([line], backend="simple")
    except (re.error, ValueError):  # a reversed range; a trailing backslash
        return False
    return True


def test_a_gitignore_line_pathspec_refuses_is_skipped(tmp_path: Path) -> None:
    """``[z-a]`` (a reversed range) made pathspec raise for the whole file: no report."""
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, "skipped.py": JOB, ".gitignore": "[z-a]\nx\\\nskipped.py\n"})
    checks, errors = _check(root)
    assert errors == []
    assert [path for path, _, _ in checks] == ["tasks.py"]


GLOB_ALPHABET = [*"ab/*?!\\[].# é-^&~|(){$+\n", "[a-b]", "[!a]", "[z-a]", "[!]", "[[:alpha:]]"]


def test_exclude_globs_match_as_fnmatch_does() -> None:
    from jobcheck.discovery import _glob_regex, _RegexSet

    rng = random.Random(25)
    for _ in range(3000):
        glob = _random_text(rng, GLOB_ALPHABET, 6)
        regexes = _RegexSet([_glob_regex(glob)], whole=True)
        for path in PATHS:
            assert regexes.any(path) == fnmatch.fnmatchcase(path, glob), (glob, path)


def test_hostile_exclude_globs_are_matched_in_linear_time(tmp_path: Path) -> None:
    """``exclude`` globs come from the project's own pyproject.toml too."""
    root = tmp_path / "project"
    globs = ", ".join(f'"{"*a" * 200}{n}b"' for n in range(300))
    write(
        root,
        {
            "tasks.py": JOB,
            "a" * 200 + ".py": JOB,
            "pyproject.toml": f'[tool.jobcheck]\nexclude = [{globs}, "*{"?" * 3000}"]\n',
        },
    )
    checks, errors = _check(root)
    assert errors == []
    assert SURVIVOR in checks
    assert ("a" * 200 + ".py", "missing-time-limit", 4) in checks


# -- deep trees ----------------------------------------------------------------------------


def test_1500_nested_packages_are_walked_and_named(tmp_path: Path) -> None:
    """Each walk over the tree, and the module name of a file 1,500 packages deep, ran
    once per level of a recursion: Python's limit ended the run with no report."""
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB})
    folders = [root]
    for _ in range(1500):
        folders.append(folders[-1] / "p")
        folders[-1].mkdir()
        (folders[-1] / "__init__.py").write_text("")
    (folders[-1] / "deep.py").write_text(JOB)
    try:
        checks, errors = _check(root)
    finally:
        _remove_bottom_up(folders[1:])
    assert errors == []
    assert SURVIVOR in checks
    assert ("deep.py", "missing-time-limit", 4) in checks


def _remove_bottom_up(folders: list[Path]) -> None:
    """Remove nested folders deepest first: pytest's clean-up of its temporary folders
    (``shutil.rmtree``) recurses once per level, as the walk did."""
    for folder in reversed(folders):
        for entry in folder.iterdir():
            if not entry.is_dir() or entry.is_symlink():
                entry.unlink()
        folder.rmdir()


def test_module_names_of_deep_packages() -> None:
    from jobcheck.discovery import clear_caches, module_name

    clear_caches()
    assert module_name("jobcheck/discovery/docs.py") == ("jobcheck.discovery.docs", False)
    assert module_name("jobcheck/discovery/__init__.py") == ("jobcheck.discovery", True)
    assert module_name("tests/hostile_helpers.py") == ("tests.hostile_helpers", False)


# -- templates ---------------------------------------------------------------------------


def test_erb_tags_that_never_close_are_stripped_in_linear_time(tmp_path: Path) -> None:
    """A megabyte of ``<%`` in a Sidekiq YAML file: the lazy regular expression read the
    rest of the file from each one (40 KB took 12 s; 1 MB, hours)."""
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, "config/sidekiq.yml": ":concurrency: 5\n# " + "<%" * 500_000})
    checks, _ = _check(root)
    assert SURVIVOR in checks


def test_helm_templates_that_never_close_are_stripped_in_linear_time(tmp_path: Path) -> None:
    root = tmp_path / "project"
    manifest = (
        "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: x\nspec:\n"
        '  schedule: "*/5 * * * *"\n# ' + "{{" * 500_000 + "\n"
    )
    write(root, {"tasks.py": JOB, "deploy/cronjob.yaml": manifest})
    checks, _ = _check(root)
    assert SURVIVOR in checks


_OLD_ERB = re.compile(r"<%(=|-|#)?(.*?)-?%>", re.DOTALL)
_OLD_HELM = re.compile(r"\{\{.*?\}\}", re.DOTALL)


def _old_strip_erb(text: str) -> tuple[str, list[str]]:
    erb: list[str] = []

    def replace(match: re.Match[str]) -> str:
        kind, code = match.group(1), match.group(2)
        newlines = "\n" * match.group(0).count("\n")
        if kind == "=":
            erb.append(" ".join(code.split()))
            return f"__jobcheck_erb_{len(erb) - 1}__{newlines}"
        return newlines

    return _OLD_ERB.sub(replace, text), erb


def test_template_stripping_reads_tags_as_before() -> None:
    """The one-pass scanners cut the same tags the regular expressions did."""
    from jobcheck.frameworks.kubernetes import manifests
    from jobcheck.frameworks.sidekiq.config import strip_erb

    rng = random.Random(25)
    alphabet = [*"<%>=-# a\n{}", "<%", "%>", "{{", "}}", "<%=", "-%>"]
    for _ in range(20_000):
        text = _random_text(rng, alphabet, 14)
        assert strip_erb(text) == _old_strip_erb(text), text
        marked = _OLD_HELM.sub(lambda m: manifests._MARK + "\n" * m.group(0).count("\n"), text)
        assert manifests._marked(text) == marked, text


# -- other readers ---------------------------------------------------------------------------

CONTINUED = "\\\n" * 2_000_000  # 4 MB of empty continuation lines (with --max-file-size)
READERS: dict[str, dict[str, str]] = {
    # Each continuation line copied the whole command line read so far: 11 s for a
    # megabyte, three minutes for four.
    "systemd": {
        "deploy/worker.service": f"[Service]\nExecStart=/usr/bin/celery \\\n{CONTINUED}x\n"
    },
    "script": {"bin/run.sh": f"#!/bin/sh\nexec celery -A app worker \\\n{CONTINUED}x\n"},
    "supervisord": {
        "deploy/supervisord.conf": "[program:worker]\ncommand=celery -A app worker\n"
        + "  -Q a\n" * 100_000
    },
    # The line of each process was looked up by reading the file again.
    "fly": {
        "fly.toml": "[processes]\n"
        + "".join(f'p{n} = "celery -A app worker"\n' for n in range(30_000))
    },
    # The Go duration was searched for a unit from each digit.
    "go duration": {
        "deploy/cronjob.yaml": "apiVersion: batch/v1\nkind: CronJob\nmetadata:\n  name: x\n"
        'spec:\n  schedule: "@every ' + "1" * 900_000 + '"\n'
    },
}


@pytest.mark.parametrize("kind", sorted(READERS))
def test_readers_of_long_files_take_linear_time(tmp_path: Path, kind: str) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, **READERS[kind]})
    checks, errors = _check(root, "--max-file-size", "8MiB")
    assert SURVIVOR in checks
    assert errors == []


# -- per-file time budget ----------------------------------------------------------------------


# Tasks of a module that takes about two seconds to read (under the 1 MiB file-size
# limit): twice the budget the tests below give it, whatever the machine's load.
SLOW_TASKS = 16_000


def _slow_module(tasks: int = SLOW_TASKS) -> str:
    """A module that is merely slow to read (seconds): many small tasks."""
    body = "".join(
        f"\n\n@shared_task(time_limit=9)\ndef t{n}(x):\n    return x\n" for n in range(tasks)
    )
    return "from celery import shared_task\n" + body


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_past_the_time_budget_is_an_error_and_the_rest_is_checked(
    tmp_path: Path, jobs: str
) -> None:
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, "slow.py": _slow_module(), "also_slow.py": _slow_module()})
    budget = {"JOBCHECK_FILE_TIME_BUDGET": "1"}
    checks, errors = _check(root, "--jobs", jobs, env=budget)
    assert SURVIVOR in checks
    assert sorted(e["path"] for e in errors) == ["also_slow.py", "slow.py"]
    assert all("per-file time budget" in e["message"] for e in errors)


def test_a_file_stopped_at_the_budget_is_not_cached(tmp_path: Path) -> None:
    """A busier machine may take longer: the next run, with time enough, reads it (the
    facts are not cached, and the report is not stored to be replayed)."""
    root = tmp_path / "project"
    write(root, {"tasks.py": JOB, "slow.py": _slow_module().replace("time_limit=9", "")})
    age(root)
    cache = ("--format", "json", "--cache-dir", str(tmp_path / "cache"))
    budget = {"JOBCHECK_FILE_TIME_BUDGET": "1"}
    first = run_jobcheck("check", ".", *cache, cwd=root, env=budget, timeout=TIMEOUT)
    assert [e["path"] for e in first.report["errors"]] == ["slow.py"]
    second = run_jobcheck("check", ".", *cache, cwd=root, timeout=TIMEOUT)
    assert second.report["errors"] == []
    assert ("slow.py", "missing-time-limit", 4) in second.checks()


def test_a_script_run_by_many_crontab_lines_is_read_a_bounded_number_of_times(
    tmp_path: Path,
) -> None:
    """Each ``$@`` of a script takes every argument of the line that runs it, and each
    crontab line read every command of the script: 60 lines of 2,000 arguments running a
    script of 300 lines of 200 ``$@`` each took minutes."""
    arguments = " ".join(["--flag"] * 2000)
    script = "".join(f"python manage.py job{n} {'$@ ' * 200}\n" for n in range(300))
    root = tmp_path / "project"
    write(
        root,
        {
            "tasks.py": JOB,
            "crontab": f"*/5 * * * * /app/bin/run.sh {arguments}\n" * 60,
            "bin/run.sh": "#!/bin/sh\n" + script,
        },
    )
    checks, errors = _check(root)
    assert SURVIVOR in checks
    assert errors == []


def test_the_worker_index_answers_as_each_worker_does() -> None:
    """``consumers`` reads an index (a check asks about every queue, and a Procfile can
    start thousands of workers): the same workers, in the same order, as asking each."""
    from jobcheck.project.workers import Worker, Workers, _consumes, consumers

    rng = random.Random(25)
    queues = ["a", "b", "c", "*", "@configured", "!a", "!b", "!!a"]
    for _ in range(2000):
        found = [
            Worker(
                rng.choice(["celery", "rq"]), tuple(rng.sample(queues, rng.randint(0, 3))), f"{n}"
            )
            for n in range(rng.randint(0, 6))
        ]
        indexed = Workers(found)
        for framework in ("celery", "rq"):
            for queue in ("a", "b", "c", "*", "@configured", "!a", "x"):
                for configured in (None, frozenset(), frozenset({"a"}), frozenset({"c", "x"})):
                    expected = [
                        w.where
                        for w in found
                        if w.framework == framework and _consumes(w, queue, configured)
                    ]
                    assert consumers(indexed, framework, queue, configured) == expected


# -- prefilter patterns and masking, run in the parent (no per-file budget there) -----------


@pytest.mark.parametrize(
    "name, text",
    [
        ("config/schedule.yml", "\n" * 500_000 + "  every: 5\n"),
        ("config/sidekiq.yml", " \n" * 250_000 + ":queues:\n"),
        ("app/jobs/x.rb", "\t\n" * 250_000 + "def perform\n"),
    ],
    ids=["blank-lines", "space-lines", "tab-lines"],
)
def test_prefilter_patterns_take_linear_time(tmp_path: Path, name: str, text: str) -> None:
    """``(?m)^\\s*...`` rescans every following blank line from each line's start."""
    root = tmp_path / "project"
    write(root, {name: text, "tasks.py": JOB})
    outcome = run_jobcheck("check", ".", "--no-cache", "--format", "json", cwd=root, timeout=60)
    assert outcome.returncode == 1, outcome.stderr
    assert SURVIVOR in outcome.checks()


def test_masking_takes_linear_time() -> None:
    """Each ``scheme://`` of a line used to rescan the rest of it for a password."""
    from jobcheck.vocabulary.credentials import mask

    script = (
        "from jobcheck.vocabulary.credentials import mask\n"
        "for piece in ('a://', 'o.o.://', '----://', 'x:y@a://'):\n"
        "    mask(piece * 50_000)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert mask("redis://:" + "p@" * 20 + "ss@host") == "redis://:****@host"
