import { describe, expect, it } from "vitest";
import { looksLike } from "../src/index.js";

describe("looksLike", () => {
  const client = { send: () => undefined, config: {}, name: "c" };

  it("accepts a value with every member of its type, whatever its class", () => {
    expect(looksLike(client, { send: "function", config: "object", name: "string" })).toBe(true);
  });

  it("refuses a missing member, a member of another type, and non-objects", () => {
    expect(looksLike(client, { getFiles: "function" })).toBe(false);
    expect(looksLike(client, { config: "function" })).toBe(false);
    for (const value of [undefined, null, "send", 1]) {
      expect(looksLike(value, { send: "function" })).toBe(false);
    }
  });
});
