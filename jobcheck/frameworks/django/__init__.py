"""Django."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="django",
    title="Django",
    recognizers=("jobcheck.frameworks.django.recognizer:DjangoRecognizer",),
    semantics="jobcheck.frameworks.django.semantics:SEMANTICS",
)
