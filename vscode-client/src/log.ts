/**
 * The PromptPack output channel, filtered by the `packLsp.server.logLevel` setting.
 *
 * The language client writes the server's `window/logMessage` lines as `[Level - time] text`;
 * the filter reads that prefix so one level setting governs the extension's and the server's lines.
 */
import type * as vscode from "vscode";

export type LogLevel = "error" | "warning" | "info" | "debug";

const RANK: Record<LogLevel, number> = { error: 0, warning: 1, info: 2, debug: 3 };
const PREFIX = /^\[(Error|Warn|Info|Log|Debug|Trace)\s*-/;
const PREFIX_LEVEL: Record<string, LogLevel> = {
  Error: "error",
  Warn: "warning",
  Info: "info",
  Log: "debug",
  Debug: "debug",
  Trace: "debug",
};

export function parseLevel(value: unknown): LogLevel {
  return typeof value === "string" && value in RANK ? (value as LogLevel) : "info";
}

/** Whether a line at `line` level is shown when the setting is `threshold`. */
export function shows(threshold: LogLevel, line: LogLevel): boolean {
  return RANK[line] <= RANK[threshold];
}

/** An output channel that drops lines below the configured level. */
export class FilteredChannel implements vscode.OutputChannel {
  level: LogLevel = "info";
  private lastShown = true;

  constructor(private readonly inner: vscode.OutputChannel) {}

  get name(): string {
    return this.inner.name;
  }

  /** A line from the extension itself. */
  log(level: LogLevel, message: string): void {
    if (shows(this.level, level)) {
      const time = new Date().toISOString().slice(11, 19);
      this.inner.appendLine(`[${level} - ${time}] ${message}`);
    }
  }

  append(value: string): void {
    const match = PREFIX.exec(value);
    if (match !== null) {
      this.lastShown = shows(this.level, PREFIX_LEVEL[match[1] ?? "Info"] ?? "info");
    }
    if (this.lastShown) {
      this.inner.append(value);
    }
  }

  appendLine(value: string): void {
    this.append(`${value}\n`);
  }

  replace(value: string): void {
    this.inner.replace(value);
  }

  clear(): void {
    this.inner.clear();
  }

  /** `show(preserveFocus)`, or the deprecated `show(column, preserveFocus)` (VS Code ignores the
   * column). */
  show(columnOrPreserve?: vscode.ViewColumn | boolean, preserveFocus?: boolean): void {
    this.inner.show(typeof columnOrPreserve === "boolean" ? columnOrPreserve : preserveFocus);
  }

  hide(): void {
    this.inner.hide();
  }

  dispose(): void {
    this.inner.dispose();
  }
}
