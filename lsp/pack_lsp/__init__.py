"""pack-lsp: language server and CI checker for PromptPack files."""

__version__ = "0.1.0"

#: The project's home page, and the rules reference that diagnostics link into
#: (``RULES_URL + "#pp101"``). One place, used by the server and the SARIF output.
HOMEPAGE = "https://github.com/pack-lsp/pack-lsp"
RULES_URL = HOMEPAGE + "/blob/main/docs/rules.md"
