/**
 * Installs pack-lsp into the extension's storage (`managed.ts` has the layout and the messages):
 * a virtual environment made with the Python interpreter discovery found, then
 * `pip install --only-binary :all: <the shipped wheel>`, its dependencies coming from the package
 * index as wheels (nothing is compiled: docs/decisions.md, D71). pip's output reaches the log line
 * by line as it is written, and its steps the progress notification.
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access, readFile, readdir, rm, writeFile } from "node:fs/promises";
import * as path from "node:path";
import {
  advice,
  bundledWheel,
  managedPaths,
  managedState,
  type ManagedPaths,
  type ManagedState,
  pipProgress,
  pythonIsRecentEnough,
} from "./managed";

export interface InstalledServer {
  state: ManagedState;
  /** The environment's interpreter (runs the server when the state is `current`). */
  python: string;
}

/** What the controller needs to install the server (a test double stands in for it). */
export interface ServerInstaller {
  installed(): Promise<InstalledServer>;
  /**
   * Install, or upgrade to the shipped wheel, with `python` (the interpreter discovery found);
   * `report` is told each step. Resolves to undefined on success, else what to tell the user.
   */
  install(python: string | undefined, report: (step: string) => void): Promise<string | undefined>;
}

interface Run {
  code: number;
  output: string;
}

/**
 * Run a process to its end (no shell), handing each line of its output (stdout and stderr) to
 * `onLine` as it is written; a spawn failure is exit code -1 with its message.
 */
export function run(
  command: string,
  args: string[],
  timeoutMs: number,
  onLine: (line: string) => void = () => undefined,
): Promise<Run> {
  return new Promise((resolve) => {
    let output = "";
    let settled = false;
    const child = spawn(command, args, {
      windowsHide: true,
      stdio: ["ignore", "pipe", "pipe"],
      // pip writes its progress unbuffered and in English
      env: { ...process.env, PYTHONUNBUFFERED: "1", PIP_NO_COLOR: "1" },
    });
    const partial = { stdout: "", stderr: "" };
    const take = (stream: "stdout" | "stderr", chunk: Buffer | string): void => {
      const text = chunk.toString();
      output += text;
      const lines = (partial[stream] + text).split(/\r?\n|\r/);
      partial[stream] = lines.pop() ?? "";
      for (const line of lines) {
        if (line.trim() !== "") {
          onLine(line);
        }
      }
    };
    child.stdout.on("data", (chunk: Buffer) => {
      take("stdout", chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      take("stderr", chunk);
    });
    const timer = setTimeout(() => {
      output += `\n${command} did not finish within ${Math.round(timeoutMs / 1000)} s and was stopped`;
      child.kill();
    }, timeoutMs);
    const finish = (code: number): void => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(timer);
      for (const rest of [partial.stdout, partial.stderr]) {
        if (rest.trim() !== "") {
          onLine(rest);
        }
      }
      resolve({ code, output });
    };
    child.on("error", (error) => {
      output += output ? `\n${error.message}` : error.message;
      finish(-1);
    });
    child.on("close", (code) => {
      finish(code ?? -1);
    });
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export class VenvInstaller implements ServerInstaller {
  private readonly paths: ManagedPaths;

  /**
   * @param storageDir the extension's global storage folder
   * @param serverDir the extension's `server/` folder, holding the wheel
   * @param log where each command and its output go
   */
  constructor(
    storageDir: string,
    private readonly serverDir: string,
    private readonly log: (line: string) => void,
  ) {
    this.paths = managedPaths(storageDir);
  }

  private async wheel(): Promise<string | undefined> {
    try {
      return bundledWheel(await readdir(this.serverDir));
    } catch {
      return undefined;
    }
  }

  async installed(): Promise<InstalledServer> {
    let stamp: string | undefined;
    try {
      stamp = await readFile(this.paths.stamp, "utf-8");
    } catch {
      stamp = undefined;
    }
    const state = managedState(await exists(this.paths.python), stamp, await this.wheel());
    return { state, python: this.paths.python };
  }

  /** Run one step, its output going to the log line by line (and to `onLine`). */
  private async step(
    what: string,
    command: string,
    args: string[],
    ms: number,
    onLine: (line: string) => void = () => undefined,
  ): Promise<Run> {
    this.log(`${what}: ${[command, ...args].join(" ")}`);
    return run(command, args, ms, (line) => {
      this.log(line);
      onLine(line);
    });
  }

  async install(
    python: string | undefined,
    report: (step: string) => void,
  ): Promise<string | undefined> {
    const wheel = await this.wheel();
    if (wheel === undefined) {
      return advice("wheel", `nothing in ${this.serverDir}`);
    }
    const { venv, python: venvPython, stamp } = this.paths;
    const have = await this.installed();
    if (have.state === "absent") {
      if (python === undefined) {
        return advice("python", "");
      }
      report(`checking ${python}`);
      const version = await this.step(
        "Python version",
        python,
        ["-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
        30_000,
      );
      if (version.code !== 0) {
        return advice("python", version.output, python);
      }
      if (!pythonIsRecentEnough(version.output)) {
        return advice("version", version.output.trim(), python);
      }
      report("creating a virtual environment");
      await rm(venv, { recursive: true, force: true });
      const made = await this.step("venv", python, ["-m", "venv", venv], 180_000);
      if (made.code !== 0 || !(await exists(venvPython))) {
        await rm(venv, { recursive: true, force: true });
        return advice("venv", made.output, python);
      }
    }
    report(`installing ${wheel} and its dependencies`);
    const pip = await this.step(
      "pip",
      venvPython,
      [
        "-m",
        "pip",
        "install",
        "--upgrade",
        "--disable-pip-version-check",
        "--no-input",
        "--progress-bar",
        "off",
        // Wheels only: a dependency without one for this platform is named, never compiled.
        "--only-binary",
        ":all:",
        path.join(this.serverDir, wheel),
      ],
      900_000,
      (line) => {
        const progress = pipProgress(line);
        if (progress !== undefined) {
          report(progress);
        }
      },
    );
    if (pip.code !== 0) {
      return advice("pip", pip.output, python ?? venvPython);
    }
    await writeFile(stamp, wheel, "utf-8");
    return undefined;
  }
}
