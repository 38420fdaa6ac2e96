/**
 * The server's lifecycle: discovery, start, restart on settings or interpreter changes, the
 * status-bar item, and when no server can be found the offer to install one into the extension's
 * storage (made once; the installed server is upgraded with the extension).
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

/** Values kept across sessions (the extension's `globalState`). */
export interface Memory {
  get(key: string): unknown;
  update(key: string, value: unknown): Thenable<void>;
}

export interface ControllerDeps {
  discover(): Promise<Discovery>;
  createClient(server: ServerCommand): ClientHandle;
  logger: Logger;
  installer: ServerInstaller;
  memory: Memory;
}

export const INSTALL = "Install pack-lsp";
export const OPEN_SETTING = "Open setting";
export const SHOW_OUTPUT = "Show output";
export const SERVER_SETTING = "packLsp.server.command";
/** The `globalState` key recording that the install was offered (it is offered once). */
export const OFFERED_KEY = "packLsp.installOffered";

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
  private readonly disposables: { dispose(): unknown }[] = [];

  constructor(private readonly deps: ControllerDeps) {
    this.status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
    this.status.name = "PromptPack language server";
    this.status.command = "packLsp.showOutput";
    this.status.text = "$(sync~spin) pack-lsp";
    this.status.show();
    this.disposables.push(this.status);
    this.applyLogLevel();
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
    if (server === undefined) {
      this.status.text = "$(error) pack-lsp";
      this.status.tooltip = "No pack-lsp language server found: click to install it";
      this.status.command = "packLsp.installServer";
      this.deps.logger.log(
        "error",
        `no language server found; tried: ${discovery.tried.join("; ")}`,
      );
      if (discovery.managed !== "stale") {
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
      this.status.tooltip = `The server did not start: ${String(error)}`;
      this.deps.logger.log("error", `${describe(server)} did not start: ${String(error)}`);
      try {
        await client.stop();
      } catch {
        // it never ran
      }
      void this.notifyNotFound(
        { ...discovery, server: undefined },
        `${describe(server)} did not start.`,
      );
      return;
    }
    this.client = client;
    const version = client.serverVersion() ?? "?";
    this.status.text = `$(check) pack-lsp ${version}`;
    this.status.tooltip = `pack-lsp ${version}: ${describe(server)}`;
    this.deps.logger.log("info", `pack-lsp ${version} is running`);
  }

  /**
   * The notification when no server was found (offered once: later starts only show the status
   * bar item, which installs on a click) or when the one found did not start (always shown).
   */
  async notifyNotFound(discovery: Discovery, reason?: string): Promise<void> {
    if (reason === undefined) {
      if (this.deps.memory.get(OFFERED_KEY) === true) {
        return;
      }
      await this.deps.memory.update(OFFERED_KEY, true);
    }
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
    const message = (reason ?? "The pack-lsp language server was not found.") + how;
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
    this.status.text = "$(sync~spin) pack-lsp";
    this.status.tooltip = title;
    this.deps.logger.log("info", `${title} into the extension's storage`);
    const failure = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title, cancellable: false },
      (progress) =>
        this.deps.installer.install(this.interpreter, (step) => {
          this.deps.logger.log("info", step);
          progress.report({ message: step });
        }),
    );
    if (failure === undefined) {
      this.deps.logger.log("info", "pack-lsp is installed");
      return true;
    }
    this.status.text = "$(error) pack-lsp";
    this.status.tooltip = failure;
    this.status.command = "packLsp.installServer";
    this.deps.logger.log("error", failure);
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
