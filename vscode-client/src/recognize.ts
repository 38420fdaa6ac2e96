/**
 * Which open documents pack-lsp checks, decided in the extension before any server runs: the
 * install offer, the status-bar item and the "not running" notice appear for these documents
 * only, never for every YAML or JSON file (docs/decisions.md, D70).
 *
 * The rules are the server's (`core/model/recognize.py`, the README's "How files are recognised"),
 * read from a document's top-level keys the way the server reads a file too large to parse:
 *
 * 1. a file named like a pack (`*.promptpack.yaml|yml|json`, `promptpack.yaml|yml`,
 *    `*.pack.json`);
 * 2. an agent-extension manifest: `manifest.yaml|yml` with a top-level `id` and an `entrypoint`
 *    or `agent`, or a file matching a `packLsp.manifests` glob;
 * 3. never a JSON Schema (`$schema` naming json-schema.org, or `$defs`/`definitions`/
 *    `properties` at the top of something not shaped like a pack);
 * 4. a document of a PromptKit arena project (`apiVersion` in a PromptKit API group);
 * 5. a Kubernetes manifest with a ConfigMap `data` entry holding a pack or an Omnia `PromptPack`
 *    resource;
 * 6. a pack by content: a `prompts` mapping and an `id` or `template_engine` at the top, or a
 *    `$schema` naming promptpack.org.
 *
 * Pure (no `vscode`): unit-tested against the server's own examples.
 */

export type CheckedKind = "pack" | "manifest" | "kubernetes" | "arena";

/** How much of a document is read (the server's `HEAD_LIMIT`). */
const HEAD = 256 * 1024;

const PACK_NAME =
  /(?:^|[\\/])(?:[^\\/]*\.promptpack\.(?:ya?ml|json)|promptpack\.ya?ml|[^\\/]*\.pack\.json)$/;
const MANIFEST_NAME = /(?:^|[\\/])manifest\.ya?ml$/;
const PROMPTKIT_GROUPS = ["promptkit.altairalabs.ai/", "promptkit.dev/"];
const OMNIA_GROUP = "omnia.altairalabs.ai/";
const DATA_SUFFIX = /\.(?:ya?ml|json)$/i;
const SCHEMA_KEYS = ["$defs", "definitions", "properties"];

/** A top-level YAML key and its inline value (the server's `_YAML_TOP_KEY`). */
const YAML_TOP_KEY =
  /^(?:"([^"\n]+)"|'([^'\n]+)'|([A-Za-z_$][\w$-]*))[ \t]*:(?:[ \t]+([^\n#]*))?/gm;

/** Whether a file name says it is a pack (the server's `kinds.PACK_PATTERNS`). */
export function namedLikePack(path: string): boolean {
  return PACK_NAME.test(path);
}

/** Top-level keys of a YAML document, each with its inline value ('' when none). */
export function yamlTopKeys(text: string): Map<string, string> {
  const keys = new Map<string, string>();
  for (const m of text.matchAll(YAML_TOP_KEY)) {
    const key = m[1] ?? m[2] ?? m[3] ?? "";
    if (!keys.has(key)) {
      keys.set(key, (m[4] ?? "").trim());
    }
  }
  return keys;
}

function unquote(value: string): string {
  return value.replace(/^["']|["']$/g, "").trim();
}

/** A YAML top level whose `prompts` value is a mapping: a block below it or a `{...}` flow. */
function yamlPromptsMapping(text: string, keys: Map<string, string>): boolean {
  const inline = keys.get("prompts");
  if (inline === undefined) {
    return false;
  }
  if (inline.startsWith("{")) {
    return true;
  }
  if (inline !== "" && !inline.startsWith("&")) {
    return false;
  }
  // The first non-blank, non-comment line after `prompts:` is indented and not a list item.
  const at = /^["']?prompts["']?[ \t]*:[^\n]*\n/m.exec(text);
  if (at === null) {
    return false;
  }
  for (const line of text.slice(at.index + at[0].length).split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) {
      continue;
    }
    return /^[ \t]+/.test(line) && !trimmed.startsWith("- ") && trimmed !== "-";
  }
  return false;
}

interface Top {
  schema: string;
  packShaped: boolean;
  schemaKeys: boolean;
  apiVersion: string;
  kind: string;
}

/** The server's `_classify`, for documents it did not take by name. */
function classify(top: Top): CheckedKind | undefined {
  const declared = top.schema.includes("promptpack.org");
  if (top.schema.includes("json-schema.org") || (!top.packShaped && !declared && top.schemaKeys)) {
    return undefined;
  }
  if (PROMPTKIT_GROUPS.some((g) => top.apiVersion.startsWith(g))) {
    return "arena";
  }
  return top.packShaped || declared ? "pack" : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function jsonTop(data: Record<string, unknown>): Top {
  const text = (v: unknown): string => (typeof v === "string" ? v : "");
  return {
    schema: text(data.$schema),
    packShaped: isObject(data.prompts) && ("id" in data || "template_engine" in data),
    schemaKeys: SCHEMA_KEYS.some((k) => k in data),
    apiVersion: text(data.apiVersion),
    kind: text(data.kind),
  };
}

/** The keys (and string values) at depth 1 of a JSON text that does not parse (the server's
 * `_json_head_keys`). */
export function jsonHeadKeys(head: string): Map<string, string> {
  const keys = new Map<string, string>();
  let depth = 0;
  let pending: string | undefined;
  let expectKey = false;
  for (let i = 0; i < head.length; i++) {
    const c = head[i];
    if (c === '"') {
      let j = i + 1;
      while (j < head.length && head[j] !== '"') {
        j += head[j] === "\\" ? 2 : 1;
      }
      if (j >= head.length) {
        break;
      }
      const word = head.slice(i + 1, j);
      if (depth === 1) {
        if (expectKey) {
          pending = word;
          keys.set(word, "");
          expectKey = false;
        } else if (pending !== undefined) {
          keys.set(pending, word);
          pending = undefined;
        }
      }
      i = j;
    } else if (c === "{" || c === "[") {
      depth += 1;
      if (depth === 1) {
        expectKey = true;
      } else {
        pending = undefined;
      }
    } else if (c === "}" || c === "]") {
      depth -= 1;
    } else if (c === "," && depth === 1) {
      expectKey = true;
      pending = undefined;
    }
  }
  return keys;
}

function keysTop(keys: Map<string, string>, packShaped: boolean): Top {
  return {
    schema: unquote(keys.get("$schema") ?? ""),
    packShaped,
    schemaKeys: SCHEMA_KEYS.some((k) => keys.has(k)),
    apiVersion: unquote(keys.get("apiVersion") ?? ""),
    kind: unquote(keys.get("kind") ?? ""),
  };
}

function recognizeJson(text: string): CheckedKind | undefined {
  try {
    const data: unknown = JSON.parse(text);
    return isObject(data) ? classify(jsonTop(data)) : undefined;
  } catch {
    const keys = jsonHeadKeys(text);
    return classify(
      keysTop(keys, keys.has("prompts") && (keys.has("id") || keys.has("template_engine"))),
    );
  }
}

function recognizeYamlDocument(text: string): CheckedKind | undefined {
  const keys = yamlTopKeys(text);
  const shaped = yamlPromptsMapping(text, keys) && (keys.has("id") || keys.has("template_engine"));
  return classify(keysTop(keys, shaped));
}

/** The documents of a YAML stream, split at `---` lines. */
function yamlDocuments(text: string): string[] {
  return text.split(/^---[ \t]*(?:#[^\n]*)?$/m).filter((d) => d.trim() !== "");
}

/** The text of a block scalar's lines below a key at `indent`, dedented. */
function blockBelow(lines: string[], from: number, indent: number): string {
  const body: string[] = [];
  for (let i = from; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const lead = line.length - line.trimStart().length;
    if (line.trim() !== "" && lead <= indent) {
      break;
    }
    body.push(line);
  }
  const inner = Math.min(
    ...body.filter((l) => l.trim() !== "").map((l) => l.length - l.trimStart().length),
  );
  return body.map((l) => l.slice(Number.isFinite(inner) ? inner : 0)).join("\n");
}

/** Whether a ConfigMap document has a `data` entry holding a pack (the server's `_embedded`). */
function configMapHoldsPack(doc: string): boolean {
  const lines = doc.split("\n");
  const dataAt = lines.findIndex((l) => /^data[ \t]*:[ \t]*(?:#.*)?$/.test(l));
  if (dataAt < 0) {
    return false;
  }
  for (let i = dataAt + 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line.trim() === "" || line.trimStart().startsWith("#")) {
      continue;
    }
    const lead = line.length - line.trimStart().length;
    if (lead === 0) {
      break;
    }
    const entry = /^[ \t]+["']?([^"':\n]+?)["']?[ \t]*:[ \t]*(.*)$/.exec(line);
    if (entry === null) {
      continue;
    }
    const key = entry[1] ?? "";
    const value = (entry[2] ?? "").trim();
    if (!DATA_SUFFIX.test(key)) {
      continue;
    }
    if (namedLikePack(key) || /^pack\.(?:ya?ml|json)$/i.test(key)) {
      return true;
    }
    if (/^[|>]/.test(value)) {
      const body = blockBelow(lines, i + 1, lead);
      const json = key.toLowerCase().endsWith(".json");
      if ((json ? recognizeJson(body) : recognizeYamlDocument(body)) === "pack") {
        return true;
      }
    } else if (value.includes("prompts") && /\bid\b|template_engine/.test(value)) {
      return true; // a one-line (JSON) entry
    }
  }
  return false;
}

/** A stream of Kubernetes objects: whether it carries a pack; null when no document is an
 * object (both `apiVersion` and `kind`), as the server's `read_stream`. */
function recognizeKubernetes(text: string): CheckedKind | undefined | null {
  let objects = 0;
  for (const doc of yamlDocuments(text)) {
    const keys = yamlTopKeys(doc);
    if (!keys.has("apiVersion") || !keys.has("kind")) {
      continue;
    }
    objects += 1;
    const api = unquote(keys.get("apiVersion") ?? "");
    const kind = unquote(keys.get("kind") ?? "");
    if (api.startsWith(OMNIA_GROUP) && kind === "PromptPack") {
      return "kubernetes";
    }
    if (api === "v1" && kind === "ConfigMap" && configMapHoldsPack(doc)) {
      return "kubernetes";
    }
  }
  return objects === 0 ? null : undefined;
}

/** A glob of the `packLsp.manifests` setting, as a regular expression on a path. */
export function globToRegExp(glob: string): RegExp {
  let out = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? "";
    if (c === "*") {
      if (glob[i + 1] === "*") {
        out += ".*";
        i += glob[i + 2] === "/" ? 2 : 1;
      } else {
        out += "[^/]*";
      }
    } else if (c === "?") {
      out += "[^/]";
    } else {
      out += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
    }
  }
  return new RegExp(`(?:^|/)${out}$`);
}

/**
 * What pack-lsp checks `text` (the document at `path`) as, or undefined when it is not one of its
 * documents. `manifestGlobs`: the `packLsp.manifests` setting.
 */
export function recognize(
  path: string,
  text: string,
  manifestGlobs: readonly string[] = [],
): CheckedKind | undefined {
  const posix = path.replace(/\\/g, "/");
  if (namedLikePack(posix)) {
    return "pack";
  }
  const head = text.slice(0, HEAD);
  if (manifestGlobs.some((g) => globToRegExp(g).test(posix))) {
    return "manifest";
  }
  if (MANIFEST_NAME.test(posix)) {
    const keys = yamlTopKeys(head);
    if (keys.has("id") && (keys.has("entrypoint") || keys.has("agent"))) {
      return "manifest";
    }
  }
  if (/^[\ufeff \t\r\n]*\{/.test(head) || posix.toLowerCase().endsWith(".json")) {
    return recognizeJson(text.length > HEAD ? head : text);
  }
  if (/^(?:apiVersion|kind)[ \t]*:/m.test(head)) {
    const first = yamlTopKeys(yamlDocuments(head)[0] ?? "");
    if (!PROMPTKIT_GROUPS.some((g) => unquote(first.get("apiVersion") ?? "").startsWith(g))) {
      const found = recognizeKubernetes(head);
      if (found !== null) {
        return found;
      }
    }
  }
  return recognizeYamlDocument(head);
}
