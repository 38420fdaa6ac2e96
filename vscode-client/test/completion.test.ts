import { expect } from "./expect";
import { presentCompletion, type ShownItem } from "../src/completion";

describe("completion items as shown", () => {
  it("puts the kind of a 'kind: description' detail beside the label, keeping the detail", () => {
    const item: ShownItem = {
      label: "lookup_invoice",
      detail: "tool: Fetch an invoice by its number.",
    };
    presentCompletion(item);
    expect(item.label).toEqual({ label: "lookup_invoice", description: "tool" });
    expect(item.detail).toBe("tool: Fetch an invoice by its number.");
    const member: ShownItem = { label: "billing", detail: "agent member: Answers invoices." };
    presentCompletion(member);
    expect(member.label).toEqual({ label: "billing", description: "agent member" });
  });

  it("shows a short detail as it is, and leaves a long one to the details", () => {
    const state: ShownItem = { label: "done", detail: "workflow state" };
    presentCompletion(state);
    expect(state.label).toEqual({ label: "done", description: "workflow state" });
    const long: ShownItem = {
      label: "mcp__crm__*",
      detail: "every tool of MCP server `crm` at once",
    };
    presentCompletion(long);
    expect(long.label).toBe("mcp__crm__*");
    const none: ShownItem = { label: "x" };
    presentCompletion(none);
    expect(none.label).toBe("x");
  });
});
