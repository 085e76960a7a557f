import {
  type RunArtifact,
  type RunContent,
  type RunStore,
  type RunStoreBounds,
  type RunStoreBoundsOptions,
  validateOptionKeys,
} from "@artifact-kit/core";
import { checkBounds, resolveBounds } from "./bounds.js";
import { copyContent, freezeSnapshot } from "./snapshot.js";
import { contentSize, validateId, validatePath } from "./validate.js";

interface StoredFile {
  readonly stepId: string;
  readonly content: RunContent;
  readonly size: number;
}

interface RunFiles {
  /** Insertion order is registration order; `set` on a present key keeps its position. */
  readonly files: Map<string, StoredFile>;
  bytes: number;
  /** The step id of the run's latest registration. */
  lastStepId: string;
}

export interface InMemoryRunStoreOptions {
  bounds?: RunStoreBoundsOptions;
}

/** The default run store: volatile, in one process. Every method completes in one turn. */
export class InMemoryRunStore implements RunStore {
  readonly #bounds: RunStoreBounds;
  readonly #runs = new Map<string, RunFiles>();
  #totalBytes = 0;

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
    const size = contentSize(content);
    checkBounds(
      this.#bounds,
      {
        replacedSize: replaced?.size,
        runArtifacts: run?.files.size ?? 0,
        runBytes: run?.bytes ?? 0,
        runs: this.#runs.size,
        totalBytes: this.#totalBytes,
      },
      size,
    );
    const target = run ?? this.#newRun(runId, stepId);
    const growth = size - (replaced?.size ?? 0);
    target.files.set(path, { stepId, content: copyContent(content), size });
    target.bytes += growth;
    target.lastStepId = stepId;
    this.#totalBytes += growth;
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
    const files =
      this.#runs.get(validateId(runId, "runId"))?.files ?? new Map<string, StoredFile>();
    return freezeSnapshot(
      [...files].map(([path, stored]) => ({
        path,
        stepId: stored.stepId,
        content: copyContent(stored.content),
        size: stored.size,
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
    run.bytes -= stored.size;
    this.#totalBytes -= stored.size;
    if (run.files.size === 0) this.#runs.delete(validRunId);
  }

  async clear(runId: string): Promise<void> {
    const validRunId = validateId(runId, "runId");
    const run = this.#runs.get(validRunId);
    if (!run) return;
    this.#totalBytes -= run.bytes;
    this.#runs.delete(validRunId);
  }

  #newRun(runId: string, stepId: string): RunFiles {
    const run: RunFiles = { files: new Map(), bytes: 0, lastStepId: stepId };
    this.#runs.set(runId, run);
    return run;
  }
}
