/**
 * Attribute keys, in the semantic-convention style: a dotted `artifact.*` namespace for this
 * library's own attributes, and the general `error.type` for the failure's ArtifactError code.
 */
export const ATTR_OPERATION = "artifact.operation";
export const ATTR_ADAPTER = "artifact.adapter";
export const ATTR_OUTCOME = "artifact.outcome";
export const ATTR_ERROR_TYPE = "error.type";
export const ATTR_SCOPE_KIND = "artifact.scope.kind";
export const ATTR_SCOPE_APP = "artifact.scope.app";
export const ATTR_SCOPE_USER = "artifact.scope.user";
export const ATTR_SCOPE_SESSION = "artifact.scope.session";
export const ATTR_NAME = "artifact.name";
export const ATTR_VERSION = "artifact.version";
export const ATTR_SELECTOR = "artifact.selector";
export const ATTR_SIZE = "artifact.size";
/** Bytes a streamed upload or download actually moved (a range, or a transfer cut short). */
export const ATTR_TRANSFERRED = "artifact.transfer.bytes";
export const ATTR_RANGE_OFFSET = "artifact.range.offset";
export const ATTR_RANGE_LENGTH = "artifact.range.length";
export const ATTR_PAGE_LIMIT = "artifact.page.limit";
export const ATTR_RESULT_COUNT = "artifact.result.count";
export const ATTR_HAS_NEXT_PAGE = "artifact.page.has_next";
export const ATTR_RUN_ID = "artifact.run.id";
export const ATTR_STEP_ID = "artifact.run.step";
export const ATTR_QUOTA_BOUND = "artifact.quota.bound";
export const ATTR_QUOTA_APPLIES_TO = "artifact.quota.applies_to";

/** How an operation ended: `cancelled` is a transfer the caller aborted or cancelled. */
export type Outcome = "ok" | "error" | "cancelled";

/** The `error.type` of anything thrown that is not an ArtifactError (the conventions' fallback). */
export const OTHER_ERROR_TYPE = "_OTHER";
