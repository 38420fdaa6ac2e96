/**
 * "Preview Agent Cards": a read-only virtual JSON document beside the pack, built from the
 * server's `promptpack/agentCards` answer and refreshed while the pack is edited.
 */
import * as vscode from "vscode";

export const CARDS_SCHEME = "packlsp-cards";
export const AGENT_CARDS = "promptpack/agentCards";
export const VERSIONS = ["0.3.0", "1.0"] as const;
export type A2aVersion = (typeof VERSIONS)[number];

/** What one preview shows: which pack, which agent (all when absent), which A2A version. */
export interface PreviewQuery {
  source: string;
  agent?: string;
  version: A2aVersion;
}

export type Request = (method: string, params: unknown) => Promise<unknown>;

export function previewUri(query: PreviewQuery): vscode.Uri {
  const base = query.source.split("/").pop() ?? "pack";
  const who = query.agent ?? "all";
  return vscode.Uri.from({
    scheme: CARDS_SCHEME,
    path: `/${base} · ${who} · A2A ${query.version}.json`,
    query: JSON.stringify(query),
  });
}

export function parseQuery(uri: vscode.Uri): PreviewQuery {
  return JSON.parse(uri.query) as PreviewQuery;
}

interface CardsAnswer {
  entry?: string | null;
  cards?: Record<string, unknown>;
  error?: string;
  [key: string]: unknown;
}

/** The preview text for one answer of `promptpack/agentCards`. */
export function renderCards(answer: CardsAnswer, agent: string | undefined): string {
  if (answer.error !== undefined) {
    return JSON.stringify({ error: answer.error }, null, 2) + "\n";
  }
  if (agent !== undefined) {
    const card = answer.cards?.[agent];
    if (card === undefined) {
      return JSON.stringify({ error: `no agent "${agent}" in this pack` }, null, 2) + "\n";
    }
    return JSON.stringify(card, null, 2) + "\n";
  }
  return JSON.stringify(answer, null, 2) + "\n";
}

export class CardsProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly open = new Map<string, vscode.Uri>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor(private readonly request: () => Request | undefined) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeTextDocument((event) => this.sourceChanged(event.document.uri)),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        if (doc.uri.scheme === CARDS_SCHEME) {
          this.open.delete(doc.uri.toString());
        }
      }),
    );
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    this.open.set(uri.toString(), uri);
    const query = parseQuery(uri);
    const request = this.request();
    if (request === undefined) {
      return JSON.stringify({ error: "the pack-lsp server is not running" }, null, 2) + "\n";
    }
    const answer = (await request(AGENT_CARDS, {
      textDocument: { uri: query.source },
      a2aVersion: query.version,
    })) as CardsAnswer;
    return renderCards(answer, query.agent);
  }

  /** Refresh the previews of `source` shortly after its last edit. */
  sourceChanged(source: vscode.Uri): void {
    const key = source.toString();
    const previews = [...this.open.values()].filter((uri) => parseQuery(uri).source === key);
    if (previews.length === 0) {
      return;
    }
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        for (const uri of previews) {
          this.changed.fire(uri);
        }
      }, 400),
    );
  }

  dispose(): void {
    for (const t of this.timers.values()) {
      clearTimeout(t);
    }
    for (const s of this.subscriptions) {
      s.dispose();
    }
    this.changed.dispose();
  }
}

/** Ask which agent and which A2A version, then open the preview beside the pack. */
export async function previewAgentCards(
  request: Request | undefined,
  source: vscode.Uri | undefined,
  agent?: string,
  version?: string,
): Promise<vscode.TextEditor | undefined> {
  if (source === undefined) {
    void vscode.window.showWarningMessage("Open a PromptPack file to preview its Agent Cards.");
    return undefined;
  }
  if (request === undefined) {
    void vscode.window.showErrorMessage("The pack-lsp server is not running.");
    return undefined;
  }
  const configured = vscode.workspace
    .getConfiguration("packLsp")
    .get<string>("cardsPreview.a2aVersion", "0.3.0");
  let chosenVersion = (VERSIONS as readonly string[]).includes(version ?? "")
    ? (version as A2aVersion)
    : undefined;
  let chosenAgent = agent;
  if (agent === undefined) {
    const answer = (await request(AGENT_CARDS, { textDocument: { uri: source.toString() } })) as CardsAnswer;
    const keys = Object.keys(answer.cards ?? {});
    const items: (vscode.QuickPickItem & { key?: string })[] = [
      { label: "All agents", description: answer.entry ? `entry: ${answer.entry}` : undefined },
      ...keys.map((key) => ({
        label: key,
        key,
        description: key === answer.entry ? "entry agent" : undefined,
      })),
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: "Preview Agent Cards",
      placeHolder: "Which agent's card?",
    });
    if (picked === undefined) {
      return undefined;
    }
    chosenAgent = picked.key;
  }
  if (chosenVersion === undefined) {
    const order = [configured, ...VERSIONS.filter((v) => v !== configured)];
    const picked = await vscode.window.showQuickPick(
      order.map((v) => ({ label: `A2A ${v}`, version: v })),
      { title: "Preview Agent Cards", placeHolder: "Which A2A protocol version?" },
    );
    if (picked === undefined) {
      return undefined;
    }
    chosenVersion = picked.version as A2aVersion;
  }
  const uri = previewUri({ source: source.toString(), agent: chosenAgent, version: chosenVersion });
  const opened = await vscode.workspace.openTextDocument(uri);
  const doc =
    opened.languageId === "json" ? opened : await vscode.languages.setTextDocumentLanguage(opened, "json");
  return vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preview: false });
}
