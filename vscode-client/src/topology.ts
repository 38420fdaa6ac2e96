/**
 * "Show Agent Topology": a webview with the call graph of the pack's agents, drawn by
 * `layout.ts` (nothing loaded from the network). Clicking a node opens the agent's prompt.
 */
import * as vscode from "vscode";
import { renderSvg, type Topology } from "./layout";
import { type SendRequest, TopologyRequest } from "./protocol";

function nonce(): string {
  let out = "";
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  for (let i = 0; i < 32; i++) {
    out += chars.charAt(Math.floor(Math.random() * chars.length));
  }
  return out;
}

export function topologyHtml(topology: Topology, cspSource: string): string {
  const n = nonce();
  const body =
    topology.nodes.length === 0 ? "<p>This pack declares no agents.</p>" : renderSvg(topology);
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource} 'nonce-${n}'; script-src 'nonce-${n}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>Agent topology</title>
<style nonce="${n}">
body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); }
.node rect { fill: var(--vscode-editorWidget-background, #252526); stroke: var(--vscode-focusBorder, #007acc); stroke-width: 1.5; }
.node.entry rect { stroke-width: 3; }
.node.unreachable rect { stroke-dasharray: 4 3; opacity: 0.7; }
.node text { fill: var(--vscode-editor-foreground, #ccc); font-size: 13px; }
.node { cursor: pointer; }
.node:hover rect, .node:focus rect { fill: var(--vscode-list-hoverBackground, #2a2d2e); }
.edge { stroke: var(--vscode-editor-foreground, #ccc); stroke-width: 1.3; fill: none; opacity: 0.8; }
.arrowhead { fill: var(--vscode-editor-foreground, #ccc); }
</style></head>
<body><h3>Agents${topology.entry ? ` — entry: ${topology.entry.replace(/[<>&]/g, "")}` : ""}</h3>
${body}
<script nonce="${n}">
const vscode = acquireVsCodeApi();
for (const node of document.querySelectorAll(".node")) {
  const open = () => vscode.postMessage({ type: "reveal", id: node.getAttribute("data-id") });
  node.addEventListener("click", open);
  node.addEventListener("keydown", (e) => { if (e.key === "Enter") open(); });
}
</script></body></html>`;
}

/** A page with one message (no script). */
export function messageHtml(message: string, cspSource: string): string {
  const text = message.replace(
    /[<>&]/g,
    (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;" })[c] ?? c,
  );
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${cspSource};">
<title>Agent topology</title></head>
<body><p>${text}</p></body></html>`;
}

/** "pack-lsp is not running" for a command that needs it, with the action that installs it. */
export async function notRunning(what: string): Promise<void> {
  const choice = await vscode.window.showErrorMessage(
    `pack-lsp is not running, so it cannot ${what}: install it, or see the PromptPack output.`,
    INSTALL_ACTION,
    OUTPUT_ACTION,
  );
  if (choice === INSTALL_ACTION) {
    await vscode.commands.executeCommand("packLsp.installServer");
  } else if (choice === OUTPUT_ACTION) {
    await vscode.commands.executeCommand("packLsp.showOutput");
  }
}

export const INSTALL_ACTION = "Install pack-lsp";
export const OUTPUT_ACTION = "Show output";

/** Where the prompt of `key` is: the `prompts` → key symbol, else the first `key:` line. */
export async function promptLocation(
  document: vscode.TextDocument,
  key: string,
): Promise<vscode.Range | undefined> {
  const symbols = await vscode.commands.executeCommand<vscode.DocumentSymbol[] | undefined>(
    "vscode.executeDocumentSymbolProvider",
    document.uri,
  );
  const prompts = symbols?.find((s) => s.name === "prompts");
  const symbol = prompts?.children.find((c) => c.name === key);
  if (symbol !== undefined) {
    return symbol.selectionRange;
  }
  const pattern = new RegExp(`^\\s*["']?${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}["']?\\s*:`);
  for (let line = 0; line < document.lineCount; line++) {
    const text = document.lineAt(line).text;
    if (pattern.test(text)) {
      const start = text.indexOf(key);
      return new vscode.Range(line, start, line, start + key.length);
    }
  }
  return undefined;
}

export class TopologyPanels implements vscode.Disposable {
  private readonly panels = new Map<string, vscode.WebviewPanel>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly send: () => SendRequest | undefined) {
    this.subscriptions.push(
      vscode.workspace.onDidChangeTextDocument((event) => {
        const key = event.document.uri.toString();
        if (!this.panels.has(key)) {
          return;
        }
        clearTimeout(this.timers.get(key));
        this.timers.set(
          key,
          setTimeout(() => void this.refresh(event.document.uri), 500),
        );
      }),
    );
  }

  async show(source: vscode.Uri | undefined): Promise<void> {
    if (source === undefined) {
      void vscode.window.showWarningMessage("Open a PromptPack file to show its agent topology.");
      return;
    }
    if (this.send() === undefined && !this.panels.has(source.toString())) {
      // Without a server there is nothing to draw: say so instead of opening a blank panel.
      void notRunning("show the agent topology");
      return;
    }
    const key = source.toString();
    let panel = this.panels.get(key);
    if (panel === undefined) {
      panel = vscode.window.createWebviewPanel(
        "packLsp.topology",
        `Topology: ${source.path.split("/").pop() ?? "pack"}`,
        vscode.ViewColumn.Beside,
        { enableScripts: true, localResourceRoots: [] },
      );
      this.panels.set(key, panel);
      panel.onDidDispose(() => this.panels.delete(key));
      panel.webview.onDidReceiveMessage(async (message: { type?: string; id?: string }) => {
        if (message.type === "reveal" && typeof message.id === "string") {
          const document = await vscode.workspace.openTextDocument(source);
          const range = await promptLocation(document, message.id);
          await vscode.window.showTextDocument(document, {
            viewColumn: vscode.ViewColumn.One,
            selection: range,
          });
        }
      });
    } else {
      panel.reveal();
    }
    await this.refresh(source);
  }

  async refresh(source: vscode.Uri): Promise<void> {
    const panel = this.panels.get(source.toString());
    if (panel === undefined) {
      return;
    }
    const send = this.send();
    if (send === undefined) {
      panel.webview.html = messageHtml(
        "pack-lsp is not running, so the topology cannot be drawn: run “PromptPack: Install Server” or “PromptPack: Restart Server”.",
        panel.webview.cspSource,
      );
      return;
    }
    const topology = await send(TopologyRequest, { textDocument: { uri: source.toString() } });
    panel.webview.html = topologyHtml(topology, panel.webview.cspSource);
  }

  dispose(): void {
    for (const t of this.timers.values()) {
      clearTimeout(t);
    }
    for (const p of this.panels.values()) {
      p.dispose();
    }
    for (const s of this.subscriptions) {
      s.dispose();
    }
  }
}
