import { expect } from "./expect";
import { type ClientHandle, type ServerState, ServerController } from "../src/controller";
import type { Discovery, ServerCommand } from "../src/discovery";
import type { InstalledServer, ServerInstaller } from "../src/installer";
import type { LogLevel } from "../src/log";
import type { SendRequest } from "../src/protocol";
import { calls, reset, state } from "./vscode-mock";

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

/** Records installs; fails with `failure` when it is set. */
class FakeInstaller implements ServerInstaller {
  installs: (string | undefined)[] = [];
  constructor(private readonly failure?: string) {}
  async installed(): Promise<InstalledServer> {
    return { state: "absent", python: "/store/venv/bin/python" };
  }
  async install(python: string | undefined, report: (step: string) => void) {
    this.installs.push(python);
    report("creating a virtual environment");
    return this.failure;
  }
}

function make(
  discoveries: Discovery[],
  opts: { failStart?: boolean; installer?: FakeInstaller; packs?: number } = {},
) {
  const events: string[] = [];
  const installer = opts.installer ?? new FakeInstaller();
  const open = { packs: opts.packs ?? 1 };
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
    installer,
    openPacks: () => open.packs,
  });
  const states: ServerState[] = [];
  ctl.onDidChangeState((state) => states.push(state));
  return { ctl, events, installer, open, states };
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
  managed: "absent",
};
const managedServer: Discovery = {
  server: { command: "/store/venv/bin/python", args: ["-m", "pack_lsp"], source: "managed" },
  interpreter: "/proj/.venv/bin/python",
  tried: [],
  managed: "current",
};
const tick = () => new Promise((r) => setImmediate(r));

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

describe("the not-found notification and the install", () => {
  it("offers to install into the extension's storage and to open the setting", async () => {
    const { ctl, installer } = make([nothing]);
    await ctl.start();
    await tick();
    expect(ctl.status.text).toBe("$(cloud-download) Install pack-lsp");
    expect(ctl.status.command).toBe("packLsp.installServer");
    expect(calls.infos).toHaveLength(1);
    expect(calls.infos[0]?.message).toContain("/proj/.venv/bin/python");
    expect(calls.infos[0]?.message).not.toContain("pip install pack-lsp");
    expect(calls.infos[0]?.actions).toEqual(["Install pack-lsp", "Open setting"]);
    expect(installer.installs).toEqual([]);
  });

  it("offers nothing while no pack is open, then whenever a pack is opened", async () => {
    const { ctl, open } = make([nothing], { packs: 0 });
    await ctl.start();
    await tick();
    expect(calls.infos).toHaveLength(0);
    expect(ctl.state).toBe("missing");
    open.packs = 1;
    ctl.packOpened();
    await tick();
    expect(calls.infos).toHaveLength(1);
    // Dismissed (Escape, or hidden after a while): the next pack opened offers again.
    ctl.packOpened();
    await tick();
    expect(calls.infos).toHaveLength(2);
    expect(calls.infos[1]?.actions).toEqual(["Install pack-lsp", "Open setting"]);
  });

  it("offers again after Restart Server when a pack is open", async () => {
    const { ctl } = make([nothing]);
    await ctl.start();
    await ctl.restart();
    await tick();
    expect(calls.infos).toHaveLength(2);
  });

  it("shows the status-bar action only while a pack is active", async () => {
    const shown: boolean[] = [];
    const { ctl } = make([nothing]);
    ctl.status.show = () => shown.push(true);
    ctl.status.hide = () => shown.push(false);
    ctl.setPackActive(false);
    await ctl.start();
    expect(shown.every((s) => !s)).toBe(true);
    ctl.setPackActive(true);
    expect(shown.at(-1)).toBe(true);
    expect(ctl.status.text).toBe("$(cloud-download) Install pack-lsp");
    expect(ctl.status.command).toBe("packLsp.installServer");
    ctl.setPackActive(false);
    expect(shown.at(-1)).toBe(false);
  });

  it("tells its listeners each state", async () => {
    state.infoChoice = "Install pack-lsp";
    const { ctl, states } = make([nothing, managedServer]);
    await ctl.start();
    await tick();
    await ctl.stop();
    expect(states).toEqual([
      "starting",
      "missing",
      "installing",
      "starting",
      "starting",
      "running",
    ]);
  });

  it("'Install pack-lsp' installs with progress, then starts the installed server", async () => {
    state.infoChoice = "Install pack-lsp";
    const { ctl, events, installer } = make([nothing, managedServer]);
    await ctl.start();
    await tick();
    await ctl.stop();
    expect(installer.installs).toEqual(["/proj/.venv/bin/python"]);
    expect(calls.progress).toEqual([
      { title: "Installing pack-lsp", steps: ["creating a virtual environment"] },
    ]);
    expect(events).toEqual(["start /store/venv/bin/python", "stop /store/venv/bin/python"]);
  });

  it("a failed install says what to do and leaves the server stopped", async () => {
    state.infoChoice = "Install pack-lsp";
    const installer = new FakeInstaller("pip could not download pack-lsp's dependencies");
    const { ctl, events } = make([nothing, managedServer], { installer });
    await ctl.start();
    await tick();
    await tick();
    expect(events).toEqual([]);
    expect(calls.errors[0]?.message).toContain("pip could not download");
    expect(calls.errors[0]?.actions).toEqual(["Show output", "Open setting"]);
    expect(ctl.status.tooltip).toContain("pip could not download");
  });

  it("after a failed install, a pack opened shows the failure again, not a fresh offer", async () => {
    state.infoChoice = "Install pack-lsp";
    const installer = new FakeInstaller("pip found no wheel of ruamel.yaml.clib");
    const { ctl } = make([nothing], { installer });
    await ctl.start();
    await tick();
    await tick();
    expect(ctl.state).toBe("failed");
    expect(ctl.status.text).toBe("$(error) Install pack-lsp");
    state.infoChoice = undefined;
    ctl.packOpened();
    await tick();
    expect(calls.errors.map((e) => e.message)).toEqual([
      "pip found no wheel of ruamel.yaml.clib",
      "pip found no wheel of ruamel.yaml.clib",
    ]);
    expect(calls.infos).toHaveLength(1);
  });

  it("upgrades the installed server when the extension brought another wheel", async () => {
    const { ctl, events, installer } = make([{ ...nothing, managed: "stale" }, managedServer]);
    await ctl.start();
    expect(installer.installs).toHaveLength(1);
    expect(calls.progress[0]?.title).toBe("Upgrading pack-lsp");
    expect(calls.infos).toEqual([]);
    expect(events).toEqual(["start /store/venv/bin/python"]);
  });

  it("two install requests at once run one installation", async () => {
    const { ctl, installer } = make([nothing, managedServer]);
    await ctl.start();
    await Promise.all([ctl.installServer(), ctl.installServer()]);
    expect(installer.installs).toHaveLength(1);
  });

  it("'Open setting' opens packLsp.server.command", async () => {
    state.infoChoice = "Open setting";
    const { ctl } = make([nothing]);
    await ctl.start();
    await tick();
    expect(calls.commands).toEqual([["workbench.action.openSettings", "packLsp.server.command"]]);
  });

  it("only offers the setting when there is no interpreter", async () => {
    const { ctl } = make([{ server: undefined, interpreter: undefined, tried: [] }]);
    await ctl.start();
    await tick();
    expect(calls.infos[0]?.actions).toEqual(["Open setting"]);
    expect(calls.infos[0]?.message).toContain("Python 3.11");
  });

  it("notifies when a found server fails to start", async () => {
    const { ctl } = make([{ ...pathServer, interpreter: "/usr/bin/python3" }], {
      failStart: true,
    });
    await ctl.start();
    await tick();
    expect(ctl.client).toBeUndefined();
    expect(calls.errors[0]?.message).toContain("/usr/bin/pack-lsp did not start");
    expect(calls.errors[0]?.actions).toEqual(["Install pack-lsp", "Open setting"]);
  });
});
