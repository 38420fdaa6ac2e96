import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { RequestType } from "vscode-languageclient";
import {
  GOVERNANCE_SCHEME,
  GovernanceRequest,
  MeaningProvider,
  governanceText,
  meaningText,
  meaningUri,
  OWN_RENDERER,
  pickTarget,
  RENDER_PROMPT,
  RENDERED_SCHEME,
  showRenderedPrompt,
} from "../src/meaning";
import type { SendRequest } from "../src/protocol";
import { expect } from "./expect";
import { reset, state } from "./vscode-mock";

const SOURCE = "file:///w/shop.promptpack.yaml";

function fakeServer(answer: (method: string, params: unknown) => unknown) {
  const sent: { method: string; params: unknown }[] = [];
  const send: SendRequest = <P, R>(type: RequestType<P, R, void>, params: P): Promise<R> => {
    sent.push({ method: type.method, params });
    return Promise.resolve(answer(type.method, params) as R);
  };
  return { sent, send };
}

function serverConstant(name: string): string | undefined {
  const source = readFileSync(
    join(process.cwd(), "..", "lsp", "pack_lsp", "server", "meaning.py"),
    "utf8",
  );
  return new RegExp(`^${name} = "([^"]*)"$`, "m").exec(source)?.[1];
}

beforeEach(() => {
  reset();
});

/** A JSON-with-comments text without its `//` comment lines. */
function withoutComments(text: string): string {
  return text
    .split("\n")
    .filter((line) => !line.startsWith("//"))
    .join("\n");
}

describe("what a pack means", () => {
  it("uses the server's command and request names", () => {
    expect(RENDER_PROMPT).toBe(serverConstant("RENDER_PROMPT"));
    expect(GovernanceRequest.method).toBe(serverConstant("GOVERNANCE"));
  });

  it("shows the rendered prompt's plain-text view", async () => {
    const server = fakeServer(() => ({ prompt: "triage", document: "# header\n\nHello Ada\n" }));
    const text = await meaningText(
      RENDERED_SCHEME,
      { source: SOURCE, prompt: "triage" },
      server.send,
    );
    expect(text).toBe("# header\n\nHello Ada\n");
    expect(server.sent).toEqual([
      {
        method: "workspace/executeCommand",
        params: { command: "pack-lsp.renderPrompt", arguments: [SOURCE, "triage"] },
      },
    ]);
  });

  it("renders as a deploy target's runtime when one is picked", async () => {
    const server = fakeServer(() => ({ prompt: "triage", document: "# as python\n" }));
    const query = { source: SOURCE, prompt: "triage", target: "promptpack-python" };
    expect(await meaningText(RENDERED_SCHEME, query, server.send)).toBe("# as python\n");
    expect(server.sent).toEqual([
      {
        method: "workspace/executeCommand",
        params: {
          command: "pack-lsp.renderPrompt",
          arguments: [SOURCE, "triage", {}, "promptpack-python"],
        },
      },
    ]);
    expect(meaningUri(RENDERED_SCHEME, query).path).toContain("(rendered for promptpack-python)");
  });

  it("asks for a runtime only when deploy targets are configured", async () => {
    expect(await pickTarget([])).toBe(undefined);
    state.quickPicks = [(items) => items[1]];
    expect(await pickTarget(["promptpack-python"])).toBe("promptpack-python");
    state.quickPicks = [(items) => items[0]];
    expect(await pickTarget(["omnia"])).toBe(undefined);
    state.quickPicks = [];
    expect(await pickTarget(["omnia"])).toBe(null);
    expect(OWN_RENDERER).toContain("pack-lsp");
  });

  it("says why a prompt is not rendered", async () => {
    const server = fakeServer(() => ({ prompt: "x", error: "`x` is not a prompt" }));
    const text = await meaningText(RENDERED_SCHEME, { source: SOURCE, prompt: "x" }, server.send);
    expect(text).toBe("# `x` is not a prompt\n");
    expect(await meaningText(RENDERED_SCHEME, { source: SOURCE }, undefined)).toBe(
      "# the pack-lsp server is not running\n",
    );
  });

  it("asks for one agent's governance", async () => {
    const answer = { pack: null, agents: { billing: { governance: {} } } };
    const server = fakeServer(() => answer);
    const provider = new MeaningProvider(() => server.send);
    const uri = meaningUri(GOVERNANCE_SCHEME, { source: SOURCE, agent: "billing" });
    const text = await provider.provideTextDocumentContent(uri);
    provider.dispose();
    expect(JSON.parse(withoutComments(text))).toEqual(answer);
    expect(server.sent).toEqual([
      {
        method: "promptpack/governance",
        params: { textDocument: { uri: SOURCE }, agent: "billing" },
      },
    ]);
  });

  it("explains a pack without governance instead of showing bare empty JSON", () => {
    const none = governanceText({ pack: null, agents: {} });
    expect(none).toContain("no `metadata.governance` and no `agents` section");
    expect(none).toContain("Add a `governance:` block");
    expect(JSON.parse(withoutComments(none))).toEqual({ pack: null, agents: {} });
    const agents = governanceText({ pack: null, agents: { a: { governance: {} }, b: {} } });
    expect(agents).toContain("none of its 2 agents has a `governance` of its own");
    const one = governanceText({ pack: null, agents: { a: { governance: {} } } }, "a");
    expect(one).toContain("Agent `a` has no `governance` of its own");
  });

  it("shows governance with a short header and no advice", () => {
    const answer = { pack: { purpose: "support" }, agents: {} };
    const text = governanceText(answer);
    expect(text).not.toContain("no governance to show");
    expect(JSON.parse(withoutComments(text))).toEqual(answer);
    expect(governanceText({ pack: null, agents: {}, error: "not a pack" })).toContain(
      "// No governance preview: not a pack.",
    );
  });

  it("renders the only prompt without asking which", async () => {
    const server = fakeServer((_method, params) =>
      (params as { arguments: unknown[] }).arguments.length === 1
        ? { prompts: ["triage"] }
        : { document: "x\n" },
    );
    const editor = await showRenderedPrompt(server.send, { toString: () => SOURCE } as never);
    expect(editor !== undefined).toBe(true);
    expect(server.sent.length).toBe(1);
  });
});
