/**
 * The server the extension installs itself: a virtual environment in the extension's global
 * storage into which the pack-lsp wheel shipped in the `.vsix` (under `server/`) is installed,
 * with its dependencies from the package index (docs/decisions.md, D41).
 *
 * Pure: paths, the state of an installation, and what to tell the user when a step fails. The
 * processes are run by `installer.ts`.
 */
import * as path from "node:path";

/** Oldest Python pack-lsp runs on (`requires-python` in pyproject.toml). */
export const MIN_PYTHON: readonly [number, number] = [3, 11];

/** The file in the environment that names the wheel installed there. */
export const STAMP = "pack-lsp-wheel.txt";

export interface ManagedPaths {
  /** The virtual environment. */
  venv: string;
  /** Its interpreter, which runs the server as `python -m pack_lsp`. */
  python: string;
  /** The stamp naming the installed wheel. */
  stamp: string;
}

export function managedPaths(
  storageDir: string,
  platform: string = process.platform,
): ManagedPaths {
  const paths = platform === "win32" ? path.win32 : path.posix;
  const venv = paths.join(storageDir, "venv");
  const python =
    platform === "win32"
      ? paths.join(venv, "Scripts", "python.exe")
      : paths.join(venv, "bin", "python");
  return { venv, python, stamp: paths.join(venv, STAMP) };
}

/** The wheel shipped in the extension: the one `pack_lsp-*.whl` file of its `server/` folder. */
export function bundledWheel(files: readonly string[]): string | undefined {
  const wheels = files.filter((f) => /^pack_lsp-[^-]+-.*\.whl$/.test(f)).sort();
  return wheels.at(-1);
}

/** The version in a wheel's file name (`pack_lsp-0.1.0-py3-none-any.whl` → `0.1.0`). */
export function wheelVersion(wheel: string): string | undefined {
  return /^pack_lsp-([^-]+)-/.exec(wheel)?.[1];
}

/**
 * An installation in storage: `current` when it holds the shipped wheel, `stale` when it holds
 * another (the extension was upgraded: install the new wheel), `absent` otherwise.
 */
export type ManagedState = "current" | "stale" | "absent";

export function managedState(
  pythonExists: boolean,
  stamp: string | undefined,
  wheel: string | undefined,
): ManagedState {
  if (!pythonExists || stamp === undefined) {
    return "absent";
  }
  return wheel !== undefined && stamp.trim() === wheel ? "current" : "stale";
}

/** `"3.11"` → whether it is at least MIN_PYTHON. */
export function pythonIsRecentEnough(version: string): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version.trim());
  if (m === null) {
    return false;
  }
  const [major, minor] = [Number(m[1]), Number(m[2])];
  return major > MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor >= MIN_PYTHON[1]);
}

export type InstallStep = "python" | "version" | "venv" | "pip" | "wheel";

const AGAIN = "then run “PromptPack: Install Server”";
const OR_SETTING =
  "Or install pack-lsp yourself (see the extension's README) and set packLsp.server.command.";
const MIN = `${MIN_PYTHON[0]}.${MIN_PYTHON[1]}`;

/** What the user is told when a step of the installation fails: the cause and what to do. */
export function advice(step: InstallStep, detail: string, python?: string): string {
  const said = detail.toLowerCase();
  switch (step) {
    case "wheel":
      return `This copy of the extension ships no pack-lsp wheel (${detail}): reinstall the extension. ${OR_SETTING}`;
    case "python":
      return `No Python interpreter was found to install pack-lsp with. Install Python ${MIN} or newer and select it in the Python extension (or put python3 on PATH), ${AGAIN}. ${OR_SETTING}`;
    case "version":
      return `pack-lsp needs Python ${MIN} or newer, and ${python ?? "the interpreter found"} is ${detail || "older"}. Select a newer interpreter in the Python extension, ${AGAIN}. ${OR_SETTING}`;
    case "venv":
      if (said.includes("ensurepip") || said.includes("venv")) {
        return `${python ?? "Python"} cannot create virtual environments: its venv module is missing (on Debian and Ubuntu: sudo apt install python3-venv), ${AGAIN}. ${OR_SETTING}`;
      }
      return `Creating a virtual environment with ${python ?? "Python"} failed (the PromptPack output has its message). ${OR_SETTING}`;
    case "pip":
      return pipAdvice(detail, python);
  }
}

/** Lines of pip's output that say which network request failed. */
const NETWORK =
  /NewConnectionError|Failed to establish a new connection|Temporary failure in name resolution|Name or service not known|nodename nor servname|getaddrinfo failed|Network is unreachable|Connection refused|ConnectTimeout|Read timed out|timed out|ProxyError|SSLError|CERTIFICATE_VERIFY_FAILED|No route to host/i;

/** What pip's output says of its failure: the package it could not get, and why. */
export interface PipFailure {
  /** The distribution pip could not install (`pygls`, `ruamel.yaml.clib`), if it names one. */
  project?: string;
  /** The requirement as pip wrote it (`pygls<3,>=2.0`). */
  requirement?: string;
  /** The index could not be reached. */
  network: boolean;
  /** pip tried to build a package from source (a compiler or build dependency failed). */
  build: boolean;
}

export function pipFailure(output: string): PipFailure {
  const found =
    /No matching distribution found for ([^\s]+)/.exec(output) ??
    /Could not find a version that satisfies the requirement ([^\s]+)/.exec(output);
  const requirement = found?.[1];
  const project = requirement?.split(/[<>=!~;[( ]/)[0];
  const build =
    /Failed building wheel for|Failed to build|subprocess-exited-with-error|error: command '[^']*(?:gcc|cc|cl\.exe|clang)[^']*' failed|Python\.h: No such file|Microsoft Visual C\+\+/i.test(
      output,
    );
  return { project, requirement, network: NETWORK.test(output), build };
}

/** The advice for a failed `pip install`, naming the package that failed. */
function pipAdvice(output: string, python?: string): string {
  const failure = pipFailure(output);
  if (failure.network) {
    const what =
      failure.project !== undefined
        ? `pip could not download ${failure.project} (${failure.requirement ?? failure.project}, needed by pack-lsp)`
        : "pip could not download pack-lsp's dependencies";
    return `${what}: the package index was not reachable. Connect to the network, or point pip at a reachable index or proxy (pip.conf, PIP_INDEX_URL, HTTPS_PROXY), ${AGAIN}. ${OR_SETTING}`;
  }
  if (failure.project !== undefined) {
    const on = python !== undefined ? ` for ${python}` : "";
    return `pip found no wheel of ${failure.project} (${failure.requirement ?? failure.project}, needed by pack-lsp)${on} on this platform in the package index. If ${failure.project} publishes none for this Python and platform, select a Python for which every dependency has one (CPython 3.11 to 3.13 on Linux, macOS and Windows) in the Python extension: the extension installs wheels only, so it never needs a C compiler. If the index cannot be reached or lacks it, point pip at one that has it (pip.conf, PIP_INDEX_URL, HTTPS_PROXY). Then run “PromptPack: Install Server”. ${OR_SETTING}`;
  }
  if (failure.build) {
    return `pip tried to compile a dependency from source and failed (the PromptPack output has its message). ${OR_SETTING}`;
  }
  return `pip could not install pack-lsp (the PromptPack output has its message). ${OR_SETTING}`;
}

/** What the progress notification shows of one line of pip's output, or undefined. */
export function pipProgress(line: string): string | undefined {
  const text = line.trim();
  const m =
    /^(Collecting|Downloading|Using cached|Processing|Installing collected packages:|Successfully installed|Building wheel for)\s+(.*)$/.exec(
      text,
    );
  if (m === null) {
    return undefined;
  }
  const rest = (m[2] ?? "").replace(/\s+\(from [^)]*\)$/, "");
  const short = rest.length > 90 ? `${rest.slice(0, 87)}...` : rest;
  switch (m[1] ?? "") {
    case "Collecting":
      return `resolving ${short}`;
    case "Downloading":
    case "Using cached":
      return `downloading ${short.split("/").pop() ?? short}`;
    case "Processing":
      return `reading ${short.split(/[\\/]/).pop() ?? short}`;
    case "Installing collected packages:":
      return `installing ${short}`;
    case "Successfully installed":
      return `installed ${short}`;
    default:
      return `building ${short}`;
  }
}
