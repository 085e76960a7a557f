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

/** A run or step id: well-formed, NUL-free, not blank, within the scope id limit. */
export function validateId(value: unknown, field: "runId" | "stepId"): string {
  const id = validateText(value, field, MAX_SCOPE_ID_BYTES);
  if (BLANK.test(id)) throw invalidArgument(field, "must not be blank");
  return id;
}

/** A non-blank `/`-separated path with no empty, `.` or `..` segment (the artifact name rules). */
export function validatePath(value: unknown): string {
  const path = validateName(value, "path");
  if (BLANK.test(path)) throw invalidArgument("path", "must not be blank");
  return path;
}

export interface ParsedContent {
  /** The content to keep: the caller's string, or a private copy of the caller's bytes. */
  readonly content: RunContent;
  readonly size: number;
}

/** Text must be well-formed so that it round-trips through UTF-8; bytes are copied. */
export function parseContent(value: unknown): ParsedContent {
  if (typeof value === "string") {
    if (!value.isWellFormed()) throw invalidArgument("content", "contains a lone UTF-16 surrogate");
    return { content: value, size: utf8ByteLength(value) };
  }
  if (value instanceof Uint8Array) {
    return { content: new Uint8Array(value), size: value.byteLength };
  }
  throw invalidArgument("content", "must be a string or a Uint8Array");
}

export interface ParsedRegister extends ParsedContent {
  readonly runId: string;
  readonly stepId: string;
  readonly path: string;
}

/**
 * Validates a whole `register` call before anything is touched. A store passes `stored` when
 * (runId, path) is already one of its keys, which were each validated on the way in: then only
 * the step id and the content are left to check.
 */
export function parseRegister(
  runId: unknown,
  stepId: unknown,
  path: unknown,
  content: unknown,
  stored = false,
): ParsedRegister {
  const validRunId = stored ? (runId as string) : validateId(runId, "runId");
  const validStepId = validateId(stepId, "stepId");
  const validPath = stored ? (path as string) : validatePath(path);
  const { content: kept, size } = parseContent(content);
  return { runId: validRunId, stepId: validStepId, path: validPath, content: kept, size };
}
