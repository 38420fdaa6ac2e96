import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "./expect";
import {
  type InspectableConfiguration,
  reactionTo,
  SERVER_SETTING_KEYS,
  serverSettings,
} from "../src/settings";

interface Scopes {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
}

function config(values: Record<string, Scopes>): InspectableConfiguration {
  return { inspect: (key) => values[key] };
}

describe("settings → initializationOptions", () => {
  it("sends only explicitly set server settings, most specific scope first", () => {
    const out = serverSettings(
      config({
        profile: { globalValue: "promptkit" },
        ignore: { globalValue: ["PP5"], workspaceValue: ["PP4"] },
        severity: { globalValue: {}, workspaceValue: {}, workspaceFolderValue: { PP3: "hint" } },
        changeDelay: { globalValue: 0.5 },
        select: {},
      }),
    );
    expect(out).toEqual({
      profile: "promptkit",
      ignore: ["PP4"],
      severity: { PP3: "hint" },
      changeDelay: 0.5,
    });
  });

  it("sends no defaults, so the project's .pack-lsp.toml is not overridden", () => {
    expect(serverSettings(config({}))).toEqual({});
  });

  it("drops an empty rulesUrl (the server's default applies)", () => {
    expect(serverSettings(config({ rulesUrl: { globalValue: "" } }))).toEqual({});
    expect(serverSettings(config({ rulesUrl: { globalValue: "https://x/r" } }))).toEqual({
      rulesUrl: "https://x/r",
    });
  });

  it("never sends client-only settings", () => {
    const out = serverSettings(
      config({
        "server.command": { globalValue: ["x"] },
        "trace.server": { globalValue: "verbose" },
        cards: { globalValue: { url: "https://agents.example" } },
      }),
    );
    expect(out).toEqual({ cards: { url: "https://agents.example" } });
  });

  it("contributes every server setting in package.json", () => {
    const pkg = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")) as {
      contributes: { configuration: { properties: Record<string, unknown> } };
    };
    const props = Object.keys(pkg.contributes.configuration.properties);
    for (const key of SERVER_SETTING_KEYS) {
      expect(props).toContain(`packLsp.${key}`);
    }
  });
});

describe("what a settings change does", () => {
  const affecting =
    (...sections: string[]) =>
    (s: string) =>
      sections.some((x) => x === s || x.startsWith(`${s}.`) || s.startsWith(`${x}.`));

  it("restarts when the server command changes", () => {
    expect(reactionTo(affecting("packLsp.server.command"))).toBe("restart");
  });
  it("restarts when workspaceDiagnostics changes (the server declares it at initialize)", () => {
    expect(reactionTo(affecting("packLsp.workspaceDiagnostics"))).toBe("restart");
  });
  it("forwards server settings to the running server", () => {
    expect(reactionTo(affecting("packLsp.profile"))).toBe("notify");
    expect(reactionTo(affecting("packLsp.cards"))).toBe("notify");
  });
  it("only re-reads the log level", () => {
    expect(reactionTo(affecting("packLsp.server.logLevel"))).toBe("log-level");
  });
  it("ignores other extensions' settings", () => {
    expect(reactionTo(affecting("yaml.schemas", "editor.fontSize"))).toBe("none");
  });
});
