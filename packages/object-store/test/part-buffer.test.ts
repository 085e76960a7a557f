import { Deadline, isArtifactError } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { PartBuffer } from "../src/index.js";

const deadline = Deadline.none;

/** A buffer whose flushes record a copy of each part (the view is only lent to them). */
function recording(partBytes: number) {
  const parts: number[][] = [];
  const views: Uint8Array[] = [];
  const buffer = new PartBuffer(partBytes, async (part, at) => {
    expect(at).toBe(deadline);
    views.push(part);
    parts.push([...part]);
  });
  return { buffer, parts, views };
}

const bytes = (from: number, count: number) =>
  Uint8Array.from({ length: count }, (_, index) => (from + index) % 256);

describe("PartBuffer", () => {
  it("holds chunks smaller than a part until the part fills", async () => {
    const { buffer, parts } = recording(4);
    await buffer.write(bytes(0, 3), deadline);
    expect(parts).toEqual([]);
    expect([...buffer.pending]).toEqual([0, 1, 2]);
    await buffer.write(bytes(3, 3), deadline);
    expect(parts).toEqual([[0, 1, 2, 3]]);
    expect([...buffer.pending]).toEqual([4, 5]);
  });

  it("flushes a chunk of exactly one part at once, leaving nothing pending", async () => {
    const { buffer, parts } = recording(4);
    await buffer.write(bytes(0, 4), deadline);
    expect(parts).toEqual([[0, 1, 2, 3]]);
    expect(buffer.pending.byteLength).toBe(0);
    await buffer.flushPending(deadline);
    expect(parts).toHaveLength(1);
  });

  it("splits a chunk larger than a part into whole parts and keeps the rest", async () => {
    const { buffer, parts, views } = recording(4);
    await buffer.write(bytes(0, 1), deadline);
    await buffer.write(bytes(1, 10), deadline);
    expect(parts).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
    ]);
    expect([...buffer.pending]).toEqual([8, 9, 10]);
    await buffer.flushPending(deadline);
    expect(parts.at(-1)).toEqual([8, 9, 10]);
    // One buffer serves every part: an upload holds one part however large it grows.
    expect(new Set(views.map((view) => view.buffer)).size).toBe(1);
  });

  it("copies the lent chunk, so the caller may reuse it once the write resolves", async () => {
    const { buffer, parts } = recording(4);
    const chunk = bytes(0, 2);
    await buffer.write(chunk, deadline);
    chunk.fill(9);
    await buffer.write(chunk, deadline);
    expect(parts).toEqual([[0, 1, 9, 9]]);
  });

  it("allocates nothing for an upload that writes nothing (or only empty chunks)", async () => {
    const { buffer, parts } = recording(1024 * 1024);
    await buffer.write(new Uint8Array(0), deadline);
    await buffer.flushPending(deadline);
    expect(parts).toEqual([]);
    expect(buffer.pending.buffer.byteLength).toBe(0);
  });

  it("drops its buffer at release", async () => {
    const { buffer } = recording(8);
    await buffer.write(bytes(0, 3), deadline);
    buffer.release();
    expect(buffer.pending.byteLength).toBe(0);
    expect(buffer.pending.buffer.byteLength).toBe(0);
  });

  it("fails the write with the flush's failure, and every later write and flush with it", async () => {
    const failure = new Error("part refused");
    let calls = 0;
    const buffer = new PartBuffer(2, async () => {
      calls++;
      throw failure;
    });
    await expect(buffer.write(bytes(0, 5), deadline)).rejects.toBe(failure);
    expect(calls).toBe(1);
    // The failed chunk was partly copied: nothing more may be staged after the hole.
    await expect(buffer.write(bytes(0, 1), deadline)).rejects.toBe(failure);
    await expect(buffer.flushPending(deadline)).rejects.toBe(failure);
    expect(calls).toBe(1);
  });

  it("leaves the part's bytes untouched while its flush is in flight", async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const seen: number[][] = [];
    const buffer = new PartBuffer(2, async (part) => {
      await gate;
      seen.push([...part]);
    });
    const first = buffer.write(bytes(0, 2), deadline);
    const overlapping = buffer.write(bytes(7, 2), deadline);
    await expect(overlapping).rejects.toSatisfy((error) => isArtifactError(error));
    await expect(buffer.flushPending(deadline)).rejects.toSatisfy((error) =>
      isArtifactError(error),
    );
    release();
    await first;
    expect(seen).toEqual([[0, 1]]);
    // The refused writes did not fail the buffer: it goes on once the flush settles.
    await buffer.write(bytes(2, 2), deadline);
    expect(seen).toEqual([
      [0, 1],
      [2, 3],
    ]);
  });

  it("refuses a part size that is not a positive integer", () => {
    for (const size of [0, -1, 1.5, Number.NaN]) {
      expect(() => new PartBuffer(size, async () => {})).toThrow(/partBytes/);
    }
  });
});
