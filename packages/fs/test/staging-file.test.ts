import { mkdtemp, open, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { StagingFile } from "../src/staging-file.js";

const MiB = 1024 * 1024;
const DURABLE = { durability: "durable" } as const;

/** 20 MiB in 1 MiB chunks, each chunk filled with its index: crosses two flush points. */
const chunks = Array.from({ length: 20 }, (_, i) => new Uint8Array(MiB).fill(i));

describe("StagingFile", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "artifact-kit-staging-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes every chunk in order, flushing in the background along the way", async () => {
    const handle = await open(join(dir, "data"), "wx");
    let flushes = 0;
    const datasync = handle.datasync.bind(handle);
    handle.datasync = () => {
      flushes += 1;
      return datasync();
    };
    const file = new StagingFile(handle, DURABLE);
    for (const chunk of chunks) await file.write(chunk);
    await file.sync();
    await file.close();
    const written = await readFile(join(dir, "data"));
    expect(written.byteLength).toBe(20 * MiB);
    for (const [i, chunk] of chunks.entries()) {
      expect(written.subarray(i * MiB, (i + 1) * MiB).equals(chunk)).toBe(true);
    }
    expect(flushes).toBeGreaterThanOrEqual(1);
  });

  it("fails the final sync when a background flush failed, though a later fsync succeeds", async () => {
    // Linux reports a writeback error to one fsync only: the one that saw it must fail the file.
    const handle = await open(join(dir, "data"), "wx");
    const failure = Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" });
    const datasync = handle.datasync.bind(handle);
    let syncs = 0;
    handle.datasync = () => (syncs++ === 0 ? Promise.reject(failure) : datasync());
    const file = new StagingFile(handle, DURABLE);
    for (const chunk of chunks) await file.write(chunk);
    await expect(file.sync()).rejects.toBe(failure);
    await file.close();
  });

  it('never syncs under "process" durability', async () => {
    const handle = await open(join(dir, "data"), "wx");
    let syncs = 0;
    const count = async () => {
      syncs += 1;
    };
    handle.datasync = count;
    handle.sync = count;
    const file = new StagingFile(handle, { durability: "process" });
    for (const chunk of chunks) await file.write(chunk);
    await file.sync();
    expect(syncs).toBe(0);
    expect((await readFile(join(dir, "data"))).byteLength).toBe(20 * MiB);
  });
});
