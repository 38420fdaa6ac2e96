/**
 * Read-only virtual documents beside a pack (the Agent Cards preview, the rendered prompt,
 * the effective governance): each document's URI query is JSON naming its pack (`source`);
 * the documents of a pack are refreshed shortly after its last edit.
 */
import * as vscode from "vscode";

/** How long after a pack's last edit its open previews are refreshed, in milliseconds. */
const REFRESH_DELAY = 400;

function sourceOf(uri: vscode.Uri): string {
  return (JSON.parse(uri.query) as { source: string }).source;
}

/** Serves a preview's text (`content`) and refreshes the open previews of an edited pack. */
export abstract class PreviewProvider
  implements vscode.TextDocumentContentProvider, vscode.Disposable
{
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly open = new Map<string, vscode.Uri>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly subscriptions: vscode.Disposable[] = [];

  constructor() {
    this.subscriptions.push(
      vscode.workspace.onDidChangeTextDocument((event) => {
        this.sourceChanged(event.document.uri);
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => {
        this.open.delete(doc.uri.toString());
      }),
    );
  }

  /** The text of the preview at `uri`. */
  protected abstract content(uri: vscode.Uri): Promise<string>;

  provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    this.open.set(uri.toString(), uri);
    return this.content(uri);
  }

  /** Refresh the previews of `source` shortly after its last edit. */
  sourceChanged(source: vscode.Uri): void {
    const key = source.toString();
    const shown = [...this.open.values()].filter((uri) => sourceOf(uri) === key);
    if (shown.length === 0) {
      return;
    }
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        for (const uri of shown) {
          this.changed.fire(uri);
        }
      }, REFRESH_DELAY),
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

/** Open the preview at `uri` in `language`, beside the active editor. */
export async function showBeside(uri: vscode.Uri, language: string): Promise<vscode.TextEditor> {
  const opened = await vscode.workspace.openTextDocument(uri);
  const doc =
    opened.languageId === language
      ? opened
      : await vscode.languages.setTextDocumentLanguage(opened, language);
  return vscode.window.showTextDocument(doc, {
    viewColumn: vscode.ViewColumn.Beside,
    preview: false,
  });
}
