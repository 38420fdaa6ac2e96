import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as vscode from "vscode";
import type { RequestType } from "vscode-languageclient";
import { CardsProvider, previewAgentCards, previewUri } from "../src/cards";
import {
  A2A_VERSIONS,
  type AgentCardsResult,
  AgentCardsRequest,
  SHOW_AGENT_CARD,
  type SendRequest,
  type TopologyResult,
  TopologyRequest,
} from "../src/protocol";
import { TopologyPanels } from "../src/topology";
import { expect } from "./expect";
import { calls, reset, state } from "./vscode-mock";

const SOURCE = "file:///w/shop.promptpack.yaml";

const CARDS: AgentCardsResult = {
  entry: "router",
  a2aVersion: "0.3.0",
  profile: "spec",
  discoveryPath: "/.well-known/agent-card.json",
  localDefault: true,
  cards: {
    router: { name: "Router", url: "http://localhost:8000/router" },
    billing: { name: "Billing", url: "http://localhost:8000/billing" },
  },
  configured: { router: ["/url"], billing: ["/url"] },
};

const TOPOLOGY: TopologyResult = {
  entry: "router",
  nodes: [
    { id: "router", name: "Router", entry: true, member: true, reachable: true },
    { id: "billing", name: "Billing", entry: false, member: true, reachable: true },
  ],
  edges: [{ from: "router", to: "billing", via: "a2a__billing" }],
  routes: [],
  mermaid: "flowchart LR\n  router --> billing\n",
  dot: "digraph agents {}\n",
};

/** A server that records each request and answers it from `answers`, by method. */
function fakeServer(answers: Record<string, unknown>) {
  const sent: { method: string; params: unknown }[] = [];
  const send: SendRequest = <P, R>(type: RequestType<P, R, void>, params: P): Promise<R> => {
    sent.push({ method: type.method, params });
    if (!(type.method in answers)) {
      return Promise.reject(new Error(`unexpected request ${type.method}`));
    }
    return Promise.resolve(answers[type.method] as R);
  };
  return { sent, send };
}

/** A string constant of the server's Python source: `NAME = "value"`. */
function serverConstant(file: string, name: string): string | undefined {
  const source = readFileSync(join(process.cwd(), "..", "lsp", "pack_lsp", file), "utf8");
  return new RegExp(`^${name} = "([^"]*)"$`, "m").exec(source)?.[1];
}

beforeEach(() => {
  reset();
});

describe("the custom requests", () => {
  it("use the server's request and command names", () => {
    expect(AgentCardsRequest.method).toBe(serverConstant("server/cards.py", "AGENT_CARDS"));
    expect(TopologyRequest.method).toBe(serverConstant("server/cards.py", "TOPOLOGY"));
    expect(SHOW_AGENT_CARD).toBe(serverConstant("server/cards.py", "SHOW_CARD"));
  });

  it("know the server's A2A versions, which the preview setting offers", () => {
    const names = readFileSync(
      join(process.cwd(), "..", "lsp", "pack_lsp", "core", "model", "cards", "names.py"),
      "utf8",
    );
    const declared = /^A2A_VERSIONS: [^=]*= \(([^)]*)\)$/m.exec(names)?.[1];
    expect(declared?.split(",").map((v) => v.trim().replace(/^"|"$/g, ""))).toEqual([
      ...A2A_VERSIONS,
    ]);
    const pkg = JSON.parse(readFileSync(join(process.cwd(), "package.json"), "utf8")) as {
      contributes: { configuration: { properties: Record<string, { enum?: string[] }> } };
    };
    const setting = pkg.contributes.configuration.properties["packLsp.cardsPreview.a2aVersion"];
    expect(setting?.enum).toEqual([...A2A_VERSIONS]);
  });
});

describe("the Agent Cards preview", () => {
  it("asks for the cards of its A2A version and shows the chosen agent's card", async () => {
    const server = fakeServer({ [AgentCardsRequest.method]: CARDS });
    const provider = new CardsProvider(() => server.send);
    const text = await provider.provideTextDocumentContent(
      previewUri({ source: SOURCE, agent: "billing", version: "1.0" }),
    );
    provider.dispose();
    expect(server.sent).toEqual([
      {
        method: "promptpack/agentCards",
        params: { textDocument: { uri: SOURCE }, a2aVersion: "1.0" },
      },
    ]);
    expect(JSON.parse(text)).toEqual(CARDS.cards.billing);
  });

  it("says so when no server runs", async () => {
    const provider = new CardsProvider(() => undefined);
    const text = await provider.provideTextDocumentContent(
      previewUri({ source: SOURCE, version: "0.3.0" }),
    );
    provider.dispose();
    expect(JSON.parse(text)).toEqual({ error: "the pack-lsp server is not running" });
  });

  it("offers the answer's agents and uses the configured A2A version, asking no version", async () => {
    state.config["packLsp.cardsPreview.a2aVersion"] = "1.0";
    state.quickPicks = [(items) => items[2]];
    const server = fakeServer({ [AgentCardsRequest.method]: CARDS });
    await previewAgentCards(server.send, vscode.Uri.parse(SOURCE));
    expect(server.sent).toEqual([
      { method: "promptpack/agentCards", params: { textDocument: { uri: SOURCE } } },
    ]);
    expect(calls.quickPicks.map((items) => items.map((i) => i.label))).toEqual([
      ["All agents", "router", "billing"],
    ]);
    expect(calls.shown).toHaveLength(1);
    const shown = calls.shown[0];
    expect(shown?.languageId).toBe("json");
    expect(shown?.uri).toContain("billing · A2A 1.0.json");
  });

  it("uses the first version the server knows when the setting names another", async () => {
    state.config["packLsp.cardsPreview.a2aVersion"] = "2.0";
    state.quickPicks = [(items) => items[0]];
    const server = fakeServer({ [AgentCardsRequest.method]: CARDS });
    await previewAgentCards(server.send, vscode.Uri.parse(SOURCE));
    expect(calls.quickPicks).toHaveLength(1);
    expect(calls.shown[0]?.uri).toContain("all · A2A 0.3.0.json");
  });

  it("says the server is not running, with the install action", async () => {
    await previewAgentCards(undefined, vscode.Uri.parse(SOURCE));
    expect(calls.errors[0]?.message).toContain("pack-lsp is not running");
    expect(calls.errors[0]?.actions).toEqual(["Install pack-lsp", "Show output"]);
    expect(calls.shown).toHaveLength(0);
  });

  it("asks nothing when the code lens names the agent and the version", async () => {
    const server = fakeServer({});
    await previewAgentCards(server.send, vscode.Uri.parse(SOURCE), "router", "0.3.0");
    expect(server.sent).toEqual([]);
    expect(calls.quickPicks).toHaveLength(0);
    expect(calls.shown[0]?.uri).toContain("router · A2A 0.3.0.json");
  });
});

describe("the topology view", () => {
  it("asks for the pack's topology and draws its agents", async () => {
    const server = fakeServer({ [TopologyRequest.method]: TOPOLOGY });
    const panels = new TopologyPanels(() => server.send);
    await panels.show(vscode.Uri.parse(SOURCE));
    panels.dispose();
    expect(server.sent).toEqual([
      { method: "promptpack/topology", params: { textDocument: { uri: SOURCE } } },
    ]);
    expect(calls.panels).toHaveLength(1);
    const panel = calls.panels[0];
    expect(panel?.title).toBe("Topology: shop.promptpack.yaml");
    expect(panel?.webview.html).toContain("entry: router");
    expect(panel?.webview.html).toContain('data-id="billing"');
  });

  it("opens no blank panel without a server, and says so with the install action", async () => {
    state.errorChoice = "Install pack-lsp";
    const panels = new TopologyPanels(() => undefined);
    await panels.show(vscode.Uri.parse(SOURCE));
    await new Promise((r) => setImmediate(r));
    panels.dispose();
    expect(calls.panels).toHaveLength(0);
    expect(calls.errors[0]?.message).toContain("pack-lsp is not running");
    expect(calls.commands).toEqual([["packLsp.installServer"]]);
  });

  it("says in an open panel that the server stopped", async () => {
    let running = true;
    const server = fakeServer({ [TopologyRequest.method]: TOPOLOGY });
    const panels = new TopologyPanels(() => (running ? server.send : undefined));
    await panels.show(vscode.Uri.parse(SOURCE));
    running = false;
    await panels.refresh(vscode.Uri.parse(SOURCE));
    panels.dispose();
    expect(calls.panels[0]?.webview.html).toContain("pack-lsp is not running");
  });

  it("says a document without agents has none", async () => {
    const server = fakeServer({ [TopologyRequest.method]: { entry: null, nodes: [], edges: [] } });
    const panels = new TopologyPanels(() => server.send);
    await panels.show(vscode.Uri.parse(SOURCE));
    panels.dispose();
    expect(calls.panels[0]?.webview.html).toContain("This pack declares no agents.");
  });
});
