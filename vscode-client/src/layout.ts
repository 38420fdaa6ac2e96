/**
 * A layered SVG drawing of the agent call graph, computed here so the topology view works offline
 * (no graph library, no CDN): layers by shortest call distance from the entry agent, unreachable
 * agents in a last layer, straight arrows between boxes.
 */
import type { TopologyNode, TopologyResult } from "./protocol";

/** What the drawing needs of the server's `promptpack/topology` answer. */
export type Topology = Pick<TopologyResult, "entry" | "nodes" | "edges">;

export interface PlacedNode extends TopologyNode {
  x: number;
  y: number;
  width: number;
  height: number;
  layer: number;
}

const BOX_HEIGHT = 44;
const LAYER_GAP = 90;
const NODE_GAP = 30;
const MARGIN = 20;
const CHAR_WIDTH = 8;

export function layers(topology: Topology): Map<string, number> {
  const depth = new Map<string, number>();
  const ids = topology.nodes.map((n) => n.id);
  const roots = topology.entry !== null && ids.includes(topology.entry) ? [topology.entry] : [];
  if (roots.length === 0) {
    const targets = new Set(topology.edges.map((e) => e.to));
    roots.push(...ids.filter((id) => !targets.has(id)));
  }
  const queue = [...roots];
  for (const root of roots) {
    depth.set(root, 0);
  }
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    const d = depth.get(id) ?? 0;
    for (const edge of topology.edges) {
      if (edge.from === id && !depth.has(edge.to) && ids.includes(edge.to)) {
        depth.set(edge.to, d + 1);
        queue.push(edge.to);
      }
    }
  }
  const last = Math.max(-1, ...depth.values()) + 1;
  for (const id of ids) {
    if (!depth.has(id)) {
      depth.set(id, last);
    }
  }
  return depth;
}

export function place(topology: Topology): { nodes: PlacedNode[]; width: number; height: number } {
  const depth = layers(topology);
  const byLayer = new Map<number, TopologyNode[]>();
  for (const node of topology.nodes) {
    const d = depth.get(node.id) ?? 0;
    byLayer.set(d, [...(byLayer.get(d) ?? []), node]);
  }
  const rows = [...byLayer.keys()].sort((a, b) => a - b);
  const widthOf = (n: TopologyNode): number =>
    Math.max(n.id.length, n.name.length) * CHAR_WIDTH + 32;
  const rowWidths = rows.map((r) =>
    (byLayer.get(r) ?? []).reduce((sum, n) => sum + widthOf(n) + NODE_GAP, -NODE_GAP),
  );
  const width = Math.max(200, ...rowWidths) + 2 * MARGIN;
  const placed: PlacedNode[] = [];
  rows.forEach((row, index) => {
    let x = MARGIN + (width - 2 * MARGIN - (rowWidths[index] ?? 0)) / 2;
    for (const node of byLayer.get(row) ?? []) {
      const w = widthOf(node);
      placed.push({
        ...node,
        x,
        y: MARGIN + index * (BOX_HEIGHT + LAYER_GAP),
        width: w,
        height: BOX_HEIGHT,
        layer: row,
      });
      x += w + NODE_GAP;
    }
  });
  const height = MARGIN * 2 + rows.length * (BOX_HEIGHT + LAYER_GAP) - LAYER_GAP;
  return { nodes: placed, width, height: Math.max(height, BOX_HEIGHT + 2 * MARGIN) };
}

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** The SVG markup; each node is a `<g class="node" data-id="…">` the view makes clickable. */
export function renderSvg(topology: Topology): string {
  const { nodes, width, height } = place(topology);
  const at = new Map(nodes.map((n) => [n.id, n]));
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="Agent topology">`,
    '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" class="arrowhead"/></marker></defs>',
  ];
  for (const edge of topology.edges) {
    const a = at.get(edge.from);
    const b = at.get(edge.to);
    if (a === undefined || b === undefined) {
      continue;
    }
    const x1 = a.x + a.width / 2;
    const x2 = b.x + b.width / 2;
    const down = b.y > a.y;
    const y1 = down ? a.y + a.height : a.y;
    const y2 = down ? b.y : b.y + b.height;
    const self = a === b;
    const path = self
      ? `M ${a.x + a.width} ${a.y + 10} C ${a.x + a.width + 40} ${a.y - 10}, ${a.x + a.width + 40} ${a.y + a.height + 10}, ${a.x + a.width} ${a.y + a.height - 10}`
      : `M ${x1} ${y1} L ${x2} ${y2}`;
    parts.push(
      `<path class="edge" d="${path}" marker-end="url(#arrow)"><title>${escapeXml(`${edge.from} → ${edge.to} (${edge.via})`)}</title></path>`,
    );
  }
  for (const node of nodes) {
    const classes = ["node", node.entry ? "entry" : "", node.reachable ? "" : "unreachable"]
      .filter((c) => c.length > 0)
      .join(" ");
    const label = node.name !== node.id ? `${node.id} · ${node.name}` : node.id;
    parts.push(
      `<g class="${classes}" data-id="${escapeXml(node.id)}" tabindex="0" role="button">` +
        `<rect x="${node.x}" y="${node.y}" width="${node.width}" height="${node.height}" rx="8"/>` +
        `<text x="${node.x + node.width / 2}" y="${node.y + node.height / 2 + 5}" text-anchor="middle">${escapeXml(node.id)}</text>` +
        `<title>${escapeXml(label)}${node.entry ? " (entry)" : ""}${node.reachable ? "" : " (unreachable)"}</title></g>`,
    );
  }
  parts.push("</svg>");
  return parts.join("\n");
}
