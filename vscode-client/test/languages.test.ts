import { expect } from "./expect";
import { PACK_JSON, PACK_YAML, PackAdoption, packLanguageFor } from "../src/languages";

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

describe("which opened documents are switched", () => {
  const pack = `$schema: ${URL}\nid: x\n`;

  it("gives the opener and the client one answer per document, read once", () => {
    const adoption = new PackAdoption(() => 0);
    const document = {};
    let reads = 0;
    const text = () => {
      reads += 1;
      return pack;
    };
    expect(adoption.adopts(document, "file:///a.yaml", "yaml", text)).toBe(true);
    expect(adoption.adopts(document, "file:///a.yaml", "yaml", text)).toBe(true);
    expect(reads).toBe(1);
    // Once switched, the new document is a pack already: nothing more to do.
    expect(adoption.adopts({}, "file:///a.yaml", PACK_YAML, () => pack)).toBe(false);
  });

  it("leaves a pack the user put back into YAML in YAML", () => {
    let now = 1000;
    const adoption = new PackAdoption(() => now);
    adoption.closed("file:///a.yaml", PACK_YAML);
    now += 50; // the language picker reopens it at once
    expect(adoption.adopts({}, "file:///a.yaml", "yaml", () => pack)).toBe(false);
    // Opened again later, it is switched again.
    adoption.closed("file:///a.yaml", "yaml");
    now += 60_000;
    expect(adoption.adopts({}, "file:///a.yaml", "yaml", () => pack)).toBe(true);
  });
});
