"""Reading PyYAML's composed nodes (``yaml.compose`` with the safe loader): nothing is
constructed but the scalars a reader asks for, so no YAML tag can build an object."""

from __future__ import annotations

from yaml.nodes import MappingNode, Node, ScalarNode

from jobcheck.facts import Loc


def get(node: Node | None, key: str) -> Node | None:
    """The value of ``key`` in a mapping node; None for anything else."""
    if not isinstance(node, MappingNode):
        return None
    for key_node, value in node.value:
        if isinstance(key_node, ScalarNode) and key_node.value == key:
            return value
    return None


def scalar(node: Node | None) -> str | None:
    return node.value if isinstance(node, ScalarNode) else None


def loc(node: Node | None) -> Loc:
    """Where a node is written (1-based); the file's start when unknown."""
    if node is None:
        return Loc(1, 1, 1, 1)
    start, end = node.start_mark, node.end_mark
    return Loc(start.line + 1, start.column + 1, end.line + 1, end.column + 1)
