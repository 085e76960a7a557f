import { type EffectHandler, reconcile } from "@artifact-kit/effects";

// Reconcilers with one bug each. The kit never ran a reconciler before its reconciler laws,
// so each of these passed it.

type Reconcile = typeof reconcile;

/** Passes every effect through `judge` first; undefined leaves it to the real handler. */
function judgingFirst(
  judge: (
    effect: Parameters<EffectHandler["reconcile"]>[0],
  ) => ReturnType<EffectHandler["reconcile"]> | undefined,
): Reconcile {
  return (journal, handler, options) =>
    reconcile(
      journal,
      { reconcile: (effect, signal) => judge(effect) ?? handler.reconcile(effect, signal) },
      options,
    );
}

export const RECONCILER_MUTANTS: Readonly<Record<string, Reconcile>> = {
  // Measures its time budget and deadlines on the wall clock, whatever clock it was given.
  "the pass ignores its clock": (journal, handler, { clock: _clock, ...options }) =>
    reconcile(journal, handler, options),
  // An applied put was recorded, so it is taken as wanted: committed without asking.
  "an applied put is committed unasked": judgingFirst((effect) =>
    effect.operation === "put" && effect.phase === "applied" && effect.receipt
      ? Promise.resolve({ outcome: "committed", receipt: effect.receipt })
      : undefined,
  ),
  // A delete that cannot be confirmed is assumed done.
  "an unconfirmed delete is committed": judgingFirst((effect) =>
    effect.operation === "delete" && effect.phase === "intended" && effect.target
      ? Promise.resolve({ outcome: "committed", receipt: effect.target })
      : undefined,
  ),
  // The backoff never grows past its first wait.
  "the backoff does not double": (journal, handler, options) =>
    reconcile(journal, handler, {
      ...options,
      ...(options.retry && { retry: { ...options.retry, maxBackoffMs: options.retry.backoffMs } }),
    }),
  // A judgement that failed (the service could not be read) is taken as "nothing happened".
  "a failed judgement is settled not_applied": (journal, handler, options) =>
    reconcile(
      journal,
      {
        reconcile: (effect, signal) =>
          handler.reconcile(effect, signal).catch(() => ({ outcome: "not_applied" as const })),
      },
      options,
    ),
  // The pass takes a whole batch whatever its limit.
  "the pass claims past its limit": (journal, handler, options) =>
    reconcile(journal, handler, { ...options, limit: journal.capabilities().limits.maxBatch }),
  // The backoff doubles without bound.
  "the backoff has no cap": (journal, handler, options) =>
    reconcile(journal, handler, {
      ...options,
      ...(options.retry && { retry: { ...options.retry, maxBackoffMs: 2 ** 40 } }),
    }),
};
