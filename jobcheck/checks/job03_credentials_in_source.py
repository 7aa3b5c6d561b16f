"""JOB-03 Job messages carry data, not code or secrets: credentials-in-source.

A broker or result-backend URL with its password in source is in every clone, fork and CI
log of the repository. The password is masked when the facts are read
(``jobcheck/vocabulary/credentials.py``) and never printed: every output also masks
secrets in the text it takes from the project (``credentials.mask``, applied by
``jobcheck/output/encoding.py``). Docs: docs/rules/JOB-03.md.
"""

from __future__ import annotations

from collections.abc import Iterator

from jobcheck.checks.base import RuleChecks, check
from jobcheck.findings import Finding
from jobcheck.project import production
from jobcheck.triggers import LinearSearch, Trigger
from jobcheck.vocabulary import credentials


class CredentialsInSource(RuleChecks):
    rule = "JOB-03"
    PREFILTER = (
        Trigger(
            "broker URL with a password",
            b"://",
            predicate=LinearSearch(credentials.PREFILTER),
        ),
    )

    @check("credentials-in-source")
    def credentials_in_source(self) -> Iterator[Finding]:
        for f in self.project.files:
            if not production.is_production(f):
                continue
            for url in f.credential_urls:
                if url.templated or (url.placeholder and url.local):
                    continue  # filled in elsewhere, or guest:guest@localhost
                yield self.finding(
                    "credentials-in-source",
                    f.path,
                    url.loc,
                    f"{url.masked} carries its password in source: it is in every clone, "
                    "fork and CI log of the repository; read the URL from the environment "
                    "or a secret store (no default with the password in it) and rotate "
                    "the password",
                )
