/**
 * The `promptpack` and `promptpack-json` languages: a pack is YAML or JSON to read, but not to the
 * YAML and JSON extensions. yaml-language-server (Red Hat's YAML extension) validates any `yaml`
 * document that names a `$schema`, and VS Code's JSON features any `json` one; a pack naming the
 * PromptPack schema would show each problem twice, in two versions. A document in a PromptPack
 * language is left to pack-lsp alone (docs/decisions.md, D41).
 *
 * Files named as packs get the language from `contributes.languages`; a YAML or JSON document that
 * names the PromptPack schema is switched when it opens (`packLanguageFor`). Other YAML and JSON
 * documents keep their language and every feature of their extensions.
 */

export const PACK_YAML = "promptpack";
export const PACK_JSON = "promptpack-json";

/** How much of a document is searched for a top-level `$schema`. */
const HEAD = 64 * 1024;
/** A `$schema` value that names the PromptPack schema (its site, or a copy of the file). */
const SCHEMA_VALUE = String.raw`[^\n]*(?:promptpack\.org/|promptpack\.schema\.json)`;
const YAML_SCHEMA = new RegExp(
  String.raw`^(?:"\$schema"|'\$schema'|\$schema)[ \t]*:` + SCHEMA_VALUE,
  "m",
);
const JSON_SCHEMA = new RegExp(String.raw`"\$schema"\s*:\s*"` + SCHEMA_VALUE);

/**
 * The PromptPack language a document should be switched to, or undefined to leave it alone: a
 * `yaml` document with a top-level `$schema` naming the PromptPack schema, or such a `json`/`jsonc`
 * document.
 */
export function packLanguageFor(languageId: string, text: string): string | undefined {
  const head = text.slice(0, HEAD);
  if (languageId === "yaml") {
    return YAML_SCHEMA.test(head) ? PACK_YAML : undefined;
  }
  if (languageId === "json" || languageId === "jsonc") {
    const trimmed = head.trimStart();
    return trimmed.startsWith("{") && JSON_SCHEMA.test(head) ? PACK_JSON : undefined;
  }
  return undefined;
}

/** How soon after a pack closes its reopening in another language counts as the user's choice. */
const USER_CHOICE_MS = 2000;

/**
 * Which opened documents are switched to a PromptPack language. The extension's listener and the
 * language client's `didOpen` ask about the same document: one answer per document, so the client
 * never opens on the server a document that is about to be closed and reopened in its new
 * language (that close, arriving after the new document's diagnostics, would clear them). A pack
 * the user puts back into YAML or JSON (the language picker closes the pack and reopens it at once)
 * is left in the language chosen.
 */
export class PackAdoption {
  private readonly decided = new WeakMap<object, boolean>();
  private readonly leftAt = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  adopts(document: object, uri: string, languageId: string, text: () => string): boolean {
    let answer = this.decided.get(document);
    if (answer === undefined) {
      const left = this.leftAt.get(uri);
      const chosen = left !== undefined && this.now() - left < USER_CHOICE_MS;
      answer = !chosen && packLanguageFor(languageId, text()) !== undefined;
      this.decided.set(document, answer);
    }
    return answer;
  }

  /** A document closed; a pack's closing is remembered for `adopts`. */
  closed(uri: string, languageId: string): void {
    if (languageId === PACK_YAML || languageId === PACK_JSON) {
      this.leftAt.set(uri, this.now());
    }
  }
}
