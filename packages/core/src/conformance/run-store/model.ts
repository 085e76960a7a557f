import type { RunContent, RunStoreBounds } from "../../run-store.js";

export interface ModelFile {
  readonly path: string;
  readonly stepId: string;
  readonly content: RunContent;
  readonly size: number;
}

/** Bytes of a content by an independent oracle (Buffer), not by the store's accounting. */
export function sizeOf(content: RunContent): number {
  return typeof content === "string" ? Buffer.byteLength(content, "utf8") : content.byteLength;
}

/** The quota_exceeded `detail.limit` of each bound. */
export const LIMIT_CODES: Readonly<Record<keyof RunStoreBounds, string>> = Object.freeze({
  maxArtifactsPerRun: "max_artifacts_per_run",
  maxBytesPerArtifact: "max_bytes_per_artifact",
  maxBytesPerRun: "max_bytes_per_run",
  maxRuns: "max_runs",
  maxTotalBytes: "max_total_bytes",
});

/** What a sequence did, so the kit can measure its own generators. */
export class RunStoreCoverage {
  /** Runs where a register was refused by a bound. */
  readonly refused = new Set<string>();
  /** Runs refused, then freed by a remove or clear. */
  readonly freedAfterRefusal = new Set<string>();
  /** A register succeeded in a run after it was refused and freed. */
  refilled = false;
}

/** The pure reference model of a run store: runs of files in registration order. */
export class RunStoreModel {
  readonly #runs = new Map<string, ModelFile[]>();
  readonly coverage = new RunStoreCoverage();

  /** Notes a register refused by a bound (for the coverage measure). */
  noteRefused(runId: string): void {
    this.coverage.refused.add(runId);
  }

  #noteFreed(runId: string): void {
    if (this.coverage.refused.size > 0) this.coverage.freedAfterRefusal.add(runId);
  }

  constructor(readonly bounds: RunStoreBounds) {}

  files(runId: string): readonly ModelFile[] {
    return this.#runs.get(runId) ?? [];
  }

  find(runId: string, path: string): ModelFile | undefined {
    return this.files(runId).find((file) => file.path === path);
  }

  #bytes(files: readonly ModelFile[]): number {
    return files.reduce((sum, file) => sum + file.size, 0);
  }

  /** The `detail.limit` of every bound that registering `file` would break (empty: it fits). */
  exceeded(runId: string, file: ModelFile): string[] {
    const files = this.files(runId);
    const replaced = this.find(runId, file.path);
    const growth = file.size - (replaced?.size ?? 0);
    const totalBytes = [...this.#runs.values()].reduce((sum, run) => sum + this.#bytes(run), 0);
    const wouldBe: Record<keyof RunStoreBounds, number> = {
      maxArtifactsPerRun: files.length + (replaced ? 0 : 1),
      maxBytesPerArtifact: file.size,
      maxBytesPerRun: this.#bytes(files) + growth,
      maxRuns: this.#runs.size + (files.length === 0 ? 1 : 0),
      maxTotalBytes: totalBytes + growth,
    };
    return (Object.keys(LIMIT_CODES) as (keyof RunStoreBounds)[])
      .filter((bound) => wouldBe[bound] > this.bounds[bound])
      .map((bound) => LIMIT_CODES[bound]);
  }

  /** Last write wins: a present path is replaced where it stands. */
  register(runId: string, file: ModelFile): void {
    const files = [...this.files(runId)];
    const index = files.findIndex((present) => present.path === file.path);
    if (index < 0) files.push(file);
    else files[index] = file;
    this.#runs.set(runId, files);
    if (this.coverage.freedAfterRefusal.size > 0) this.coverage.refilled = true;
  }

  remove(runId: string, path: string): void {
    if (this.find(runId, path)) this.#noteFreed(runId);
    const files = this.files(runId).filter((file) => file.path !== path);
    if (files.length === 0) this.#runs.delete(runId);
    else this.#runs.set(runId, files);
  }

  clear(runId: string): void {
    if (this.files(runId).length > 0) this.#noteFreed(runId);
    this.#runs.delete(runId);
  }
}
