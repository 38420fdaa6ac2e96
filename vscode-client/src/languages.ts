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
