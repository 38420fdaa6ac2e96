"""Editor settings: ``initializationOptions`` and ``workspace/configuration``."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from pack_lsp import RULES_URL
from pack_lsp.core.checks.registry import check_codes, code_problems
from pack_lsp.core.model.config import Config, ConfigError, load_for
from pack_lsp.server import baseline
from pack_lsp.server.base import ServerBase

#: Longest wait between the last edit and the analysis that publishes diagnostics
#: (``changeDelay``); the wait itself follows the cost of the last analysis and
#: applies only within a burst of edits (``pack_lsp.server.scheduling``).
CHANGE_DELAY = 0.15
#: The settings section read from ``workspace/configuration``.
SETTINGS_SECTION = "packLsp"
#: Settings that belong to the server only (not part of ``Config``).
SERVER_SETTINGS = ("changeDelay", "rulesUrl", "baselineMode", "inlayHints", "workspaceDiagnostics")

_RULES_DOC = Path(__file__).resolve().parents[3] / "docs" / "rules.md"
DEFAULT_RULES_URL = from_fs_path(str(_RULES_DOC)) or "" if _RULES_DOC.is_file() else RULES_URL


class SettingsMixin(ServerBase):
    """Settings of the client merged over the file's configuration."""

    init_settings: dict[str, Any]
    client_settings: dict[str, Any]
    change_delay: float
    rules_url: str
    baseline_mode: str = "hint"
    #: Inlay hint kinds turned off (``inlayHints: {kind: false}``; ``server.inlayhints``).
    inlay_hints_off: frozenset[str] = frozenset()
    #: Report the problems of every pack file of the workspace, open or not
    #: (``workspaceDiagnostics``; ``server.workspace_problems``).
    workspace_diagnostics: bool = False

    def settings(self) -> dict[str, Any]:
        """Editor settings: ``initializationOptions`` under ``workspace/configuration``."""
        merged = dict(self.init_settings)
        merged.update(self.client_settings)
        return merged

    def set_settings(self, raw: Any, *, initial: bool = False) -> None:
        """Accept settings as sent by a client (``{"packLsp": {...}}`` or the section)."""
        if isinstance(raw, Mapping) and isinstance(raw.get(SETTINGS_SECTION), Mapping):
            raw = raw[SETTINGS_SECTION]
        if raw is None:
            raw = {}
        if not isinstance(raw, Mapping):
            self.show_once(
                f"pack-lsp: the `{SETTINGS_SECTION}` settings must be an object; using the defaults"
            )
            raw = {}
        settings = {str(k): v for k, v in raw.items()}
        server_only = {k: settings.pop(k) for k in SERVER_SETTINGS if k in settings}
        try:
            problems = code_problems(Config().merged(settings))
        except Exception as exc:
            problems = [_explain(exc)]
        if problems:
            self.show_once(
                f"pack-lsp: invalid `{SETTINGS_SECTION}` settings ({'; '.join(problems)}); "
                "using the defaults"
            )
            settings = {}
        delay = server_only.get("changeDelay")
        if isinstance(delay, int | float) and not isinstance(delay, bool) and 0 <= delay <= 5:
            self.change_delay = float(delay)
        mode = server_only.get("baselineMode")
        if mode in baseline.MODES:
            self.baseline_mode = str(mode)
        url = server_only.get("rulesUrl")
        if isinstance(url, str) and url:
            self.rules_url = url
        hints = server_only.get("inlayHints")
        if isinstance(hints, Mapping):
            self.inlay_hints_off = frozenset(str(k) for k, v in hints.items() if v is False)
        wanted = server_only.get("workspaceDiagnostics")
        if isinstance(wanted, bool):
            self.workspace_diagnostics = wanted
        if initial:
            self.init_settings = settings
        else:
            self.client_settings = settings

    def config_for(self, uri: str) -> Config:
        """The file's ``.pack-lsp.toml``/pyproject configuration with settings on top."""
        path = to_fs_path(uri)
        try:
            base = check_codes(load_for(Path(path))) if path else Config()
        except ConfigError as exc:
            self.show_once(f"pack-lsp: {exc}; using the defaults")
            base = Config()
        settings = self.settings()
        if not settings:
            return base
        try:
            return base.merged(settings)
        except Exception as exc:
            self.show_once(
                f"pack-lsp: invalid `{SETTINGS_SECTION}` settings ({_explain(exc)}); "
                "using the defaults"
            )
            return base

    async def pull_settings(self) -> None:
        """Read ``workspace/configuration`` when the client supports it."""
        caps = self.client_capabilities.workspace
        if caps is None or not caps.configuration:
            return
        try:
            result = await self.workspace_configuration_async(
                types.ConfigurationParams(items=[types.ConfigurationItem(section=SETTINGS_SECTION)])
            )
        except Exception as exc:
            self.log_message(f"pack-lsp: cannot read settings: {exc}", types.MessageType.Warning)
            return
        if result:
            self.set_settings(result[0])


def _explain(exc: Exception) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        try:
            parts = [
                f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in errors()
            ]
            return "; ".join(parts)
        except Exception:
            pass
    return str(exc)
