import type { Scope } from "@artifact-kit/core";

/** What became of one source version. */
export type Outcome = "copied" | "skipped" | "vanished" | "failed";

export interface VersionRecord {
  readonly scope: Scope;
  readonly name: string;
  readonly sourceVersion: number;
  /** The copy's version on the target (absent when it has none). */
  readonly targetVersion?: number;
  readonly outcome: Outcome;
  readonly size: number;
  /** Why it failed: an ArtifactError code, or held_back / out_of_order (see run.ts). */
  readonly code?: string;
  readonly message?: string;
}

export interface CopySummary {
  /** Source versions looked at (the count taken before copying began). */
  readonly total: number;
  readonly copied: number;
  /** Already on the target under their copy key, and verified. */
  readonly skipped: number;
  /** Deleted from the source after it was listed. */
  readonly vanished: number;
  readonly failed: number;
  /** Copies (new or found) whose version number on the target differs from the source's. */
  readonly renumbered: number;
  /** Bytes this run moved. */
  readonly bytes: number;
  readonly versions: readonly VersionRecord[];
}

/** Counts the outcomes as they come. */
export class Tally {
  readonly versions: VersionRecord[] = [];
  #counts = { copied: 0, skipped: 0, vanished: 0, failed: 0, renumbered: 0, bytes: 0 };

  constructor(readonly total: number) {}

  add(record: VersionRecord): void {
    this.versions.push(record);
    this.#counts[record.outcome] += 1;
    if (record.outcome === "copied") this.#counts.bytes += record.size;
    if (record.targetVersion !== undefined && record.targetVersion !== record.sourceVersion) {
      this.#counts.renumbered += 1;
    }
  }

  get done(): number {
    return this.versions.length;
  }

  count(outcome: Outcome): number {
    return this.#counts[outcome];
  }

  summary(): CopySummary {
    return { total: this.total, ...this.#counts, versions: this.versions };
  }
}
