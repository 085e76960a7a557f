import { describe, expect, it } from "vitest";
import { LatestReadAhead } from "../src/latest-read-ahead.js";

// The latest version's read begun while its probe runs (store.ts, #latest): whatever the
// walk then reads, it must get exactly what a read of that number gives, and what it does
// not take must be let go, its failure included.

function reads(results: Record<number, string | Error | undefined>) {
  const calls: number[] = [];
  const read = async (version: number) => {
    calls.push(version);
    const result = results[version];
    if (result instanceof Error) throw result;
    return result;
  };
  return { calls, read };
}

/** A promise's outcome once every callback queued before it has run. */
async function settled<T>(promise: Promise<T>) {
  return promise.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

describe("the latest version read ahead of its probe", () => {
  it("serves the walk's first read of the guessed version once, and reads every other number afresh", async () => {
    const { calls, read } = reads({ 3: "v3", 4: "v4" });
    const released: string[] = [];
    const ahead = new LatestReadAhead(3, read, (found) => released.push(found));
    expect(calls).toEqual([3]);
    expect(await ahead.read(3)).toBe("v3");
    expect(await ahead.read(4)).toBe("v4");
    expect(await ahead.read(3)).toBe("v3");
    expect(calls).toEqual([3, 4, 3]);
    ahead.discard();
    await Promise.resolve();
    expect(released).toEqual([]);
  });

  it("lets go of a version found ahead that the walk did not take", async () => {
    const { read } = reads({ 3: "v3", 5: "v5" });
    const released: string[] = [];
    const ahead = new LatestReadAhead(3, read, (found) => released.push(found));
    expect(await ahead.read(5)).toBe("v5");
    ahead.discard();
    await settled(read(0));
    expect(released).toEqual(["v3"]);
  });

  it("swallows the failure of a read ahead the walk did not take, and passes on one it took", async () => {
    const broken = new Error("corrupt");
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on("unhandledRejection", onUnhandled);
    try {
      const first = reads({ 3: broken, 4: "v4" });
      const untaken = new LatestReadAhead(3, first.read, () => {});
      // The probe's round trip: the read ahead fails before anything awaits it.
      await new Promise((resolve) => setImmediate(resolve));
      expect(await untaken.read(4)).toBe("v4");
      untaken.discard();

      const second = reads({ 3: broken });
      const taken = new LatestReadAhead(3, second.read, () => {});
      await new Promise((resolve) => setImmediate(resolve));
      expect(await settled(taken.read(3))).toEqual({ error: broken });
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
  });

  it("reads nothing ahead without a guess", async () => {
    const { calls, read } = reads({ 1: "v1" });
    const ahead = new LatestReadAhead(undefined, read, () => {});
    expect(calls).toEqual([]);
    expect(await ahead.read(1)).toBe("v1");
    ahead.discard();
    expect(calls).toEqual([1]);
  });
});
