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

/**
 * Where each bound that fills up counts: per run, or over the whole store. The per-file
 * size is not here: a file too large is refused whatever else the store holds.
 */
const FILLING: Readonly<Record<string, "run" | "store">> = Object.freeze({
  max_artifacts_per_run: "run",
  max_bytes_per_run: "run",
  max_runs: "store",
  max_total_bytes: "store",
});

/**
 * What a sequence did to each bound, so the kit can measure its own generators: a bound that
 * refused a register as full, then had room freed where it counts (a remove or clear in that
 * run, or anywhere for a store-wide bound), then took a register that grew it again.
 */
export class RunStoreCoverage {
  /** "limit@where" for every full bound that refused a register. */
  readonly #full = new Set<string>();
  /** The full bounds that have had room freed since. */
  readonly #freed = new Set<string>();
  /** The `detail.limit` of every bound filled, freed and then written into again. */
  readonly refilled = new Set<string>();

  #slot(limit: string, runId: string): string | undefined {
    const where = FILLING[limit];
    return where === undefined ? undefined : `${limit}@${where === "run" ? runId : "*"}`;
  }

  refused(runId: string, limits: readonly string[]): void {
    for (const limit of limits) {
      const slot = this.#slot(limit, runId);
      if (slot) this.#full.add(slot);
    }
  }

  freed(runId: string): void {
    for (const slot of this.#full) {
      const where = slot.slice(slot.indexOf("@") + 1);
      if (where === runId || where === "*") this.#freed.add(slot);
    }
  }

  written(runId: string, grown: readonly string[]): void {
    for (const limit of grown) {
      const slot = this.#slot(limit, runId);
      if (slot && this.#freed.has(slot)) this.refilled.add(limit);
    }
  }
}

/** The pure reference model of a run store: runs of files in registration order. */
export class RunStoreModel {
  readonly #runs = new Map<string, ModelFile[]>();
  readonly coverage = new RunStoreCoverage();

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
    const growth = file.size - (files[index]?.size ?? 0);
    this.coverage.written(runId, [
      ...(index < 0 ? [LIMIT_CODES.maxArtifactsPerRun] : []),
      ...(files.length === 0 ? [LIMIT_CODES.maxRuns] : []),
      ...(growth > 0 ? [LIMIT_CODES.maxBytesPerRun, LIMIT_CODES.maxTotalBytes] : []),
    ]);
    if (index < 0) files.push(file);
    else files[index] = file;
    this.#runs.set(runId, files);
  }

  remove(runId: string, path: string): void {
    if (this.find(runId, path)) this.coverage.freed(runId);
    const files = this.files(runId).filter((file) => file.path !== path);
    if (files.length === 0) this.#runs.delete(runId);
    else this.#runs.set(runId, files);
  }

  clear(runId: string): void {
    if (this.files(runId).length > 0) this.coverage.freed(runId);
    this.#runs.delete(runId);
  }
}
