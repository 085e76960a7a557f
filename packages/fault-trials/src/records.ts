import type { DeleteSelector, Scope } from "@artifact-kit/core";
import type { ArmedFault } from "./armed-fault.js";

/** One put or streamed upload of a trial, keyed or not, and what the service answered. */
export interface PutRecord {
  /** Position of the operation in its lane. */
  readonly op: number;
  readonly name: string;
  readonly sha256: string;
  /** Set for a keyed put; `data` is then kept for the keyed retry after the trial. */
  readonly key?: string;
  readonly data?: Uint8Array;
  /** Versions acknowledged for it (a keyed put's retries add theirs; all must agree). */
  readonly acknowledged: number[];
}

export interface DeleteRecord {
  readonly op: number;
  readonly name: string;
  readonly selector: DeleteSelector;
  /** The live versions it was to remove, as a clean client saw them just before. */
  readonly targets: readonly number[];
  acknowledged: boolean;
}

/** Everything one lane did, for the checks after the trial. */
export interface LaneLog {
  readonly seed: number;
  readonly scope: Scope;
  readonly names: readonly string[];
  readonly puts: PutRecord[];
  readonly deletes: DeleteRecord[];
  readonly faults: ArmedFault[];
  operations: number;
  /** Operations that failed (after a fault, or because their deadline passed), by code. */
  readonly failures: Record<string, number>;
  /** Failures that were not an ArtifactError: each one a violation of the contract. */
  readonly foreignErrors: string[];
}
