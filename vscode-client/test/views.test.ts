import { expect } from "./expect";
import { parseQuery, previewUri, renderCards } from "../src/cards";
import { layers, place, renderSvg, type Topology } from "../src/layout";
import { FilteredChannel } from "../src/log";
import type { AgentCardsResult } from "../src/protocol";

const topo: Topology = {
  entry: "router",
  nodes: [
    { id: "router", name: "Router", entry: true, member: true, reachable: true },
    { id: "billing", name: "billing", entry: false, member: true, reachable: true },
    { id: "refunds", name: "refunds", entry: false, member: true, reachable: true },
    { id: "orphan", name: "orphan <x>", entry: false, member: true, reachable: false },
  ],
  edges: [
    { from: "router", to: "billing", via: "billing" },
    { from: "billing", to: "refunds", via: "a2a__refunds" },
    { from: "router", to: "refunds", via: "refunds" },
  ],
};

describe("topology layout", () => {
  it("layers agents by call distance from the entry, unreachable last", () => {
    expect(Object.fromEntries(layers(topo))).toEqual({
      router: 0,
      billing: 1,
      refunds: 1,
      orphan: 2,
    });
  });

  it("places boxes without overlap inside the drawing", () => {
    const { nodes, width, height } = place(topo);
    for (const a of nodes) {
      expect(a.x).toBeGreaterThanOrEqual(0);
      expect(a.x + a.width).toBeLessThanOrEqual(width);
      expect(a.y + a.height).toBeLessThanOrEqual(height);
      for (const b of nodes) {
        if (a !== b && a.layer === b.layer) {
          expect(a.x + a.width <= b.x || b.x + b.width <= a.x).toBe(true);
        }
      }
    }
  });

  it("draws one clickable group per agent and one arrow per call, escaping names", () => {
    const svg = renderSvg(topo);
    expect(svg.match(/<g class="node/g)).toHaveLength(4);
    expect(svg.match(/class="edge"/g)).toHaveLength(3);
    expect(svg).toContain('data-id="orphan"');
    expect(svg).toContain("orphan &lt;x&gt;");
    expect(svg).not.toContain("<x>");
    expect(svg).toContain('class="node entry"');
  });
});

describe("agent cards preview", () => {
  const answer: AgentCardsResult = {
    entry: "router",
    a2aVersion: "0.3.0",
    profile: "spec",
    discoveryPath: "/.well-known/agent-card.json",
    localDefault: true,
    cards: { router: { name: "Router" }, billing: { name: "billing" } },
    configured: { router: ["/url"], billing: ["/url"] },
  };

  it("shows all cards or one agent's card", () => {
    expect(JSON.parse(renderCards(answer, undefined))).toEqual(answer);
    expect(JSON.parse(renderCards(answer, "billing"))).toEqual({ name: "billing" });
    expect((JSON.parse(renderCards(answer, "nobody")) as { error: string }).error).toContain(
      "nobody",
    );
  });

  it("shows the server's configuration error", () => {
    expect(
      JSON.parse(renderCards({ entry: "router", cards: {}, error: "bad url" }, undefined)),
    ).toEqual({ error: "bad url" });
  });

  it("round-trips its query through the virtual document URI", () => {
    const q = { source: "file:///w/a.promptpack.yaml", agent: "billing", version: "1.0" as const };
    const uri = previewUri(q);
    expect(uri.scheme).toBe("packlsp-cards");
    expect(uri.path.endsWith(".json")).toBe(true);
    expect(parseQuery(uri)).toEqual(q);
  });
});

describe("output channel log level", () => {
  function channel() {
    const lines: string[] = [];
    const inner = {
      name: "x",
      append: (v: string) => lines.push(v),
      appendLine: (v: string) => lines.push(`${v}\n`),
    };
    return { lines, ch: new FilteredChannel(inner as never) };
  }

  it("filters the server's lines by their level prefix", () => {
    const { lines, ch } = channel();
    ch.level = "warning";
    ch.appendLine("[Info  - 10:00:00] analysed 3 files");
    ch.appendLine("[Error - 10:00:01] handler failed");
    ch.appendLine("  traceback line");
    ch.appendLine("[Warn  - 10:00:02] invalid settings");
    expect(lines).toEqual([
      "[Error - 10:00:01] handler failed\n",
      "  traceback line\n",
      "[Warn  - 10:00:02] invalid settings\n",
    ]);
  });

  it("filters the extension's own lines", () => {
    const { lines, ch } = channel();
    ch.level = "info";
    ch.log("debug", "tried x");
    ch.log("info", "starting");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("starting");
  });
});
