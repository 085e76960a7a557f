import {
  invalidArgument,
  validateName,
  validateOptionKeys,
  validatePositiveInteger,
  validateScope,
  validateText,
} from "@artifact-kit/core";
import { JOURNAL_LIMITS } from "./limits.js";
import type {
  ClaimRequest,
  EffectIntent,
  EffectReceipt,
  LeaseRequest,
  PruneRequest,
  TerminalPhase,
} from "./types.js";

const EFFECT_ID = /^[A-Za-z0-9_-]+$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/** An effect id doubles as a file name and an idempotency key: a short safe alphabet. */
export function validateEffectId(value: unknown, field = "effectId"): string {
  if (
    typeof value !== "string" ||
    value.length === 0 ||
    value.length > JOURNAL_LIMITS.maxEffectIdBytes ||
    !EFFECT_ID.test(value)
  ) {
    throw invalidArgument(
      field,
      `must be 1..${JOURNAL_LIMITS.maxEffectIdBytes} characters of A-Z, a-z, 0-9, "_" and "-"`,
    );
  }
  return value;
}

function validateSha256(value: unknown, field: string): string {
  if (typeof value !== "string" || !SHA256_HEX.test(value)) {
    throw invalidArgument(field, "must be 64 lowercase hex digits");
  }
  return value;
}

function validateCount(value: unknown, field: string, max: number): number {
  const count = validatePositiveInteger(value, field);
  if (count > max) throw invalidArgument(field, `must be at most ${max}`);
  return count;
}

function validateTime(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalidArgument(field, "must be a whole number of milliseconds since the epoch");
  }
  return value;
}

export function validateFencingToken(value: unknown): number {
  return validatePositiveInteger(value, "fencingToken");
}

export function validateReceipt(value: unknown, field = "receipt"): EffectReceipt {
  const receipt = validateOptionKeys(value, ["version", "sha256", "size"], field);
  const size = receipt.size;
  if (typeof size !== "number" || !Number.isSafeInteger(size) || size < 0) {
    throw invalidArgument(`${field}.size`, "must be a whole number of bytes");
  }
  return Object.freeze({
    version: validatePositiveInteger(receipt.version, `${field}.version`),
    sha256: validateSha256(receipt.sha256, `${field}.sha256`),
    size,
  });
}

function validateCorrelation(value: unknown): Readonly<Record<string, string>> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidArgument("correlation", "must be an object of string ids");
  }
  const entries = Object.entries(value);
  if (entries.length > JOURNAL_LIMITS.maxCorrelationEntries) {
    throw invalidArgument(
      "correlation",
      `must have at most ${JOURNAL_LIMITS.maxCorrelationEntries} entries`,
    );
  }
  const max = JOURNAL_LIMITS.maxCorrelationValueBytes;
  // Own data properties whatever the key: an assignment would drop "__proto__" silently.
  return Object.freeze(
    Object.fromEntries(
      entries.map(([key, id]) => [
        validateText(key, "correlation", max),
        validateText(id, `correlation.${key}`, max),
      ]),
    ),
  );
}

export function validateIntent(value: unknown): EffectIntent {
  const intent = validateOptionKeys(
    value,
    ["effectId", "operation", "scope", "name", "requestDigest", "target", "correlation"],
    "intent",
  );
  const { operation } = intent;
  if (operation !== "put" && operation !== "delete") {
    throw invalidArgument("operation", 'must be "put" or "delete"');
  }
  if (operation === "delete" && intent.target === undefined) {
    throw invalidArgument("target", "a delete names the exact version it removes");
  }
  if (operation === "put" && intent.target !== undefined) {
    throw invalidArgument("target", "only a delete has a target version");
  }
  return Object.freeze({
    effectId: validateEffectId(intent.effectId),
    operation,
    scope: validateScope(intent.scope),
    name: validateName(intent.name),
    requestDigest: validateSha256(intent.requestDigest, "requestDigest"),
    ...(intent.target === undefined ? {} : { target: validateReceipt(intent.target, "target") }),
    ...(intent.correlation === undefined
      ? {}
      : { correlation: validateCorrelation(intent.correlation) }),
  });
}

export function validateLease(value: unknown, field = "lease"): LeaseRequest {
  const lease = validateOptionKeys(value, ["owner", "leaseMs"], field);
  return {
    owner: validateText(lease.owner, "owner", JOURNAL_LIMITS.maxOwnerBytes),
    leaseMs: validateCount(lease.leaseMs, "leaseMs", JOURNAL_LIMITS.maxLeaseMs),
  };
}

export function validateClaim(value: unknown): ClaimRequest {
  const claim = validateOptionKeys(value, ["owner", "leaseMs", "limit", "maxAttempts"], "claim");
  const { owner, leaseMs } = validateLease({ owner: claim.owner, leaseMs: claim.leaseMs });
  return {
    owner,
    leaseMs,
    limit: validateCount(claim.limit, "limit", JOURNAL_LIMITS.maxBatch),
    maxAttempts: validatePositiveInteger(claim.maxAttempts, "maxAttempts"),
  };
}

export function validatePrune(value: unknown): PruneRequest {
  const prune = validateOptionKeys(value, ["olderThan", "limit"], "prune");
  return {
    olderThan: validateTime(prune.olderThan, "olderThan"),
    limit: validateCount(prune.limit, "limit", JOURNAL_LIMITS.maxBatch),
  };
}

export function validateOutcome(value: unknown): TerminalPhase {
  if (value !== "committed" && value !== "compensated" && value !== "not_applied") {
    throw invalidArgument("outcome", 'must be "committed", "compensated" or "not_applied"');
  }
  return value;
}

/** A backoff is a lease held by nobody: bounded like one. */
export function validateRetryAfter(value: unknown): number {
  return validateCount(value, "retryAfterMs", JOURNAL_LIMITS.maxLeaseMs);
}

/**
 * Failure text is kept for operators, cut to the bound rather than refused. NUL and lone
 * surrogates become U+FFFD, so that the text encodes to UTF-8 and survives whatever log,
 * database text column or terminal an operator copies it to (each refuses or mangles them).
 */
export function boundedError(message: unknown): string {
  const text = (typeof message === "string" ? message : String(message))
    .toWellFormed()
    .replaceAll("\0", "\uFFFD");
  const bytes = new TextEncoder().encode(text);
  if (bytes.byteLength <= JOURNAL_LIMITS.maxErrorBytes) return text;
  return new TextDecoder().decode(bytes.subarray(0, JOURNAL_LIMITS.maxErrorBytes - 4));
}
