"""One folder per framework (its recognizers, semantics and verified library facts).

The registry of these plugins is ``jobcheck/registry.py``.
"""
