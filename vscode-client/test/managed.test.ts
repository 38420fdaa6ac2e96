import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { expect } from "./expect";
import { VenvInstaller } from "../src/installer";
import {
  advice,
  bundledWheel,
  managedPaths,
  managedState,
  pipFailure,
  pipProgress,
  pythonIsRecentEnough,
  wheelVersion,
} from "../src/managed";

describe("the installed server's layout and state", () => {
  it("puts the environment under the storage folder", () => {
    expect(managedPaths("/store", "linux")).toEqual({
      venv: "/store/venv",
      python: "/store/venv/bin/python",
      stamp: "/store/venv/pack-lsp-wheel.txt",
    });
    expect(managedPaths("C:\\store", "win32").python).toBe("C:\\store\\venv\\Scripts\\python.exe");
  });

  it("finds the shipped wheel and its version", () => {
    const wheel = bundledWheel(["README", "pack_lsp-0.2.0-py3-none-any.whl", "x.whl"]);
    expect(wheel).toBe("pack_lsp-0.2.0-py3-none-any.whl");
    expect(wheelVersion(wheel ?? "")).toBe("0.2.0");
    expect(bundledWheel(["other-1.0-py3-none-any.whl"])).toBeUndefined();
  });

  it("is current only when the environment holds the shipped wheel", () => {
    const wheel = "pack_lsp-0.2.0-py3-none-any.whl";
    expect(managedState(true, `${wheel}\n`, wheel)).toBe("current");
    expect(managedState(true, "pack_lsp-0.1.0-py3-none-any.whl", wheel)).toBe("stale");
    expect(managedState(false, wheel, wheel)).toBe("absent");
    expect(managedState(true, undefined, wheel)).toBe("absent");
  });

  it("needs Python 3.11 or newer", () => {
    expect(pythonIsRecentEnough("3.11\n")).toBe(true);
    expect(pythonIsRecentEnough("3.13")).toBe(true);
    expect(pythonIsRecentEnough("4.0")).toBe(true);
    expect(pythonIsRecentEnough("3.10")).toBe(false);
    expect(pythonIsRecentEnough("Python was not found")).toBe(false);
  });
});

describe("what a failed step tells the user", () => {
  it("names the missing venv module and the Debian package", () => {
    const text = advice(
      "venv",
      "The virtual environment was not created successfully because ensurepip is not available.",
      "/usr/bin/python3",
    );
    expect(text).toContain("python3-venv");
    expect(text).toContain("PromptPack: Install Server");
  });

  it("names the package that failed when the index cannot be reached", () => {
    // pip 24 without a network (recorded): the first requirement it looked up fails.
    const offline = [
      "Looking in indexes: http://127.0.0.1:9/simple",
      "WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPConnection object at 0x7fd495f40e50>: Failed to establish a new connection: [Errno 111] Connection refused')': /simple/lsprotocol/",
      "ERROR: Could not find a version that satisfies the requirement lsprotocol>=2025.0.0 (from pack-lsp) (from versions: none)",
      "ERROR: No matching distribution found for lsprotocol>=2025.0.0",
    ].join("\n");
    expect(pipFailure(offline)).toEqual({
      project: "lsprotocol",
      requirement: "lsprotocol>=2025.0.0",
      network: true,
      build: false,
    });
    const text = advice("pip", offline);
    expect(text).toContain("pip could not download lsprotocol (lsprotocol>=2025.0.0");
    expect(text).toContain("package index was not reachable");
    for (const other of ["pygls", "pydantic", "ruamel", "jsonschema"]) {
      expect(text).not.toContain(other);
    }
  });

  it("says which dependency has no wheel, and never asks for a compiler", () => {
    const output = [
      "Processing /ext/server/pack_lsp-0.1.0-py3-none-any.whl",
      "Collecting ruamel.yaml.clib>=0.2.12 (from pack-lsp==0.1.0)",
      'ERROR: Could not find a version that satisfies the requirement ruamel.yaml.clib>=0.2.12; platform_python_implementation == "CPython" (from pack-lsp) (from versions: none)',
      "ERROR: No matching distribution found for ruamel.yaml.clib>=0.2.12",
    ].join("\n");
    const text = advice("pip", output, "/usr/bin/python3.14");
    expect(text).toContain("pip found no wheel of ruamel.yaml.clib (ruamel.yaml.clib>=0.2.12");
    expect(text).toContain("for /usr/bin/python3.14");
    expect(text).not.toContain("build-essential");
    expect(advice("pip", "error: subprocess-exited-with-error")).toContain("compile");
    expect(advice("pip", "something else")).toContain("PromptPack output");
  });

  it("turns pip's lines into progress steps", () => {
    expect(pipProgress("Collecting pygls<3,>=2.0 (from pack-lsp==0.1.0)")).toBe(
      "resolving pygls<3,>=2.0",
    );
    expect(
      pipProgress("  Downloading https://files/pydantic_core-2.33.2-cp311-manylinux.whl (2.0 MB)"),
    ).toBe("downloading pydantic_core-2.33.2-cp311-manylinux.whl (2.0 MB)");
    expect(pipProgress("Installing collected packages: attrs, pygls")).toBe(
      "installing attrs, pygls",
    );
    expect(pipProgress("  Preparing metadata (pyproject.toml): started")).toBeUndefined();
  });

  it("names the interpreter that is too old", () => {
    const text = advice("version", "3.9", "/usr/bin/python3");
    expect(text).toContain("3.11 or newer");
    expect(text).toContain("/usr/bin/python3 is 3.9");
  });
});

/**
 * A stand-in interpreter (a shell script): prints its version, makes a "virtual environment" by
 * copying itself, and "installs" by recording its arguments, or fails as FAKE_PIP_FAIL says.
 */
const FAKE_PYTHON = `#!/bin/sh
if [ "$1" = "-c" ]; then echo "\${FAKE_VERSION:-3.12}"; exit 0; fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then mkdir -p "$3/bin" && cp "$0" "$3/bin/python"; exit 0; fi
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
  if [ -n "$FAKE_PIP_FAIL" ]; then echo "$FAKE_PIP_FAIL" >&2; exit 1; fi
  if [ -n "$FAKE_PIP_GATE" ]; then
    echo "Collecting pygls<3,>=2.0 (from pack-lsp==0.2.0)"
    i=0; while [ ! -f "$FAKE_PIP_GATE" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done
    if [ -f "$FAKE_PIP_GATE" ]; then echo "released" >> "$(dirname "$0")/../pip-calls.txt"; fi
    echo "Installing collected packages: pygls"
  fi
  echo "$@" >> "$(dirname "$0")/../pip-calls.txt"; exit 0
fi
exit 2
`;

describe("installing into the extension's storage", function () {
  let root = "";
  let python = "";
  let serverDir = "";
  const log: string[] = [];

  beforeEach(function () {
    if (process.platform === "win32") {
      this.skip();
    }
    root = mkdtempSync(path.join(tmpdir(), "pack-lsp-install-"));
    python = path.join(root, "python3");
    writeFileSync(python, FAKE_PYTHON);
    chmodSync(python, 0o755);
    serverDir = path.join(root, "server");
    mkdirSync(serverDir);
    writeFileSync(path.join(serverDir, "pack_lsp-0.2.0-py3-none-any.whl"), "");
    log.length = 0;
    delete process.env.FAKE_PIP_FAIL;
    delete process.env.FAKE_PIP_GATE;
    delete process.env.FAKE_VERSION;
  });

  afterEach(() => {
    rmSync(root, { recursive: true, force: true });
  });

  it("creates the environment, installs the wheel, and is then current", async () => {
    const installer = new VenvInstaller(path.join(root, "store"), serverDir, (l) => log.push(l));
    expect((await installer.installed()).state).toBe("absent");
    const steps: string[] = [];
    expect(await installer.install(python, (s) => steps.push(s))).toBeUndefined();
    expect(steps).toEqual([
      `checking ${python}`,
      "creating a virtual environment",
      "installing pack_lsp-0.2.0-py3-none-any.whl and its dependencies",
    ]);
    const state = await installer.installed();
    expect(state).toEqual({ state: "current", python: path.join(root, "store/venv/bin/python") });
    const pip = readFileSync(path.join(root, "store/venv/pip-calls.txt"), "utf-8");
    expect(pip).toContain(path.join(serverDir, "pack_lsp-0.2.0-py3-none-any.whl"));
  });

  it("shows pip's progress while pip runs, and installs wheels only", async () => {
    // The fake pip prints a line, then waits until that line was reported: the install can only
    // finish "released" if its output is read while it runs, not at its end.
    const gate = path.join(root, "gate");
    process.env.FAKE_PIP_GATE = gate;
    const installer = new VenvInstaller(path.join(root, "store"), serverDir, (l) => log.push(l));
    const steps: string[] = [];
    const failure = await installer.install(python, (step) => {
      steps.push(step);
      if (step === "resolving pygls<3,>=2.0") {
        writeFileSync(gate, "");
      }
    });
    expect(failure).toBeUndefined();
    expect(steps.slice(-2)).toEqual(["resolving pygls<3,>=2.0", "installing pygls"]);
    const pip = readFileSync(path.join(root, "store/venv/pip-calls.txt"), "utf-8");
    expect(pip).toContain("released");
    expect(pip).toContain("--only-binary :all:");
    expect(log).toContain("Collecting pygls<3,>=2.0 (from pack-lsp==0.2.0)");
  });

  it("upgrades in place when the extension ships another wheel", async () => {
    const store = path.join(root, "store");
    await new VenvInstaller(store, serverDir, (l) => log.push(l)).install(python, () => undefined);
    rmSync(path.join(serverDir, "pack_lsp-0.2.0-py3-none-any.whl"));
    writeFileSync(path.join(serverDir, "pack_lsp-0.3.0-py3-none-any.whl"), "");
    const installer = new VenvInstaller(store, serverDir, (l) => log.push(l));
    expect((await installer.installed()).state).toBe("stale");
    const steps: string[] = [];
    expect(await installer.install(undefined, (s) => steps.push(s))).toBeUndefined();
    expect(steps).toEqual(["installing pack_lsp-0.3.0-py3-none-any.whl and its dependencies"]);
    expect((await installer.installed()).state).toBe("current");
  });

  it("refuses an old interpreter and says which", async () => {
    process.env.FAKE_VERSION = "3.9";
    const installer = new VenvInstaller(path.join(root, "store"), serverDir, (l) => log.push(l));
    const failure = await installer.install(python, () => undefined);
    expect(failure).toContain(`${python} is 3.9`);
    expect((await installer.installed()).state).toBe("absent");
  });

  it("reports pip's failure with advice and stays not installed", async () => {
    process.env.FAKE_PIP_FAIL =
      "ERROR: Could not find a version that satisfies the requirement pygls";
    const installer = new VenvInstaller(path.join(root, "store"), serverDir, (l) => log.push(l));
    const failure = await installer.install(python, () => undefined);
    expect(failure).toContain("package index");
    expect(log.join("\n")).toContain("Could not find a version");
    expect((await installer.installed()).state).toBe("absent");
  });

  it("says what to do without any interpreter", async () => {
    const installer = new VenvInstaller(path.join(root, "store"), serverDir, (l) => log.push(l));
    expect(await installer.install(undefined, () => undefined)).toContain("No Python interpreter");
  });
});
