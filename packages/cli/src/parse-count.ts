import { invalidArgument } from "@artifact-kit/core";

function parseInteger(text: string, field: string, pattern: RegExp, what: string): number {
  const value = Number(text);
  if (!pattern.test(text) || !Number.isSafeInteger(value)) throw invalidArgument(field, what);
  return value;
}

/** A positive decimal integer from the command line or a query string; nothing else. */
export function parseCount(text: string, field: string): number {
  return parseInteger(text, field, /^[1-9][0-9]{0,15}$/, "must be a positive integer");
}

/** Like parseCount, but 0 is allowed. */
export function parseMilliseconds(text: string, field: string): number {
  return parseInteger(text, field, /^(0|[1-9][0-9]{0,15})$/, "must be a non-negative integer");
}
