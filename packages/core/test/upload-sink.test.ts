import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { UploadTarget } from "../src/transfer/upload-sink.js";
import { CLEANUP_TIMEOUT_MS, uploadSink } from "../src/transfer/upload-sink.js";
import { parseUpload } from "../src/transfer.js";
import type { Scope } from "../src/types.js";

// Core's upload rules over a target that never answers (a backend frozen or a connection
// stalled under it): the caller's write() and abort() still end, within the clean-up bound.
// Only setTimeout is faked, for that bound; the caller's signal is fired by hand.

const scope: Scope = { kind: "app", app: "sink" };
const never = () => new Promise<never>(() => undefined);

function stalledTarget(overrides: Partial<UploadTarget> = {}) {
  const discard = vi.fn(async () => undefined);
  const target: UploadTarget = {
    write: never,
    publish: never,
    discard,
    ...overrides,
  };
  return { target, discard };
}

/** What a promise came to, without waiting for it: "pending" until it settles. */
function settledState(promise: Promise<unknown>) {
  let outcome: string = "pending";
  promise.then(
    () => {
      outcome = "resolved";
    },
    (error: { code?: string }) => {
      outcome = `rejected: ${error.code}`;
    },
  );
  return () => outcome;
}

describe("an upload over a target that never settles", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("ends a write in flight when the caller's signal fires, its discard waited for at most the clean-up bound", async () => {
    const { target, discard } = stalledTarget();
    const controller = new AbortController();
    const sink = uploadSink(parseUpload(scope, "a", { signal: controller.signal }, 1024), target);
    const write = settledState(sink.write(new Uint8Array([1, 2, 3])));
    controller.abort();
    await vi.advanceTimersByTimeAsync(CLEANUP_TIMEOUT_MS - 1);
    // The discard waits for the stalled write first, up to the bound.
    expect(discard).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(discard).toHaveBeenCalledTimes(1);
    expect(write()).toBe("rejected: aborted");
    await expect(sink.abort()).resolves.toBeUndefined();
    expect(discard).toHaveBeenCalledTimes(1);
  });

  it("ends abort() and the write in flight when the target's write never settles", async () => {
    const { target, discard } = stalledTarget();
    const sink = uploadSink(parseUpload(scope, "a", {}, 1024), target);
    const write = settledState(sink.write(new Uint8Array([1])));
    const abort = settledState(sink.abort("gone"));
    await vi.advanceTimersByTimeAsync(CLEANUP_TIMEOUT_MS);
    expect(abort()).toBe("resolved");
    expect(write()).toBe("rejected: aborted");
    expect(discard).toHaveBeenCalledTimes(1);
    await expect(sink.write(new Uint8Array([2]))).rejects.toMatchObject({ code: "aborted" });
  });

  it("ends abort() when the target's discard never settles", async () => {
    const { target } = stalledTarget({
      write: async () => undefined,
      discard: never,
    });
    const sink = uploadSink(parseUpload(scope, "a", {}, 1024), target);
    await sink.write(new Uint8Array([1]));
    const abort = settledState(sink.abort());
    await vi.advanceTimersByTimeAsync(CLEANUP_TIMEOUT_MS - 1);
    expect(abort()).toBe("pending");
    await vi.advanceTimersByTimeAsync(1);
    expect(abort()).toBe("resolved");
  });
});
