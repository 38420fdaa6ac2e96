import { readFileSync, readdirSync } from "node:fs";
import * as path from "node:path";
import { expect } from "./expect";
import { globToRegExp, jsonHeadKeys, recognize } from "../src/recognize";

const SCHEMA = "https://promptpack.org/schema/latest/promptpack.schema.json";
const PACK = "id: x\nname: X\nprompts:\n  a:\n    id: a\n";
const REPO = path.resolve(__dirname, "..", "..", "..");

describe("which documents pack-lsp checks (the server's recognition rules)", () => {
  it("takes files named like packs, whatever they hold", () => {
    for (const name of ["a.promptpack.yaml", "a.promptpack.yml", "a.promptpack.json"]) {
      expect(recognize(`/w/${name}`, "")).toBe("pack");
    }
    expect(recognize("/w/promptpack.yaml", "half: written")).toBe("pack");
    expect(recognize("C:\\w\\support.pack.json", "{")).toBe("pack");
  });

  it("takes a pack by its top level: prompts mapping with id or template_engine", () => {
    expect(recognize("/w/desk.yaml", PACK)).toBe("pack");
    expect(recognize("/w/desk.yaml", "template_engine: {version: v1}\nprompts: {a: {}}\n")).toBe(
      "pack",
    );
    expect(recognize("/w/desk.json", JSON.stringify({ id: "x", prompts: { a: {} } }))).toBe("pack");
  });

  it("takes a pack by a $schema naming promptpack.org", () => {
    expect(recognize("/w/desk.yaml", `$schema: ${SCHEMA}\n`)).toBe("pack");
    expect(recognize("/w/desk.json", `{"$schema": "${SCHEMA}", "broken": }`)).toBe("pack");
  });

  it("leaves other YAML and JSON alone", () => {
    const packageJson = JSON.stringify({ name: "app", version: "1.0.0", scripts: {} });
    expect(recognize("/w/package.json", packageJson)).toBeUndefined();
    expect(recognize("/w/tsconfig.json", '{\n  // comments\n  "compilerOptions": {}\n}')).toBe(
      undefined,
    );
    const workflow = "name: CI\non: [push]\njobs:\n  test:\n    runs-on: ubuntu-latest\n";
    expect(recognize("/w/.github/workflows/ci.yml", workflow)).toBeUndefined();
    const compose = "services:\n  web:\n    image: nginx\n";
    expect(recognize("/w/docker-compose.yaml", compose)).toBeUndefined();
    // `prompts` that is not a mapping, or without id/template_engine
    expect(recognize("/w/a.yaml", "id: x\nprompts:\n  - a\n")).toBeUndefined();
    expect(recognize("/w/a.yaml", "prompts:\n  a: {}\n")).toBeUndefined();
    // a nested key is not the top level
    expect(recognize("/w/a.yaml", `spec:\n  $schema: ${SCHEMA}\n`)).toBeUndefined();
  });

  it("never takes a JSON Schema", () => {
    const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", properties: {} };
    expect(recognize("/w/a.json", JSON.stringify(schema))).toBeUndefined();
    expect(recognize("/w/a.yaml", "definitions:\n  a: {}\nid: x\n")).toBeUndefined();
  });

  it("takes the documents of PromptKit arena projects, whatever their kind", () => {
    const config = "apiVersion: promptkit.altairalabs.ai/v1alpha1\nkind: PromptConfig\n";
    expect(recognize("/w/prompts/refunds.yaml", config)).toBe("arena");
    expect(recognize("/w/old.yaml", "apiVersion: promptkit.dev/v1\nkind: Arena\n")).toBe("arena");
    expect(recognize("/w/mock.yaml", "responses:\n  - hello\n")).toBeUndefined();
  });

  it("takes Kubernetes manifests that carry a pack, not others", () => {
    const cm = [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: support-pack",
      "data:",
      "  notes.txt: hello",
      "  support.yaml: |",
      "    id: support",
      "    prompts:",
      "      a: {id: a}",
      "",
    ].join("\n");
    expect(recognize("/w/k8s/pack.yaml", cm)).toBe("kubernetes");
    const named = "apiVersion: v1\nkind: ConfigMap\ndata:\n  pack.json: '{}'\n";
    expect(recognize("/w/k8s/a.yaml", named)).toBe("kubernetes");
    const resource = [
      "apiVersion: apps/v1",
      "kind: Deployment",
      "---",
      "apiVersion: omnia.altairalabs.ai/v1alpha1",
      "kind: PromptPack",
      "spec: {source: {configMapRef: {name: support-pack}}}",
    ].join("\n");
    expect(recognize("/w/k8s/b.yaml", resource)).toBe("kubernetes");
    const plain = "apiVersion: v1\nkind: ConfigMap\ndata:\n  app.yaml: |\n    port: 80\n";
    expect(recognize("/w/k8s/c.yaml", plain)).toBeUndefined();
    expect(recognize("/w/k8s/d.yaml", "apiVersion: apps/v1\nkind: Deployment\n")).toBeUndefined();
  });

  it("takes agent-extension manifests by name and content, or by the manifests globs", () => {
    expect(recognize("/w/ext/manifest.yaml", "id: ext\nentrypoint: main.py\n")).toBe("manifest");
    expect(recognize("/w/ext/manifest.yml", "id: ext\nagent: {}\n")).toBe("manifest");
    expect(recognize("/w/ext/manifest.yaml", "id: ext\n")).toBeUndefined();
    expect(recognize("/w/ext/agent.yaml", "id: ext\n", ["**/agent.yaml"])).toBe("manifest");
    expect(globToRegExp("ext/*.yml").test("/w/ext/a.yml")).toBe(true);
    expect(globToRegExp("ext/*.yml").test("/w/ext/sub/a.yml")).toBe(false);
  });

  it("reads the top-level keys of JSON that does not parse", () => {
    const keys = jsonHeadKeys('{"id": "x", "prompts": {"a": {"id": "b"}}, "$schema": "u", ');
    expect([...keys.keys()]).toEqual(["id", "prompts", "$schema"]);
    expect(keys.get("$schema")).toBe("u");
  });

  it("takes the repository's example packs", () => {
    const dir = path.join(REPO, "examples");
    for (const name of readdirSync(dir).filter((n) => /\.(ya?ml|json)$/.test(n))) {
      const text = readFileSync(path.join(dir, name), "utf-8");
      expect([name, recognize(path.join(dir, name), text)]).toEqual([name, "pack"]);
    }
    const example = path.join(REPO, "vscode-client", "media", "walkthrough");
    const file = path.join(example, "example.promptpack.yaml");
    expect(recognize("/w/renamed.yaml", readFileSync(file, "utf-8"))).toBe("pack");
  });
});
