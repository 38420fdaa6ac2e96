/** Node implementations of the discovery probes (processes and the file system). */
import { execFile } from "node:child_process";
import { constants } from "node:fs";
import { access } from "node:fs/promises";
import * as path from "node:path";

/** Whether `python -c "import pack_lsp"` exits 0 within 15 seconds. */
export function canImport(python: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(python, ["-c", "import pack_lsp"], { timeout: 15000 }, (error) => {
      resolve(error === null);
    });
  });
}

/** The first executable called `name` on PATH (with PATHEXT on Windows). */
export async function which(
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const dirs = (env.PATH ?? "").split(path.delimiter).filter((d) => d.length > 0);
  const exts = process.platform === "win32" ? (env.PATHEXT ?? ".EXE;.CMD;.BAT").split(";") : [""];
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = path.join(dir, name + ext);
      try {
        await access(candidate, constants.X_OK);
        return candidate;
      } catch {
        // not here
      }
    }
  }
  return undefined;
}
