/**
 * How completion items are shown. The server's `detail` is "kind: description" ("tool: Fetch an
 * invoice by its number."); VS Code shows it on the focused row beside the label, in a list
 * about 400 pixels wide, and cut the label short to make room ("lookup_invoi…"). The kind goes
 * beside the label instead (`CompletionItemLabel.description`, which VS Code shortens first)
 * and the whole detail stays in the item's details (docs/decisions.md, D72).
 */

/** The part of `vscode.CompletionItem` this module reads and writes. */
export interface ShownItem {
  label: string | { label: string; detail?: string; description?: string };
  detail?: string;
}

/** The longest detail shown as it is beside the label. */
const SHORT = 32;

/** Put the item's kind beside its label; the full detail stays in `detail`. */
export function presentCompletion(item: ShownItem): void {
  const detail = item.detail;
  if (detail === undefined || detail === "") {
    return;
  }
  const kind = /^([^:`\n]{1,30}): \S/.exec(detail)?.[1];
  const description = kind ?? (detail.length <= SHORT ? detail : undefined);
  if (description === undefined) {
    return;
  }
  const label = typeof item.label === "string" ? item.label : item.label.label;
  const labelDetail = typeof item.label === "string" ? undefined : item.label.detail;
  item.label =
    labelDetail === undefined
      ? { label, description }
      : { label, detail: labelDetail, description };
}
