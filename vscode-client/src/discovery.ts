/**
 * Finding the language server: the `packLsp.server.command` setting, then the interpreter selected
 * in the Python extension (when `pack_lsp` is importable there), then `pack-lsp` on PATH, then the
 * server the extension installed in its storage (`managed.ts`).
 *
 * Pure apart from the injected probes, so the order is unit-tested without VS Code.
 */

import type { ManagedState } from "./managed";

export type ServerSource = "setting" | "python" | "path" | "managed";

export interface ServerCommand {
  command: string;
  args: string[];
  source: ServerSource;
}

export interface DiscoveryProbes {
  /** The `packLsp.server.command` setting (empty when unset). */
  configuredCommand(): string[];
  /** The interpreter selected in the Python extension, if that extension is installed. */
  selectedInterpreter(): Promise<string | undefined>;
  /** Whether `python -c "import pack_lsp"` succeeds. */
  canImport(python: string): Promise<boolean>;
  /** An executable of this name on PATH. */
  which(name: string): Promise<string | undefined>;
  /** The server installed in the extension's storage, and its interpreter. */
  managed(): Promise<{ state: ManagedState; python: string }>;
}

export interface Discovery {
  server: ServerCommand | undefined;
  /** The interpreter to offer installing into when nothing was found. */
  interpreter: string | undefined;
  /** What was tried, for the error message and the log. */
  tried: string[];
  /** The server in the extension's storage when none was found before it (`stale`: upgrade it). */
  managed?: ManagedState;
}

export async function discoverServer(probes: DiscoveryProbes): Promise<Discovery> {
  const tried: string[] = [];
  const configured = probes.configuredCommand().filter((part) => part.length > 0);
  if (configured.length > 0) {
    const [command, ...args] = configured as [string, ...string[]];
    return { server: { command, args, source: "setting" }, interpreter: undefined, tried };
  }
  tried.push("setting packLsp.server.command (empty)");

  const interpreter = await probes.selectedInterpreter();
  if (interpreter !== undefined) {
    if (await probes.canImport(interpreter)) {
      return {
        server: { command: interpreter, args: ["-m", "pack_lsp"], source: "python" },
        interpreter,
        tried,
      };
    }
    tried.push(`${interpreter} -m pack_lsp (pack_lsp not importable)`);
  } else {
    tried.push("the Python extension's interpreter (none selected or extension not installed)");
  }

  const onPath = await probes.which("pack-lsp");
  if (onPath !== undefined) {
    return { server: { command: onPath, args: [], source: "path" }, interpreter, tried };
  }
  tried.push("pack-lsp on PATH (not found)");

  const managed = await probes.managed();
  if (managed.state === "current") {
    return {
      server: { command: managed.python, args: ["-m", "pack_lsp"], source: "managed" },
      interpreter,
      tried,
      managed: managed.state,
    };
  }
  tried.push(`the server installed by the extension (${managed.state})`);

  const fallback = interpreter ?? (await probes.which("python3")) ?? (await probes.which("python"));
  return { server: undefined, interpreter: fallback, tried, managed: managed.state };
}
