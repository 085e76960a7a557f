import {
  type ArtifactServiceConformanceOptions,
  artifactServiceChecks,
  runChecks,
} from "@artifact-kit/core/conformance";
import { memorySubjects } from "@artifact-kit/memory/testing";
import { describe, expect, it } from "vitest";
import { MUTANTS } from "../mutants/index.js";
import { MATRIX_RUNS } from "./adapters.js";

// The issue's two mutants passed every model-based run before: a SHA-256 wrong only above
// 20 bytes, and delete("all") resetting the version high-water. Here only the model check
// runs, and it must reject both, and the idempotency-key mutants (most of which no fixed law
// catches), at every seed tried: its report must name the law, the shrunk counterexample with
// every argument, the reason, and a replay line that reproduces the same counterexample and
// reason.

const MODEL = "model: ";

/** Seeds 1 to 15, then one fast-check picks (the report prints it, and the replay uses it). */
const SEEDS: readonly (number | undefined)[] = [
  ...Array.from({ length: 15 }, (_, i) => i + 1),
  undefined,
];

function mutant(name: string) {
  const found = MUTANTS.find((m) => m.name === name);
  if (!found) throw new Error(`no mutant named ${name}`);
  return found;
}

async function modelOnly(options: ArtifactServiceConformanceOptions) {
  const checks = artifactServiceChecks({ ...options, only: MODEL }, "memory-mutant");
  expect(checks.map((check) => check.name.startsWith(MODEL))).toEqual([true]);
  const [result] = await runChecks(checks);
  return result;
}

const REPLAY =
  /replay: describeArtifactService\("memory-mutant", \{ \.\.\.options, only: "(.*)", seed: (-?\d+), path: "([\d:]*)", replayPath: "([^"]*)" \}\)/;

/** The options the report's replay line names. */
function replayOptions(report: string) {
  const replay = REPLAY.exec(report);
  expect(replay, report).not.toBeNull();
  const [, only, seed, path, replayPath] = replay as unknown as string[];
  return {
    only: only as string,
    seed: Number(seed),
    path: path as string,
    replayPath: replayPath as string,
  };
}

/** The counterexample and reason, with timestamps (createdAt differs between runs) masked. */
const whatFailed = (report: string) =>
  report
    .split("\n")
    .filter((line) => !line.startsWith("replay:"))
    .join("\n")
    .replace(/\b\d{13}\b/g, "<ms>");

describe("the model-based check alone rejects the issue's mutants, and every report replays", () => {
  for (const [name, reason] of [
    ["reports a wrong sha256 for data over 20 bytes", /sha256 of the bytes put: expected/],
    // Renumbered versions show in a put's reply, or in a retry answered with another version.
    ['delete("all") resets the version high-water', /version: expected (above the high-water|\d)/],
    ["forgets the idempotency keys of a name a delete emptied", /was deleted/],
    ["leaves idempotencyKey out of listings", /idempotencyKey|fields/],
    ["judges a retry's payload before its bound version's deletion", /judged before the payload/],
  ] as const) {
    it(`rejects the mutant that ${name} at ${SEEDS.length} seeds; each replay line reproduces it`, async () => {
      for (const seed of SEEDS) {
        const options = {
          ...memorySubjects(mutant(name).make),
          numRuns: MATRIX_RUNS.memory,
          ...(seed === undefined ? {} : { seed }),
        };
        const result = await modelOnly(options);
        const report = result?.detail ?? "";
        expect(result?.status, `seed ${seed}: ${report}`).toBe("failed");
        expect(report).toMatch(/^law: model: /);
        expect(report).toMatch(/counterexample \(shrunk\):\n {2}.*(put|retry)\(/);
        expect(report).toMatch(/mimeType .*, metadata /);
        expect(report).toMatch(reason);
        const replayed = await modelOnly({ ...options, ...replayOptions(report) });
        expect(replayed?.status, `the replay of seed ${seed}`).toBe("failed");
        expect(whatFailed(replayed?.detail ?? ""), `the replay of seed ${seed}`).toBe(
          whatFailed(report),
        );
      }
    });
  }
});
