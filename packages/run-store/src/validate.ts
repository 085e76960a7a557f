import {
  invalidArgument,
  MAX_SCOPE_ID_BYTES,
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

/**
 * The content's size in bytes (UTF-8 bytes for text). Text must be well-formed so that it
 * round-trips through UTF-8.
 */
export function contentSize(value: unknown): number {
  if (typeof value === "string") {
    if (!value.isWellFormed()) throw invalidArgument("content", "contains a lone UTF-16 surrogate");
    return utf8ByteLength(value);
  }
  if (value instanceof Uint8Array) return value.byteLength;
  throw invalidArgument("content", "must be a string or a Uint8Array");
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
  return contentSize(content);
}
