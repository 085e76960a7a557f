import { describe, expect, it } from "vitest";
import { ArtifactError, Deadline } from "../src/index.js";

const codeOf = (deadline: Deadline, now?: number) => deadline.failure(now)?.code;

/** Resolves once `signal` has fired: the timer's own event, not a guess at how long it takes. */
const aborted = (signal: AbortSignal | undefined) =>
  new Promise<void>((resolve) => {
    if (signal === undefined || signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });

describe("Deadline", () => {
  it("fixes one absolute deadline when the request starts", () => {
    const deadline = Deadline.start({ timeoutMs: 50 }, 1_000);
    expect(deadline.expiresAt).toBe(1_050);
    expect(codeOf(deadline, 1_049)).toBeUndefined();
    expect(codeOf(deadline, 1_050)).toBe("timeout");
  });

  it("tells a caller's abort from a timeout, including AbortSignal.timeout", async () => {
    const controller = new AbortController();
    controller.abort();
    expect(codeOf(Deadline.start({ signal: controller.signal }))).toBe("aborted");
    const timer = AbortSignal.timeout(1);
    await aborted(timer);
    expect(codeOf(Deadline.start({ signal: timer }))).toBe("timeout");
  });

  it("rejects timeouts outside 1..300000, fractions and non-signals", () => {
    for (const timeoutMs of [0, 300_001, Number.NaN, "5", 1000.5, 0.5]) {
      expect(() => Deadline.start({ timeoutMs })).toThrow(ArtifactError);
    }
    expect(() => Deadline.start({ signal: {} })).toThrow(ArtifactError);
  });

  it("counts as timed out once its signal has fired, even if the clock reads a moment before", async () => {
    const deadline = Deadline.start({ timeoutMs: 5 });
    const signal = deadline.toSignal();
    await aborted(signal);
    const justBefore = (deadline.expiresAt as number) - 1;
    expect(deadline.failure(justBefore)?.code).toBe("timeout");
  });

  it("gives backends a signal that fires at the deadline", async () => {
    const signal = Deadline.start({ timeoutMs: 5 }).toSignal();
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal?.aborted).toBe(false);
    await aborted(signal);
    expect(signal?.reason).toMatchObject({ name: "TimeoutError" });
  });
});
