import { Deadline } from "../deadline.js";
import { invalidArgument } from "../errors.js";
import {
  type ParsedContent,
  type ParsedGet,
  type ParsedRequest,
  PUT_OPTION_KEYS,
  parseContentOptions,
  parseGet,
} from "../request.js";
import {
  validateName,
  validateOptionKeys,
  validatePositiveInteger,
  validateScope,
} from "../validate.js";
import type { ByteRange } from "./contract.js";

export interface ParsedUpload extends ParsedRequest, ParsedContent {
  name: string;
  /** The effective byte bound and which bound it is, for the artifact_too_large error. */
  maxBytes: number;
  maxBytesBound: "maxBytes" | "maxArtifactBytes";
}

export function parseUpload(
  scope: unknown,
  name: unknown,
  options: unknown,
  maxArtifactBytes: number,
): ParsedUpload {
  const opts = validateOptionKeys(options, [...PUT_OPTION_KEYS, "maxBytes"]);
  const asked =
    opts.maxBytes === undefined ? undefined : validatePositiveInteger(opts.maxBytes, "maxBytes");
  const own = asked !== undefined && asked < maxArtifactBytes;
  return {
    scope: validateScope(scope),
    name: validateName(name),
    ...parseContentOptions(opts),
    maxBytes: own ? asked : maxArtifactBytes,
    maxBytesBound: own ? "maxBytes" : "maxArtifactBytes",
    deadline: Deadline.start(opts),
  };
}

export interface ParsedDownload extends ParsedGet {
  range: ByteRange | undefined;
}

export function parseDownload(scope: unknown, name: unknown, options: unknown): ParsedDownload {
  const { range, ...getOptions } = validateOptionKeys(options, [
    "timeoutMs",
    "signal",
    "version",
    "range",
  ]);
  const request = parseGet(scope, name, getOptions);
  return { ...request, range: range === undefined ? undefined : validateRange(range) };
}

function validateRange(value: unknown): ByteRange {
  const { offset, length } = validateOptionKeys(value, ["offset", "length"], "range");
  return {
    offset: validateByteCount(offset, "range.offset"),
    length: validateByteCount(length, "range.length"),
  };
}

function validateByteCount(value: unknown, field: string): number {
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    throw invalidArgument(field, "must be a non-negative integer");
  }
  return value;
}

/** The range a download serves of `size` bytes: the whole, or the request clamped to the end. */
export function resolveRange(range: ByteRange | undefined, size: number): ByteRange {
  if (range === undefined) return { offset: 0, length: size };
  if (range.offset > size) {
    throw invalidArgument("range.offset", `is past the end of the ${size}-byte artifact`);
  }
  return { offset: range.offset, length: Math.min(range.length, size - range.offset) };
}
