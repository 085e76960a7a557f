/**
 * The run-store contract: files a workflow run emits step by step, kept per run so that a
 * later deterministic step (a validator) reads exactly the bytes that were emitted.
 */

/** A file's content: text (measured and stored as UTF-8) or bytes. */
export type RunContent = string | Uint8Array;

/** One file of a run, as `artifacts(runId)` reports it. */
export interface RunArtifact {
  readonly path: string;
  /** The step that last registered this path. */
  readonly stepId: string;
  /** A string when registered as a string, bytes when registered as bytes. */
  readonly content: RunContent;
  /** Bytes of the content (UTF-8 bytes for a string). */
  readonly size: number;
}

/** Every bound a run store enforces; each fails closed with `quota_exceeded`. */
export interface RunStoreBounds {
  /** Distinct paths per run; a new path counts, an upsert of a present path does not. */
  readonly maxArtifactsPerRun: number;
  readonly maxBytesPerArtifact: number;
  readonly maxBytesPerRun: number;
  /** Runs holding at least one file. */
  readonly maxRuns: number;
  /** Bytes over every run of the store. */
  readonly maxTotalBytes: number;
}

/** Bounds as a store's constructor takes them: any subset, the rest default. */
export type RunStoreBoundsOptions = Partial<RunStoreBounds>;

export const RUN_STORE_BOUND_NAMES = Object.freeze([
  "maxArtifactsPerRun",
  "maxBytesPerArtifact",
  "maxBytesPerRun",
  "maxRuns",
  "maxTotalBytes",
] as const satisfies readonly (keyof RunStoreBounds)[]);

/**
 * Run-scoped store of generated files, last write wins.
 * Invalid arguments (blank ids or paths, paths with an empty, `.` or `..` segment, absent
 * content) fail with `invalid_argument`; a bound fails with `quota_exceeded` and
 * `detail.limit` (e.g. `max_bytes_per_run`). Either way nothing changes.
 */
export interface RunStore {
  /** The bounds this store enforces. */
  bounds(): RunStoreBounds;
  /** Stores `content` at `path`; a present path is replaced in place (it keeps its position). */
  register(runId: string, stepId: string, path: string, content: RunContent): Promise<void>;
  /** The content at `path`, or `undefined`; bytes are a copy the caller may change. */
  find(runId: string, path: string): Promise<RunContent | undefined>;
  /** An immutable snapshot of the run's files in registration order; empty for an unknown run. */
  artifacts(runId: string): Promise<readonly RunArtifact[]>;
  /** Removes one file; removing an absent path is not an error. */
  remove(runId: string, path: string): Promise<void>;
  /** Removes every file of the run; clearing an unknown run is not an error. */
  clear(runId: string): Promise<void>;
}
