import { type ArtifactService, isArtifactError, sha256Hex } from "@artifact-kit/core";
import { expect } from "vitest";
import { reconcile } from "../reconcile.js";
import type { EffectIntent, EffectJournal } from "../types.js";

/** One journal under test, on a clock the kit moves, and a second handle on the same store. */
export interface JournalSubject {
  readonly journal: EffectJournal;
  /** Another instance over the same storage (another process would open it so). */
  readonly peer: EffectJournal;
  cleanup(): Promise<void>;
}

export interface EffectJournalConformanceOptions {
  /** Opens a fresh, empty journal whose notion of time is `clock`. */
  open(clock: () => number): Promise<JournalSubject>;
  /**
   * A fresh, empty artifact service for the reconciler laws: journaled puts and deletes land
   * in it and the reconciler judges them by what it holds. The kit closes it.
   */
  service(): Promise<ArtifactService>;
  /** The reconciler under test (default: this package's `reconcile`). */
  reconcile?: typeof reconcile;
}

/** Registers one law: vitest's `it` in the suite, a collector for checks run directly. */
export type Register = (name: string, run: () => Promise<void>, timeoutMs?: number) => void;

/** The kit's clock: it only moves when a law moves it, so time edges are hit exactly. */
export interface KitClock {
  readonly clock: () => number;
  advance(ms: number): void;
}

export const START = 1_700_000_000_000;
export const SCOPE = { kind: "session", app: "kit", user: "u", session: "s" } as const;
export const RECEIPT = { version: 1, sha256: sha256Hex("a"), size: 1 };
export const LEASE = { owner: "writer", leaseMs: 1000 };

export function intent(effectId: string, overrides: Partial<EffectIntent> = {}): EffectIntent {
  return {
    effectId,
    operation: "put",
    scope: SCOPE,
    name: "report.txt",
    requestDigest: sha256Hex(effectId),
    correlation: { invocation: "inv-1", toolCall: "call-1" },
    ...overrides,
  };
}

export async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error: unknown = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isArtifactError(error), `expected an ArtifactError ${code}, got ${String(error)}`).toBe(
    true,
  );
  expect((error as { code: string }).code).toBe(code);
}

/** Intends every id, `batch` at a time, so that thousands take seconds, not minutes. */
export async function intendAll(
  journal: EffectJournal,
  ids: readonly string[],
  batch = 50,
): Promise<void> {
  for (let at = 0; at < ids.length; at += batch) {
    await Promise.all(ids.slice(at, at + batch).map((id) => journal.intend(intent(id), LEASE)));
  }
}

/** Ids whose creation order differs from their sorted order, so a lost page boundary shows. */
export function scatteredIds(prefix: string, count: number): string[] {
  // 7919 is prime and coprime to every count the kit uses: a permutation of 0..count-1.
  return Array.from({ length: count }, (_, i) => `${prefix}-${(i * 7919) % count}`);
}

/** Runs `body` on a fresh subject whose clock starts at START, and always cleans it up. */
export async function withJournal(
  options: EffectJournalConformanceOptions,
  body: (
    subject: JournalSubject,
    advance: (ms: number) => void,
    clock: () => number,
  ) => Promise<void>,
): Promise<void> {
  let now = START;
  const clock = () => now;
  const subject = await options.open(clock);
  try {
    await body(
      subject,
      (ms) => {
        now += ms;
      },
      clock,
    );
  } finally {
    await subject.cleanup();
  }
}

/** The reconciler under test. */
export const reconcilerOf = (options: EffectJournalConformanceOptions): typeof reconcile =>
  options.reconcile ?? reconcile;
