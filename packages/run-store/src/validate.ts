import {
  invalidArgument,
  MAX_SCOPE_ID_BYTES,
  type RunContent,
  utf8ByteLength,
  validateName,
  validateText,
} from "@artifact-kit/core";

/** A run or step id: well-formed, NUL-free, not blank, within the scope id limit. */
export function validateId(value: unknown, field: "runId" | "stepId"): string {
  const id = validateText(value, field, MAX_SCOPE_ID_BYTES);
  if (id.trim() === "") throw invalidArgument(field, "must not be blank");
  return id;
}

/** A `/`-separated path with no empty, `.`, `..` or blank segment (the artifact name rules). */
export function validatePath(value: unknown): string {
  const path = validateName(value, "path");
  if (path.split("/").some((segment) => segment.trim() === "")) {
    throw invalidArgument("path", "has a blank segment");
  }
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

/** Validates a whole `register` call before anything is touched. */
export function parseRegister(
  runId: unknown,
  stepId: unknown,
  path: unknown,
  content: unknown,
): ParsedRegister {
  return {
    runId: validateId(runId, "runId"),
    stepId: validateId(stepId, "stepId"),
    path: validatePath(path),
    ...parseContent(content),
  };
}
