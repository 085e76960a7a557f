import { Deadline, isArtifactError } from "@artifact-kit/core";
import { CLEANUP_TIMEOUT_MS } from "@artifact-kit/core/adapter";
import { describe, expect, it, vi } from "vitest";
import { BucketRequests, withSignal } from "../src/index.js";
import { COMMIT_GRACE_MS } from "../src/requests.js";

/** A request that stays in flight until `release` is called. */
function held() {
  let release = () => {};
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { done, release };
}

describe("BucketRequests", () => {
  it("holds at most maxConcurrency requests in flight", async () => {
    const requests = new BucketRequests("Test", 2);
    const gate = held();
    const twoStarted = held();
    let inFlight = 0;
    let most = 0;
    const runs = [0, 1, 2, 3].map((index) =>
      requests.run(Deadline.none, "op", true, async () => {
        most = Math.max(most, ++inFlight);
        if (inFlight === 2) twoStarted.release();
        await gate.done;
        inFlight--;
        return index;
      }),
    );
    await twoStarted.done;
    gate.release();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(most).toBe(2);
  });

  it("hands the deadline's signal only to requests it may abandon", async () => {
    const requests = new BucketRequests("Test", 1);
    const controller = new AbortController();
    const deadline = Deadline.start({ signal: controller.signal });
    expect(await requests.run(deadline, "op", true, async (signal) => signal)).toBe(
      deadline.toSignal(),
    );
    const kept = await requests.run(deadline, "op", false, async (signal) => signal);
    expect(kept).not.toBe(deadline.toSignal());
    expect(await requests.run(Deadline.none, "op", false, async (signal) => signal)).toBe(
      undefined,
    );
  });

  it("gives up a request it may not abandon only a grace after the deadline, as unavailable", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const requests = new BucketRequests("Test", 1);
      const controller = new AbortController();
      let handed: AbortSignal | undefined;
      // The work ignores its signal and never answers, as a stalled connection.
      const run = requests.run(
        Deadline.start({ signal: controller.signal }),
        "write k",
        false,
        (signal) => {
          handed = signal;
          return new Promise<never>(() => {});
        },
      );
      const outcome = run.then(
        () => "answered",
        (error: unknown) => (isArtifactError(error) ? error.code : String(error)),
      );
      await vi.advanceTimersByTimeAsync(0);
      controller.abort();
      await vi.advanceTimersByTimeAsync(COMMIT_GRACE_MS - 1);
      expect(handed?.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(handed?.aborted).toBe(true);
      expect(await outcome).toBe("unavailable");
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps the answer of a request that comes within the grace", async () => {
    const requests = new BucketRequests("Test", 1);
    const controller = new AbortController();
    const answer = held();
    const run = requests.run(
      Deadline.start({ signal: controller.signal }),
      "op",
      false,
      async () => {
        controller.abort();
        await answer.done;
        return "created";
      },
    );
    answer.release();
    expect(await run).toBe("created");
  });

  it("names a failure after the service and the operation", async () => {
    const requests = new BucketRequests("Test", 1);
    const failed = requests.run(Deadline.none, "read k", true, async () => {
      throw new Error("reset");
    });
    await expect(failed).rejects.toSatisfy(
      (error) => isArtifactError(error, "unavailable") && error.message.includes("Test read k"),
    );
  });

  it("starts no request once the deadline has failed, and reports the deadline", async () => {
    const requests = new BucketRequests("Test", 1);
    const controller = new AbortController();
    controller.abort();
    let ran = false;
    const run = requests.run(
      Deadline.start({ signal: controller.signal }),
      "op",
      false,
      async () => {
        ran = true;
      },
    );
    await expect(run).rejects.toSatisfy((error) => isArtifactError(error, "aborted"));
    expect(ran).toBe(false);
  });

  it("gives a clean-up up after its own timeout, freeing its slot for the next request", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    try {
      const requests = new BucketRequests("Test", 1);
      let handed: AbortSignal | undefined;
      const cleanUp = requests.quietly((signal) => {
        handed = signal;
        return new Promise<never>(() => {});
      });
      const next = requests.run(Deadline.none, "op", true, async () => "ran");
      await vi.advanceTimersByTimeAsync(CLEANUP_TIMEOUT_MS);
      expect(handed?.aborted).toBe(true);
      await expect(cleanUp).resolves.toBeUndefined();
      expect(await next).toBe("ran");
    } finally {
      vi.useRealTimers();
    }
  });

  it("runs clean-ups under the bound and never rejects", async () => {
    const requests = new BucketRequests("Test", 1);
    await expect(
      requests.quietly(async () => {
        throw new Error("gone");
      }),
    ).resolves.toBeUndefined();
  });
});

describe("withSignal", () => {
  it("leaves the option out when there is no signal", () => {
    const signal = new AbortController().signal;
    expect(withSignal(signal)).toEqual({ abortSignal: signal });
    expect(withSignal(undefined)).toEqual({});
  });
});
