import { expect } from "./expect";
import { PACK_JSON, PACK_YAML, packLanguageFor } from "../src/languages";

const URL = "https://promptpack.org/schema/latest/promptpack.schema.json";

describe("documents given a PromptPack language", () => {
  it("switches a YAML document whose top-level $schema names the PromptPack schema", () => {
    expect(packLanguageFor("yaml", `# a pack\n$schema: ${URL}\nid: x\n`)).toBe(PACK_YAML);
    expect(packLanguageFor("yaml", `id: x\n"$schema": '${URL}'\n`)).toBe(PACK_YAML);
    expect(packLanguageFor("yaml", "$schema: ../schemas/promptpack.schema.json\n")).toBe(PACK_YAML);
  });

  it("switches a JSON or JSONC document that names the schema", () => {
    expect(packLanguageFor("json", `{\n  "$schema": "${URL}",\n  "id": "x"\n}`)).toBe(PACK_JSON);
    expect(packLanguageFor("jsonc", ` {"id": "x", "$schema" : "${URL}"}`)).toBe(PACK_JSON);
  });

  it("leaves other YAML and JSON documents alone", () => {
    expect(
      packLanguageFor("yaml", "$schema: https://json.schemastore.org/github-workflow\n"),
    ).toBeUndefined();
    // Not at the top level: a nested key of another document.
    expect(packLanguageFor("yaml", `spec:\n  $schema: ${URL}\n`)).toBeUndefined();
    expect(packLanguageFor("yaml", `# $schema: ${URL}\nkind: ConfigMap\n`)).toBeUndefined();
    expect(packLanguageFor("json", `["$schema", "${URL}"]`)).toBeUndefined();
    expect(
      packLanguageFor("json", '{"$schema": "https://json-schema.org/draft/2020-12/schema"}'),
    ).toBeUndefined();
  });

  it("leaves documents of other languages alone", () => {
    expect(packLanguageFor("markdown", `$schema: ${URL}\n`)).toBeUndefined();
    expect(packLanguageFor(PACK_YAML, `$schema: ${URL}\n`)).toBeUndefined();
  });
});
