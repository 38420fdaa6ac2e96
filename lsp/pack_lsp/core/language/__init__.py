"""Language features over an Analysis: pure functions returning core spans.

The server converts their results to LSP types (``pack_lsp.server``); nothing here
imports pygls or lsprotocol.
"""
