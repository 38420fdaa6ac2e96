/** The few matchers the unit tests use, on top of node:assert (mocha has no `expect`). */
import * as assert from "node:assert/strict";

interface Matchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toContain(item: unknown): void;
  toBeUndefined(): void;
  toHaveLength(length: number): void;
  toBeGreaterThanOrEqual(n: number): void;
  toBeLessThanOrEqual(n: number): void;
  not: { toContain(item: unknown): void };
}

function contains(container: unknown, item: unknown): boolean {
  if (typeof container === "string") {
    return container.includes(String(item));
  }
  return (
    Array.isArray(container) &&
    container.some((x) => {
      try {
        assert.deepEqual(x, item);
        return true;
      } catch {
        return false;
      }
    })
  );
}

export function expect(actual: unknown): Matchers {
  return {
    toBe(expected) {
      assert.equal(actual, expected);
    },
    toEqual(expected) {
      assert.deepEqual(actual, expected);
    },
    toContain(item) {
      assert.ok(contains(actual, item), `${JSON.stringify(actual)} lacks ${JSON.stringify(item)}`);
    },
    toBeUndefined() {
      assert.equal(actual, undefined);
    },
    toHaveLength(length) {
      assert.equal((actual as { length: number } | null)?.length, length);
    },
    toBeGreaterThanOrEqual(n) {
      assert.ok((actual as number) >= n, `${String(actual)} < ${n}`);
    },
    toBeLessThanOrEqual(n) {
      assert.ok((actual as number) <= n, `${String(actual)} > ${n}`);
    },
    not: {
      toContain(item) {
        assert.ok(!contains(actual, item), `${JSON.stringify(actual)} has ${JSON.stringify(item)}`);
      },
    },
  };
}
