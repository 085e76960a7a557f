import { readFile, rm, truncate, writeFile } from "node:fs/promises";
import { type ArtifactErrorCode, type Scope, sha256Hex } from "@artifact-kit/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FsArtifactService, fsArtifactPaths, MAX_METADATA_FILE_BYTES } from "../src/index.js";
import { codeOf, tempService } from "./helpers.js";

const SCOPE: Scope = { kind: "user", app: "corrupt", user: "u" };
const NAME = "doc/report.txt";
const DATA = new TextEncoder().encode("the quick brown fox jumps over the lazy dog");

let service: FsArtifactService;
let cleanup: () => Promise<void>;
let paths: ReturnType<typeof fsArtifactPaths>;

beforeEach(async () => {
  const temp = await tempService({}, "corrupt");
  service = temp.service;
  cleanup = temp.cleanup;
  await service.put(SCOPE, NAME, new TextEncoder().encode("an older, intact version"));
  const meta = await service.put(SCOPE, NAME, DATA, { metadata: { k: "v" } });
  expect(meta.version).toBe(2);
  paths = fsArtifactPaths(temp.root, SCOPE, NAME, 2);
});
afterEach(() => cleanup());

async function expectCode(promise: Promise<unknown>, code: ArtifactErrorCode): Promise<void> {
  expect(await codeOf(promise)).toBe(code);
}

/** Every read of version 2, pinned and as latest, fails with corrupt_artifact: never data. */
async function expectCorrupt(withHead: boolean): Promise<void> {
  await expectCode(service.get(SCOPE, NAME), "corrupt_artifact");
  await expectCode(service.get(SCOPE, NAME, { version: 2 }), "corrupt_artifact");
  if (withHead) await expectCode(service.head(SCOPE, NAME, { version: 2 }), "corrupt_artifact");
  // The intact older version is still served.
  expect((await service.get(SCOPE, NAME, { version: 1 })).version).toBe(1);
}

async function rewriteMeta(change: (record: Record<string, unknown>) => void): Promise<void> {
  const record = JSON.parse(await readFile(paths.metadata, "utf8")) as Record<string, unknown>;
  change(record);
  await writeFile(paths.metadata, JSON.stringify(record));
}

describe("a get returns verified bytes or corrupt_artifact", () => {
  it("serves the intact artifact", async () => {
    const artifact = await service.get(SCOPE, NAME);
    expect(Buffer.from(artifact.data).equals(Buffer.from(DATA))).toBe(true);
    expect(artifact.sha256).toBe(sha256Hex(DATA));
  });

  it("a flipped byte in the data", async () => {
    const bytes = await readFile(paths.data);
    bytes[7] = (bytes[7] as number) ^ 0x01;
    await writeFile(paths.data, bytes);
    await expectCorrupt(false);
  });

  it("truncated data", async () => {
    await truncate(paths.data, DATA.length - 1);
    await expectCorrupt(true);
  });

  it("data grown by a byte", async () => {
    await writeFile(paths.data, Buffer.concat([Buffer.from(DATA), Buffer.from([0])]));
    await expectCorrupt(true);
  });

  it("missing data (and repair reports it without erasing the metadata)", async () => {
    await rm(paths.data);
    await expectCorrupt(true);
    const report = await service.repair({ minAgeMs: 0 });
    expect(report.corrupt).toBe(1);
    expect(await readFile(paths.metadata, "utf8")).toContain('"version":2');
  });

  it("metadata naming another scope", async () => {
    await rewriteMeta((record) => {
      record.scope = { kind: "user", app: "corrupt", user: "someone-else" };
    });
    await expectCorrupt(true);
  });

  it("metadata naming another name", async () => {
    await rewriteMeta((record) => {
      record.name = "doc/other.txt";
    });
    await expectCorrupt(true);
  });

  it("metadata naming another version", async () => {
    await rewriteMeta((record) => {
      record.version = 1;
    });
    await expectCorrupt(true);
  });

  it("metadata with a wrong size", async () => {
    await rewriteMeta((record) => {
      record.size = DATA.length + 1;
    });
    await expectCorrupt(true);
  });

  it("metadata with a wrong digest", async () => {
    await rewriteMeta((record) => {
      record.sha256 = sha256Hex("something else");
    });
    await expectCorrupt(false);
  });

  it("metadata with a malformed field", async () => {
    await rewriteMeta((record) => {
      record.sha256 = "not hex";
    });
    await expectCorrupt(true);
  });

  it("an oversized metadata file (checked before it is read)", async () => {
    const valid = await readFile(paths.metadata, "utf8");
    // Still valid JSON for the same record, padded past the limit with whitespace.
    await writeFile(paths.metadata, valid + " ".repeat(MAX_METADATA_FILE_BYTES));
    await expectCorrupt(true);
    await expect(service.get(SCOPE, NAME)).rejects.toThrow(/larger than/);
  });

  it("a non-JSON metadata file", async () => {
    await writeFile(paths.metadata, "{ not json");
    await expectCorrupt(true);
  });

  it("a metadata file that is not UTF-8", async () => {
    await writeFile(paths.metadata, Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
    await expectCorrupt(true);
  });

  it("an empty metadata file", async () => {
    await writeFile(paths.metadata, "");
    await expectCorrupt(true);
  });

  it("listings fail closed on a corrupt record rather than skip it", async () => {
    await writeFile(paths.metadata, "[]");
    await expectCode(service.listVersions(SCOPE, NAME), "corrupt_artifact");
    await expectCode(service.list(SCOPE), "corrupt_artifact");
    // The corrupt version can still be deleted, after which the name reads cleanly.
    await service.delete(SCOPE, NAME, 2);
    expect((await service.get(SCOPE, NAME)).version).toBe(1);
  });

  it("a scope slot that names another scope refuses puts", async () => {
    await writeFile(
      paths.scopeSlot,
      JSON.stringify({ format: 1, scope: { kind: "user", app: "corrupt", user: "other" } }),
    );
    const fresh = await FsArtifactService.open({ root: service.root });
    try {
      await expectCode(fresh.put(SCOPE, "new", new Uint8Array([1])), "corrupt_artifact");
    } finally {
      await fresh.close();
    }
  });

  it("a name slot that names another name fails listNames", async () => {
    await writeFile(paths.nameSlot, JSON.stringify({ format: 1, name: "doc/other.txt" }));
    const fresh = await FsArtifactService.open({ root: service.root });
    try {
      await expectCode(fresh.listNames(SCOPE), "corrupt_artifact");
    } finally {
      await fresh.close();
    }
  });
});
