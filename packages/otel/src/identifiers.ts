import { createHmac, randomBytes } from "node:crypto";

/**
 * How a user-supplied identifier (an artifact name, a scope's app / user / session id, a run
 * id or path) appears in telemetry. They may carry user data, so the default is `"none"`.
 * `"digest"` records a keyed digest: equal ids give equal digests under one key, so a span
 * can be correlated with others without revealing the id, and the key keeps short ids from
 * being recovered by hashing guesses.
 */
export type IdentifierRecording = "none" | "digest" | "plain";

export const IDENTIFIER_RECORDINGS: readonly IdentifierRecording[] = ["none", "digest", "plain"];

/** One key per process when none is given: digests then correlate within this process only. */
const processDigestKey = randomBytes(32);

/** Hex characters kept of the HMAC-SHA-256: 128 bits, ample to tell ids apart. */
const DIGEST_HEX_CHARS = 32;

export class IdentifierPolicy {
  readonly #mode: IdentifierRecording;
  readonly #key: Uint8Array;

  constructor(mode: IdentifierRecording, key: Uint8Array | undefined) {
    this.#mode = mode;
    this.#key = key ?? processDigestKey;
  }

  get records(): boolean {
    return this.#mode !== "none";
  }

  /** The attribute value for `value`, or undefined when it is not recorded (or not a string). */
  record(value: unknown): string | undefined {
    if (this.#mode === "none" || typeof value !== "string") return undefined;
    if (this.#mode === "plain") return value;
    return createHmac("sha256", this.#key).update(value).digest("hex").slice(0, DIGEST_HEX_CHARS);
  }
}
