/**
 * The part of the `vscode` API the extension's logic uses, recorded for assertions. Tests set
 * `state` (configuration values, the answer to the next notification) and read the calls back.
 */
export const state = {
  config: {} as Record<string, unknown>,
  errorChoice: undefined as string | undefined,
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
  commands: [] as unknown[][],
  terminals: [] as { name?: string; sent: string[] }[],
  panels: [] as MockPanel[],
  quickPicks: [] as { label: string }[][],
  shown: [] as { uri: string; languageId: string }[],
};

const closeListeners: ((t: unknown) => void)[] = [];

export function closeTerminal(index: number): void {
  const t = calls.terminals[index];
  for (const listener of closeListeners) {
    listener(t);
  }
}

export function reset(): void {
  state.config = {};
  state.errorChoice = undefined;
  state.quickPicks = [];
  calls.errors = [];
  calls.commands = [];
  calls.terminals = [];
  calls.panels = [];
  calls.quickPicks = [];
  calls.shown = [];
  closeListeners.length = 0;
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
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
    dispose: () => undefined,
  }),
  showErrorMessage: async (message: string, ...actions: string[]) => {
    calls.errors.push({ message, actions });
    return state.errorChoice;
  },
  showWarningMessage: async () => undefined,
  showQuickPick: async (items: { label: string }[]) => {
    calls.quickPicks.push(items);
    const next = state.quickPicks.shift();
    return next === undefined ? undefined : next(items);
  },
  createTerminal: (options: { name?: string }) => {
    const terminal = {
      name: options.name,
      sent: [] as string[],
      show: () => undefined,
      sendText(text: string) {
        terminal.sent.push(text);
      },
    };
    calls.terminals.push(terminal);
    return terminal;
  },
  onDidCloseTerminal: (listener: (t: unknown) => void) => {
    closeListeners.push(listener);
    return { dispose: () => undefined };
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

export const languages = {
  setTextDocumentLanguage: async <T extends object>(document: T, languageId: string) => ({
    ...document,
    languageId,
  }),
};
