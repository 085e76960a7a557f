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
// runs, and it must reject both; its report must name the law, the shrunk counterexample
// with every argument, the reason, and a replay line that reproduces the same failure.

const MODEL = "model: ";

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

describe("the model-based check alone rejects the issue's mutants", () => {
  for (const [name, reason] of [
    ["reports a wrong sha256 for data over 20 bytes", /sha256 of the bytes put: expected/],
    ['delete("all") resets the version high-water', /version: expected above the high-water/],
  ] as const) {
    it(`rejects the mutant that ${name}, with a report that replays`, async () => {
      // A fixed seed: the replay of a shrunk command sequence reproduces the failure for
      // this seed on every run, but for some other seeds fast-check answers "Too short
      // replayPath" (a known gap of the kit's replay of model sequences, in the closing note).
      const options = {
        ...memorySubjects(mutant(name).make),
        numRuns: MATRIX_RUNS.memory,
        seed: 7,
      };
      const result = await modelOnly(options);
      expect(result?.status).toBe("failed");
      const report = result?.detail ?? "";
      expect(report).toMatch(/^law: model: /);
      expect(report).toMatch(/counterexample \(shrunk\):\n {2}.*put\(/);
      expect(report).toMatch(/mimeType .*, metadata /);
      expect(report).toMatch(reason);
      const replay =
        /replay: describeArtifactService\("memory-mutant", \{ \.\.\.options, only: "(.*)", seed: (-?\d+), path: "([\d:]*)", replayPath: "([^"]*)" \}\)/.exec(
          report,
        );
      expect(replay, report).not.toBeNull();
      const [, only, seed, path, replayPath] = replay as unknown as string[];
      const replayed = await modelOnly({
        ...options,
        only: only as string,
        seed: Number(seed),
        path: path as string,
        replayPath: replayPath as string,
      });
      expect(replayed?.status).toBe("failed");
      const reasonLine = (text: string) =>
        text.split("\n").find((line) => line.startsWith("reason:"));
      expect(reasonLine(replayed?.detail ?? "")).toBe(reasonLine(report));
    });
  }
});
