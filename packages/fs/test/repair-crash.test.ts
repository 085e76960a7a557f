import { afterAll, describe, expect, it } from "vitest";
import { FsArtifactService } from "../src/index.js";
import { tempRoot } from "./helpers.js";
import { expectKeyedReplays, readKeyedLog, retryKeyed } from "./keyed-writer.js";
import { startChild } from "./processes.js";

// Crashes on top of crashes: a writer of keyed puts and uploads (fixtures/keyed-crash-child)
// is SIGKILLed mid-operation, then a repair (fixtures/repair-child) is SIGKILLed while it
// works on what the writer left, then a third process retries the operation in flight and
// repairs again. Every acknowledged operation replays to its version with its bytes, the
// one in flight publishes at most once, and no key is ever bound to two versions.

const TRIALS = 10;

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe("a repair killed while it repairs what a killed writer left", () => {
  it(`${TRIALS} writer kills, each followed by a repair kill: nothing acknowledged lost, no key bound twice`, async () => {
    const temp = await tempRoot("repair-crash");
    cleanups.push(temp.cleanup);
    const versionOf = new Map<number, number>();
    let next = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const writer = startChild("keyed-crash-child.mjs", [temp.root, String(next)]);
      await writer.waitFor("begin ", 1 + (trial % 4));
      writer.process.kill("SIGKILL");
      const inFlight = readKeyedLog((await writer.done).lines, versionOf);
      // The repair is killed inside its first run, or its second (trial parity).
      const repairer = startChild("repair-child.mjs", [temp.root]);
      await repairer.waitFor("start", 1 + (trial % 2));
      repairer.process.kill("SIGKILL");
      await repairer.done;

      const service = await FsArtifactService.open({ root: temp.root });
      try {
        if (inFlight !== undefined) versionOf.set(inFlight, await retryKeyed(service, inFlight));
        next = Math.max(next, ...versionOf.keys(), inFlight ?? -1) + 1;
        await expectKeyedReplays(service, versionOf);
      } finally {
        await service.close();
      }
    }
    expect(versionOf.size).toBeGreaterThan(TRIALS / 2);
  });
});
