/**
 * The part of the `vscode` API the extension's logic uses, recorded for assertions. Tests set
 * `state` (configuration values, the answer to the next notification) and read the calls back.
 */
export const state = {
  config: {} as Record<string, unknown>,
  errorChoice: undefined as string | undefined,
  infoChoice: undefined as string | undefined,
  quickPicks: [] as ((items: { label: string }[]) => unknown)[],
};

/** A webview panel as the topology view uses it; `html` is what the view shows. */
export interface MockPanel {
  viewType: string;
  title: string;
  webview: { html: string; cspSource: string; onDidReceiveMessage: () => { dispose(): void } };
  onDidDispose: () => { dispose(): void };
  reveal: () => void;
  dispose: () => void;
}

export const calls = {
  errors: [] as { message: string; actions: string[] }[],
  infos: [] as { message: string; actions: string[] }[],
  progress: [] as { title: string; steps: string[] }[],
  commands: [] as unknown[][],
  panels: [] as MockPanel[],
  quickPicks: [] as { label: string }[][],
  shown: [] as { uri: string; languageId: string }[],
};

export function reset(): void {
  state.config = {};
  state.errorChoice = undefined;
  state.infoChoice = undefined;
  calls.infos = [];
  calls.progress = [];
  state.quickPicks = [];
  calls.errors = [];
  calls.commands = [];
  calls.panels = [];
  calls.quickPicks = [];
  calls.shown = [];
  diagnostics.clear();
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ProgressLocation {
  Notification = 15,
}

export enum ViewColumn {
  One = 1,
  Beside = -2,
}

export class EventEmitter<T> {
  private listeners: ((e: T) => void)[] = [];
  event = (listener: (e: T) => void) => {
    this.listeners.push(listener);
    return { dispose: () => (this.listeners = this.listeners.filter((l) => l !== listener)) };
  };
  fire(e: T): void {
    for (const l of this.listeners) l(e);
  }
  dispose(): void {
    this.listeners = [];
  }
}

export const window = {
  createStatusBarItem: () => ({
    text: "",
    tooltip: "",
    name: "",
    command: "",
    show: () => undefined,
    hide: () => undefined,
    dispose: () => undefined,
  }),
  showErrorMessage: async (message: string, ...actions: string[]) => {
    calls.errors.push({ message, actions });
    return state.errorChoice;
  },
  showWarningMessage: async () => undefined,
  showInformationMessage: async (message: string, ...actions: string[]) => {
    calls.infos.push({ message, actions });
    return state.infoChoice;
  },
  withProgress: async <R>(
    options: { title: string },
    task: (progress: { report(value: { message?: string }): void }) => Promise<R>,
  ): Promise<R> => {
    const record = { title: options.title, steps: [] as string[] };
    calls.progress.push(record);
    return task({
      report: (value) => {
        if (value.message !== undefined) {
          record.steps.push(value.message);
        }
      },
    });
  },
  showQuickPick: async (items: { label: string }[]) => {
    calls.quickPicks.push(items);
    const next = state.quickPicks.shift();
    return next === undefined ? undefined : next(items);
  },
  createWebviewPanel: (viewType: string, title: string): MockPanel => {
    const panel: MockPanel = {
      viewType,
      title,
      webview: {
        html: "",
        cspSource: "vscode-webview:",
        onDidReceiveMessage: () => ({ dispose: () => undefined }),
      },
      onDidDispose: () => ({ dispose: () => undefined }),
      reveal: () => undefined,
      dispose: () => undefined,
    };
    calls.panels.push(panel);
    return panel;
  },
  showTextDocument: async (document: { uri: { toString(): string }; languageId: string }) => {
    calls.shown.push({ uri: document.uri.toString(), languageId: document.languageId });
    return { document };
  },
};

export const workspace = {
  getConfiguration: (section?: string) => ({
    get: <T>(key: string, fallback?: T): T | undefined => {
      const full = section ? `${section}.${key}` : key;
      return (full in state.config ? state.config[full] : fallback) as T | undefined;
    },
    inspect: (key: string) => {
      const full = section ? `${section}.${key}` : key;
      return full in state.config ? { globalValue: state.config[full] } : {};
    },
  }),
  onDidChangeTextDocument: () => ({ dispose: () => undefined }),
  onDidCloseTextDocument: () => ({ dispose: () => undefined }),
  openTextDocument: async (uri: { toString(): string }) => ({ uri, languageId: "plaintext" }),
};

export const commands = {
  executeCommand: async (...args: unknown[]) => {
    calls.commands.push(args);
    return undefined;
  },
};

export class Range {
  constructor(
    readonly startLine: number,
    readonly startCharacter: number,
    readonly endLine: number,
    readonly endCharacter: number,
  ) {}
}

export const Uri = {
  from: (parts: { scheme: string; path: string; query: string }) => ({
    ...parts,
    toString: () => `${parts.scheme}:${parts.path}?${parts.query}`,
  }),
  parse: (value: string) => ({ path: new URL(value).pathname, toString: () => value }),
};

/** Diagnostics set through `languages.createDiagnosticCollection`, by URI. */
export const diagnostics = new Map<string, Diagnostic[]>();

export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}

export class Diagnostic {
  source?: string;
  code?: string | number;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: DiagnosticSeverity,
  ) {}
}

export class CodeActionKind {
  static readonly QuickFix = new CodeActionKind("quickfix");
  constructor(readonly value: string) {}
}

export class CodeAction {
  command?: { command: string; title: string };
  diagnostics?: Diagnostic[];
  isPreferred?: boolean;
  constructor(
    readonly title: string,
    readonly kind?: CodeActionKind,
  ) {}
}

export const languages = {
  createDiagnosticCollection: () => ({
    set: (uri: { toString(): string }, list: Diagnostic[]) => {
      diagnostics.set(uri.toString(), list);
    },
    delete: (uri: { toString(): string }) => {
      diagnostics.delete(uri.toString());
    },
    clear: () => {
      diagnostics.clear();
    },
    dispose: () => {
      diagnostics.clear();
    },
  }),
  setTextDocumentLanguage: async <T extends object>(document: T, languageId: string) => ({
    ...document,
    languageId,
  }),
};
