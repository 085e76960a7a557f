import {
  invalidArgument,
  MAX_SCOPE_ID_BYTES,
  type RunContent,
  utf8ByteLength,
  validateName,
  validateText,
} from "@artifact-kit/core";

/** Only white space (what `trim` removes), tested without building a trimmed copy. */
const BLANK = /^\s*$/;

/** Printable ASCII other than the space opens most ids and paths, and no blank string. */
function isBlank(value: string): boolean {
  const first = value.charCodeAt(0);
  return !(first > 0x20 && first < 0x7f) && BLANK.test(value);
}

/** A run or step id: well-formed, NUL-free, not blank, within the scope id limit. */
export function validateId(value: unknown, field: "runId" | "stepId"): string {
  const id = validateText(value, field, MAX_SCOPE_ID_BYTES);
  if (isBlank(id)) throw invalidArgument(field, "must not be blank");
  return id;
}

/** A non-blank `/`-separated path with no empty, `.` or `..` segment (the artifact name rules). */
export function validatePath(value: unknown): string {
  const path = validateName(value, "path");
  if (isBlank(path)) throw invalidArgument("path", "must not be blank");
  return path;
}

/** Text must be well-formed so that it round-trips through UTF-8; bytes may be anything. */
export function validateContent(value: unknown): RunContent {
  if (typeof value === "string") {
    if (!value.isWellFormed()) throw invalidArgument("content", "contains a lone UTF-16 surrogate");
    return value;
  }
  if (value instanceof Uint8Array) return value;
  throw invalidArgument("content", "must be a string or a Uint8Array");
}

/** Bytes of the content: UTF-8 bytes for text. */
export function sizeOf(content: RunContent): number {
  return typeof content === "string" ? utf8ByteLength(content) : content.byteLength;
}

/**
 * The most bytes the content can be, without counting them: a UTF-16 code unit of
 * well-formed text is at most 3 UTF-8 bytes (a surrogate pair, two units, is 4).
 */
export function upperSizeOf(content: RunContent): number {
  return typeof content === "string" ? 3 * content.length : content.byteLength;
}

/** Validates a whole `register` call before anything is touched; returns the content's size. */
export function validateRegister(
  runId: unknown,
  stepId: unknown,
  path: unknown,
  content: unknown,
): number {
  validateId(runId, "runId");
  validateId(stepId, "stepId");
  validatePath(path);
  return sizeOf(validateContent(content));
}
