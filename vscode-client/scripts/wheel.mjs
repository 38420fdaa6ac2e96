// Build the pack-lsp wheel the extension installs when no server is found (docs/decisions.md,
// D41) into server/, replacing any older one: `python -m pip wheel --no-deps` on the repository.
// PYTHON names the interpreter (default: python3, or python on Windows).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const client = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(client, "..");
const out = join(client, "server");
const python = process.env.PYTHON ?? (process.platform === "win32" ? "python" : "python3");

mkdirSync(out, { recursive: true });
for (const name of readdirSync(out)) {
  if (name.endsWith(".whl")) {
    rmSync(join(out, name));
  }
}
try {
  execFileSync(
    python,
    ["-m", "pip", "wheel", "--quiet", "--no-deps", "--disable-pip-version-check", "-w", out, repo],
    { stdio: "inherit" },
  );
} catch (error) {
  console.error(`wheel: building the pack-lsp wheel with ${python} failed: ${String(error)}`);
  process.exit(1);
}
const wheels = readdirSync(out).filter((name) => /^pack_lsp-.*\.whl$/.test(name));
if (wheels.length !== 1) {
  console.error(`wheel: expected one pack_lsp wheel in ${out}, found ${wheels.length}`);
  process.exit(1);
}
console.log(`wheel: ${join("server", wheels[0])}`);
