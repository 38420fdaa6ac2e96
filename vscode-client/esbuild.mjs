// Bundle the extension into dist/extension.js (vscode-languageclient included; `vscode` external).
// With --tests: bundle each unit test into out/test/ with `vscode` replaced by the test double,
// and `vscode-languageclient` by the protocol package it re-exports (`RequestType` and the other
// message types `src/protocol.ts` uses): the client half needs a real VS Code to load.
import { readdirSync } from "node:fs";
import * as esbuild from "esbuild";

const production = process.argv.includes("--production");
const watch = process.argv.includes("--watch");
const tests = process.argv.includes("--tests");

const options = tests
  ? {
      entryPoints: readdirSync("test")
        .filter((f) => f.endsWith(".test.ts"))
        .map((f) => `test/${f}`),
      outdir: "out/test",
      alias: {
        vscode: "./test/vscode-mock.ts",
        "vscode-languageclient": "vscode-languageserver-protocol",
      },
      sourcemap: true,
    }
  : {
      entryPoints: ["src/extension.ts"],
      outfile: "dist/extension.js",
      external: ["vscode"],
      minify: production,
      sourcemap: !production,
      sourcesContent: false,
    };

const ctx = await esbuild.context({
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node18",
  logLevel: "warning",
  ...options,
});
if (watch) {
  await ctx.watch();
} else {
  await ctx.rebuild();
  await ctx.dispose();
}
