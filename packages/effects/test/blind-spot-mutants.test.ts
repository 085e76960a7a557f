import { describe, expect, it } from "vitest";
import { BLIND_SPOT_JOURNALS, BLIND_SPOT_RECONCILERS } from "./mutants/blind-spots.js";
import { failures, mutantSubjects } from "./mutants/harness.js";

// Issue 31's third batch: mutants of classes no earlier mutant named. Each must fail a law.

const SUBJECTS = mutantSubjects(BLIND_SPOT_JOURNALS, BLIND_SPOT_RECONCILERS);

describe("the effect journal kit rejects every blind-spot mutant", () => {
  for (const [name, options] of Object.entries(SUBJECTS)) {
    it(name, async () => {
      const killedBy = await failures(options);
      console.info(`effect journal kit: ${name} -> ${killedBy.join(" | ") || "SURVIVED"}`);
      expect(killedBy).not.toEqual([]);
    });
  }
});
