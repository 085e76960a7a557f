import { inspect } from "node:util";
import type { RunArtifact, RunContent } from "../../run-store.js";
import { expectEqual, expectTrue, fail } from "../expect.js";
import type { ModelFile } from "./model.js";

const describeContent = (content: unknown) =>
  content instanceof Uint8Array ? `bytes [${[...content].join(",")}]` : inspect(content);

/** A string must come back as that string, bytes as bytes (any Uint8Array) with the same values. */
export function expectContent(actual: unknown, expected: RunContent, what: string): void {
  const same =
    typeof expected === "string"
      ? actual === expected
      : actual instanceof Uint8Array && Buffer.compare(actual, expected) === 0;
  if (!same) fail(`${what}: expected ${describeContent(expected)}, got ${describeContent(actual)}`);
}

/** The snapshot lists exactly `expected`, in order, and is frozen throughout. */
export function expectSnapshot(
  actual: readonly RunArtifact[],
  expected: readonly ModelFile[],
  what: string,
): void {
  expectTrue(Array.isArray(actual), `${what}: artifacts() did not return an array`);
  expectEqual(
    actual.map((entry) => [entry.path, entry.stepId, entry.size]),
    expected.map((file) => [file.path, file.stepId, file.size]),
    `${what}: [path, stepId, size] in registration order`,
  );
  expectTrue(Object.isFrozen(actual), `${what}: the snapshot array is not frozen`);
  actual.forEach((entry, i) => {
    expectTrue(Object.isFrozen(entry), `${what}: entry "${entry.path}" is not frozen`);
    expectContent(entry.content, (expected[i] as ModelFile).content, `${what}: "${entry.path}"`);
  });
}
