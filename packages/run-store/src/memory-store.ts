import {
  type RunArtifact,
  type RunContent,
  type RunStore,
  type RunStoreBounds,
  type RunStoreBoundsOptions,
  validateOptionKeys,
} from "@artifact-kit/core";
import { BYTE_BOUNDS, exceededError, firstExceeded, resolveBounds, type Usage } from "./bounds.js";
import { copyContent, freezeSnapshot } from "./snapshot.js";
import { sizeOf, upperSizeOf, validateContent, validateId, validatePath } from "./validate.js";

interface StoredFile {
  readonly stepId: string;
  readonly content: RunContent;
  /** Bytes of the content; undefined for text whose UTF-8 bytes are not counted yet. */
  size: number | undefined;
  /** What the file counts against the byte bounds: its size, or while uncounted, its upper bound. */
  charge: number;
}

interface RunFiles {
  /** Insertion order is registration order; `set` on a present key keeps its position. */
  readonly files: Map<string, StoredFile>;
  /** The charges of the run's files. */
  charged: number;
  /** Files of the run whose size is not counted yet. */
  uncounted: number;
  /** The step id of the run's latest registration. */
  lastStepId: string;
}

export interface InMemoryRunStoreOptions {
  bounds?: RunStoreBoundsOptions;
}

/**
 * The default run store: volatile, in one process. Every method completes in one turn.
 *
 * Counting the UTF-8 bytes of text walks all of it, so a registration charges text its upper
 * bound (3 bytes per UTF-16 code unit) and counts the bytes only when a byte bound would
 * otherwise refuse it, or when `artifacts()` reports the size. Bounds are still exact: a
 * registration that an upper bound would break is judged again on counted sizes.
 */
export class InMemoryRunStore implements RunStore {
  readonly #bounds: RunStoreBounds;
  readonly #runs = new Map<string, RunFiles>();
  /** The charges of every file. */
  #charged = 0;
  /** Files whose size is not counted yet. */
  #uncounted = 0;

  constructor(options: InMemoryRunStoreOptions = {}) {
    this.#bounds = resolveBounds(validateOptionKeys(options, ["bounds"]).bounds);
  }

  bounds(): RunStoreBounds {
    return this.#bounds;
  }

  async register(runId: string, stepId: string, path: string, content: RunContent): Promise<void> {
    const run = this.#runs.get(runId);
    const replaced = run?.files.get(path);
    // Each key was validated on its way in, and so was the run's latest step id: a run's
    // files arrive step by step, so most calls only have their content left to check.
    if (run === undefined) validateId(runId, "runId");
    if (stepId !== run?.lastStepId) validateId(stepId, "stepId");
    if (replaced === undefined) validatePath(path);
    const valid = validateContent(content);
    let size = typeof valid === "string" ? undefined : valid.byteLength;
    let charge = size ?? upperSizeOf(valid);
    let exceeded = firstExceeded(this.#bounds, this.#usage(run, replaced), charge);
    if (exceeded && BYTE_BOUNDS.has(exceeded) && (size === undefined || this.#uncounted > 0)) {
      // An upper bound is over a byte bound: judge again on counted sizes.
      this.#countAll();
      size = sizeOf(valid);
      charge = size;
      exceeded = firstExceeded(this.#bounds, this.#usage(run, replaced), charge);
    }
    if (exceeded) throw exceededError(this.#bounds, exceeded);
    const target = run ?? this.#newRun(runId, stepId);
    target.files.set(path, { stepId, content: copyContent(valid), size, charge });
    target.lastStepId = stepId;
    this.#charge(target, charge - (replaced?.charge ?? 0));
    const replacedUncounted = replaced !== undefined && replaced.size === undefined;
    this.#countUncounted(target, (size === undefined ? 1 : 0) - (replacedUncounted ? 1 : 0));
  }

  async find(runId: string, path: string): Promise<RunContent | undefined> {
    // A hit proves both arguments valid (every key was validated on the way in); a miss must
    // still tell a bad argument from an absent file.
    const stored = this.#runs.get(runId)?.files.get(path);
    if (stored) return copyContent(stored.content);
    validateId(runId, "runId");
    validatePath(path);
    return undefined;
  }

  async artifacts(runId: string): Promise<readonly RunArtifact[]> {
    const run = this.#runs.get(validateId(runId, "runId"));
    if (!run) return freezeSnapshot([]);
    return freezeSnapshot(
      [...run.files].map(([path, stored]) => ({
        path,
        stepId: stored.stepId,
        content: copyContent(stored.content),
        size: this.#count(run, stored),
      })),
    );
  }

  async remove(runId: string, path: string): Promise<void> {
    const validRunId = validateId(runId, "runId");
    const validPath = validatePath(path);
    const run = this.#runs.get(validRunId);
    const stored = run?.files.get(validPath);
    if (!run || !stored) return;
    run.files.delete(validPath);
    this.#charge(run, -stored.charge);
    if (stored.size === undefined) this.#countUncounted(run, -1);
    if (run.files.size === 0) this.#runs.delete(validRunId);
  }

  async clear(runId: string): Promise<void> {
    const validRunId = validateId(runId, "runId");
    const run = this.#runs.get(validRunId);
    if (!run) return;
    this.#charged -= run.charged;
    this.#uncounted -= run.uncounted;
    this.#runs.delete(validRunId);
  }

  #usage(run: RunFiles | undefined, replaced: StoredFile | undefined): Usage {
    return {
      replacedSize: replaced?.charge,
      runArtifacts: run?.files.size ?? 0,
      runBytes: run?.charged ?? 0,
      runs: this.#runs.size,
      totalBytes: this.#charged,
    };
  }

  /** The file's size, counted now if it was not, so that its charge becomes exact. */
  #count(run: RunFiles, stored: StoredFile): number {
    if (stored.size !== undefined) return stored.size;
    const size = sizeOf(stored.content);
    this.#charge(run, size - stored.charge);
    this.#countUncounted(run, -1);
    stored.size = size;
    stored.charge = size;
    return size;
  }

  /** Counts every file not counted yet; each file is counted at most once. */
  #countAll(): void {
    if (this.#uncounted === 0) return;
    for (const run of this.#runs.values()) {
      if (run.uncounted === 0) continue;
      for (const stored of run.files.values()) this.#count(run, stored);
    }
  }

  #charge(run: RunFiles, bytes: number): void {
    run.charged += bytes;
    this.#charged += bytes;
  }

  #countUncounted(run: RunFiles, files: number): void {
    run.uncounted += files;
    this.#uncounted += files;
  }

  #newRun(runId: string, stepId: string): RunFiles {
    const run: RunFiles = { files: new Map(), charged: 0, uncounted: 0, lastStepId: stepId };
    this.#runs.set(runId, run);
    return run;
  }
}
