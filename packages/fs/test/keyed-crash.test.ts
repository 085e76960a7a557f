import { afterAll, describe, expect, it } from "vitest";
import { FsArtifactService } from "../src/index.js";
import { tempRoot } from "./helpers.js";
import { expectKeyedReplays, readKeyedLog, retryKeyed } from "./keyed-writer.js";
import { startChild } from "./processes.js";

// A child loops keyed puts and uploads and is killed with SIGKILL right after it announces its
// Nth operation (N random: the kill lands in that one, whatever the machine's speed); then
// the operation in flight is retried with its key and payload, as a caller whose answer was
// lost would. The retry must succeed (a binding a crash cut short is finished, never left
// bound to nothing), every acknowledged operation must replay to its version, and no key may
// ever be bound to two versions.

const TRIALS = 12;
const MAX_OPS_BEFORE_KILL = 4;

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe("idempotency keys across crashes", () => {
  it(`a retry after each of ${TRIALS} SIGKILLs finishes or replays the operation in flight`, async () => {
    const temp = await tempRoot("keyed-crash");
    cleanups.push(temp.cleanup);
    const versionOf = new Map<number, number>();
    let next = 0;
    for (let trial = 0; trial < TRIALS; trial++) {
      const child = startChild("keyed-crash-child.mjs", [temp.root, String(next)]);
      await child.waitFor("begin ", 1 + Math.floor(Math.random() * MAX_OPS_BEFORE_KILL));
      child.process.kill("SIGKILL");
      const inFlight = readKeyedLog((await child.done).lines, versionOf);
      const service = await FsArtifactService.open({ root: temp.root });
      try {
        if (inFlight !== undefined) {
          versionOf.set(inFlight, await retryKeyed(service, inFlight));
          next = inFlight + 1;
        } else {
          next = Math.max(next, ...versionOf.keys()) + 1;
        }
        await expectKeyedReplays(service, versionOf);
      } finally {
        await service.close();
      }
    }
    expect(versionOf.size).toBeGreaterThan(TRIALS / 2);
  });
});
