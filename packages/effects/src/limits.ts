import type { JournalLimits } from "./types.js";

/** The bounds every journal backend enforces (and reports in `capabilities().limits`). */
export const JOURNAL_LIMITS: JournalLimits = Object.freeze({
  maxEffectIdBytes: 128,
  maxOwnerBytes: 256,
  maxCorrelationEntries: 16,
  maxCorrelationValueBytes: 256,
  maxErrorBytes: 1024,
  maxLeaseMs: 3_600_000,
  maxBatch: 1000,
  maxScan: 100_000,
});
