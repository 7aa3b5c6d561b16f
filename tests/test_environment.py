"""Settings read from the environment with a literal default (project/environment.py)."""

from __future__ import annotations

from jobcheck.facts.values import CallV, Const, EnvDefault, Opaque, Ref
from jobcheck.project.environment import env_default

ENV = {"proj.settings.env": "environ.Env"}


def _get(*args: object, **kwargs: object) -> CallV:
    return CallV(
        "os.environ.get",
        tuple(Const(a) for a in args),
        tuple((k, Const(v)) for k, v in kwargs.items()),
    )


def test_stdlib_reads_give_their_default_cast_as_read() -> None:
    assert env_default(_get("LIMIT", "600"), {}) == EnvDefault("600", "LIMIT")
    assert env_default(CallV("int", (_get("LIMIT", "600"),)), {}) == EnvDefault(600, "LIMIT")
    getenv = CallV("os.getenv", (Const("LIMIT"),), (("default", Const("30")),))
    assert env_default(CallV("float", (getenv,)), {}) == EnvDefault(30.0, "LIMIT")


def test_django_environ_and_decouple_reads() -> None:
    read = CallV("proj.settings.env.int", (Const("SOFT"),), (("default", Const(900)),))
    assert env_default(read, ENV) == EnvDefault(900, "SOFT")
    flag = CallV("proj.settings.env.bool", (Const("EAGER"),), (("default", Const("yes")),))
    assert env_default(flag, ENV) == EnvDefault(True, "EAGER")
    decouple = CallV(
        "decouple.config",
        (Const("TIMEOUT"),),
        (("default", Const("45")), ("cast", Ref("int"))),
    )
    assert env_default(decouple, {}) == EnvDefault(45, "TIMEOUT")


def test_reads_without_a_literal_default_stay_unknown() -> None:
    no_default = _get("LIMIT")
    assert env_default(no_default, {}) is no_default
    computed = CallV("os.environ.get", (Const("LIMIT"), Opaque("compute()")))
    assert env_default(computed, {}) is computed
    not_env = CallV("proj.settings.other.int", (Const("X"),), (("default", Const(1)),))
    assert env_default(not_env, ENV) is not_env  # not an environ.Env instance
    unparsable = CallV("int", (_get("LIMIT", "ten"),))
    assert env_default(unparsable, {}) == EnvDefault("ten", "LIMIT")


def test_messages_and_the_job_listing_name_the_variable() -> None:
    from pathlib import Path

    from jobcheck.catalog import load_catalog
    from jobcheck.config import Options
    from jobcheck.engine import RunSettings, Selection, check_paths
    from tests.conftest import FIXTURES

    case = FIXTURES / "SCL-18/soft-limit-not-below-hard/celery_env_defaults"
    options = Options(root=str(case), select=["SCL-18"])
    selection = Selection.resolve(load_catalog(), options.select, options.ignore)
    report = check_paths([str(case)], options, selection, RunSettings(jobs=1))
    by_file = {Path(f.path).name: f.message for f in report.findings}
    assert "900 s (global setting, the default of $SOFT_LIMIT)" in by_file["settings.py"]
    assert "30 s (set on the task, the default of $EXPORT_LIMIT)" in by_file["tasks.py"]
