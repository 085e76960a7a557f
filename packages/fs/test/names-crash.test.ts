import { compareUtf8, type Scope } from "@artifact-kit/core";
import { afterAll, describe, expect, it } from "vitest";
import { FsArtifactService } from "../src/index.js";
import { testOnlyNameOrder } from "../src/name-order.js";
import { tempRoot } from "./helpers.js";
import { startChild, walk } from "./processes.js";

// A child process creates new names one after the other, with the ordered name index
// compacted every 4 of them, and is killed with SIGKILL right after it reports its Nth
// acknowledged name (N random, up to MAX_ACKS_BEFORE_KILL: so the kill lands in the put, or the
// compaction, that follows, however fast or slow the machine runs); then a fresh service must
// list every acknowledged name (and perhaps the one in flight), in order, page by page, before
// and after repair, and the index must hold no more than a few generations.

const TRIALS = 60;
const LANES = 3;
const MAX_ACKS_BEFORE_KILL = 12;
const SCOPE: Scope = { kind: "app", app: "names-crash" };

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  await Promise.all(cleanups.map((cleanup) => cleanup()));
});

async function listAll(service: FsArtifactService): Promise<string[]> {
  const names: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await service.listNames(
      SCOPE,
      cursor === undefined ? { limit: 13 } : { limit: 13, cursor },
    );
    names.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return names;
}

async function lane(index: number, trials: number): Promise<number> {
  const temp = await tempRoot(`names-crash-${index}`);
  cleanups.push(temp.cleanup);
  const acknowledged = new Set<string>();
  let created = 0;
  for (let trial = 0; trial < trials; trial++) {
    const child = startChild("names-crash-child.mjs", [temp.root, `${index}.${trial}`]);
    const killAfter = 1 + Math.floor(Math.random() * MAX_ACKS_BEFORE_KILL);
    await child.waitFor("done ", killAfter);
    child.process.kill("SIGKILL");
    const { lines, signal } = await child.done;
    expect(signal).toBe("SIGKILL");
    let inFlight: string | undefined;
    let acknowledgedNow = 0;
    for (const line of lines) {
      if (line.startsWith("begin ")) inFlight = line.slice(6);
      if (line.startsWith("done ")) {
        acknowledged.add(line.slice(5));
        inFlight = undefined;
        acknowledgedNow += 1;
      }
    }
    // The kill came after the child's killAfter-th acknowledgement, perhaps after a few more.
    expect(acknowledgedNow).toBeGreaterThanOrEqual(killAfter);
    created += acknowledgedNow;
    const service = await FsArtifactService.open({ root: temp.root });
    try {
      for (const pass of ["before repair", "after repair"]) {
        const listed = await listAll(service);
        expect(listed, pass).toEqual([...listed].sort(compareUtf8));
        expect(new Set(listed).size).toBe(listed.length);
        const extra = listed.filter((name) => !acknowledged.has(name));
        expect(
          extra.every((name) => name === inFlight),
          `${pass}: ${extra}`,
        ).toBe(true);
        const missing = [...acknowledged].filter((name) => !listed.includes(name));
        expect(missing, `${pass}, trial ${trial}`).toEqual([]);
        // The put in flight, if it published, counts from now on.
        for (const name of extra) acknowledged.add(name);
        if (pass === "before repair") {
          const report = await service.repair({ minAgeMs: 0 });
          expect(report.complete).toBe(true);
          expect(report.corrupt).toBe(0);
        }
      }
      const tree = await walk(temp.root);
      const generations = tree.filter((entry) => /\/name-index\/\d+\.idx$/.test(entry.path));
      // A kill before the first name was acknowledged leaves no scope to index yet.
      if (acknowledged.size > 0) expect(generations.length).toBeGreaterThan(0);
      expect(generations.length).toBeLessThanOrEqual(3);
      expect(tree.filter((entry) => entry.kind === "file" && /staging\//.test(entry.path))).toEqual(
        [],
      );
    } finally {
      await service.close();
    }
  }
  return created;
}

describe("crash consistency of the name index", () => {
  it(`lists every acknowledged name after ${TRIALS} SIGKILLs during name creation and compaction`, {
    timeout: 600_000,
  }, async () => {
    testOnlyNameOrder.compactAtLogEntries = 4;
    // Every lane runs to its end before the test reports, so that no child is still writing
    // under a root when afterAll removes it.
    const outcomes = await Promise.allSettled(
      Array.from({ length: LANES }, (_, i) => lane(i, TRIALS / LANES)),
    );
    const failed = outcomes.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
    const created = outcomes.map((outcome) => (outcome.status === "fulfilled" ? outcome.value : 0));
    const total = created.reduce((sum, count) => sum + count, 0);
    // Every kill came after at least one acknowledged name (each lane checks its own).
    console.log(`names crash: ${TRIALS} kills, ${total} acknowledged new names`);
  });
});
