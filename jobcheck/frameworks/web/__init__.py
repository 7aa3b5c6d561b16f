"""web frameworks."""

from jobcheck.registry import Plugin

PLUGIN = Plugin(
    name="web",
    title="web frameworks",
    recognizers=("jobcheck.frameworks.web.recognizer:WebRecognizer",),
    semantics="jobcheck.frameworks.web.semantics:SEMANTICS",
)
