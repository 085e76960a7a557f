import { describe, expect, it } from "vitest";
import { failures, mutantSubjects, unbrokenSubject } from "./mutants/harness.js";
import { JOURNAL_MUTANTS } from "./mutants/journals.js";
import { RECONCILER_MUTANTS } from "./mutants/reconcilers.js";

// The journal kit is itself tested: each mutant breaks one rule, passes every law the kit had
// before its time, value-domain, scale and reconciler laws, and fails at least one of those.

const NEW_FAMILIES = [
  "time:",
  "domain:",
  "scale:",
  "reconciler:",
  "refusals:",
  "journaled:",
  "states:",
  "races:",
];
const isNew = (name: string) => NEW_FAMILIES.some((family) => name.startsWith(family));

const SUBJECTS = mutantSubjects(JOURNAL_MUTANTS, RECONCILER_MUTANTS);

describe("the effect journal kit rejects every mutant the old kit let through", () => {
  for (const [name, options] of Object.entries(SUBJECTS)) {
    it(name, async () => {
      expect(
        await failures(options, (law) => !isNew(law)),
        "the old kit already failed it",
      ).toEqual([]);
      const killedBy = await failures(options, isNew);
      expect(killedBy).not.toEqual([]);
      console.info(`effect journal kit: ${name} -> ${killedBy.join(" | ")}`);
    });
  }

  it("while the unbroken journal and reconciler pass every law", async () => {
    expect(await failures(unbrokenSubject)).toEqual([]);
  });
});
