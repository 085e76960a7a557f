// What a journal backend published outside this package needs (the Postgres journal in
// @artifact-kit/postgres): the base that validates every input once, and the transition rules
// for a backend that claims in its own way. Not for applications.
export { JournalBase, type Stored } from "./journal-base.js";
export { JOURNAL_LIMITS } from "./limits.js";
export { applyClaim, isClaimable, isTerminal } from "./transitions.js";
export type * from "./types.js";
