/**
 * The open documents pack-lsp checks (`recognize.ts`), and the pack a command is about: the
 * active editor's document, the pack of an active preview, or, while a preview, the topology or
 * another view has focus, the pack last active in an editor (docs/decisions.md, D72).
 */
import * as vscode from "vscode";
import { PACK_JSON, PACK_YAML } from "./languages";
import { type CheckedKind, recognize } from "./recognize";

/** Languages whose documents may be packs; the server decides the rest from content. */
const DATA_LANGUAGES = new Set(["yaml", "json", "jsonc", PACK_YAML, PACK_JSON]);

export class PackDocuments {
  private readonly kinds = new WeakMap<
    object,
    { version: number; kind: CheckedKind | undefined }
  >();
  /** The pack last shown in the active editor, while it is open. */
  private last: vscode.Uri | undefined;

  /**
   * @param manifests the `packLsp.manifests` globs
   * @param views URI schemes of the previews beside a pack (their query names the pack)
   */
  constructor(
    private readonly manifests: () => readonly string[],
    private readonly views: readonly string[],
  ) {}

  /** Whether pack-lsp checks `document`. */
  checked(document: vscode.TextDocument): boolean {
    if (document.uri.scheme !== "file" && document.uri.scheme !== "untitled") {
      return false;
    }
    if (document.languageId === PACK_YAML || document.languageId === PACK_JSON) {
      return true;
    }
    if (!DATA_LANGUAGES.has(document.languageId)) {
      return false;
    }
    const known = this.kinds.get(document);
    if (known?.version === document.version) {
      return known.kind !== undefined;
    }
    const kind = recognize(document.uri.path, document.getText(), this.manifests());
    this.kinds.set(document, { version: document.version, kind });
    return kind !== undefined;
  }

  /** The open documents pack-lsp checks. */
  open(): vscode.TextDocument[] {
    return vscode.workspace.textDocuments.filter((d) => this.checked(d));
  }

  /** The pack a preview shows (its URI query's `source`), if `uri` is one of the previews. */
  sourceOf(uri: vscode.Uri): vscode.Uri | undefined {
    if (!this.views.includes(uri.scheme)) {
      return undefined;
    }
    try {
      const source = (JSON.parse(uri.query) as { source?: unknown }).source;
      return typeof source === "string" ? vscode.Uri.parse(source) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The active editor changed: remember it when it shows a pack. */
  activated(document: vscode.TextDocument | undefined): void {
    if (document !== undefined && this.checked(document)) {
      this.last = document.uri;
    }
  }

  /** A document closed: it is no longer the pack last active. */
  closed(document: vscode.TextDocument): void {
    if (this.last?.toString() === document.uri.toString()) {
      this.last = undefined;
    }
  }

  /**
   * The pack a command runs on: the active editor's document (the server decides whether it is
   * a pack), the pack of an active preview, or the pack last active when no text editor has focus
   * (a preview's webview, the Problems panel).
   */
  target(active: vscode.TextDocument | undefined): vscode.Uri | undefined {
    if (active === undefined) {
      return this.last;
    }
    if (this.views.includes(active.uri.scheme)) {
      return this.sourceOf(active.uri) ?? this.last;
    }
    if (active.uri.scheme === "output") {
      return this.last;
    }
    return active.uri;
  }
}
