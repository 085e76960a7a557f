import { describe, expect, it } from "vitest";
import { contentionPauseMs, retryUnderContention } from "../src/adapter/index.js";
import { ArtifactError, Deadline } from "../src/index.js";

const policy = { maxWaitMs: 60_000, boundName: "maxContentionWaitMs", maxPauseMs: 2 };

/** The error a promise fails with; the test fails if it succeeds. */
async function failure(promise: Promise<unknown>): Promise<ArtifactError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ArtifactError);
  return error as ArtifactError;
}

describe("contentionPauseMs", () => {
  it("stays below a ceiling that doubles per lost race up to the cap", () => {
    const almostOne = () => 0.999_999;
    const ceilings = [1, 2, 3, 4, 5, 6, 7, 40].map((lost) =>
      contentionPauseMs(lost, almostOne, 4, 256),
    );
    expect(ceilings).toEqual([3, 7, 15, 31, 63, 127, 255, 255]);
    expect(contentionPauseMs(5, () => 0, 4, 256)).toBe(0);
    expect(contentionPauseMs(2, () => 0.5, 4, 256)).toBe(4);
  });

  it("never overflows however many races were lost", () => {
    expect(contentionPauseMs(10_000, () => 0.5, 4, 256)).toBe(128);
  });
});

describe("retryUnderContention", () => {
  it("keeps trying far past a small fixed count while the request has time", async () => {
    const tried: number[] = [];
    const won = await retryUnderContention(Deadline.none, policy, async (attempt) => {
      tried.push(attempt);
      return attempt === 40 ? `version ${attempt}` : undefined;
    });
    expect(won).toBe("version 40");
    expect(tried).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it("without a deadline of its own, gives up with overloaded naming the adapter's bound", async () => {
    let attempts = 0;
    const lost = retryUnderContention(Deadline.none, { ...policy, maxWaitMs: 30 }, async () => {
      attempts += 1;
      return undefined;
    });
    const error = await failure(lost);
    expect(error.code).toBe("overloaded");
    expect(error.detail).toEqual({ limit: "max_contention_wait_ms", bound: 30 });
    expect(attempts).toBeGreaterThan(1);
  });

  it("with a deadline of its own, ends with timeout when it passes, not overloaded", async () => {
    const deadline = Deadline.start({ timeoutMs: 30 });
    const error = await failure(
      retryUnderContention(deadline, { ...policy, maxWaitMs: 1 }, async () => undefined),
    );
    expect(error.code).toBe("timeout");
  });

  it("stops at the caller's abort, even in the middle of a long pause", async () => {
    const controller = new AbortController();
    const deadline = Deadline.start({ signal: controller.signal });
    let attempts = 0;
    const lost = retryUnderContention(
      deadline,
      { ...policy, firstPauseMs: 600_000, maxPauseMs: 600_000, random: () => 0.5 },
      async () => {
        attempts += 1;
        // Abort once the first pause (five minutes long) has begun.
        setImmediate(() => controller.abort());
        return undefined;
      },
    );
    expect((await failure(lost)).code).toBe("aborted");
    expect(attempts).toBe(1);
  });

  it("passes on what an attempt throws, without retrying it", async () => {
    let attempts = 0;
    const broken = new ArtifactError("unavailable", "the backend failed");
    const error = await failure(
      retryUnderContention(Deadline.none, policy, async () => {
        attempts += 1;
        throw broken;
      }),
    );
    expect(error).toBe(broken);
    expect(attempts).toBe(1);
  });
});
