import type { ArtifactMeta, Scope } from "@artifact-kit/core";
import { afterAll, describe, expect, it } from "vitest";
import { FsArtifactService } from "../src/index.js";
import { tempRoot } from "./helpers.js";
import { startChild } from "./processes.js";

// Crashes on top of crashes: a writer of keyed puts and uploads (fixtures/keyed-crash-child)
// is SIGKILLed mid-operation, then a repair (fixtures/repair-child) is SIGKILLed while it
// works on what the writer left, then a third process retries the operation in flight and
// repairs again. Every acknowledged operation replays to its version with its bytes, the
// one in flight publishes at most once, and no key is ever bound to two versions.

const TRIALS = 10;
const SCOPE: Scope = { kind: "user", app: "keyed-crash", user: "u" };
/** The writer's payload of operation `i` (see fixtures/keyed-crash-child.mjs). */
const payload = (i: number) =>
  new TextEncoder().encode(`payload of operation ${i};`.repeat(1 + (i % 7) * 40));

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
      let inFlight: number | undefined;
      for (const line of (await writer.done).lines) {
        const [kind, index, version] = line.split(" ");
        if (kind === "begin") inFlight = Number(index);
        if (kind === "done") {
          versionOf.set(Number(index), Number(version));
          inFlight = undefined;
        }
      }
      // The repair is killed inside its first run, or its second (trial parity).
      const repairer = startChild("repair-child.mjs", [temp.root]);
      await repairer.waitFor("start", 1 + (trial % 2));
      repairer.process.kill("SIGKILL");
      await repairer.done;

      const service = await FsArtifactService.open({ root: temp.root });
      try {
        if (inFlight !== undefined) {
          const i = inFlight;
          const options = { idempotencyKey: `op-${i}`, metadata: { i } };
          const meta = await service.put(SCOPE, `n${i % 3}`, payload(i), options);
          versionOf.set(i, meta.version);
        }
        next = Math.max(next, ...versionOf.keys(), inFlight ?? -1) + 1;
        for (const [i, version] of versionOf) {
          const name = `n${i % 3}`;
          const retry = await service.put(SCOPE, name, payload(i), {
            idempotencyKey: `op-${i}`,
            metadata: { i },
          });
          expect([i, retry.version]).toEqual([i, version]);
          const got = await service.get(SCOPE, name, { version });
          expect(Buffer.from(got.data).equals(Buffer.from(payload(i)))).toBe(true);
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
