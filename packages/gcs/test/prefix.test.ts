import { allNames, compareUtf8, type Scope } from "@artifact-kit/core";
import { beforeAll, describe, expect, it } from "vitest";
import { GcsArtifactService } from "../src/index.js";
import { freshBucket } from "./support/emulator.js";

const scope: Scope = { kind: "user", app: "app", user: "u" };
const long = (head: string, tail: string) => `${head}${"x".repeat(400)}${tail}`;
const names = [
  "a",
  "ab",
  "abc",
  "abcde",
  "abcdef",
  "abcdefghij",
  "abd",
  "b",
  "reports/2026/q1.md",
  "reports/2026/q2.md",
  "reports/x",
  "reportsx",
  "é",
  "éa",
  "\u{1F600}",
  "\u{1F600}a",
  long("reports/", "1"),
  long("reports/", "2"),
  long("abc", "z"),
];
const prefixes = [
  "a",
  "ab",
  "abc",
  "abcde",
  "abcdef",
  "reports/",
  "reports",
  "é",
  "\u{1F600}",
  long("reports/", ""),
  "zz",
  "abcdefghijk",
];

describe("listNames with a prefix", () => {
  let service: GcsArtifactService;

  beforeAll(async () => {
    service = new GcsArtifactService({ bucket: await freshBucket(), prefix: "p/" });
    await Promise.all(names.map((name) => service.put(scope, name, new Uint8Array([1]))));
  });

  it("equals the full listing filtered by the prefix, page by page at every limit", async () => {
    const all = [...names].sort(compareUtf8);
    for (const prefix of prefixes) {
      const expected = all.filter((name) => name.startsWith(prefix));
      for (const limit of [1, 2, 5]) {
        const pages: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await service.listNames(scope, {
            prefix,
            limit,
            ...(cursor === undefined ? {} : { cursor }),
          });
          expect(page.items.length).toBeLessThanOrEqual(limit);
          pages.push(...page.items);
          cursor = page.nextCursor;
          if (cursor !== undefined) expect(page.items.length).toBe(limit);
        } while (cursor !== undefined);
        expect({ prefix, limit, pages }).toEqual({ prefix, limit, pages: expected });
      }
    }
    expect(await allNames(service, scope)).toEqual(all);
  });

  it("honours a cursor before, inside and after the prefix's run", async () => {
    const page = (cursor: string) => service.listNames(scope, { prefix: "ab", cursor });
    expect((await page("a")).items).toEqual([
      "ab",
      "abc",
      "abcde",
      "abcdef",
      "abcdefghij",
      long("abc", "z"),
      "abd",
    ]);
    expect((await page("abcdef")).items).toEqual(["abcdefghij", long("abc", "z"), "abd"]);
    expect((await page("b")).items).toEqual([]);
  });

  it("rejects a prefix that no name can start with", async () => {
    for (const prefix of ["", "a//", "/a", "../x", "a\0"]) {
      await expect(service.listNames(scope, { prefix })).rejects.toMatchObject({
        code: "invalid_argument",
        detail: { field: "prefix" },
      });
    }
  });
});
