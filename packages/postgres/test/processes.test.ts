import { setTimeout as sleep } from "node:timers/promises";
import { allVersions } from "@artifact-kit/core";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { databaseUrl, freshService } from "./support/database.js";
import { kill, runWorker, startWorker } from "./support/processes.js";

// Real OS processes on one schema, as many hosts on one database would be.
const scope = { kind: "app", app: "processes" } as const;
let subject: Awaited<ReturnType<typeof freshService>>;
beforeAll(async () => {
  subject = await freshService();
});
afterAll(async () => {
  await subject.dispose();
});

describe("processes racing on one name", () => {
  test("4 processes putting and deleting: no lost acknowledged put, no duplicate version", async () => {
    const results = await Promise.all(
      Array.from({ length: 4 }, () =>
        runWorker<{ acked: [number, string][]; deleted: number[] }>([
          "race",
          databaseUrl(),
          subject.schema,
          "contended",
          "15",
        ]),
      ),
    );
    const acked = results.flatMap((result) => result.acked);
    const deleted = new Set(results.flatMap((result) => result.deleted));
    expect(new Set(acked.map(([version]) => version)).size).toBe(acked.length);
    const expected = acked
      .filter(([version]) => !deleted.has(version))
      .sort(([a], [b]) => a - b)
      .map(([version, sha256]) => ({ version, sha256 }));
    const live = await allVersions(subject.service, scope, "contended");
    expect(live.map(({ version, sha256 }) => ({ version, sha256 }))).toEqual(expected);
    for (const { version, sha256 } of expected) {
      expect((await subject.service.get(scope, "contended", { version })).sha256).toBe(sha256);
    }
  });
});

describe("SIGKILL of a writer mid-upload", () => {
  // CI runs the full 50 trials; a local run keeps to a few to stay fast. Each trial starts a
  // Node process, which on a loaded 2-core machine takes a second or more: a longer timeout.
  const trials = process.env.CI === "true" ? 50 : 8;
  const atOnce = 10;

  test(`${trials} killed uploaders leave nothing partial, and repair leaves no staged block`, async () => {
    for (let done = 0; done < trials; done += atOnce) {
      const batch = Math.min(atOnce, trials - done);
      await Promise.all(
        Array.from({ length: batch }, async (_, i) => {
          const child = await startWorker(["upload", databaseUrl(), subject.schema, "killed"]);
          // "ready" came mid-upload: the pause only varies where the kill lands after it.
          await sleep(((done + i) * 37) % 250);
          await kill(child);
        }),
      );
    }
    for (const meta of await allVersions(subject.service, scope, "killed")) {
      const artifact = await subject.service.get(scope, "killed", { version: meta.version });
      expect(artifact.size).toBe(2.5 * 1024 * 1024);
    }
    const report = await subject.service.repair({ olderThanMs: 0 });
    expect(report.uploads).toBeGreaterThan(0);
    const leftover = await subject.pool.query(
      `SELECT (SELECT count(*) FROM "${subject.schema}".uploads)::int AS uploads,
        (SELECT count(*) FROM "${subject.schema}".blocks b WHERE NOT EXISTS
          (SELECT 1 FROM "${subject.schema}".versions v WHERE v.content_id = b.content_id))::int
          AS staged`,
    );
    expect(leftover.rows[0]).toEqual({ uploads: 0, staged: 0 });
  }, 600_000);
});
