"""SCL-17 Make every job safe to run twice: scheduled-job-not-idempotent.

A scheduled job that charges or sends with no guard: schedulers fire twice (an overlapping
run, two scheduler instances, a missed tick caught up). Docs: docs/rules/SCL-17.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.checks.scl17_side_effects import SCHEDULED_KINDS, scheduled_functions, verb
from jobcheck.findings import Finding
from jobcheck.project.bodies import GUARDS_LOOKED_FOR
from jobcheck.registry import semantics


class ScheduledJobNotIdempotent(RuleChecks):
    rule = "SCL-17"

    @check("scheduled-job-not-idempotent")
    def scheduled_job_not_idempotent(self) -> Iterator[Finding]:
        """A scheduled job that charges or sends with no guard. Schedulers fire twice (an
        overlapping run, two scheduler instances, a missed tick caught up), so these
        effects need a guard even when a single delivery would be fine."""
        for qualname, (entry_label, schedule, framework) in scheduled_functions(
            self.project
        ).items():
            entry = self.project.functions.get(qualname)
            if entry is None:
                continue
            f, function = entry
            looked_for = semantics(framework).words.guards_looked_for or GUARDS_LOOKED_FOR
            for reach in self.project.summaries.of_function(f, function).side_effects:
                effect = reach.item
                if effect.kind not in SCHEDULED_KINDS:
                    continue
                yield self.finding(
                    "scheduled-job-not-idempotent",
                    f.path,
                    reach.loc,
                    f"scheduled job '{entry_label}' ({schedule}) {verb(effect)}"
                    f"{reach.through()} with no guard "
                    "before it: a second scheduler, an overlapping run or a caught-up tick "
                    "repeats it; key the run on its period (a processed-runs row or a "
                    "sent_at/deleted-before watermark) and skip what is done "
                    f"(looked for: {looked_for})",
                )
