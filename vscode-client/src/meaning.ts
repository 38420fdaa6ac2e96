/**
 * What a pack means, as read-only virtual documents beside the pack, refreshed while it is
 * edited (like the Agent Cards preview):
 *
 * - "Show Rendered Prompt": the server command `pack-lsp.renderPrompt` (fragments expanded,
 *   variables filled from defaults and examples, size and estimated tokens);
 * - "Preview Effective Governance": the `promptpack/governance` request (each agent's
 *   governance, the pack's block with the member's own fields replacing it).
 *
 * The server command is sent as `workspace/executeCommand` directly: the language client also
 * registers it as a VS Code command, so the extension's commands have names of their own.
 */
import * as vscode from "vscode";
import { ExecuteCommandRequest, RequestType } from "vscode-languageclient";
import { PreviewProvider, showBeside } from "./preview";
import { notRunning } from "./topology";
import type { SendRequest, TextDocumentParams } from "./protocol";

export const RENDERED_SCHEME = "packlsp-rendered";
export const GOVERNANCE_SCHEME = "packlsp-governance";
export const RENDER_PROMPT = "pack-lsp.renderPrompt";

/** The answer of `pack-lsp.renderPrompt` with `[uri]`: the prompts it can render. */
export interface RenderablePrompts {
  prompts?: string[];
  /** The deploy targets the pack is checked for (`packLsp.targets`, `.pack-lsp.toml`). */
  targets?: string[];
  error?: string;
}

/** The answer of `pack-lsp.renderPrompt` with `[uri, prompt]`. */
export interface RenderedPrompt {
  prompt?: string;
  /** The plain-text view: a header of `#` lines, then the text as the model gets it. */
  document?: string;
  error?: string;
}

export interface GovernanceParams extends TextDocumentParams {
  agent?: string;
}

export interface GovernanceResult {
  pack: Record<string, unknown> | null;
  agents: Record<string, unknown>;
  error?: string;
}

export const GovernanceRequest = new RequestType<GovernanceParams, GovernanceResult, void>(
  "promptpack/governance",
);

/** Which pack and what of it a virtual document shows. */
export interface MeaningQuery {
  source: string;
  prompt?: string;
  agent?: string;
  /** Render as this deploy target's runtime renders (none: pack-lsp's own renderer). */
  target?: string;
}

export function meaningUri(scheme: string, query: MeaningQuery): vscode.Uri {
  const base = query.source.split("/").pop() ?? "pack";
  const what =
    scheme === RENDERED_SCHEME
      ? `${query.prompt ?? "prompt"} (rendered${query.target ? ` for ${query.target}` : ""}).txt`
      : `${query.agent ?? "all agents"} (governance).jsonc`;
  return vscode.Uri.from({ scheme, path: `/${base} · ${what}`, query: JSON.stringify(query) });
}

function executeCommand<R>(send: SendRequest, args: unknown[]): Promise<R> {
  return send(ExecuteCommandRequest.type as RequestType<unknown, R, void>, {
    command: RENDER_PROMPT,
    arguments: args,
  });
}

/** The text of one virtual document. */
export async function meaningText(
  scheme: string,
  query: MeaningQuery,
  send: SendRequest | undefined,
): Promise<string> {
  if (send === undefined) {
    return scheme === RENDERED_SCHEME
      ? "# the pack-lsp server is not running\n"
      : JSON.stringify({ error: "the pack-lsp server is not running" }, null, 2) + "\n";
  }
  if (scheme === RENDERED_SCHEME) {
    const args: unknown[] = [query.source, query.prompt ?? ""];
    if (query.target !== undefined) {
      args.push({}, query.target); // no variables of our own: defaults, as without a target
    }
    const answer = await executeCommand<RenderedPrompt | null>(send, args);
    if (answer?.document !== undefined) {
      return answer.document;
    }
    return `# ${answer?.error ?? "the server did not render this prompt"}\n`;
  }
  const answer = await send(GovernanceRequest, {
    textDocument: { uri: query.source },
    agent: query.agent,
  });
  return governanceText(answer, query.agent);
}

/** Whether an agent's entry of the governance answer holds any term. */
function hasTerms(entry: unknown): boolean {
  const governance = (entry as { governance?: unknown } | null)?.governance;
  return (
    typeof governance === "object" && governance !== null && Object.keys(governance).length > 0
  );
}

/**
 * The governance document: the answer as JSON, under comment lines (the document is JSON with
 * comments) that say what it shows, and what to write when the pack declares no governance at
 * all, instead of a bare `{"pack": null, "agents": {}}`.
 */
export function governanceText(answer: GovernanceResult, agent?: string): string {
  const json = JSON.stringify(answer, null, 2) + "\n";
  if (answer.error !== undefined) {
    return `// No governance preview: ${answer.error}.\n${json}`;
  }
  const agents = Object.keys(answer.agents);
  const any = answer.pack !== null || Object.values(answer.agents).some(hasTerms);
  const lines = [
    "// The governance in force (RFC 0013): the pack's `metadata.governance`, and for each",
    "// agent that block with the fields of its own `governance` replacing the pack's.",
  ];
  if (!any) {
    const why =
      agent !== undefined
        ? `Agent \`${agent}\` has no \`governance\` of its own, and the pack no \`metadata.governance\``
        : agents.length > 0
          ? `This pack has no \`metadata.governance\`, and none of its ${agents.length} agents has a \`governance\` of its own`
          : "This pack has no `metadata.governance` and no `agents` section";
    lines.push(
      "//",
      `// ${why}: there is no governance to show.`,
      "// Add a `governance:` block under the pack's `metadata` (it applies to every agent), or",
      "// under an agent in `agents.members` (it replaces the pack's fields for that agent).",
    );
  }
  return `${lines.join("\n")}\n${json}`;
}

/** Serves both schemes. */
export class MeaningProvider extends PreviewProvider {
  constructor(private readonly send: () => SendRequest | undefined) {
    super();
  }

  protected content(uri: vscode.Uri): Promise<string> {
    return meaningText(uri.scheme, JSON.parse(uri.query) as MeaningQuery, this.send());
  }
}

/** Ask which prompt (unless given), then show it rendered beside the pack. */
export async function showRenderedPrompt(
  send: SendRequest | undefined,
  source: vscode.Uri | undefined,
  prompt?: string,
): Promise<vscode.TextEditor | undefined> {
  if (source === undefined) {
    void vscode.window.showWarningMessage("Open a PromptPack file to render one of its prompts.");
    return undefined;
  }
  if (send === undefined) {
    void notRunning("render a prompt");
    return undefined;
  }
  let chosen = prompt;
  let targets: string[] = [];
  if (chosen === undefined) {
    const answer = await executeCommand<RenderablePrompts | null>(send, [source.toString()]);
    targets = answer?.targets ?? [];
    const keys = answer?.prompts ?? [];
    if (keys.length === 0) {
      void vscode.window.showWarningMessage(
        answer?.error ?? "This pack has no prompt with a system template.",
      );
      return undefined;
    }
    chosen =
      keys.length === 1
        ? keys[0]
        : await vscode.window.showQuickPick(keys, {
            title: "Show Rendered Prompt",
            placeHolder: "Which prompt?",
          });
    if (chosen === undefined) {
      return undefined;
    }
  }
  const target = await pickTarget(targets);
  if (target === null) {
    return undefined;
  }
  return showBeside(
    meaningUri(RENDERED_SCHEME, { source: source.toString(), prompt: chosen, target }),
    "plaintext",
  );
}

/** The label of rendering with pack-lsp's own renderer, in the pick of a runtime. */
export const OWN_RENDERER = "pack-lsp (every placeholder form resolved)";

/**
 * With deploy targets configured, which runtime's rendering to show: `undefined` for
 * pack-lsp's own renderer (also when no target is configured), `null` when dismissed.
 */
export async function pickTarget(targets: string[]): Promise<string | undefined | null> {
  if (targets.length === 0) {
    return undefined;
  }
  const picked = await vscode.window.showQuickPick([OWN_RENDERER, ...targets], {
    title: "Show Rendered Prompt",
    placeHolder: "Render as which runtime renders it?",
  });
  if (picked === undefined) {
    return null;
  }
  return picked === OWN_RENDERER ? undefined : picked;
}

/** Show each agent's effective governance beside the pack. */
export async function previewGovernance(
  send: SendRequest | undefined,
  source: vscode.Uri | undefined,
  agent?: string,
): Promise<vscode.TextEditor | undefined> {
  if (source === undefined) {
    void vscode.window.showWarningMessage("Open a PromptPack file to preview its governance.");
    return undefined;
  }
  if (send === undefined) {
    void notRunning("preview the governance");
    return undefined;
  }
  return showBeside(meaningUri(GOVERNANCE_SCHEME, { source: source.toString(), agent }), "jsonc");
}
