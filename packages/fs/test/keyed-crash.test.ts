import type { ArtifactMeta, Scope } from "@artifact-kit/core";
import { afterAll, describe, expect, it } from "vitest";
import { FsArtifactService } from "../src/index.js";
import { tempRoot } from "./helpers.js";
import { startChild } from "./processes.js";

// A child loops keyed puts and uploads and is killed with SIGKILL right after it announces its
// Nth operation (N random: the kill lands in that one, whatever the machine's speed); then
// the operation in flight is retried with its key and payload, as a caller whose answer was
// lost would. The retry must succeed (a binding a crash cut short is finished, never left
// bound to nothing), every acknowledged operation must replay to its version, and no key may
// ever be bound to two versions.

const TRIALS = 12;
const MAX_OPS_BEFORE_KILL = 4;
const SCOPE: Scope = { kind: "user", app: "keyed-crash", user: "u" };
/** The child's payload of operation `i` (see fixtures/keyed-crash-child.mjs). */
const payload = (i: number) =>
  new TextEncoder().encode(`payload of operation ${i};`.repeat(1 + (i % 7) * 40));

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
      const { lines } = await child.done;
      let inFlight: number | undefined;
      for (const line of lines) {
        const [kind, index, version] = line.split(" ");
        if (kind === "begin") inFlight = Number(index);
        if (kind === "done") {
          versionOf.set(Number(index), Number(version));
          inFlight = undefined;
        }
      }
      const service = await FsArtifactService.open({ root: temp.root });
      try {
        if (inFlight !== undefined) {
          const i = inFlight;
          const name = `n${i % 3}`;
          const options = { idempotencyKey: `op-${i}`, metadata: { i } };
          const meta = await service.put(SCOPE, name, payload(i), options);
          versionOf.set(i, meta.version);
          next = i + 1;
        } else {
          next = Math.max(next, ...versionOf.keys()) + 1;
        }
        for (const [i, version] of versionOf) {
          const retry = await service.put(SCOPE, `n${i % 3}`, payload(i), {
            idempotencyKey: `op-${i}`,
            metadata: { i },
          });
          expect(retry.version).toBe(version);
        }
        const everything: ArtifactMeta[] = [];
        for (const name of ["n0", "n1", "n2"]) {
          everything.push(...(await service.listVersions(SCOPE, name)).items);
        }
        const keys = everything.map((meta) => meta.idempotencyKey);
        expect(new Set(keys).size).toBe(keys.length);
        expect(everything.length).toBe(versionOf.size);
        expect((await service.repair({ minAgeMs: 0 })).complete).toBe(true);
      } finally {
        await service.close();
      }
    }
    expect(versionOf.size).toBeGreaterThan(TRIALS / 2);
  });
});
