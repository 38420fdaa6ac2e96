/**
 * The server's custom requests and commands, as the server (`lsp/pack_lsp/server/cards.py`)
 * defines them: one typed constant per request, with the shapes of its params and results.
 *
 * The views send these through a `SendRequest` (the running client's, or a test's fake server).
 * Nothing here needs VS Code itself: the unit tests' build resolves `vscode-languageclient` to the
 * protocol package it re-exports `RequestType` from (see `esbuild.mjs`).
 */
import { type CancellationToken, RequestType } from "vscode-languageclient";

/** The A2A protocol versions the server derives Agent Cards for. */
export const A2A_VERSIONS = ["0.3.0", "1.0"] as const;
export type A2aVersion = (typeof A2A_VERSIONS)[number];

/** A reading of the PromptPack rules (the `packLsp.profile` setting's values). */
export type Profile = "spec" | "promptkit";

export interface TextDocumentParams {
  textDocument: { uri: string };
}

// ------------------------------------------------------------------ promptpack/agentCards

export interface AgentCardsParams extends TextDocumentParams {
  /** The A2A version of the cards; the `cards` configuration's version when absent. */
  a2aVersion?: A2aVersion;
  /** Overrides the configured profile for this answer. */
  profile?: Profile;
}

/** One agent's Agent Card: the JSON document the A2A version defines. */
export type AgentCard = Record<string, unknown>;

/** The cards of a pack (`pack_lsp.core.model.cards.describe`). */
export interface AgentCardsDescription {
  /** The entry agent's key, if the pack names one. */
  entry: string | null;
  a2aVersion: A2aVersion;
  profile: Profile;
  /** Where each card is published, relative to the agent's address. */
  discoveryPath: string;
  /** True when no `cards` configuration is set and addresses are local defaults. */
  localDefault: boolean;
  /** Agent key → its card. */
  cards: Record<string, AgentCard>;
  /** Agent key → JSON pointers of the card fields taken from the configuration or defaults. */
  configured: Record<string, string[]>;
  error?: never;
}

/** The `cards` configuration cannot be used: no cards, and why. */
export interface AgentCardsError {
  entry: string | null;
  cards: Record<string, never>;
  error: string;
}

/** The document is unknown or not a pack, or its analysis failed. */
export interface NoAgentCards {
  entry: null;
  cards: Record<string, never>;
  error?: never;
}

export type AgentCardsResult = AgentCardsDescription | AgentCardsError | NoAgentCards;

export const AgentCardsRequest = new RequestType<AgentCardsParams, AgentCardsResult, void>(
  "promptpack/agentCards",
);

// ------------------------------------------------------------------ promptpack/topology

export type TopologyParams = TextDocumentParams;

/** An agent of the call graph. */
export interface TopologyNode {
  /** The agent's key in `agents.members` (or the key of an entry that is not a member). */
  id: string;
  /** The prompt's `name`, else the key. */
  name: string;
  entry: boolean;
  /** Listed in `agents.members` (false for an entry that is not a member). */
  member: boolean;
  /** Reached from the entry through calls or workflow routes. */
  reachable: boolean;
}

/** A call: agent `from` lists `via` (as written in its `tools`), which names agent `to`. */
export interface TopologyEdge {
  from: string;
  to: string;
  via: string;
}

/** A workflow route: after agent `from`, the workflow reaches state `state`, which runs `to`. */
export interface TopologyRoute {
  from: string;
  to: string;
  state: string;
}

export interface TopologyResult {
  entry: string | null;
  nodes: TopologyNode[];
  edges: TopologyEdge[];
  /** The remaining fields are absent when the document is not a pack. */
  routes?: TopologyRoute[];
  /** The graph as a Mermaid flowchart. */
  mermaid?: string;
  /** The graph in Graphviz dot. */
  dot?: string;
}

export const TopologyRequest = new RequestType<TopologyParams, TopologyResult, void>(
  "promptpack/topology",
);

// ------------------------------------------------------------------ commands

/** The server command the "Agent Card" code lenses run, with `[documentUri, agentKey]`. */
export const SHOW_AGENT_CARD = "promptpack.showAgentCard";
export type ShowAgentCardArguments = [uri: string, agent: string];

// ------------------------------------------------------------------ sending

/** Sends one typed request to the running server (`LanguageClient.sendRequest`). */
export type SendRequest = <P, R>(
  type: RequestType<P, R, void>,
  params: P,
  token?: CancellationToken,
) => Promise<R>;
