import { expect } from "./expect";
import { discoverServer, type DiscoveryProbes } from "../src/discovery";

function probes(
  over: Partial<DiscoveryProbes> & { onPath?: Record<string, string> },
): DiscoveryProbes {
  return {
    configuredCommand: over.configuredCommand ?? (() => []),
    selectedInterpreter: over.selectedInterpreter ?? (async () => undefined),
    canImport: over.canImport ?? (async () => false),
    which: over.which ?? (async (name) => over.onPath?.[name]),
    managed: over.managed ?? (async () => ({ state: "absent", python: "/store/venv/bin/python" })),
  };
}

describe("server discovery order", () => {
  it("uses the setting first, without probing anything else", async () => {
    let probed = false;
    const found = await discoverServer(
      probes({
        configuredCommand: () => ["/opt/venv/bin/python", "-m", "pack_lsp", "--stdio"],
        selectedInterpreter: async () => {
          probed = true;
          return "/usr/bin/python3";
        },
        onPath: { "pack-lsp": "/usr/local/bin/pack-lsp" },
      }),
    );
    expect(found.server).toEqual({
      command: "/opt/venv/bin/python",
      args: ["-m", "pack_lsp", "--stdio"],
      source: "setting",
    });
    expect(probed).toBe(false);
  });

  it("ignores empty strings in the setting", async () => {
    const found = await discoverServer(
      probes({ configuredCommand: () => ["", ""], onPath: { "pack-lsp": "/bin/pack-lsp" } }),
    );
    expect(found.server?.source).toBe("path");
  });

  it("uses the Python extension's interpreter when pack_lsp is importable there", async () => {
    const imported: string[] = [];
    const found = await discoverServer(
      probes({
        selectedInterpreter: async () => "/proj/.venv/bin/python",
        canImport: async (python) => {
          imported.push(python);
          return true;
        },
        onPath: { "pack-lsp": "/usr/local/bin/pack-lsp" },
      }),
    );
    expect(imported).toEqual(["/proj/.venv/bin/python"]);
    expect(found.server).toEqual({
      command: "/proj/.venv/bin/python",
      args: ["-m", "pack_lsp"],
      source: "python",
    });
  });

  it("falls back to pack-lsp on PATH when the interpreter lacks pack_lsp", async () => {
    const found = await discoverServer(
      probes({
        selectedInterpreter: async () => "/proj/.venv/bin/python",
        canImport: async () => false,
        onPath: { "pack-lsp": "/usr/local/bin/pack-lsp" },
      }),
    );
    expect(found.server).toEqual({ command: "/usr/local/bin/pack-lsp", args: [], source: "path" });
    expect(found.tried.join("\n")).toContain(
      "/proj/.venv/bin/python -m pack_lsp (pack_lsp not importable)",
    );
  });

  it("reports nothing found with the selected interpreter to install into", async () => {
    const found = await discoverServer(
      probes({
        selectedInterpreter: async () => "/proj/.venv/bin/python",
        onPath: { python3: "/usr/bin/python3" },
      }),
    );
    expect(found.server).toBeUndefined();
    expect(found.interpreter).toBe("/proj/.venv/bin/python");
    expect(found.tried).toHaveLength(4);
    expect(found.managed).toBe("absent");
  });

  it("offers python3 on PATH when no interpreter is selected", async () => {
    const found = await discoverServer(probes({ onPath: { python3: "/usr/bin/python3" } }));
    expect(found.server).toBeUndefined();
    expect(found.interpreter).toBe("/usr/bin/python3");
  });

  it("uses the server the extension installed when nothing else is found", async () => {
    const found = await discoverServer(
      probes({
        onPath: { python3: "/usr/bin/python3" },
        managed: async () => ({ state: "current", python: "/store/venv/bin/python" }),
      }),
    );
    expect(found.server).toEqual({
      command: "/store/venv/bin/python",
      args: ["-m", "pack_lsp"],
      source: "managed",
    });
  });

  it("prefers pack-lsp on PATH to the installed server", async () => {
    let asked = false;
    const found = await discoverServer(
      probes({
        onPath: { "pack-lsp": "/usr/local/bin/pack-lsp" },
        managed: async () => {
          asked = true;
          return { state: "current", python: "/store/venv/bin/python" };
        },
      }),
    );
    expect(found.server?.source).toBe("path");
    expect(asked).toBe(false);
  });

  it("reports an installed server of another version as stale, not as found", async () => {
    const found = await discoverServer(
      probes({
        onPath: { python3: "/usr/bin/python3" },
        managed: async () => ({ state: "stale", python: "/store/venv/bin/python" }),
      }),
    );
    expect(found.server).toBeUndefined();
    expect(found.managed).toBe("stale");
    expect(found.interpreter).toBe("/usr/bin/python3");
  });
});
