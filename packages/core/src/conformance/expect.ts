import { inspect, isDeepStrictEqual } from "node:util";
import { type ArtifactErrorCode, isArtifactError } from "../errors.js";

// Plain assertions, so that every check runs the same way under vitest and when the
// mutant harness calls it directly.

export class ConformanceFailure extends Error {
  override readonly name = "ConformanceFailure";
}

const show = (value: unknown) => inspect(value, { depth: 6, maxArrayLength: 20, breakLength: 120 });

export function fail(message: string): never {
  throw new ConformanceFailure(message);
}

export function expectTrue(condition: boolean, message: string): asserts condition {
  if (!condition) fail(message);
}

export function expectEqual<T>(actual: unknown, expected: T, what: string): asserts actual is T {
  if (!isDeepStrictEqual(actual, expected)) {
    fail(`${what}: expected ${show(expected)}, got ${show(actual)}`);
  }
}

/** JSON values compare by content, whatever prototype or key order the adapter gives them. */
export function expectSameJson(actual: unknown, expected: unknown, what: string): void {
  const canonical = (value: unknown): unknown => JSON.parse(JSON.stringify(value ?? null));
  expectEqual(canonical(actual), canonical(expected), what);
}

/**
 * An error tells a person why: a message that is more than the field it names
 * (invalid_argument's messages start with "field: ").
 */
function expectHumanMessage(error: Error & { detail?: { field?: unknown } }, what: string): void {
  const field = error.detail?.field;
  const prefix = typeof field === "string" ? `${field}:` : "";
  expectTrue(
    typeof error.message === "string" && error.message.replace(prefix, "").trim().length > 0,
    `${what}: the error's message says nothing (${JSON.stringify(error.message)})`,
  );
}

/**
 * Awaits `action` and requires it to fail with an ArtifactError of `code`, as a rejected
 * promise: an operation that throws synchronously escapes a caller's `.catch()`.
 */
export async function expectArtifactError(
  action: () => Promise<unknown>,
  code: ArtifactErrorCode,
  what: string,
): Promise<unknown> {
  let pending: Promise<unknown>;
  try {
    pending = action();
  } catch (error) {
    return fail(
      `${what}: threw ${show(error)} synchronously instead of returning a rejected promise`,
    );
  }
  let result: unknown;
  try {
    result = await pending;
  } catch (error) {
    if (isArtifactError(error, code)) {
      expectHumanMessage(error, what);
      return error;
    }
    fail(`${what}: expected ArtifactError "${code}", got ${show(error)}`);
  }
  return fail(`${what}: expected ArtifactError "${code}", but it succeeded with ${show(result)}`);
}
