"""A project's own job classes: ``queue.enqueue(cls.handle)`` in a classmethod of a base
class enqueues the method of the class it is called on, so each subclass that does its
own work is a job, with its own body (``cls().run()`` runs the subclass's ``run``) and the
queue its class attribute names. The fixture with expectations is
``tests/fixtures/SCL-18/http-call-without-timeout/rq_job_classes``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from jobcheck.catalog import load_catalog
from jobcheck.cli import cli
from jobcheck.config import Options
from jobcheck.engine import RunSettings, Selection, check_paths
from jobcheck.extract import extract_file
from jobcheck.facts.values import Const
from jobcheck.project import Project

CASE = Path(__file__).parent / "fixtures/SCL-18/http-call-without-timeout/rq_job_classes"


def _facts(relative: str):  # type: ignore[no-untyped-def]
    path = CASE / relative
    module = relative.removesuffix(".py").replace("/", ".")
    return extract_file(relative, path.read_bytes(), module, False)


def test_the_enqueued_method_and_the_calls_on_the_object_are_the_class_s() -> None:
    jobs = _facts("app/jobs.py")
    (site,) = jobs.enqueues
    assert (site.target, site.bound_to) == ("app.jobs.BaseJob.handle", "class")
    (call,) = [c for c in jobs.functions["app.jobs.BaseJob.handle"].call_sites if c.on_self]
    assert call.callee == "app.jobs.BaseJob.run"
    assert jobs.aliases["app.jobs.BaseJob.queue_name"] == Const("default")
    # The look-alike's method is called on nothing of a job class.
    assert not any(c.on_self for c in jobs.functions["app.jobs.Unrelated.run"].call_sites)


def test_each_subclass_that_does_its_work_is_a_job_on_its_own_queue() -> None:
    files = [_facts(name) for name in ("app/jobs.py", "app/housekeeping.py", "app/nightly.py")]
    project = Project(files)
    (written,) = [site for f in files for site in f.enqueues]
    targets = [site.target for site in project.bound_sites(written)]
    # Not BaseJob nor PeriodicJob: their run() is left to subclasses.
    assert targets == [
        "app.housekeeping.CleanupJob.handle",
        "app.housekeeping.ReportJob.handle",
        "app.nightly.NightlyCleanup.handle",
    ]
    result = CliRunner().invoke(cli, ["jobs", "--format", "json", str(CASE)])
    assert result.exit_code == 0, result.output
    queues = {
        c["job"]: c["queue"] for c in json.loads(result.output)["jobs"] if c["framework"] == "rq"
    }
    assert queues == {
        "app.housekeeping.CleanupJob.handle": "low",
        "app.housekeeping.ReportJob.handle": "default",  # BaseJob's, inherited
        "app.nightly.NightlyCleanup.handle": "nightly",
    }


def test_one_finding_for_the_code_two_jobs_share() -> None:
    report = _check(CASE)
    (finding,) = [f for f in report.findings if f.rule == "SCL-18"]
    assert finding.path.endswith("app/housekeeping.py")
    assert "in job 'CleanupJob.handle'" in finding.message
    assert finding.message.endswith("(the same code runs for 1 more job)")


def test_subclasses_in_files_no_trigger_keeps_are_read_in_the_second_pass(
    tmp_path: Path,
) -> None:
    """``def run(`` keeps a file for the prefilter; a method of another name does not:
    the subclass's file, and its subclass's in the next round, are read because they
    build on the enqueuing class."""
    (tmp_path / "app").mkdir()
    (tmp_path / "app/__init__.py").write_text("")
    (tmp_path / "app/base.py").write_text(
        "import django_rq\n\n\nclass Job:\n    queue_name = 'default'\n\n"
        "    @classmethod\n    def later(cls):\n"
        "        django_rq.get_queue(cls.queue_name).enqueue(cls.execute, ttl=60)\n\n"
        "    def execute(self):\n        raise NotImplementedError\n"
    )
    (tmp_path / "app/sync.py").write_text(
        "import json\n\nfrom app.base import Job\n\n\nclass Sync(Job):\n"
        "    def execute(self):\n        return json.dumps({})\n"
    )
    (tmp_path / "app/pull.py").write_text(
        "import urllib.request\n\nfrom app.sync import Sync\n\n\nclass Pull(Sync):\n"
        "    def execute(self):\n"
        "        urllib.request.urlopen('https://example.com')\n"
    )
    report = _check(tmp_path)
    (finding,) = [f for f in report.findings if f.rule == "SCL-18"]
    assert finding.path.endswith("app/pull.py") and finding.loc.line == 8
    assert "in job 'Pull.execute'" in finding.message


def _check(root: Path):  # type: ignore[no-untyped-def]
    options = Options(root=str(root))
    selection = Selection.resolve(load_catalog(), options.select, options.ignore)
    return check_paths([str(root)], options, selection, RunSettings(jobs=1, prefilter=True))
