import { type ArtifactMeta, allVersions } from "@artifact-kit/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FsArtifactService } from "../src/index.js";
import { codeOf, tempRoot } from "./helpers.js";

// repair() run over and over by one instance while another writes the same root: keyed puts
// and streamed uploads, deletes by number, of the latest and of all. repair runs with its
// default minAgeMs (what the README asks of a store with live writers): whatever it finishes
// or removes, every acknowledged put reads back until it is deleted, every acknowledged
// delete stays done, and a key stays bound to the one version it published.
const scope = { kind: "user", app: "repair-races", user: "u" } as const;
const payload = (i: number) =>
  new TextEncoder().encode(`operation ${i};`.repeat(1 + (i % 5) * 300));
const OPERATIONS = 90;

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ root, cleanup } = await tempRoot("repair-races"));
});
afterEach(async () => {
  await cleanup();
});

describe("repair beside a live writer", () => {
  it("keeps every acknowledged put and delete, and every key's one version", async () => {
    const writer = await FsArtifactService.open({ root });
    const repairer = await FsArtifactService.open({ root });
    const acked = new Map<string, ArtifactMeta>(); // "name@version"
    const deleted = new Set<string>();
    const keys = new Map<string, ArtifactMeta>();
    let writing = true;
    const repairs = (async () => {
      let rounds = 0;
      while (writing || rounds === 0) {
        const report = await repairer.repair();
        expect(report.complete).toBe(true);
        rounds += 1;
      }
      return rounds;
    })();
    try {
      for (let i = 0; i < OPERATIONS; i++) {
        const name = `n${i % 4}`;
        const options = { idempotencyKey: `op-${i}` };
        let meta: ArtifactMeta;
        if (i % 2 === 0) {
          meta = await writer.put(scope, name, payload(i), options);
        } else {
          const upload = await writer.openUpload(scope, name, options);
          const bytes = payload(i);
          await upload.write(bytes.subarray(0, 7));
          await upload.write(bytes.subarray(7));
          meta = await upload.finish();
        }
        acked.set(`${name}@${meta.version}`, meta);
        keys.set(`op-${i}`, meta);
        if (i % 3 === 2) {
          await writer.delete(scope, name, meta.version);
          deleted.add(`${name}@${meta.version}`);
        }
        if (i % 10 === 9) {
          const live = await allVersions(writer, scope, name);
          const latest = live[live.length - 1];
          if (latest) {
            await writer.delete(scope, name, "latest");
            deleted.add(`${name}@${latest.version}`);
          }
        }
        if (i % 29 === 28) {
          for (const meta of await allVersions(writer, scope, "n3")) {
            deleted.add(`n3@${meta.version}`);
          }
          expect(await codeOf(writer.delete(scope, "n3", "all"))).toMatch(/^(ok|not_found)$/);
        }
      }
    } finally {
      writing = false;
    }
    expect(await repairs).toBeGreaterThan(0);
    await repairer.repair({ minAgeMs: 0 });
    // A fresh instance sees exactly the acknowledged state.
    const reader = await FsArtifactService.open({ root });
    for (const [at, meta] of acked) {
      const [name, version] = at.split("@") as [string, string];
      const got = codeOf(reader.get(scope, name, { version: Number(version) }));
      expect([at, await got]).toEqual([at, deleted.has(at) ? "not_found" : "ok"]);
      if (!deleted.has(at)) {
        expect((await reader.get(scope, name, { version: meta.version })).sha256).toBe(meta.sha256);
      }
    }
    for (const name of ["n0", "n1", "n2", "n3"]) {
      const live = (await allVersions(reader, scope, name)).map(
        (meta) => `${name}@${meta.version}`,
      );
      const expected = [...acked.keys()]
        .filter((at) => at.startsWith(`${name}@`) && !deleted.has(at))
        .sort((a, b) => Number(a.split("@")[1]) - Number(b.split("@")[1]));
      expect(live).toEqual(expected);
    }
    // Every key answers its one version again (deleted or not), never a second one.
    for (const [key, meta] of keys) {
      const i = Number(key.slice(3));
      const again = await codeOf(
        reader.put(scope, meta.name, payload(i), { idempotencyKey: key }).then((retried) => {
          expect(retried.version).toBe(meta.version);
        }),
      );
      expect([key, again]).toEqual([key, expect.stringMatching(/^(ok|not_found)$/)]);
    }
    for (const name of ["n0", "n1", "n2", "n3"]) {
      const live = (await allVersions(reader, scope, name)).map(
        (meta) => `${name}@${meta.version}`,
      );
      expect(live.every((at) => acked.has(at) && !deleted.has(at))).toBe(true);
    }
    await Promise.all([writer.close(), repairer.close(), reader.close()]);
  });
});
