import { describe, expect, it } from "vitest";
import { parseGet, parseListNames, parsePut } from "../src/adapter/index.js";
import { ArtifactError, validateMetadata, validateName, validateScope } from "../src/index.js";

function fieldOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(ArtifactError);
    expect((error as ArtifactError).code).toBe("invalid_argument");
    return String((error as ArtifactError).detail.field);
  }
  throw new Error("expected invalid_argument");
}

describe("validation", () => {
  it("names the offending field", () => {
    expect(fieldOf(() => validateScope({ kind: "user", app: "a", user: "\uD800" }))).toBe(
      "scope.user",
    );
    expect(fieldOf(() => validateScope({ kind: "app", app: "a", extra: 1 }))).toBe("scope.extra");
    expect(fieldOf(() => validateName("a/../b"))).toBe("name");
    expect(
      fieldOf(() =>
        parsePut({ kind: "app", app: "a" }, "n", new Uint8Array(), { mimetype: "x/y" }),
      ),
    ).toBe("options.mimetype");
    expect(fieldOf(() => validateMetadata({ a: { b: [1, Number.NaN] } }))).toBe("metadata.a.b[1]");
  });

  it("rejects only empty, . and .. segments, wherever they are", () => {
    for (const name of ["...", ".a", "a/.b", "..a/b.", "a/.../b"])
      expect(validateName(name)).toBe(name);
    for (const name of ["", "/", ".", "..", "a/", "/a", "a//b", "a/./b", "a/..", "../a"]) {
      expect(fieldOf(() => validateName(name))).toBe("name");
    }
  });

  it("counts name length in UTF-8 bytes, not UTF-16 units", () => {
    expect(validateName("é".repeat(512))).toHaveLength(512);
    expect(fieldOf(() => validateName(`${"é".repeat(512)}x`))).toBe("name");
  });

  it("copies and deep-freezes metadata so the caller's later changes cannot reach the store", () => {
    const given = { list: [1, { a: "b" }] };
    const copy = validateMetadata(given);
    given.list.push(2);
    expect(copy).toEqual({ list: [1, { a: "b" }] });
    expect(Object.isFrozen(copy.list)).toBe(true);
  });

  it("stores negative zero as 0, as JSON does, so every adapter reads back the same record", () => {
    const copy = validateMetadata({ z: -0, list: [-0, 1] });
    expect(Object.is(copy.z, 0)).toBe(true);
    expect(Object.is((copy.list as number[])[0], 0)).toBe(true);
  });

  it("keeps an own __proto__ key as data", () => {
    const given = JSON.parse('{"__proto__": {"x": 1}}');
    expect(JSON.stringify(validateMetadata(given))).toBe('{"__proto__":{"x":1}}');
  });

  it("defaults version to latest and caps limit at maxPageLimit", () => {
    expect(parseGet({ kind: "app", app: "a" }, "n", undefined).version).toBe("latest");
    expect(parseListNames({ kind: "app", app: "a" }, { limit: 10_000 }, 50).limit).toBe(50);
    expect(fieldOf(() => parseGet({ kind: "app", app: "a" }, "n", { version: null }))).toBe(
      "version",
    );
  });
});
