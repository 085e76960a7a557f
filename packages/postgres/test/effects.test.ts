import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describeEffectJournal } from "@artifact-kit/effects/conformance";
import { describe, expect, it } from "vitest";
import { seedOrphans } from "../../effects/test/fixtures/reconciler-race.mjs";
import { PostgresEffectJournal } from "../src/effects.js";
import { freshSchema, freshService, newPool } from "./support/database.js";

// The effect journal in Postgres: the journal kit every backend runs, and two reconciler
// processes (as two hosts would be) racing over the same orphans.

describeEffectJournal("postgres", {
  async open(clock) {
    const pool = newPool();
    const schema = freshSchema();
    const journal = await PostgresEffectJournal.open({ pool, schema, migrate: true, clock });
    const peerPool = newPool();
    const peer = await PostgresEffectJournal.open({ pool: peerPool, schema, clock });
    return {
      journal,
      peer,
      async cleanup() {
        await journal.close();
        await peer.close();
        await peerPool.end();
        await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
        await pool.end();
      },
    };
  },
  // The reconciler laws' service: Postgres too, in a schema of its own dropped on close.
  async service() {
    const { service, dispose } = await freshService();
    return new Proxy(service, {
      get(target, key) {
        if (key === "close") return dispose;
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  },
});

describe("PostgresEffectJournal.open", () => {
  it("refuses a schema that was never migrated, and a pool that is not one", async () => {
    const pool = newPool();
    try {
      await expect(
        PostgresEffectJournal.open({ pool, schema: freshSchema() }),
      ).rejects.toMatchObject({ code: "unavailable" });
      await expect(
        PostgresEffectJournal.open({ pool: {} as never, schema: freshSchema() }),
      ).rejects.toMatchObject({ code: "invalid_argument" });
    } finally {
      await pool.end();
    }
  });
});

const reconcilerScript = fileURLToPath(
  new URL("./support/effects-reconciler.mjs", import.meta.url),
);

interface RacerResult {
  handled: string[];
  report: { settled: { effectId: string }[]; failed: unknown[] };
}

/** Starts a reconciler process, lets it go once both are ready, and collects its output. */
function startReconciler(url: string, schema: string, owner: string) {
  const child = spawn(process.execPath, [reconcilerScript, url, schema, owner], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  let output = "";
  child.stdout.setEncoding("utf8");
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (chunk: string) => {
      output += chunk;
      if (output.includes("ready\n")) resolve();
    });
    child.once("close", () => reject(new Error(`reconciler ${owner} exited before ready`)));
  });
  const result = new Promise<RacerResult>((resolve, reject) => {
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`reconciler ${owner} exited with ${code}`));
      resolve(JSON.parse(output.trim().split("\n").at(-1) ?? "{}") as RacerResult);
    });
  });
  return { ready, go: () => child.stdin.end("go\n"), result };
}

describe("two reconciler processes over one Postgres journal", () => {
  it("resolve each orphan exactly once", { timeout: 600_000 }, async () => {
    const { service, pool, schema, dispose } = await freshService();
    const journal = await PostgresEffectJournal.open({ pool, schema });
    const scope = { kind: "app", app: "effects-race" } as const;
    try {
      const orphans = 40;
      await seedOrphans(journal, service, scope, orphans);
      await new Promise((resolve) => setTimeout(resolve, 5));
      const url = (pool.options as { connectionString: string }).connectionString;
      const racers = ["r1", "r2"].map((owner) => startReconciler(url, schema, owner));
      await Promise.all(racers.map((racer) => racer.ready));
      for (const racer of racers) racer.go();
      const results = await Promise.all(racers.map((racer) => racer.result));
      const all = Array.from({ length: orphans }, (_, index) => `orphan-${index}`).sort();
      expect(results.flatMap((result) => result.handled).sort()).toEqual(all);
      expect(
        results.flatMap((result) => result.report.settled.map((each) => each.effectId)).sort(),
      ).toEqual(all);
      expect(results.every((result) => result.report.failed.length === 0)).toBe(true);
      const effects = await journal.list();
      expect(effects).toHaveLength(orphans);
      expect(effects.every((effect) => effect.phase === "compensated")).toBe(true);
      for (let name = 0; name < 4; name++) {
        expect((await service.listVersions(scope, `n${name}`)).items).toEqual([]);
      }
    } finally {
      await journal.close();
      await dispose();
    }
  });
});
