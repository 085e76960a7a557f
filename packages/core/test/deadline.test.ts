import { describe, expect, it } from "vitest";
import { ArtifactError, Deadline } from "../src/index.js";

const codeOf = (deadline: Deadline, now?: number) => deadline.failure(now)?.code;

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
    await new Promise((resolve) => setTimeout(resolve, 20));
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
    await new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }));
    const justBefore = (deadline.expiresAt as number) - 1;
    expect(deadline.failure(justBefore)?.code).toBe("timeout");
  });

  it("gives backends a signal that fires at the deadline", async () => {
    const signal = Deadline.start({ timeoutMs: 5 }).toSignal();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(signal?.aborted).toBe(true);
  });
});
