"""web frameworks."""

from jobcheck.frameworks.base import Plugin

PLUGIN = Plugin(
    name="web",
    title="web frameworks",
    recognizers=("jobcheck.frameworks.web.recognizer:WebRecognizer",),
)
