import { Deadline, isArtifactError } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { BucketRequests, withSignal } from "../src/index.js";

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
    expect(await requests.run(deadline, "op", true, async (signal) => signal)).toBeInstanceOf(
      AbortSignal,
    );
    expect(await requests.run(deadline, "op", false, async (signal) => signal)).toBeUndefined();
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
