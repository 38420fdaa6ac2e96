/**
 * Which settings reach the server, and how.
 *
 * Only settings the user actually set are sent: sending a default (say `profile: "spec"`) would
 * override the `.pack-lsp.toml` or `[tool.pack-lsp]` table of the project, which the server merges
 * the editor settings over. Client-only settings (`server.*`, `trace.*`, `cardsPreview.*`) are never
 * sent: the server rejects keys it does not know.
 */

/** Every setting the server reads from the `packLsp` section (see the server's settings code). */
export const SERVER_SETTING_KEYS = [
  "select",
  "ignore",
  "severity",
  "profile",
  "promptkitVersion",
  "targets",
  "readOutsideRoot",
  "specVersion",
  "fragmentDialect",
  "toolNamespaces",
  "exclude",
  "manifests",
  "cards",
  "changeDelay",
  "rulesUrl",
  "inlayHints",
  "workspaceDiagnostics",
] as const;

export type ServerSettingKey = (typeof SERVER_SETTING_KEYS)[number];

/** The part of `vscode.WorkspaceConfiguration` this module needs. */
export interface InspectableConfiguration {
  inspect(section: string):
    | {
        globalValue?: unknown;
        workspaceValue?: unknown;
        workspaceFolderValue?: unknown;
      }
    | undefined;
}

/** The explicitly set server settings, most specific scope first. */
export function serverSettings(config: InspectableConfiguration): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of SERVER_SETTING_KEYS) {
    const info = config.inspect(key);
    if (info === undefined) {
      continue;
    }
    const value = info.workspaceFolderValue ?? info.workspaceValue ?? info.globalValue;
    if (value === undefined) {
      continue;
    }
    if (key === "rulesUrl" && value === "") {
      continue;
    }
    out[key] = value;
  }
  return out;
}

/**
 * Settings whose change means the server process must be started again: the command, and
 * `workspaceDiagnostics`, which decides what the server declares at `initialize` (a client that
 * pulls diagnostics asks for the workspace's only when the server declared it).
 */
export const RESTART_SETTINGS = ["packLsp.server.command", "packLsp.workspaceDiagnostics"] as const;

/** Settings whose change is sent to the running server (`workspace/didChangeConfiguration`). */
export const SERVER_SECTIONS = SERVER_SETTING_KEYS.map((key) => `packLsp.${key}`);

/** What a configuration change asks for. */
export type ConfigurationReaction = "restart" | "notify" | "log-level" | "none";

/** Decide from `event.affectsConfiguration` what to do after a settings change. */
export function reactionTo(affects: (section: string) => boolean): ConfigurationReaction {
  if (RESTART_SETTINGS.some((s) => affects(s))) {
    return "restart";
  }
  if (SERVER_SECTIONS.some((s) => affects(s))) {
    return "notify";
  }
  if (affects("packLsp.server.logLevel")) {
    return "log-level";
  }
  return "none";
}
