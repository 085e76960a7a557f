import type { ArtifactMeta, ArtifactService } from "@artifact-kit/core";
import { artifactEffectHandler } from "../artifact-handler.js";
import type { EffectHandler, ReconcileOptions, ReconcileReport } from "../reconcile.js";
import type { EffectJournal, EffectReceipt, EffectRecord } from "../types.js";
import { checkedPass } from "./pass-check.js";
import {
  type EffectJournalConformanceOptions,
  type JournalSubject,
  reconcilerOf,
  withJournal,
} from "./support.js";

/** A journal subject, an artifact service, the kit's clock, and the reconciler on that clock. */
export interface World extends JournalSubject {
  readonly service: ArtifactService;
  readonly advance: (ms: number) => void;
  readonly clock: () => number;
  /** One reconciler pass through `journal` (default: the subject's first handle). */
  reconcile(
    options?: Partial<Omit<ReconcileOptions, "retry" | "clock">> & {
      /** undefined: the reconciler's own default policy, not the kit's. */
      retry?: ReconcileOptions["retry"] | undefined;
      /** undefined: the reconciler's default, the wall clock, not the kit's. */
      clock?: ReconcileOptions["clock"] | undefined;
      journal?: EffectJournal;
      handler?: EffectHandler;
    },
  ): Promise<ReconcileReport>;
  /** The effect ids the default handler was asked to judge, in order. */
  readonly judged: string[];
}

export const bytes = (text: string) => new TextEncoder().encode(text);

/** What a journal keeps of a version. */
export const receiptOf = ({ version, sha256, size }: ArtifactMeta): EffectReceipt => ({
  version,
  sha256,
  size,
});

export const RETRY = { attempts: 3, backoffMs: 100, maxBackoffMs: 1000 };

/** Runs `body` in a fresh world; the service is closed after it, the subject cleaned up. */
export function withWorld(
  options: EffectJournalConformanceOptions,
  body: (world: World) => Promise<void>,
): Promise<void> {
  const reconcile = reconcilerOf(options);
  return withJournal(options, async (subject, advance, clock) => {
    const service = await options.service();
    const judged: string[] = [];
    const real = artifactEffectHandler(service);
    const counting: EffectHandler = {
      reconcile(effect: EffectRecord, signal: AbortSignal) {
        judged.push(effect.effectId);
        return real.reconcile(effect, signal);
      },
    };
    try {
      await body({
        ...subject,
        service,
        advance,
        clock,
        judged,
        reconcile: ({ journal = subject.journal, handler = counting, ...overrides } = {}) =>
          checkedPass(reconcile, journal, handler, {
            owner: "reconciler",
            limit: 100,
            timeBudgetMs: 60_000,
            leaseMs: 1000,
            retry: RETRY,
            clock,
            // An explicit retry or clock undefined stays: the reconciler reads it as its default.
            ...(overrides as Partial<ReconcileOptions>),
          }),
      });
    } finally {
      await service.close();
    }
  });
}

/** Returns `target` with its method `key` replaced: the rest behaves as before. */
export function overriding<T extends object>(target: T, key: keyof T, replacement: unknown): T {
  return new Proxy(target, {
    get(inner, property, receiver) {
      if (property === key) return replacement;
      const value = Reflect.get(inner, property, receiver);
      return typeof value === "function" ? value.bind(inner) : value;
    },
  });
}

/** The service, whose writes land and then fail as a lost reply would, while `lose` is set. */
export function lossyService(service: ArtifactService) {
  const state = { lose: false };
  const lossy =
    (call: (...args: never[]) => Promise<unknown>) =>
    async (...args: never[]) => {
      const result = await call(...args);
      if (state.lose) throw new Error("connection reset after the write landed");
      return result;
    };
  let wrapped = overriding(service, "put", lossy(service.put.bind(service) as never));
  wrapped = overriding(wrapped, "delete", lossy(service.delete.bind(service) as never));
  return { service: wrapped, state };
}

/** The journal, unable to record an applied effect (a journal outage right after the write). */
export function unrecordingJournal(journal: EffectJournal): EffectJournal {
  return overriding(journal, "markApplied", async () => {
    throw new Error("journal disk full");
  });
}
