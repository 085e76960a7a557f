import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toAdkArtifactService } from "../src/index.js";
import { codeOf } from "./support/codes.js";
import { lying, type Rewrites } from "./support/lying.js";
import { type BridgedFs, bridgedFs } from "./support/subjects.js";

// The bridge checks every record the adapter returns before anything reaches ADK: a reply
// for another scope, name or version, or with bytes that do not match it, is refused.

const KEY = { appName: "app", userId: "ada", sessionId: "s1" };
const OTHER_SCOPE = { kind: "session", app: "app", user: "eve", session: "s9" } as const;

let fs: BridgedFs;
beforeEach(async () => {
  fs = await bridgedFs();
  await fs.adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: { text: "first" } });
  await fs.adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: { text: "second" } });
});
afterEach(() => fs.service.close());

const record =
  <T extends object>(changes: Partial<Record<string, unknown>>) =>
  (reply: T) => ({
    ...reply,
    ...changes,
  });

describe("a reply the bridge refuses with invalid_service_reply", () => {
  const cases: ReadonlyArray<
    [string, Rewrites, (adk: ReturnType<typeof toAdkArtifactService>) => Promise<unknown>]
  > = [
    [
      "load: a record for another scope",
      { get: record({ scope: OTHER_SCOPE }) },
      (adk) => adk.loadArtifact({ ...KEY, filename: "a.txt" }),
    ],
    [
      "load: a record for another name",
      { get: record({ name: "b.txt" }) },
      (adk) => adk.loadArtifact({ ...KEY, filename: "a.txt" }),
    ],
    [
      "load: another version than the one asked",
      { get: record({ version: 2 }) },
      (adk) => adk.loadArtifact({ ...KEY, filename: "a.txt", version: 0 }),
    ],
    [
      "load: bytes that do not match the record's sha256",
      { get: record({ data: new TextEncoder().encode("forged") }) },
      (adk) => adk.loadArtifact({ ...KEY, filename: "a.txt" }),
    ],
    [
      "getArtifactVersion: another version",
      { head: record({ version: 1 }) },
      (adk) => adk.getArtifactVersion({ ...KEY, filename: "a.txt", version: 1 }),
    ],
    [
      "getArtifactVersion: another scope",
      { head: record({ scope: OTHER_SCOPE }) },
      (adk) => adk.getArtifactVersion({ ...KEY, filename: "a.txt" }),
    ],
    [
      "save: a record for another name",
      { put: record({ name: "elsewhere.txt" }) },
      (adk) => adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: { text: "x" } }),
    ],
    [
      "save: a record with another size",
      { put: record({ size: 99 }) },
      (adk) => adk.saveArtifact({ ...KEY, filename: "a.txt", artifact: { text: "x" } }),
    ],
    [
      "listArtifactKeys: a page for another scope",
      { listNames: record({ scope: OTHER_SCOPE }) },
      (adk) => adk.listArtifactKeys(KEY),
    ],
    [
      "listArtifactKeys: a page that does not move on",
      { listNames: record({ nextCursor: "a.txt" }) },
      (adk) => adk.listArtifactKeys(KEY),
    ],
    [
      "listVersions: a version of another name",
      {
        listVersions: (page: { items: object[] }) => ({
          ...page,
          items: page.items.map(record({ name: "b.txt" })),
        }),
      },
      (adk) => adk.listVersions({ ...KEY, filename: "a.txt" }),
    ],
    [
      "listArtifactVersions: a page that carries data",
      {
        listVersions: (page: { items: object[] }) => ({
          ...page,
          items: page.items.map(record({ data: new Uint8Array(0) })),
        }),
      },
      (adk) => adk.listArtifactVersions({ ...KEY, filename: "a.txt" }),
    ],
  ];

  it.each(cases)("%s", async (_label, rewrites, call) => {
    const adk = toAdkArtifactService(lying(fs.service, rewrites));
    expect(await codeOf(call(adk))).toBe("invalid_service_reply");
  });

  it("answers honest replies as before", async () => {
    const adk = toAdkArtifactService(lying(fs.service, {}));
    expect(await adk.loadArtifact({ ...KEY, filename: "a.txt", version: 0 })).toEqual({
      text: "first",
    });
    expect(await adk.listVersions({ ...KEY, filename: "a.txt" })).toEqual([0, 1]);
  });
});
