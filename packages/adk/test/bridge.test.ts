import { type ArtifactEffect, bindArtifacts } from "@artifact-kit/core";
import { FsArtifactService } from "@artifact-kit/fs";
import type { BaseArtifactService } from "@google/adk";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AdkBridgeOptions } from "../src/bridge.js";
import { CUSTOM_METADATA_KEY, PART_RECORD_KEY, toAdkArtifactService } from "../src/index.js";
import { codeOf } from "./support/codes.js";
import { type BridgedFs, bridgedFs, tempRoot } from "./support/subjects.js";

// The mapping between ADK's model and artifact-kit's, seen from both sides of the bridge.

const KEY = { appName: "app", userId: "ada", sessionId: "s1" };
const SESSION = { kind: "session", app: "app", user: "ada", session: "s1" } as const;
const USER = { kind: "user", app: "app", user: "ada" } as const;
const bytes = (value: string) => new TextEncoder().encode(value);

let fs: BridgedFs;
let adk: BaseArtifactService;
beforeEach(async () => {
  fs = await bridgedFs();
  adk = fs.adk;
});
afterEach(() => fs.service.close());

describe("scopes and names", () => {
  it("stores a session filename as itself and a user: filename without the prefix", async () => {
    await adk.saveArtifact({ ...KEY, filename: "dir/a.txt", artifact: { text: "s" } });
    await adk.saveArtifact({ ...KEY, filename: "user:dir/b.txt", artifact: { text: "u" } });
    expect((await fs.service.listNames(SESSION)).items).toEqual(["dir/a.txt"]);
    expect((await fs.service.listNames(USER)).items).toEqual(["dir/b.txt"]);
  });

  it("lists what other clients put in either scope under ADK's names", async () => {
    await fs.service.put(USER, "avatar.png", bytes("png"), { mimeType: "image/png" });
    await fs.service.put(SESSION, "z.txt", bytes("z"));
    expect(await adk.listArtifactKeys(KEY)).toEqual(["user:avatar.png", "z.txt"]);
  });

  it("lists a session name another client stored as user:x, which ADK cannot load", async () => {
    await fs.service.put(SESSION, "user:x", bytes("session"));
    expect(await adk.listArtifactKeys(KEY)).toEqual(["user:x"]);
    expect(await adk.loadArtifact({ ...KEY, filename: "user:x" })).toBeUndefined();
  });

  it("walks every page of a listing", async () => {
    const service = await FsArtifactService.open({ root: await tempRoot(), maxPageLimit: 2 });
    try {
      const paged = toAdkArtifactService(service);
      for (const name of ["a", "b", "c", "user:d", "user:e", "user:f"]) {
        await paged.saveArtifact({ ...KEY, filename: name, artifact: { text: name } });
      }
      for (let i = 0; i < 4; i++) {
        await paged.saveArtifact({ ...KEY, filename: "a", artifact: { text: `${i}` } });
      }
      expect(await paged.listArtifactKeys(KEY)).toEqual([
        "a",
        "b",
        "c",
        "user:d",
        "user:e",
        "user:f",
      ]);
      expect(await paged.listVersions({ ...KEY, filename: "a" })).toEqual([0, 1, 2, 3, 4]);
      expect(await paged.listArtifactVersions({ ...KEY, filename: "a" })).toHaveLength(5);
    } finally {
      await service.close();
    }
  });
});

describe("versions", () => {
  it("maps ADK's version n to artifact-kit's n + 1, in both directions", async () => {
    expect(await adk.saveArtifact({ ...KEY, filename: "a", artifact: { text: "zero" } })).toBe(0);
    expect((await fs.service.get(SESSION, "a", { version: 1 })).data).toEqual(bytes("zero"));
    await fs.service.put(SESSION, "a", bytes("one"), { mimeType: "text/plain" });
    expect(await adk.loadArtifact({ ...KEY, filename: "a", version: 1 })).toEqual({
      inlineData: { data: Buffer.from("one").toString("base64"), mimeType: "text/plain" },
    });
    expect(await adk.getArtifactVersion({ ...KEY, filename: "a", version: 1 })).toEqual({
      version: 1,
      mimeType: "text/plain",
    });
  });

  it("keeps the numbers of the versions that remain after one is deleted elsewhere", async () => {
    for (const value of ["0", "1", "2"]) {
      await adk.saveArtifact({ ...KEY, filename: "a", artifact: { text: value } });
    }
    await fs.service.delete(SESSION, "a", 2);
    expect(await adk.listVersions({ ...KEY, filename: "a" })).toEqual([0, 2]);
    expect(await adk.loadArtifact({ ...KEY, filename: "a", version: 2 })).toEqual({ text: "2" });
    expect(await adk.loadArtifact({ ...KEY, filename: "a", version: 1 })).toBeUndefined();
  });
});

describe("Parts and metadata", () => {
  it("stores a text Part as UTF-8 text/plain and gives it back as text", async () => {
    await adk.saveArtifact({ ...KEY, filename: "t", artifact: { text: "héllo ✓" } });
    const stored = await fs.service.get(SESSION, "t");
    expect([stored.mimeType, new TextDecoder().decode(stored.data)]).toEqual([
      "text/plain",
      "héllo ✓",
    ]);
    expect(await adk.loadArtifact({ ...KEY, filename: "t" })).toEqual({ text: "héllo ✓" });
  });

  it("gives inline text/plain bytes back as inline bytes, not as a text Part", async () => {
    const part = {
      inlineData: { data: Buffer.from("raw").toString("base64"), mimeType: "text/plain" },
    };
    await adk.saveArtifact({ ...KEY, filename: "t", artifact: part });
    expect(await adk.loadArtifact({ ...KEY, filename: "t" })).toEqual(part);
  });

  it("keeps customMetadata apart from the bridge's own record, whatever its keys", async () => {
    const customMetadata = { [PART_RECORD_KEY]: { kind: "text" }, kind: "fileData", fileUri: "x" };
    const part = { inlineData: { data: Buffer.from([1, 2]).toString("base64"), mimeType: "a/b" } };
    await adk.saveArtifact({ ...KEY, filename: "m", artifact: part, customMetadata });
    expect(await adk.loadArtifact({ ...KEY, filename: "m" })).toEqual(part);
    expect(await adk.getArtifactVersion({ ...KEY, filename: "m" })).toEqual({
      version: 0,
      mimeType: "a/b",
      customMetadata,
    });
    expect((await fs.service.head(SESSION, "m")).metadata).toEqual({
      [PART_RECORD_KEY]: { kind: "inlineData" },
      [CUSTOM_METADATA_KEY]: customMetadata,
    });
  });

  it("reports no customMetadata for an artifact another client wrote with its own metadata", async () => {
    await fs.service.put(SESSION, "other", bytes("x"), { metadata: { source: "etl" } });
    expect(await adk.getArtifactVersion({ ...KEY, filename: "other" })).toEqual({
      version: 0,
      mimeType: "application/octet-stream",
    });
  });

  it("hands out customMetadata the caller may change without touching the store", async () => {
    await adk.saveArtifact({
      ...KEY,
      filename: "m",
      artifact: { text: "x" },
      customMetadata: { n: 1 },
    });
    const first = await adk.getArtifactVersion({ ...KEY, filename: "m" });
    if (first?.customMetadata) first.customMetadata.n = 2;
    expect((await adk.getArtifactVersion({ ...KEY, filename: "m" }))?.customMetadata).toEqual({
      n: 1,
    });
  });
});

describe("errors", () => {
  it("surfaces anything but a missing artifact as the ArtifactError", async () => {
    const save = (filename: string, extra: object = {}) =>
      adk.saveArtifact({ ...KEY, filename, artifact: { text: "x" }, ...extra });
    expect(await codeOf(save("a/../b"))).toBe("invalid_argument");
    expect(await codeOf(save("user:"))).toBe("invalid_argument");
    expect(await codeOf(save("a", { customMetadata: { bad: Number.NaN } }))).toBe(
      "invalid_argument",
    );
    expect(await codeOf(adk.saveArtifact({ ...KEY, filename: "a", artifact: {} }))).toBe(
      "invalid_argument",
    );
    expect(await codeOf(adk.loadArtifact({ ...KEY, filename: "a", version: -1 }))).toBe(
      "invalid_argument",
    );
    expect(await codeOf(adk.listArtifactKeys({ ...KEY, sessionId: "" }))).toBe("invalid_argument");
    expect(await adk.listArtifactKeys(KEY)).toEqual([]);

    await fs.service.close();
    expect(await codeOf(adk.loadArtifact({ ...KEY, filename: "a" }))).toBe("closed");
    expect(await codeOf(adk.deleteArtifact({ ...KEY, filename: "a" }))).toBe("closed");
  });
});

type Writer = NonNullable<AdkBridgeOptions["writer"]>;

describe("a writer", () => {
  /** A writer doing plain puts, and logging what each call was handed. */
  function loggingWriter(log: string[]): Writer {
    return {
      put: ({ scope, name, data, options }): Promise<ArtifactEffect> => {
        log.push(`put ${scope.kind} ${name}`);
        return bindArtifacts(fs.service, scope, { allow: ["put"] }).put(name, data, options);
      },
    };
  }

  it("without delete, makes the puts and leaves deleteArtifact to the bridge, as before", async () => {
    const log: string[] = [];
    const bridge = toAdkArtifactService(fs.service, { writer: loggingWriter(log) });
    for (const text of ["one", "two"]) {
      await bridge.saveArtifact({ ...KEY, filename: "user:a.txt", artifact: { text } });
    }
    await bridge.deleteArtifact({ ...KEY, filename: "user:a.txt" });
    await bridge.deleteArtifact({ ...KEY, filename: "missing.txt" });
    expect(log).toEqual(["put user a.txt", "put user a.txt"]);
    expect((await fs.service.listVersions(USER, "a.txt")).items).toEqual([]);
  });

  it("with delete, is handed every deleteArtifact with its scope and name resolved", async () => {
    await fs.service.put(USER, "a.txt", bytes("kept"));
    const log: string[] = [];
    const bridge = toAdkArtifactService(fs.service, {
      writer: {
        ...loggingWriter(log),
        delete: async ({ key, filename, scope, name, call, onEffect }) => {
          log.push(`delete ${scope.kind} ${name}`);
          expect({ key, filename, call, onEffect }).toEqual({
            key: KEY,
            filename: "user:a.txt",
            call: undefined,
            onEffect: undefined,
          });
        },
      },
    });
    await bridge.deleteArtifact({ ...KEY, filename: "user:a.txt" });
    expect(log).toEqual(["delete user a.txt"]);
    // The writer deleted nothing, and the bridge did not delete in its place.
    expect((await fs.service.listVersions(USER, "a.txt")).items).toHaveLength(1);
  });

  it("refuses a writer without put, or with a delete that is not a function", () => {
    const writers = [{}, null, { put: "no" }, { ...loggingWriter([]), delete: "no" }];
    for (const writer of writers) {
      expect(() => toAdkArtifactService(fs.service, { writer: writer as never })).toThrow(
        expect.objectContaining({ code: "invalid_argument" }),
      );
    }
  });
});
