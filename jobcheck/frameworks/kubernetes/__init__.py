"""Kubernetes CronJob manifests (read from YAML files: ``jobcheck/extract/files.py``)."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="kubernetes",
    title="Kubernetes",
    semantics="jobcheck.frameworks.kubernetes.semantics:SEMANTICS",
    check_parts="jobcheck.frameworks.kubernetes.checks:PARTS",
)
