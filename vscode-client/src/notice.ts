/**
 * An open pack without a running server says so where problems are shown: one Information
 * diagnostic on its first line, "pack-lsp is not running ...", with quick fixes that install the
 * server or show its output (docs/decisions.md, D70). Without it a pack with mistakes looked clean
 * ("No problems have been detected") while nothing was checking it.
 */
import * as vscode from "vscode";
import type { ServerState } from "./controller";

/** The diagnostic's code, which its quick fixes look for. */
export const NOT_RUNNING = "not-running";
export const SOURCE = "pack-lsp";

/** The notice for a server state; undefined when none is shown. */
export function noticeText(
  state: ServerState,
  failure?: { during: "start" | "install"; text: string },
): string | undefined {
  switch (state) {
    case "missing":
      return "pack-lsp is not running, so nothing checks this file: install it (Quick Fix, the status bar, or “PromptPack: Install Server”).";
    case "installing":
      return "pack-lsp is being installed: this file is checked once it starts (“PromptPack: Show Output” follows the install).";
    case "failed":
      return failure?.during === "install"
        ? "pack-lsp is not running (its install failed), so nothing checks this file: “PromptPack: Show Output” has pip's output; the Quick Fix tries again."
        : `pack-lsp is not running (${failure?.text ?? "it did not start"}), so nothing checks this file: see “PromptPack: Show Output”, or install pack-lsp (Quick Fix).`;
    case "starting":
    case "running":
      return undefined;
  }
}

export class NotRunningNotice implements vscode.CodeActionProvider, vscode.Disposable {
  static readonly providedCodeActionKinds = [vscode.CodeActionKind.QuickFix];
  private readonly collection = vscode.languages.createDiagnosticCollection("pack-lsp-status");

  /** @param checked whether pack-lsp checks a document (`recognize.ts`) */
  constructor(private readonly checked: (document: vscode.TextDocument) => boolean) {}

  /** Put the notice on every open document pack-lsp checks, or take it off them all. */
  update(
    state: ServerState,
    documents: readonly vscode.TextDocument[],
    failure?: { during: "start" | "install"; text: string },
  ): void {
    const text = noticeText(state, failure);
    this.collection.clear();
    if (text === undefined) {
      return;
    }
    for (const document of documents) {
      if (document.uri.scheme !== "file" && document.uri.scheme !== "untitled") {
        continue;
      }
      if (!this.checked(document)) {
        continue;
      }
      const first = document.lineCount > 0 ? document.lineAt(0).text.length : 0;
      const diagnostic = new vscode.Diagnostic(
        new vscode.Range(0, 0, 0, first),
        text,
        vscode.DiagnosticSeverity.Information,
      );
      diagnostic.source = SOURCE;
      diagnostic.code = NOT_RUNNING;
      this.collection.set(document.uri, [diagnostic]);
    }
  }

  /** A document closed: its notice goes. */
  closed(uri: vscode.Uri): void {
    this.collection.delete(uri);
  }

  provideCodeActions(
    _document: vscode.TextDocument,
    _range: vscode.Range,
    context: vscode.CodeActionContext,
  ): vscode.CodeAction[] {
    const ours = context.diagnostics.filter((d) => d.source === SOURCE && d.code === NOT_RUNNING);
    if (ours.length === 0) {
      return [];
    }
    const install = new vscode.CodeAction("Install pack-lsp", vscode.CodeActionKind.QuickFix);
    install.command = { command: "packLsp.installServer", title: "Install pack-lsp" };
    install.diagnostics = ours;
    install.isPreferred = true;
    const output = new vscode.CodeAction(
      "Show the PromptPack output",
      vscode.CodeActionKind.QuickFix,
    );
    output.command = { command: "packLsp.showOutput", title: "Show the PromptPack output" };
    output.diagnostics = ours;
    return [install, output];
  }

  dispose(): void {
    this.collection.dispose();
  }
}
