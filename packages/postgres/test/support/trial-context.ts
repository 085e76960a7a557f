import { ArtifactError } from "@artifact-kit/core";
import type pg from "pg";
import type { PostgresArtifactService } from "../../src/index.js";

// What the fault trials' operations share: the service over the fault proxy, a clean one on
// a direct connection to judge outcomes by, the seeded randomness, and the violations found.

/** An operation's outcome: its value, or the code of the ArtifactError it failed with. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; code: string };

/** The kinds of operation a trial runs, each with its own fault placement. */
export type TrialKind =
  | "put"
  | "upload"
  | "delete"
  | "open"
  | "migrate"
  | "intend"
  | "claim"
  | "settle";

export interface TrialContext {
  /** The service, and its pool, whose every connection passes the fault proxy. */
  readonly service: PostgresArtifactService;
  readonly pool: pg.Pool;
  /** On a direct connection: what every host sees once the faulted call has returned. */
  readonly clean: PostgresArtifactService;
  readonly cleanPool: pg.Pool;
  readonly schema: string;
  /** Uniform in [0, 1), from the run's seed. */
  readonly random: () => number;
  /** Runs `call` with one fault armed at a random point of it; the fault is gone after. */
  faulted<T>(kind: TrialKind, call: () => Promise<T>): Promise<Outcome<T>>;
  /** Records a broken promise, with what the trial was doing. */
  violation(what: string): void;
}

/** The outcome of `call`, whatever it throws. */
export async function outcomeOf<T>(call: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, code: codeOf(error) };
  }
}

/** An ArtifactError's code; anything else thrown is itself a broken promise. */
export function codeOf(error: unknown): string {
  if (error instanceof ArtifactError) return error.code;
  return `not an ArtifactError: ${error instanceof Error ? error.message : String(error)}`;
}

/** A call cut short by a fault fails with unavailable, and with nothing else. */
export function expectUnavailable(
  ctx: TrialContext,
  what: string,
  outcome: Outcome<unknown>,
): void {
  if (!outcome.ok && outcome.code !== "unavailable") {
    ctx.violation(`${what}: failed with ${outcome.code}, not unavailable`);
  }
}

/** An integer in [0, below). */
export const below = (random: () => number, below: number): number => Math.floor(random() * below);

/** One of `items`, picked by `random`. */
export function pick<T>(random: () => number, items: readonly T[]): T {
  const item = items[below(random, items.length)];
  if (item === undefined) throw new RangeError("nothing to pick from");
  return item;
}
