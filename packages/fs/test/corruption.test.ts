import { appendFile, readFile, rm, truncate, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ArtifactErrorCode, type Scope, sha256Hex } from "@artifact-kit/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FsArtifactService,
  fsArtifactPaths,
  fsPayloadLocation,
  MAX_METADATA_FILE_BYTES,
} from "../src/index.js";
import {
  codeOf,
  rewriteVersionRecord,
  tempService,
  toLegacyLayout,
  versionRecordText,
} from "./helpers.js";

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

/**
 * The two layouts a version can have: a version file (record, payload and digests in one
 * file, linked as `<v>.m`), or the files of a store written before version files.
 */
const LAYOUTS = [
  {
    layout: "a version file",
    legacy: false,
    prepare: async () => {},
    recordText: () => versionRecordText(paths.metadata),
    writeRecord: (record: string) => rewriteVersionRecord(paths.metadata, record),
    payload: () => fsPayloadLocation(paths),
  },
  {
    layout: "a store written before version files",
    legacy: true,
    prepare: () => toLegacyLayout(paths),
    recordText: () => readFile(paths.metadata, "utf8"),
    writeRecord: (record: string) => writeFile(paths.metadata, record),
    payload: () => fsPayloadLocation(paths),
  },
];

describe.each(LAYOUTS)(
  "a get of $layout returns verified bytes or corrupt_artifact",
  ({ legacy, prepare, recordText, writeRecord, payload }) => {
    beforeEach(prepare);

    async function rewriteMeta(change: (record: Record<string, unknown>) => void): Promise<void> {
      const record = JSON.parse(await recordText()) as Record<string, unknown>;
      change(record);
      await writeRecord(JSON.stringify(record));
    }

    it("serves the intact artifact", async () => {
      const artifact = await service.get(SCOPE, NAME);
      expect(Buffer.from(artifact.data).equals(Buffer.from(DATA))).toBe(true);
      expect(artifact.sha256).toBe(sha256Hex(DATA));
    });

    it("a flipped byte in the data", async () => {
      const { path, offset } = await payload();
      const bytes = await readFile(path);
      bytes[offset + 7] = (bytes[offset + 7] as number) ^ 0x01;
      await writeFile(path, bytes);
      await expectCorrupt(false);
    });

    it("truncated data", async () => {
      const { path, offset } = await payload();
      await truncate(path, offset + DATA.length - 1);
      await expectCorrupt(true);
    });

    it("data grown by a byte", async () => {
      const { path } = await payload();
      await appendFile(path, Buffer.from([0]));
      await expectCorrupt(true);
    });

    if (legacy) {
      it("missing data (and repair reports it without erasing the metadata)", async () => {
        await rm(paths.data);
        await expectCorrupt(true);
        const report = await service.repair({ minAgeMs: 0 });
        expect(report.corrupt).toBe(1);
        expect(await readFile(paths.metadata, "utf8")).toContain('"version":2');
      });
    }

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

    it("metadata with a wrong digest: head and listings refuse it too (its checksum)", async () => {
      await rewriteMeta((record) => {
        record.sha256 = sha256Hex("something else");
      });
      await expectCorrupt(true);
      await expectCode(service.listVersions(SCOPE, NAME), "corrupt_artifact");
      await expectCode(service.list(SCOPE), "corrupt_artifact");
      await expect(service.head(SCOPE, NAME)).rejects.toThrow(/checksum/);
    });

    it("metadata whose checksum was edited", async () => {
      const text = await recordText();
      const flipped = text.replace(
        /^\{"check":"(.)/,
        (_, c) => `{"check":"${c === "0" ? "1" : "0"}`,
      );
      expect(flipped).not.toBe(text);
      await writeRecord(flipped);
      await expectCorrupt(true);
      await expectCode(service.listVersions(SCOPE, NAME), "corrupt_artifact");
    });

    it("a record written before checksums (no check member) still reads, lists and deletes", async () => {
      const record = JSON.parse(await recordText()) as Record<string, unknown>;
      expect(record.check).toMatch(/^[0-9a-f]{64}$/);
      const { check: _, ...unchecked } = record;
      // Releases before checksums wrote exactly this: the format first, then the members.
      await writeRecord(JSON.stringify(unchecked));
      const fresh = await FsArtifactService.open({ root: service.root });
      try {
        const head = await fresh.head(SCOPE, NAME);
        expect(head).toMatchObject({ version: 2, sha256: sha256Hex(DATA), metadata: { k: "v" } });
        expect((await fresh.get(SCOPE, NAME)).data).toEqual(DATA);
        expect((await fresh.listVersions(SCOPE, NAME)).items.map((m) => m.version)).toEqual([1, 2]);
        expect((await fresh.list(SCOPE)).length).toBe(2);
        await fresh.delete(SCOPE, NAME, 2);
        expect((await fresh.head(SCOPE, NAME)).version).toBe(1);
      } finally {
        await fresh.close();
      }
    });

    // A binding in the format before version files was durable before it was linked: damage.
    // A version file's binding is linked before it is durable, so while unpublished, one that
    // cannot be read is what a power cut tears, and the key binds anew (keys.ts).
    it("an edited key binding: a retry refuses it (or, unpublished, binds anew), repair publishes nothing", async () => {
      const keyed = await service.put(SCOPE, "keyed", DATA, { idempotencyKey: "k" });
      const at = fsArtifactPaths(service.root, SCOPE, "keyed", keyed.version);
      if (legacy) await toLegacyLayout(at);
      // A put cut short after binding its key, whose binding was then damaged: the binding
      // is the same file as the metadata, which goes; the binding now names version 7.
      const text = legacy
        ? await readFile(at.metadata, "utf8")
        : await versionRecordText(at.metadata);
      const record = JSON.parse(text) as Record<string, unknown>;
      await rm(at.metadata);
      const binding = join(
        at.nameDir.replace(/\/names\/(?=[0-9a-f]{64}$)/, "/keys/"),
        `${sha256Hex("k")}.json`,
      );
      const edited = JSON.stringify({ ...record, version: 7 });
      await (legacy ? writeFile(binding, edited) : rewriteVersionRecord(binding, edited));
      const retry = () => service.put(SCOPE, "keyed", DATA, { idempotencyKey: "k" });
      if (legacy) {
        await expectCode(retry(), "corrupt_artifact");
      } else {
        const bound = await retry();
        expect(bound.version).toBe(keyed.version + 1);
        expect((await retry()).version).toBe(bound.version);
      }
      const report = await service.repair({ minAgeMs: 0 });
      expect(report).toMatchObject({ corrupt: legacy ? 1 : 0, awaitingRetry: 0 });
      await expectCode(service.head(SCOPE, "keyed", { version: 7 }), "not_found");
    });

    it("a checksum member out of place is damage, not an old record", async () => {
      await rewriteMeta((record) => {
        const { check, ...rest } = record;
        for (const key of Object.keys(record)) delete record[key];
        Object.assign(record, rest, { check });
      });
      await expectCorrupt(true);
    });

    it("metadata with a malformed field", async () => {
      await rewriteMeta((record) => {
        record.sha256 = "not hex";
      });
      await expectCorrupt(true);
    });

    it("an oversized metadata record (checked before it is read)", async () => {
      const valid = await recordText();
      // Still valid JSON for the same record, padded past the limit with whitespace.
      await writeRecord(valid + " ".repeat(MAX_METADATA_FILE_BYTES));
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
      await writeRecord("[]");
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
  },
);
