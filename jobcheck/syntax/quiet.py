"""``ast.parse`` and ``ast.literal_eval`` without the warnings Python gives about the code
(``SyntaxWarning: invalid escape sequence '\\s'`` on 3.12+): they are about the checked
project, printed on jobcheck's standard error they would only be noise."""

from __future__ import annotations

import ast
import warnings


def parse(text: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


def literal_eval(text: str) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.literal_eval(text)
