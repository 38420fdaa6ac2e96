/**
 * "Preview Agent Cards": a read-only virtual JSON document beside the pack, built from the
 * server's `promptpack/agentCards` answer and refreshed while the pack is edited.
 */
import * as vscode from "vscode";
import {
  A2A_VERSIONS,
  type A2aVersion,
  AgentCardsRequest,
  type AgentCardsResult,
  type SendRequest,
} from "./protocol";
import { PreviewProvider, showBeside } from "./preview";
import { notRunning } from "./topology";

export const CARDS_SCHEME = "packlsp-cards";

/** What one preview shows: which pack, which agent (all when absent), which A2A version. */
export interface PreviewQuery {
  source: string;
  agent?: string;
  version: A2aVersion;
}

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

/** The preview text for one answer of `promptpack/agentCards`. */
export function renderCards(answer: AgentCardsResult, agent: string | undefined): string {
  if (answer.error !== undefined) {
    return JSON.stringify({ error: answer.error }, null, 2) + "\n";
  }
  if (agent !== undefined) {
    const card = answer.cards[agent];
    if (card === undefined) {
      return JSON.stringify({ error: `no agent "${agent}" in this pack` }, null, 2) + "\n";
    }
    return JSON.stringify(card, null, 2) + "\n";
  }
  return JSON.stringify(answer, null, 2) + "\n";
}

export class CardsProvider extends PreviewProvider {
  constructor(private readonly send: () => SendRequest | undefined) {
    super();
  }

  protected async content(uri: vscode.Uri): Promise<string> {
    const query = parseQuery(uri);
    const send = this.send();
    if (send === undefined) {
      return JSON.stringify({ error: "the pack-lsp server is not running" }, null, 2) + "\n";
    }
    const answer = await send(AgentCardsRequest, {
      textDocument: { uri: query.source },
      a2aVersion: query.version,
    });
    return renderCards(answer, query.agent);
  }
}

/**
 * Ask which agent, then open the preview beside the pack, for the A2A version of the
 * `packLsp.cardsPreview.a2aVersion` setting (or `version` when a caller names one).
 */
export async function previewAgentCards(
  send: SendRequest | undefined,
  source: vscode.Uri | undefined,
  agent?: string,
  version?: string,
): Promise<vscode.TextEditor | undefined> {
  if (source === undefined) {
    void vscode.window.showWarningMessage("Open a PromptPack file to preview its Agent Cards.");
    return undefined;
  }
  if (send === undefined) {
    void notRunning("preview the Agent Cards");
    return undefined;
  }
  const setting = vscode.workspace
    .getConfiguration("packLsp")
    .get<string>("cardsPreview.a2aVersion", "0.3.0");
  // A value outside the setting's enum is the first version the server knows.
  const configured = A2A_VERSIONS.find((v) => v === setting) ?? A2A_VERSIONS[0];
  const chosenVersion = A2A_VERSIONS.find((v) => v === version) ?? configured;
  let chosenAgent = agent;
  if (agent === undefined) {
    const answer = await send(AgentCardsRequest, { textDocument: { uri: source.toString() } });
    const keys = Object.keys(answer.cards);
    const items: (vscode.QuickPickItem & { key?: string })[] = [
      { label: "All agents", description: answer.entry ? `entry: ${answer.entry}` : undefined },
      ...keys.map((key) => ({
        label: key,
        key,
        description: key === answer.entry ? "entry agent" : undefined,
      })),
    ];
    const picked = await vscode.window.showQuickPick(items, {
      title: `Preview Agent Cards (A2A ${chosenVersion}: the packLsp.cardsPreview.a2aVersion setting)`,
      placeHolder: "Which agent's card?",
    });
    if (picked === undefined) {
      return undefined;
    }
    chosenAgent = picked.key;
  }
  const uri = previewUri({ source: source.toString(), agent: chosenAgent, version: chosenVersion });
  return showBeside(uri, "json");
}
