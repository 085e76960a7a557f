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

/** The pure reference model of a run store: runs of files in registration order. */
export class RunStoreModel {
  readonly #runs = new Map<string, ModelFile[]>();

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
  }

  remove(runId: string, path: string): void {
    const files = this.files(runId).filter((file) => file.path !== path);
    if (files.length === 0) this.#runs.delete(runId);
    else this.#runs.set(runId, files);
  }

  clear(runId: string): void {
    this.#runs.delete(runId);
  }
}
