"""pack-lsp: language server and CI checker for PromptPack files."""

__version__ = "0.1.0"
