import { describe, expect, it } from "vitest";
import { ArtifactError, Deadline, parseTimeoutMs } from "../src/index.js";

function captureError(call: () => unknown): ArtifactError | undefined {
  try {
    call();
  } catch (error) {
    if (error instanceof ArtifactError) return error;
    throw error;
  }
  return undefined;
}

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

  it("refuses zero, negatives, NaN, infinities, non-numbers, over 300000 and non-signals", () => {
    const refused = [0, -0, -1, -0.5, 300_001, 300_000.5, Number.NaN, "5", null, 5n];
    for (const timeoutMs of [...refused, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const error = captureError(() => Deadline.start({ timeoutMs }));
      expect([timeoutMs, error?.code, error?.detail]).toEqual([
        timeoutMs,
        "invalid_argument",
        expect.objectContaining({ field: "timeoutMs" }),
      ]);
    }
    expect(() => Deadline.start({ signal: {} })).toThrow(ArtifactError);
  });

  it("rounds a fractional timeout up to whole milliseconds: never shorter than asked", () => {
    const cases: [number, number][] = [
      [1000.5, 1_001],
      [0.25, 1],
      [Number.MIN_VALUE, 1],
      [299_999.01, 300_000],
      [300_000, 300_000],
    ];
    for (const [timeoutMs, whole] of cases) {
      expect([timeoutMs, parseTimeoutMs(timeoutMs)]).toEqual([timeoutMs, whole]);
      expect(Deadline.start({ timeoutMs }, 1_000).expiresAt).toBe(1_000 + whole);
    }
    expect(parseTimeoutMs(undefined)).toBeUndefined();
  });

  it("takes a timeout computed from a clock, as a caller with a deadline would", () => {
    const deadline = performance.now() + 250;
    const timeoutMs = deadline - performance.now();
    const started = Date.now();
    const expiresAt = Deadline.start({ timeoutMs }, started).expiresAt as number;
    expect(expiresAt - started).toBeGreaterThanOrEqual(timeoutMs);
    expect(Number.isInteger(expiresAt - started)).toBe(true);
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
