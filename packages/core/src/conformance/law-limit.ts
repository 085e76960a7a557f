// A law that never settles is a failure of the service under test (some operation of it, or
// of its subject's hooks, neither resolved nor rejected), and is reported as one, naming the
// law, instead of holding the run for ever. A bound for hangs, not for speed.

import { settleWithin } from "../settle.js";
import { ConformanceFailure } from "./expect.js";
import type { PendingCalls } from "./pending-calls.js";

/** The per-law limit when the options name none: minutes, for slow backends on busy machines. */
export const DEFAULT_LAW_LIMIT_MS = 600_000;

/** vitest's own limit for a law: above the kit's, so that the kit's report is the one seen. */
export function vitestLimitMs(lawLimitMs: number | undefined): number {
  return (lawLimitMs ?? DEFAULT_LAW_LIMIT_MS) + 60_000;
}

/**
 * `body`'s outcome, or a failure once `limitMs` passed with `body` still pending, naming the
 * calls `pending` watched that were still pending then.
 */
export function withinLawLimit<T>(
  limitMs: number | undefined,
  body: () => Promise<T>,
  pending?: PendingCalls,
): Promise<T> {
  const limit = limitMs ?? DEFAULT_LAW_LIMIT_MS;
  return settleWithin(body(), limit, () => {
    const calls = pending ? `; pending: ${pending.describe()}` : "";
    throw new ConformanceFailure(
      `the law did not settle within ${limit} ms: an operation of the service (or of the subject's hooks) never resolved or rejected${calls}`,
    );
  });
}
