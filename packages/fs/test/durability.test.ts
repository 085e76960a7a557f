import { open, readFile, stat, writeFile } from "node:fs/promises";
import { type ArtifactService, type Scope, sha256Hex } from "@artifact-kit/core";
import { afterEach, describe, expect, it } from "vitest";
import { FsArtifactService, type FsDurability, fsArtifactPaths } from "../src/index.js";
import { codeOf, payloadOffsetOf, tempRoot, toLegacyLayout } from "./helpers.js";

// The put protocol's files as this release writes them (a reservation holds block digests only
// for data of more than one block), the reservations earlier releases wrote (every version's
// whole digest and block digests, or block digests only), and "process" durability.

const SCOPE: Scope = { kind: "session", app: "durability", user: "u", session: "s" };
const MiB = 1024 * 1024;
const SIZES = { empty: 0, small: 1000, oneBlock: MiB, blocks: 2 * MiB + 5 } as const;

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function openOn(root: string, durability?: FsDurability): Promise<FsArtifactService> {
  const service = await FsArtifactService.open({ root, ...(durability && { durability }) });
  cleanups.unshift(() => service.close());
  return service;
}

async function freshRoot(): Promise<string> {
  const temp = await tempRoot("durability");
  cleanups.push(temp.cleanup);
  return temp.root;
}

const dataOf = (size: number, fill: number) => new Uint8Array(size).fill(fill);

async function download(service: ArtifactService & FsArtifactService, name: string) {
  const source = await service.openDownload(SCOPE, name);
  const chunks: Uint8Array[] = [];
  for (let chunk = await source.read(); chunk; chunk = await source.read()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Puts one version of every size, each under its own name; the data by name. */
async function putEverySize(service: ArtifactService): Promise<Map<string, Uint8Array>> {
  const written = new Map<string, Uint8Array>();
  for (const [name, size] of Object.entries(SIZES)) {
    const data = dataOf(size, name.length);
    await service.put(SCOPE, name, data);
    written.set(name, data);
  }
  return written;
}

/** The SHA-256 of each 1 MiB block, concatenated. */
function blockDigests(data: Uint8Array): string {
  let digests = "";
  for (let at = 0; at < data.byteLength; at += MiB)
    digests += sha256Hex(data.subarray(at, at + MiB));
  return digests;
}

describe("reservations and block digests", () => {
  it("a version of at most one block ends with its payload; a larger one records its digests after it", async () => {
    const root = await freshRoot();
    const written = await putEverySize(await openOn(root));
    for (const [name, data] of written) {
      const path = fsArtifactPaths(root, SCOPE, name, 1).reservation;
      const file = await readFile(path);
      const payloadOffset = await payloadOffsetOf(path);
      const payloadEnd = payloadOffset + data.byteLength;
      expect(file.subarray(payloadOffset, payloadEnd).equals(data)).toBe(true);
      expect(file.subarray(payloadEnd).toString("latin1")).toBe(
        data.byteLength > MiB ? sha256Hex(data) + blockDigests(data) : "",
      );
    }
  });

  for (const [release, record] of [
    [
      "the whole digest and the block digests",
      (data: Uint8Array) => sha256Hex(data) + blockDigests(data),
    ],
    ["the block digests only", blockDigests],
  ] as const) {
    it(`versions whose reservations hold ${release} (earlier releases) read, download and delete the same`, async () => {
      const root = await freshRoot();
      const written = await putEverySize(await openOn(root));
      for (const [name, data] of written) {
        const paths = fsArtifactPaths(root, SCOPE, name, 1);
        await toLegacyLayout(paths);
        await writeFile(paths.reservation, record(data), "latin1");
      }
      const reopened = await openOn(root);
      for (const [name, data] of written) {
        expect(Buffer.from((await reopened.get(SCOPE, name)).data).equals(data)).toBe(true);
        expect((await reopened.head(SCOPE, name)).sha256).toBe(sha256Hex(data));
        expect((await download(reopened, name)).equals(data)).toBe(true);
        // New versions beside them use this release's reservations; both read.
        const next = dataOf(data.byteLength, 200);
        expect((await reopened.put(SCOPE, name, next)).version).toBe(2);
        expect((await download(reopened, name)).equals(next)).toBe(true);
        await reopened.delete(SCOPE, name, 1);
        expect(await codeOf(reopened.get(SCOPE, name, { version: 1 }))).toBe("not_found");
      }
    });
  }

  it("a download of a version of one block checks its data against the recorded SHA-256", async () => {
    const root = await freshRoot();
    const service = await openOn(root);
    await service.put(SCOPE, "x", dataOf(1000, 1));
    const { reservation } = fsArtifactPaths(root, SCOPE, "x", 1);
    const payloadOffset = await payloadOffsetOf(reservation);
    const file = await open(reservation, "r+");
    await file.write(Buffer.from([9]), 0, 1, payloadOffset + 500);
    await file.close();
    expect(await codeOf(download(service, "x"))).toBe("corrupt_artifact");
  });
});

/** Counts the fsyncs and fdatasyncs of every file handle while `work` runs. */
async function countSyncs(root: string, work: () => Promise<unknown>): Promise<number> {
  const probe = await open(root, "r");
  const prototype = Object.getPrototypeOf(probe) as {
    sync(): Promise<void>;
    datasync(): Promise<void>;
  };
  await probe.close();
  const { sync, datasync } = prototype;
  let syncs = 0;
  prototype.sync = function (this: unknown) {
    syncs += 1;
    return sync.call(this);
  };
  prototype.datasync = function (this: unknown) {
    syncs += 1;
    return datasync.call(this);
  };
  try {
    await work();
  } finally {
    prototype.sync = sync;
    prototype.datasync = datasync;
  }
  return syncs;
}

describe('durability: "process"', () => {
  it("is reported by capabilities() and refused when unknown", async () => {
    const root = await freshRoot();
    expect((await openOn(root, "process")).capabilities().durability).toBe("process");
    expect((await openOn(root)).capabilities().durability).toBe("durable");
    expect(await codeOf(FsArtifactService.open({ root, durability: "fast" as FsDurability }))).toBe(
      "invalid_argument",
    );
  });

  it("never syncs, and what it wrote reads the same in either mode after a reopen", async () => {
    const root = await freshRoot();
    let written = new Map<string, Uint8Array>();
    const work = async (service: ArtifactService) => {
      written = await putEverySize(service);
      await service.put(SCOPE, "keyed", dataOf(10, 1), { idempotencyKey: "k" });
      await service.put(SCOPE, "keyed", dataOf(10, 1), { idempotencyKey: "k" });
      await service.delete(SCOPE, "small", 1);
    };
    const processSyncs = await countSyncs(root, async () => work(await openOn(root, "process")));
    expect(processSyncs).toBe(0);
    for (const durability of ["process", "durable"] as const) {
      const reopened = await openOn(root, durability);
      for (const [name, data] of written) {
        if (name === "small") continue;
        expect(Buffer.from((await reopened.get(SCOPE, name)).data).equals(data)).toBe(true);
      }
      expect(await codeOf(reopened.get(SCOPE, "small"))).toBe("not_found");
      expect((await reopened.listVersions(SCOPE, "keyed")).items.map((m) => m.version)).toEqual([
        1,
      ]);
    }
    // The same work under "durable" does sync.
    const durableRoot = await freshRoot();
    expect(
      await countSyncs(durableRoot, async () => work(await openOn(durableRoot))),
    ).toBeGreaterThan(0);
  });

  it("files keep their modes and a put its one version file, under two names", async () => {
    const root = await freshRoot();
    const service = await openOn(root, "process");
    await service.put(SCOPE, "x", dataOf(3, 3));
    const paths = fsArtifactPaths(root, SCOPE, "x", 1);
    const [reservation, metadata] = await Promise.all([
      stat(paths.reservation),
      stat(paths.metadata),
    ]);
    expect(reservation.mode & 0o777).toBe(0o600);
    expect(metadata.ino).toBe(reservation.ino);
  });
});
