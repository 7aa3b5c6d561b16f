"""SCL-21 Put record IDs in jobs instead of copies (EVT-20): model-typed-job-parameter.

A job whose parameter is typed as a model makes every caller enqueue a copy of the row,
which goes stale while the job waits. Docs: docs/rules/SCL-21.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding


class ModelTypedJobParameter(RuleChecks):
    rule = "SCL-21"

    @check("model-typed-job-parameter")
    def model_typed_job_parameter(self) -> Iterator[Finding]:
        for job in self.project.jobs:
            found = self.project.functions.get(job.task.function or "")
            if found is None:
                continue
            # The function's own file: an arq job is registered in one module (its
            # WorkerSettings) and defined in another.
            defined_in, function = found
            for param in function.params:
                if param.annotation and self.project.is_model(param.annotation):
                    short = param.annotation.rsplit(".", 1)[-1]
                    yield self.finding(
                        "model-typed-job-parameter",
                        defined_in.path,
                        param.loc,
                        f"job '{job.task.name}' takes '{param.name}: {short}', a model "
                        f"instance: callers must enqueue a copy of the row; take "
                        f"'{param.name}_id' and load the {short} inside the job",
                    )
