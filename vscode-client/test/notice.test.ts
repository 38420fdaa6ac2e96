import * as vscode from "vscode";
import { NOT_RUNNING, NotRunningNotice, noticeText } from "../src/notice";
import { PackDocuments } from "../src/packs";
import { expect } from "./expect";
import { diagnostics, reset } from "./vscode-mock";

/** An open document as the notice and the pack tracker read it. */
function doc(path: string, text: string, languageId = "yaml", scheme = "file") {
  return {
    uri: { scheme, path, query: "", toString: () => `${scheme}://${path}` },
    languageId,
    version: 1,
    lineCount: text.split("\n").length,
    lineAt: (line: number) => ({ text: text.split("\n")[line] ?? "" }),
    getText: () => text,
  } as unknown as vscode.TextDocument;
}

const PACK = doc("/w/desk.yaml", "id: desk\nprompts:\n  a: {id: a}\n");
const PACKAGE = doc("/w/package.json", '{"name": "app"}', "json");
const NAMED = doc("/w/support.promptpack.yaml", "broken: [", "promptpack");

beforeEach(() => {
  reset();
});

describe("the notice on packs without a running server", () => {
  const packs = new PackDocuments(() => [], ["packlsp-cards"]);

  it("puts one Information diagnostic on each open pack, none on other files", () => {
    const notice = new NotRunningNotice((d) => packs.checked(d));
    notice.update("missing", [PACK, PACKAGE, NAMED]);
    expect([...diagnostics.keys()].sort()).toEqual([
      "file:///w/desk.yaml",
      "file:///w/support.promptpack.yaml",
    ]);
    const [first] = diagnostics.get("file:///w/desk.yaml") ?? [];
    expect(first?.message).toContain("pack-lsp is not running, so nothing checks this file");
    expect(first?.severity).toBe(vscode.DiagnosticSeverity.Information);
    expect(first?.code).toBe(NOT_RUNNING);
    expect(first?.source).toBe("pack-lsp");
  });

  it("offers the install as a quick fix of that diagnostic", () => {
    const notice = new NotRunningNotice((d) => packs.checked(d));
    notice.update("missing", [PACK]);
    const ours = diagnostics.get("file:///w/desk.yaml") ?? [];
    const actions = notice.provideCodeActions(
      PACK,
      ours[0]?.range as unknown as vscode.Range,
      {
        diagnostics: ours,
      } as unknown as vscode.CodeActionContext,
    );
    expect(actions.map((a) => a.command?.command)).toEqual([
      "packLsp.installServer",
      "packLsp.showOutput",
    ]);
    const none = notice.provideCodeActions(
      PACK,
      ours[0]?.range as unknown as vscode.Range,
      {
        diagnostics: [],
      } as unknown as vscode.CodeActionContext,
    );
    expect(none).toEqual([]);
  });

  it("goes when the server runs, and says what is happening meanwhile", () => {
    const notice = new NotRunningNotice((d) => packs.checked(d));
    notice.update("installing", [PACK]);
    expect(diagnostics.get("file:///w/desk.yaml")?.[0]?.message).toContain("being installed");
    notice.update("running", [PACK]);
    expect(diagnostics.size).toBe(0);
    expect(noticeText("starting")).toBeUndefined();
    expect(noticeText("failed", { during: "install", text: "x" })).toContain("install failed");
    expect(noticeText("failed", { during: "start", text: "pack-lsp did not start." })).toContain(
      "pack-lsp did not start.",
    );
  });
});

describe("the pack a command runs on", () => {
  it("is the active document, a preview's pack, or the pack last active", () => {
    const packs = new PackDocuments(() => [], ["packlsp-cards"]);
    expect(packs.target(undefined)).toBeUndefined();
    packs.activated(PACKAGE);
    expect(packs.target(undefined)).toBeUndefined();
    packs.activated(PACK);
    // The topology webview or the Problems panel has focus: no text editor is active.
    expect(packs.target(undefined)?.toString()).toBe("file:///w/desk.yaml");
    const preview = {
      uri: {
        scheme: "packlsp-cards",
        query: JSON.stringify({ source: "file:///w/other.promptpack.yaml" }),
      },
    } as unknown as vscode.TextDocument;
    expect(packs.target(preview)?.toString()).toBe("file:///w/other.promptpack.yaml");
    expect(packs.target(PACKAGE)?.toString()).toBe("file:///w/package.json");
    packs.closed(PACK);
    expect(packs.target(undefined)).toBeUndefined();
  });
});
