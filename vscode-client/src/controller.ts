/**
 * The server's lifecycle: discovery, start, restart on settings or interpreter changes, the
 * status-bar item and the notification when no server can be found.
 *
 * The language client itself is created by an injected factory so this logic runs in unit tests
 * against a mocked `vscode` module.
 */
import * as vscode from "vscode";
import type { Discovery, ServerCommand } from "./discovery";
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

export interface ControllerDeps {
  discover(): Promise<Discovery>;
  createClient(server: ServerCommand): ClientHandle;
  logger: Logger;
}

export const INSTALL_PREFIX = "Install into ";
export const OPEN_SETTING = "Open setting";
export const SERVER_SETTING = "packLsp.server.command";

function describe(server: ServerCommand): string {
  return [server.command, ...server.args].join(" ");
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `"${arg.replace(/(["\\$`])/g, "\\$1")}"`;
}

export class ServerController implements vscode.Disposable {
  readonly status: vscode.StatusBarItem;
  client: ClientHandle | undefined;
  server: ServerCommand | undefined;
  /** Every start and stop runs after the previous one: restarts never overlap. */
  private queue: Promise<void> = Promise.resolve();
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
    const discovery = await this.deps.discover();
    for (const line of discovery.tried) {
      this.deps.logger.log("debug", `server discovery: tried ${line}`);
    }
    const server = discovery.server;
    this.server = server;
    if (server === undefined) {
      this.status.text = "$(error) pack-lsp";
      this.status.tooltip = "No pack-lsp language server found";
      this.deps.logger.log(
        "error",
        `no language server found; tried: ${discovery.tried.join("; ")}`,
      );
      void this.notifyNotFound(discovery);
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

  /** The error notification with "Install into <interpreter>" and "Open setting". */
  async notifyNotFound(discovery: Discovery, reason?: string): Promise<void> {
    const actions: string[] = [];
    const interpreter = discovery.interpreter;
    if (interpreter !== undefined) {
      actions.push(INSTALL_PREFIX + interpreter);
    }
    actions.push(OPEN_SETTING);
    const message =
      (reason ?? "The pack-lsp language server was not found.") +
      " Install it (pip install pack-lsp) or set packLsp.server.command.";
    const choice = await vscode.window.showErrorMessage(message, ...actions);
    if (choice === OPEN_SETTING) {
      await vscode.commands.executeCommand("workbench.action.openSettings", SERVER_SETTING);
    } else if (
      choice !== undefined &&
      interpreter !== undefined &&
      choice.startsWith(INSTALL_PREFIX)
    ) {
      const terminal = vscode.window.createTerminal({ name: "pack-lsp install" });
      this.disposables.push(
        vscode.window.onDidCloseTerminal((closed) => {
          if (closed === terminal) {
            void this.restart();
          }
        }),
      );
      terminal.show();
      terminal.sendText(`${quote(interpreter)} -m pip install pack-lsp`);
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
