/**
 * The server's lifecycle: discovery, start, restart on settings or interpreter changes, the
 * status-bar item, and when no server can be found the offer to install one into the extension's
 * storage (the installed server is upgraded with the extension).
 *
 * The offer cannot be lost (docs/decisions.md, D70): it is made whenever a pack is opened without
 * a running server, never for other files, and the status-bar item, shown while a pack is the
 * active editor, stays an "Install pack-lsp" action until a server runs. Listeners of
 * `onDidChangeState` (the "not running" notice on open packs) learn of every change.
 *
 * The language client itself is created by an injected factory so this logic runs in unit tests
 * against a mocked `vscode` module.
 */
import * as vscode from "vscode";
import type { Discovery, ServerCommand } from "./discovery";
import type { ServerInstaller } from "./installer";
import { parseLevel, type LogLevel } from "./log";
import type { SendRequest } from "./protocol";
import { reactionTo } from "./settings";

/** What the controller needs of a running language client. */
export interface ClientHandle {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** The version the server announced in `initialize` (`serverInfo.version`). */
  serverVersion(): string | undefined;
  /** Send the current server settings (`workspace/didChangeConfiguration`). */
  sendSettings(): Promise<void>;
  /** Send one of the server's custom requests (`protocol.ts`). */
  readonly sendRequest: SendRequest;
}

export interface Logger {
  level: LogLevel;
  log(level: LogLevel, message: string): void;
  show(preserveFocus?: boolean): void;
}

/**
 * What the controller knows of the server: `starting`, `running`, `installing`, `missing` (none
 * found: install one) or `failed` (the one found did not start, or the install failed).
 */
export type ServerState = "starting" | "running" | "installing" | "missing" | "failed";

export interface ControllerDeps {
  discover(): Promise<Discovery>;
  createClient(server: ServerCommand): ClientHandle;
  logger: Logger;
  installer: ServerInstaller;
  /** How many open documents pack-lsp would check (`recognize.ts`). */
  openPacks(): number;
}

export const INSTALL = "Install pack-lsp";
export const OPEN_SETTING = "Open setting";
export const SHOW_OUTPUT = "Show output";
export const SERVER_SETTING = "packLsp.server.command";
export const NOT_FOUND = "The pack-lsp language server was not found, so nothing checks this pack.";

function describe(server: ServerCommand): string {
  return [server.command, ...server.args].join(" ");
}

export class ServerController implements vscode.Disposable {
  readonly status: vscode.StatusBarItem;
  client: ClientHandle | undefined;
  server: ServerCommand | undefined;
  /** Every start and stop runs after the previous one: restarts never overlap. */
  private queue: Promise<void> = Promise.resolve();
  /** The installation under way, if any: a second request joins it. */
  private installing: Promise<boolean> | undefined;
  /** The interpreter the last discovery offered to install with. */
  private interpreter: string | undefined;
  /** The last discovery, for the offers made when a pack opens. */
  private discovery: Discovery | undefined;
  /** Why the server is not running, when it failed: it did not start, or the install failed. */
  failure: { during: "start" | "install"; text: string } | undefined;
  private current: ServerState = "starting";
  private packActive = false;
  private readonly changed = new vscode.EventEmitter<ServerState>();
  readonly onDidChangeState = this.changed.event;
  private readonly disposables: { dispose(): unknown }[] = [];

  constructor(private readonly deps: ControllerDeps) {
    this.status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
    this.status.name = "PromptPack language server";
    this.status.command = "packLsp.showOutput";
    this.status.text = "$(sync~spin) pack-lsp";
    this.disposables.push(this.status, this.changed);
    this.applyLogLevel();
  }

  get state(): ServerState {
    return this.current;
  }

  private setState(state: ServerState): void {
    this.current = state;
    this.updateVisibility();
    this.changed.fire(state);
  }

  /** The status-bar item is shown while a pack is the active editor, and during an install. */
  private updateVisibility(): void {
    if (this.packActive || this.current === "installing") {
      this.status.show();
    } else {
      this.status.hide();
    }
  }

  /** Whether the active editor shows a document pack-lsp checks. */
  setPackActive(active: boolean): void {
    this.packActive = active;
    this.updateVisibility();
  }

  /** A pack was opened: without a running server, offer the install (again). */
  packOpened(): void {
    if (this.current === "missing" && this.discovery !== undefined) {
      void this.notifyNotFound(this.discovery);
    } else if (this.current === "failed" && this.failure?.during === "install") {
      void this.showFailure(this.failure.text);
    } else if (this.current === "failed" && this.discovery !== undefined) {
      void this.notifyNotFound(this.discovery, this.failure?.text);
    }
  }

  private enqueue(task: () => Promise<void>): Promise<void> {
    this.queue = this.queue.then(task, task);
    return this.queue;
  }

  private applyLogLevel(): void {
    this.deps.logger.level = parseLevel(
      vscode.workspace.getConfiguration("packLsp").get<string>("server.logLevel"),
    );
  }

  start(): Promise<void> {
    return this.enqueue(() => this.doStart());
  }

  restart(): Promise<void> {
    return this.enqueue(async () => {
      this.deps.logger.log("info", "restarting the language server");
      await this.doStop();
      await this.doStart();
    });
  }

  stop(): Promise<void> {
    return this.enqueue(() => this.doStop());
  }

  private async doStop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (client !== undefined) {
      try {
        await client.stop();
      } catch (error) {
        this.deps.logger.log("warning", `stopping the server: ${String(error)}`);
      }
    }
  }

  private async doStart(): Promise<void> {
    this.status.text = "$(sync~spin) pack-lsp";
    this.status.tooltip = "Starting the PromptPack language server";
    this.status.command = "packLsp.showOutput";
    this.failure = undefined;
    this.setState("starting");
    let discovery = await this.deps.discover();
    for (const line of discovery.tried) {
      this.deps.logger.log("debug", `server discovery: tried ${line}`);
    }
    this.interpreter = discovery.interpreter;
    if (discovery.server === undefined && discovery.managed === "stale") {
      // The extension was upgraded: so is the server it installed.
      if (await this.install("Upgrading pack-lsp")) {
        discovery = await this.deps.discover();
      }
    }
    const server = discovery.server;
    this.server = server;
    this.discovery = discovery;
    if (server === undefined) {
      if (this.current === "failed") {
        return; // the upgrade failed and said so
      }
      this.showMissing();
      this.deps.logger.log(
        "error",
        `no language server found; tried: ${discovery.tried.join("; ")}`,
      );
      this.setState("missing");
      if (this.deps.openPacks() > 0) {
        void this.notifyNotFound(discovery);
      }
      return;
    }
    this.deps.logger.log("info", `starting ${describe(server)} (from ${server.source})`);
    const client = this.deps.createClient(server);
    try {
      await client.start();
    } catch (error) {
      this.status.text = "$(error) pack-lsp";
      this.status.tooltip = `The server did not start: ${String(error)}. Click to install pack-lsp.`;
      this.status.command = "packLsp.installServer";
      this.deps.logger.log("error", `${describe(server)} did not start: ${String(error)}`);
      try {
        await client.stop();
      } catch {
        // it never ran
      }
      this.discovery = { ...discovery, server: undefined };
      this.failure = { during: "start", text: `${describe(server)} did not start.` };
      this.setState("failed");
      void this.notifyNotFound(this.discovery, this.failure.text);
      return;
    }
    this.client = client;
    const version = client.serverVersion() ?? "?";
    this.status.text = `$(check) pack-lsp ${version}`;
    this.status.tooltip = `pack-lsp ${version}: ${describe(server)}`;
    this.deps.logger.log("info", `pack-lsp ${version} is running`);
    this.setState("running");
  }

  /** The status-bar item when no server was found: an action that installs one. */
  private showMissing(): void {
    this.status.text = "$(cloud-download) Install pack-lsp";
    this.status.tooltip =
      "pack-lsp is not running, so nothing checks this pack: click to install it into the extension's storage";
    this.status.command = "packLsp.installServer";
  }

  /**
   * The notification when no server was found or the one found did not start: made whenever a
   * pack is opened without a server (VS Code shows one copy of an identical notification).
   */
  async notifyNotFound(discovery: Discovery, reason?: string): Promise<void> {
    const actions: string[] = [];
    const interpreter = discovery.interpreter;
    if (interpreter !== undefined) {
      actions.push(INSTALL);
    }
    actions.push(OPEN_SETTING);
    const how =
      interpreter !== undefined
        ? ` Install it into the extension's storage (a virtual environment made with ${interpreter}, dependencies from the package index), or set ${SERVER_SETTING}.`
        : ` Install Python 3.11 or newer to let the extension install it, or set ${SERVER_SETTING}.`;
    const message = (reason ?? NOT_FOUND) + how;
    const choice =
      reason === undefined
        ? await vscode.window.showInformationMessage(message, ...actions)
        : await vscode.window.showErrorMessage(message, ...actions);
    if (choice === OPEN_SETTING) {
      await vscode.commands.executeCommand("workbench.action.openSettings", SERVER_SETTING);
    } else if (choice === INSTALL) {
      await this.installServer();
    }
  }

  /** Install (or repair) the server in the extension's storage, then start it. */
  async installServer(): Promise<void> {
    if (await this.install("Installing pack-lsp")) {
      await this.restart();
    }
  }

  /** Run the installer under a progress notification; true when it succeeded. */
  private install(title: string): Promise<boolean> {
    this.installing ??= this.runInstall(title).finally(() => {
      this.installing = undefined;
    });
    return this.installing;
  }

  private async runInstall(title: string): Promise<boolean> {
    const before = this.current;
    this.status.text = `$(sync~spin) ${title}`;
    this.status.tooltip = `${title}: click to follow pip's output`;
    this.status.command = "packLsp.showOutput";
    this.setState("installing");
    this.deps.logger.log("info", `${title} into the extension's storage`);
    const failure = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: false },
      (progress) =>
        this.deps.installer.install(this.interpreter, (step) => {
          progress.report({ message: step });
        }),
    );
    if (failure === undefined) {
      this.deps.logger.log("info", "pack-lsp is installed");
      this.setState(before === "running" ? "running" : "starting");
      return true;
    }
    this.status.text = "$(error) Install pack-lsp";
    this.status.tooltip = `${failure} Click to try again.`;
    this.status.command = "packLsp.installServer";
    this.deps.logger.log("error", failure);
    this.failure = { during: "install", text: failure };
    this.setState(this.client !== undefined ? "running" : "failed");
    void this.showFailure(failure);
    return false;
  }

  private async showFailure(failure: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(failure, SHOW_OUTPUT, OPEN_SETTING);
    if (choice === SHOW_OUTPUT) {
      this.deps.logger.show(true);
    } else if (choice === OPEN_SETTING) {
      await vscode.commands.executeCommand("workbench.action.openSettings", SERVER_SETTING);
    }
  }

  /** React to a settings change: restart, forward the settings, or change the log level. */
  async onConfigurationChanged(event: vscode.ConfigurationChangeEvent): Promise<void> {
    const reaction = reactionTo((section) => event.affectsConfiguration(section));
    if (reaction === "restart") {
      await this.restart();
    } else if (reaction === "notify") {
      await this.client?.sendSettings();
    } else if (reaction === "log-level") {
      this.applyLogLevel();
    }
  }

  /** The Python extension's selected interpreter changed. */
  async onInterpreterChanged(): Promise<void> {
    if (this.server?.source === "setting") {
      return; // an explicit command does not depend on the interpreter
    }
    await this.restart();
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
