export {
  type ArtifactHandlerOptions,
  artifactEffectHandler,
  type PutDecision,
} from "./artifact-handler.js";
export { FsEffectJournal, type FsJournalOptions } from "./fs-journal.js";
export {
  JournaledArtifacts,
  type JournaledDeleteOptions,
  type JournaledEffect,
  type JournaledOptions,
  type JournaledPutOptions,
  journalArtifacts,
} from "./journaled.js";
export { JOURNAL_LIMITS } from "./limits.js";
export { MemoryEffectJournal, type MemoryJournalOptions } from "./memory-journal.js";
export {
  DEFAULT_RETRY,
  type EffectHandler,
  type ReconcileOptions,
  type ReconcileReport,
  type Reconciliation,
  type RetryPolicy,
  reconcile,
} from "./reconcile.js";
export type * from "./types.js";
export { EFFECT_PHASES } from "./types.js";
export { validateEffectId, validateLease } from "./validate.js";
