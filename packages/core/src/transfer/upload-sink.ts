import type { Deadline } from "../deadline.js";
import { ArtifactError, artifactTooLarge, asArtifactError, invalidArgument } from "../errors.js";
import { settleWithin } from "../settle.js";
import type { ArtifactMeta } from "../types.js";
import { validateData } from "../validate.js";
import { BlockDigester, type DataDigest } from "./blocks.js";
import type { UploadSink } from "./contract.js";
import type { ParsedUpload } from "./parse.js";

/**
 * How long an adapter's clean-up (an upload's `discard`, the removal of what a failed call
 * staged) may wait for its backend. It runs under no caller's deadline, since a call that
 * timed out must still clean up, but a frozen server or a stalled network must not hold the
 * caller's `abort()` or failed call for ever: what a clean-up given up leaves, the adapter's
 * `repair` removes.
 */
export const CLEANUP_TIMEOUT_MS = 10_000;

/** Where an adapter's upload goes: it stages bytes and publishes them, or throws them away. */
export interface UploadTarget {
  /**
   * Stages one chunk, already counted. The chunk is the caller's and is lent only until the
   * returned promise settles (it is hashed meanwhile): a target that keeps it longer copies it.
   */
  write(chunk: Uint8Array): Promise<void>;
  /**
   * Publishes what was staged as one new version. Must call `deadline.check()` immediately
   * before its commit point, as a put does, and leave nothing visible when it fails.
   */
  publish(digest: DataDigest, deadline: Deadline): Promise<ArtifactMeta>;
  /**
   * Removes whatever was staged, waiting for the backend at most CLEANUP_TIMEOUT_MS (the sink
   * stops waiting for it then in any case). Called at most once, never after a successful
   * publish, after the write in flight settles or CLEANUP_TIMEOUT_MS has passed.
   */
  discard(): Promise<void>;
}

type State = "open" | "writing" | "finishing" | "published" | "failed";

/**
 * The one implementation of an upload's rules over an adapter's target: one write at a
 * time, every byte hashed (whole and per block), the byte bound, and the deadline. The
 * request's signal and deadline abort the upload the moment they fire, not at the next
 * write, so an owner that goes away leaves nothing staged.
 */
export function uploadSink(request: ParsedUpload, target: UploadTarget): UploadSink {
  return new BoundUpload(request, target);
}

class BoundUpload implements UploadSink {
  readonly #request: ParsedUpload;
  readonly #target: UploadTarget;
  readonly #digester = new BlockDigester();
  #state: State = "open";
  #failure: ArtifactError | undefined;
  /** The write or publish in flight, so a discard does not race it (for CLEANUP_TIMEOUT_MS). */
  #busy: Promise<unknown> = Promise.resolve();
  #discarded: Promise<void> | undefined;
  /** Rejects with the failure once the upload fails, so a write in flight ends with it. */
  readonly #failed: Promise<never>;
  #rejectFailed: (error: ArtifactError) => void = () => undefined;
  readonly #unwatch: () => void;

  constructor(request: ParsedUpload, target: UploadTarget) {
    this.#request = request;
    this.#target = target;
    this.#failed = new Promise<never>((_, reject) => {
      this.#rejectFailed = reject;
    });
    // Only a write in flight waits on it; an upload that fails otherwise must not leave an
    // unhandled rejection behind.
    this.#failed.catch(() => undefined);
    const signal = request.deadline.toSignal();
    const onAbort = () => {
      if (this.#state === "open" || this.#state === "writing") {
        // The caller's signal reports itself; otherwise the deadline's timer fired, which
        // can be a millisecond before the wall clock says the deadline has passed.
        void this.#fail(request.deadline.failure() ?? deadlinePassed());
      }
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    this.#unwatch = () => signal?.removeEventListener("abort", onAbort);
    if (signal?.aborted) onAbort();
  }

  async write(chunk: Uint8Array): Promise<void> {
    const bytes = validateData(chunk, "chunk");
    this.#enter("writing");
    const work = (async () => {
      this.#request.deadline.check();
      if (this.#digester.size + bytes.byteLength > this.#request.maxBytes) {
        throw uploadTooLarge(this.#request);
      }
      // The target stages the chunk (on the thread pool, for files) while it is hashed here;
      // neither keeps the caller's buffer once the write resolves.
      const staged = this.#target.write(bytes);
      try {
        this.#digester.update(bytes);
      } finally {
        await staged;
      }
    })();
    this.#busy = work;
    try {
      // The caller's write ends when the upload fails (its deadline, its signal, abort()),
      // not only when the target's write settles: a target stalled on its backend would
      // hold it past the deadline.
      await Promise.race([work, this.#failed]);
    } catch (error) {
      throw await this.#fail(asArtifactError(error, "upload"));
    }
    if (this.#state === "writing") this.#state = "open";
    else throw this.#failure ?? closedUpload();
  }

  async finish(): Promise<ArtifactMeta> {
    this.#enter("finishing");
    const work = (async () => {
      this.#request.deadline.check();
      return this.#target.publish(this.#digester.digest(), this.#request.deadline);
    })();
    this.#busy = work;
    try {
      const meta = await work;
      this.#state = "published";
      this.#unwatch();
      return meta;
    } catch (error) {
      this.#state = "open";
      throw await this.#fail(asArtifactError(error, "upload"));
    }
  }

  async abort(reason?: unknown): Promise<void> {
    if (this.#state === "finishing") {
      await this.#busy.catch(() => undefined);
      return;
    }
    if (this.#state === "published") return;
    await this.#fail(abortedError(reason));
  }

  #enter(next: "writing" | "finishing"): void {
    if (this.#state === "failed") throw this.#failure ?? closedUpload();
    if (this.#state !== "open") {
      throw invalidArgument(
        "upload",
        this.#state === "published"
          ? "is already published"
          : "has a write or finish in flight; await it first",
      );
    }
    this.#state = next;
  }

  /** Fails the upload once, discards what was staged, and returns the failure. */
  async #fail(error: ArtifactError): Promise<ArtifactError> {
    if (this.#state !== "failed") {
      this.#state = "failed";
      this.#failure = error;
      this.#unwatch();
      this.#rejectFailed(error);
      // The discard waits for the write in flight, so that it never races it, and for the
      // discard itself, each at most CLEANUP_TIMEOUT_MS: a target that never settles must not
      // hold the caller's abort() or failed write for ever (what is left, repair removes).
      this.#discarded = withinCleanupTime(this.#busy)
        .then(() => withinCleanupTime(this.#target.discard()))
        .catch(() => undefined);
    }
    await this.#discarded;
    return this.#failure ?? error;
  }
}

/** Settles when `work` does or CLEANUP_TIMEOUT_MS later, whichever comes first; never rejects. */
function withinCleanupTime(work: Promise<unknown>): Promise<void> {
  return settleWithin(work.then(noop, noop), CLEANUP_TIMEOUT_MS, noop);
}

function noop(): void {}

function uploadTooLarge(request: ParsedUpload): ArtifactError {
  return artifactTooLarge(undefined, request.maxBytes, request.maxBytesBound);
}

function abortedError(reason: unknown): ArtifactError {
  return new ArtifactError("aborted", "the upload was aborted", { cause: reason });
}

function deadlinePassed(): ArtifactError {
  return new ArtifactError("timeout", "the upload's deadline passed");
}

function closedUpload(): ArtifactError {
  return invalidArgument("upload", "is no longer open");
}
