import { expect } from "./expect";
import { type ClientHandle, ServerController } from "../src/controller";
import type { Discovery, ServerCommand } from "../src/discovery";
import type { LogLevel } from "../src/log";
import type { SendRequest } from "../src/protocol";
import { calls, closeTerminal, reset, state } from "./vscode-mock";

class FakeClient implements ClientHandle {
  events: string[];
  constructor(
    readonly server: ServerCommand,
    events: string[],
    private readonly failStart = false,
  ) {
    this.events = events;
  }
  async start(): Promise<void> {
    this.events.push(`start ${this.server.command}`);
    if (this.failStart) {
      throw new Error("spawn ENOENT");
    }
  }
  async stop(): Promise<void> {
    this.events.push(`stop ${this.server.command}`);
  }
  serverVersion(): string {
    return "1.2.3";
  }
  async sendSettings(): Promise<void> {
    this.events.push("settings");
  }
  readonly sendRequest: SendRequest = (type) =>
    Promise.reject(new Error(`the lifecycle tests send no ${type.method}`));
}

const logger = {
  level: "info" as LogLevel,
  lines: [] as string[],
  log(level: LogLevel, message: string) {
    this.lines.push(`${level}: ${message}`);
  },
  show() {
    // nothing to show: the tests read `lines`
  },
};

function make(discoveries: Discovery[], opts: { failStart?: boolean } = {}) {
  const events: string[] = [];
  let i = 0;
  const ctl = new ServerController({
    discover: async () => {
      const next = discoveries[Math.min(i++, discoveries.length - 1)];
      if (next === undefined) {
        throw new Error("make() needs at least one discovery");
      }
      return next;
    },
    createClient: (server) => new FakeClient(server, events, opts.failStart),
    logger,
  });
  return { ctl, events };
}

const pathServer: Discovery = {
  server: { command: "/usr/bin/pack-lsp", args: [], source: "path" },
  interpreter: undefined,
  tried: [],
};
const settingServer: Discovery = {
  server: { command: "/opt/py", args: ["-m", "pack_lsp"], source: "setting" },
  interpreter: undefined,
  tried: [],
};
const nothing: Discovery = {
  server: undefined,
  interpreter: "/proj/.venv/bin/python",
  tried: ["a", "b"],
};

function change(...sections: string[]) {
  return {
    affectsConfiguration: (s: string) => sections.some((x) => x === s || x.startsWith(`${s}.`)),
  };
}

beforeEach(() => {
  reset();
});

describe("server lifecycle", () => {
  it("shows the server version in the status bar", async () => {
    const { ctl, events } = make([pathServer]);
    await ctl.start();
    expect(events).toEqual(["start /usr/bin/pack-lsp"]);
    expect(ctl.status.text).toContain("pack-lsp 1.2.3");
  });

  it("restarts (stop, then start) when the server command setting changes", async () => {
    const { ctl, events } = make([pathServer, settingServer]);
    await ctl.start();
    await ctl.onConfigurationChanged(change("packLsp.server.command"));
    expect(events).toEqual(["start /usr/bin/pack-lsp", "stop /usr/bin/pack-lsp", "start /opt/py"]);
  });

  it("forwards server settings without restarting", async () => {
    const { ctl, events } = make([pathServer]);
    await ctl.start();
    await ctl.onConfigurationChanged(change("packLsp.profile"));
    expect(events).toEqual(["start /usr/bin/pack-lsp", "settings"]);
  });

  it("changes the log level without touching the server", async () => {
    const { ctl, events } = make([pathServer]);
    await ctl.start();
    state.config["packLsp.server.logLevel"] = "debug";
    await ctl.onConfigurationChanged(change("packLsp.server.logLevel"));
    expect(logger.level).toBe("debug");
    expect(events).toEqual(["start /usr/bin/pack-lsp"]);
  });

  it("restarts on an interpreter change unless the command is set explicitly", async () => {
    const a = make([pathServer]);
    await a.ctl.start();
    await a.ctl.onInterpreterChanged();
    expect(a.events).toEqual([
      "start /usr/bin/pack-lsp",
      "stop /usr/bin/pack-lsp",
      "start /usr/bin/pack-lsp",
    ]);

    const b = make([settingServer]);
    await b.ctl.start();
    await b.ctl.onInterpreterChanged();
    expect(b.events).toEqual(["start /opt/py"]);
  });

  it("never overlaps two restarts", async () => {
    const { ctl, events } = make([pathServer]);
    await ctl.start();
    await Promise.all([ctl.restart(), ctl.restart()]);
    expect(events).toEqual([
      "start /usr/bin/pack-lsp",
      "stop /usr/bin/pack-lsp",
      "start /usr/bin/pack-lsp",
      "stop /usr/bin/pack-lsp",
      "start /usr/bin/pack-lsp",
    ]);
  });
});

describe("the not-found notification", () => {
  it("offers to install into the interpreter and to open the setting", async () => {
    const { ctl } = make([nothing]);
    await ctl.start();
    await new Promise((r) => setImmediate(r));
    expect(ctl.status.text).toContain("$(error)");
    expect(calls.errors).toHaveLength(1);
    expect(calls.errors[0]?.message).toContain("pip install pack-lsp");
    expect(calls.errors[0]?.actions).toEqual([
      "Install into /proj/.venv/bin/python",
      "Open setting",
    ]);
  });

  it("'Install into' runs pip in a terminal and restarts when the terminal closes", async () => {
    state.errorChoice = "Install into /proj/.venv/bin/python";
    const { ctl, events } = make([nothing, pathServer]);
    await ctl.start();
    await new Promise((r) => setImmediate(r));
    expect(calls.terminals).toHaveLength(1);
    expect(calls.terminals[0]?.sent).toEqual(["/proj/.venv/bin/python -m pip install pack-lsp"]);
    closeTerminal(0);
    await ctl.stop();
    expect(events).toEqual(["start /usr/bin/pack-lsp", "stop /usr/bin/pack-lsp"]);
  });

  it("quotes an interpreter path with spaces", async () => {
    state.errorChoice = "Install into /My Envs/python";
    const { ctl } = make([{ ...nothing, interpreter: "/My Envs/python" }]);
    await ctl.start();
    await new Promise((r) => setImmediate(r));
    expect(calls.terminals[0]?.sent).toEqual(['"/My Envs/python" -m pip install pack-lsp']);
  });

  it("'Open setting' opens packLsp.server.command", async () => {
    state.errorChoice = "Open setting";
    const { ctl } = make([nothing]);
    await ctl.start();
    await new Promise((r) => setImmediate(r));
    expect(calls.commands).toEqual([["workbench.action.openSettings", "packLsp.server.command"]]);
  });

  it("only offers the setting when there is no interpreter", async () => {
    const { ctl } = make([{ server: undefined, interpreter: undefined, tried: [] }]);
    await ctl.start();
    await new Promise((r) => setImmediate(r));
    expect(calls.errors[0]?.actions).toEqual(["Open setting"]);
  });

  it("notifies when a found server fails to start", async () => {
    const { ctl } = make([{ ...pathServer, interpreter: "/usr/bin/python3" }], { failStart: true });
    await ctl.start();
    await new Promise((r) => setImmediate(r));
    expect(ctl.client).toBeUndefined();
    expect(calls.errors[0]?.message).toContain("/usr/bin/pack-lsp did not start");
    expect(calls.errors[0]?.actions).toEqual(["Install into /usr/bin/python3", "Open setting"]);
  });
});
