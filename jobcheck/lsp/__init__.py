"""The jobcheck language server (``jobcheck lsp``): diagnostics as you type, quick fixes
to suppress a finding or open its rule's documentation, and hover explanations.

Needs the ``lsp`` extra (pygls and lsprotocol): ``pip install 'jobcheck[lsp]'``.
"""

from jobcheck.lsp.limits import MAX_DOCUMENT_BYTES

__all__ = ["MAX_DOCUMENT_BYTES"]
