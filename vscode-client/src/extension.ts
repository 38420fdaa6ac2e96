/** The PromptPack extension: starts pack-lsp and adds the cards and topology commands. */
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  DocumentDiagnosticRequest,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  TransportKind,
} from "vscode-languageclient/node";
import { CARDS_SCHEME, CardsProvider, previewAgentCards } from "./cards";
import { presentCompletion } from "./completion";
import { type ClientHandle, ServerController } from "./controller";
import { discoverServer, type ServerCommand } from "./discovery";
import { VenvInstaller } from "./installer";
import { PACK_JSON, PACK_YAML, PackAdoption } from "./languages";
import { FilteredChannel } from "./log";
import { NotRunningNotice } from "./notice";
import { PackDocuments } from "./packs";
import {
  GOVERNANCE_SCHEME,
  MeaningProvider,
  previewGovernance,
  RENDERED_SCHEME,
  showRenderedPrompt,
} from "./meaning";
import { canImport, which } from "./probes";
import { SHOW_AGENT_CARD, type SendRequest } from "./protocol";
import { serverSettings } from "./settings";
import { TopologyPanels } from "./topology";

/** Files that are packs or arena configs by name; other YAML/JSON documents (an arena
 * project's PromptConfig, Tool, Scenario... files among them) are sent too and the server
 * decides from their content. */
export const DOCUMENT_SELECTOR = [
  { scheme: "file", pattern: "**/*.promptpack.{yaml,yml,json}" },
  { scheme: "file", pattern: "**/promptpack.{yaml,yml}" },
  { scheme: "file", pattern: "**/*.pack.json" },
  { scheme: "file", pattern: "**/*.arena.{yaml,yml}" },
  { scheme: "file", language: PACK_YAML },
  { scheme: "file", language: PACK_JSON },
  { scheme: "untitled", language: PACK_YAML },
  { scheme: "untitled", language: PACK_JSON },
  { scheme: "file", language: "yaml" },
  { scheme: "file", language: "json" },
  { scheme: "untitled", language: "yaml" },
  { scheme: "untitled", language: "json" },
];

interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
    resolveEnvironment(
      env: { path: string } | string,
    ): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
  };
  settings?: {
    // Declared loosely: the Python extension's API object is whatever version is installed.
    getExecutionDetails?(resource?: vscode.Uri): { execCommand?: string[] } | undefined;
  };
}

async function pythonApi(): Promise<PythonApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonApi>("ms-python.python");
  if (ext === undefined) {
    return undefined;
  }
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch {
    return undefined;
  }
}

/** The interpreter selected in the Python extension, if it is installed. */
export async function selectedInterpreter(): Promise<string | undefined> {
  const api = await pythonApi();
  const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
  const envPath = api?.environments?.getActiveEnvironmentPath(resource);
  if (envPath !== undefined && api?.environments !== undefined) {
    const resolved = await api.environments.resolveEnvironment(envPath);
    return resolved?.executable?.uri?.fsPath ?? envPath.path;
  }
  return api?.settings?.getExecutionDetails?.(resource)?.execCommand?.[0];
}

/** The language client as the controller and the views use it. */
class PackClient implements ClientHandle {
  constructor(
    private readonly client: LanguageClient,
    private readonly settings: () => Record<string, unknown>,
  ) {}

  start(): Promise<void> {
    return this.client.start();
  }

  stop(): Promise<void> {
    return this.client.stop();
  }

  serverVersion(): string | undefined {
    return this.client.initializeResult?.serverInfo?.version;
  }

  sendSettings(): Promise<void> {
    return this.client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { packLsp: this.settings() },
    });
  }

  readonly sendRequest: SendRequest = (type, params, token) =>
    this.client.sendRequest(type, params, token);
}

function createClient(
  server: ServerCommand,
  channel: FilteredChannel,
  trace: vscode.OutputChannel,
): ClientHandle {
  const serverOptions: ServerOptions = {
    command: server.command,
    args: server.args,
    transport: TransportKind.stdio,
  };
  const packSettings = (scope?: string): Record<string, unknown> =>
    serverSettings(
      vscode.workspace.getConfiguration("packLsp", scope ? vscode.Uri.parse(scope) : undefined),
    );
  const clientOptions: LanguageClientOptions = {
    documentSelector: DOCUMENT_SELECTOR,
    outputChannel: channel,
    traceOutputChannel: trace,
    initializationOptions: packSettings(),
    middleware: {
      // A document about to move to a PromptPack language is opened on the server in it.
      didOpen: (document, next) => (adopted(document) ? Promise.resolve() : next(document)),
      didClose: (document, next) => (adopted(document) ? Promise.resolve() : next(document)),
      workspace: {
        // Answer `workspace/configuration` with the explicitly set server settings only.
        configuration: async (params, token, next) => {
          const answer = await next(params, token);
          if (!Array.isArray(answer)) {
            return answer;
          }
          const values: unknown[] = answer;
          return params.items.map((item, i) =>
            item.section === "packLsp" ? packSettings(item.scopeUri) : values[i],
          );
        },
      },
      // A completion's kind beside its label, so that the label is never cut short.
      provideCompletionItem: async (document, position, context, token, next) => {
        const result = await next(document, position, context, token);
        const items = Array.isArray(result) ? result : (result?.items ?? []);
        for (const item of items) {
          presentCompletion(item);
        }
        return result;
      },
      // The server's card lens runs a server command whose answer VS Code would drop: open the
      // preview instead.
      provideCodeLenses: async (document, token, next) => {
        const lenses = await next(document, token);
        for (const lens of lenses ?? []) {
          if (lens.command?.command === SHOW_AGENT_CARD) {
            lens.command = { ...lens.command, command: "packLsp.previewAgentCards" };
          }
        }
        return lenses;
      },
    },
  };
  const client = new LanguageClient("packLsp", "PromptPack", serverOptions, clientOptions);
  languageClient = client;
  return new PackClient(client, () => packSettings());
}

let controller: ServerController | undefined;

const adoption = new PackAdoption();
/** The newest language client, for the diagnostics pull after a document changes language. */
let languageClient: LanguageClient | undefined;

/** Whether `document` (YAML or JSON naming the PromptPack schema) moves to a PromptPack language. */
function adopted(document: vscode.TextDocument): boolean {
  return adoption.adopts(document, document.uri.toString(), document.languageId, () =>
    document.getText(),
  );
}

/** Give a YAML or JSON document that names the PromptPack schema its PromptPack language. */
async function adoptPack(document: vscode.TextDocument): Promise<void> {
  if (document.uri.scheme !== "file" && document.uri.scheme !== "untitled") {
    return;
  }
  if (adopted(document)) {
    const language = document.languageId === "yaml" ? PACK_YAML : PACK_JSON;
    const moved = await vscode.languages.setTextDocumentLanguage(document, language);
    // The client may have pulled the document's diagnostics under its old language, and
    // dropped them when that document closed: pull them again for the open documents.
    languageClient
      ?.getFeature(DocumentDiagnosticRequest.method)
      ?.getProvider(moved)
      ?.onDidChangeDiagnosticsEmitter.fire();
  }
}

/** Copy the walkthrough's example pack into the extension's storage and open it. */
async function openExample(context: vscode.ExtensionContext): Promise<void> {
  const source = vscode.Uri.joinPath(
    context.extensionUri,
    "media",
    "walkthrough",
    "example.promptpack.yaml",
  );
  const folder = vscode.Uri.joinPath(context.globalStorageUri, "example");
  const target = vscode.Uri.joinPath(folder, "example.promptpack.yaml");
  await vscode.workspace.fs.createDirectory(folder);
  await vscode.workspace.fs.copy(source, target, { overwrite: true });
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(target));
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const packs = new PackDocuments(
    () => vscode.workspace.getConfiguration("packLsp").get<string[]>("manifests", []),
    [CARDS_SCHEME, RENDERED_SCHEME, GOVERNANCE_SCHEME],
  );
  const notice = new NotRunningNotice((document) => packs.checked(document));
  const channel = new FilteredChannel(vscode.window.createOutputChannel("PromptPack"));
  const trace = vscode.window.createOutputChannel("PromptPack Trace");
  context.subscriptions.push(channel, trace);

  const installer = new VenvInstaller(
    context.globalStorageUri.fsPath,
    vscode.Uri.joinPath(context.extensionUri, "server").fsPath,
    (line) => {
      channel.log("info", line);
    },
  );
  const ctl = new ServerController({
    discover: () =>
      discoverServer({
        configuredCommand: () =>
          vscode.workspace.getConfiguration("packLsp").get<string[]>("server.command", []),
        selectedInterpreter,
        canImport,
        which: (name) => which(name),
        managed: () => installer.installed(),
      }),
    createClient: (server) => createClient(server, channel, trace),
    logger: channel,
    installer,
    openPacks: () => packs.open().length,
  });
  controller = ctl;
  context.subscriptions.push(ctl);

  const send = (): SendRequest | undefined => ctl.client?.sendRequest;
  const activeUri = (): vscode.Uri | undefined =>
    packs.target(vscode.window.activeTextEditor?.document);
  const refreshNotice = (): void => {
    notice.update(ctl.state, vscode.workspace.textDocuments, ctl.failure);
  };
  const activeChanged = (editor: vscode.TextEditor | undefined): void => {
    const document = editor?.document;
    packs.activated(document);
    const source = document !== undefined ? packs.sourceOf(document.uri) : undefined;
    ctl.setPackActive(document !== undefined && (packs.checked(document) || source !== undefined));
  };
  context.subscriptions.push(
    notice,
    vscode.languages.registerCodeActionsProvider(
      [{ scheme: "file" }, { scheme: "untitled" }],
      notice,
      { providedCodeActionKinds: NotRunningNotice.providedCodeActionKinds },
    ),
    ctl.onDidChangeState(refreshNotice),
    vscode.window.onDidChangeActiveTextEditor(activeChanged),
    vscode.workspace.onDidOpenTextDocument((document) => {
      if (packs.checked(document)) {
        refreshNotice();
        ctl.packOpened();
      }
    }),
    vscode.workspace.onDidCloseTextDocument((document) => {
      packs.closed(document);
      notice.closed(document.uri);
    }),
    vscode.workspace.onDidChangeTextDocument((event) => {
      // An untitled or edited document may become a pack, or stop being one.
      if (ctl.state !== "running" && event.contentChanges.length > 0) {
        refreshNotice();
        if (event.document === vscode.window.activeTextEditor?.document) {
          activeChanged(vscode.window.activeTextEditor);
        }
      }
    }),
  );
  const cards = new CardsProvider(send);
  const meaning = new MeaningProvider(send);
  const topology = new TopologyPanels(send);
  context.subscriptions.push(
    cards,
    topology,
    vscode.workspace.registerTextDocumentContentProvider(CARDS_SCHEME, cards),
    meaning,
    vscode.workspace.registerTextDocumentContentProvider(RENDERED_SCHEME, meaning),
    vscode.workspace.registerTextDocumentContentProvider(GOVERNANCE_SCHEME, meaning),
    vscode.commands.registerCommand(
      "packLsp.showRenderedPrompt",
      (uri?: vscode.Uri, key?: string) => showRenderedPrompt(send(), uri ?? activeUri(), key),
    ),
    vscode.commands.registerCommand(
      "packLsp.previewGovernance",
      (uri?: vscode.Uri, agent?: string) => previewGovernance(send(), uri ?? activeUri(), agent),
    ),
    vscode.commands.registerCommand("packLsp.restartServer", () => ctl.restart()),
    vscode.commands.registerCommand("packLsp.showOutput", () => {
      channel.show(true);
    }),
    vscode.commands.registerCommand("packLsp.installServer", () => ctl.installServer()),
    vscode.commands.registerCommand("packLsp.openExample", () => openExample(context)),
    vscode.workspace.onDidOpenTextDocument((document) => adoptPack(document)),
    vscode.workspace.onDidCloseTextDocument((document) => {
      adoption.closed(document.uri.toString(), document.languageId);
    }),
    vscode.commands.registerCommand(
      "packLsp.previewAgentCards",
      (uri?: string | vscode.Uri, agent?: string, version?: string) => {
        const source = typeof uri === "string" ? vscode.Uri.parse(uri) : (uri ?? activeUri());
        return previewAgentCards(send(), source, agent, version);
      },
    ),
    vscode.commands.registerCommand("packLsp.showTopology", (uri?: vscode.Uri) =>
      topology.show(uri ?? activeUri()),
    ),
    vscode.workspace.onDidChangeConfiguration((event) => ctl.onConfigurationChanged(event)),
  );

  const api = await pythonApi();
  const onInterpreter = api?.environments?.onDidChangeActiveEnvironmentPath;
  if (onInterpreter !== undefined) {
    context.subscriptions.push(onInterpreter(() => void ctl.onInterpreterChanged()));
  }
  await Promise.all(vscode.workspace.textDocuments.map((document) => adoptPack(document)));
  activeChanged(vscode.window.activeTextEditor);
  await ctl.start();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
}
