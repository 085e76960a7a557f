import { seededRandom, type TcpFault } from "@artifact-kit/test-proxy";
import { afterAll, beforeAll, expect, test } from "vitest";
import { PostgresArtifactService } from "../src/index.js";
import { freshService } from "./support/database.js";
import { type Proxied, startProxied, watchProcess } from "./support/proxied.js";
import {
  below,
  outcomeOf,
  pick,
  type TrialContext,
  type TrialKind,
} from "./support/trial-context.js";
import { JournalTrials } from "./support/trial-journal.js";
import { migrateTrial, openTrial, recount } from "./support/trial-schema.js";
import { StoreTrials } from "./support/trial-store.js";

// Seeded fault trials: a random workload over the store and its effect journal, each
// operation with one fault armed at a random point of it (after a random number of its
// bytes, or at one of its statements), judged on a clean connection right after it returns
// and recounted at the end. FAULT_TRIALS=N asks for N faults (default 200), FAULT_SEED for
// another workload; the seed and the counts are printed.

const WANTED_FAULTS = Number(process.env.FAULT_TRIALS ?? 200);
const SEED = Number(process.env.FAULT_SEED ?? 20261202);

/**
 * Text each kind of operation sends at a statement worth a fault placed exactly there; a
 * statement listed twice is picked twice as often (publishing is where a lost reply hurts).
 */
const MARKERS: Record<TrialKind, readonly string[]> = {
  put: ["ak_put_"],
  upload: [
    "ak_openUpload_",
    "ak_stageBlock_",
    "ak_publishUpload_",
    "ak_publishUpload_",
    "ak_discardUpload_",
  ],
  delete: ["ak_delete_"],
  open: ["server_encoding", "to_regclass", "max(version)"],
  migrate: ["server_encoding", "pg_advisory_xact_lock", "CREATE SCHEMA", "COMMIT"],
  intend: ["INSERT INTO"],
  claim: ["BEGIN", "SKIP LOCKED", "UPDATE", "COMMIT"],
  settle: ["SELECT record", "UPDATE"],
};
/** Dropped replies twice as often: they are the faults whose outcome the caller cannot know. */
const FAULTS = ["cut", "reset", "drop-reply", "drop-reply", "delay", "refuse"] as const;
type FaultName = (typeof FAULTS)[number];

let proxied: Proxied;
let direct: Awaited<ReturnType<typeof freshService>>;
let service: PostgresArtifactService;
beforeAll(async () => {
  proxied = await startProxied();
  direct = await freshService();
});
afterAll(async () => {
  await service?.close();
  await proxied.stop();
  await direct.dispose();
});

test(`${WANTED_FAULTS} faults in a seeded workload break no promise (seed ${SEED})`, {
  timeout: 120_000 + WANTED_FAULTS * 1_000,
}, async () => {
  const random = seededRandom(SEED);
  const { proxy } = proxied;
  const pool = proxied.pool(2);
  const violations: string[] = [];
  const struck = new Map<string, number>();
  /** Client bytes of recent operations of each kind that ran whole: where faults may land. */
  const spans = new Map<TrialKind, number[]>();
  let current = "";
  const armFault = (kind: TrialKind): FaultName => {
    const name = pick(random, FAULTS);
    if (name === "refuse") {
      // A refused connection is met only by an operation that needs a new one.
      proxy.cutAll();
      proxy.refuseNext(1);
      return name;
    }
    const fault: TcpFault = name === "delay" ? { delayMs: 1 + below(random, 20) } : name;
    if (random() < 0.5) proxy.armAtClientText(pick(random, MARKERS[kind]), fault);
    else proxy.armAfterClientBytes(below(random, pick(random, spans.get(kind) ?? [2_000])), fault);
    return name;
  };
  service = await PostgresArtifactService.open({ pool, schema: direct.schema });
  const ctx: TrialContext = {
    service,
    pool,
    clean: direct.service,
    cleanPool: direct.pool,
    schema: direct.schema,
    random,
    violation: (what) => violations.push(`${current}: ${what}`),
    async faulted(kind, call) {
      const fault = armFault(kind);
      const [faultsBefore, bytesBefore] = [proxy.faultsStruck, proxy.clientBytes];
      const outcome = await outcomeOf(call);
      proxy.disarmAll();
      if (proxy.faultsStruck > faultsBefore) {
        const key = `${fault} in ${kind}`;
        struck.set(key, (struck.get(key) ?? 0) + 1);
      } else if (outcome.ok) {
        spans.set(kind, [...(spans.get(kind) ?? []), proxy.clientBytes - bytesBefore].slice(-8));
      }
      return outcome;
    },
  };
  const watch = watchProcess();
  const store = new StoreTrials(ctx);
  const journal = await JournalTrials.open(ctx);
  const operations: [weight: number, kind: string, run: () => Promise<void>][] = [
    [6, "put", () => store.publish(false)],
    [4, "upload", () => store.publish(true)],
    [4, "delete", () => store.delete()],
    [1, "open", () => openTrial(ctx)],
    [1, "migrate", () => migrateTrial(ctx)],
    [2, "intend", () => journal.intend()],
    [1, "claim", () => journal.claim()],
    [2, "settle", () => journal.settle()],
  ];
  const weights = operations.flatMap((operation) => Array(operation[0]).fill(operation));
  let trials = 0;
  while (proxy.faultsStruck < WANTED_FAULTS && trials < WANTED_FAULTS * 5) {
    const [, kind, run] = pick(random, weights) as (typeof operations)[number];
    current = `trial ${++trials} (${kind})`;
    await run();
  }
  current = "after the run";
  await store.audit();
  const counts = await recount(ctx);
  if (Object.keys(counts).length > 0) violations.push(`recount: ${JSON.stringify(counts)}`);
  // Repair takes what cut uploads left staged, and nothing else.
  await direct.service.repair({ olderThanMs: 0 });
  const repaired = await direct.pool.query(
    `SELECT count(*)::int AS n FROM "${direct.schema}".uploads`,
  );
  if (repaired.rows[0].n !== 0) violations.push("repair left staged uploads");
  const afterRepair = await recount(ctx);
  if (Object.keys(afterRepair).length > 0)
    violations.push(`after repair: ${JSON.stringify(afterRepair)}`);
  await store.audit();
  await journal.close();
  watch.stop();
  console.info(
    `postgres fault trials, seed ${SEED}: ${trials} trials, ${proxy.faultsStruck} faults, ` +
      `${violations.length} violations, ${watch.failures.length} unhandled, ` +
      `${proxied.idleErrors} idle connections reported by the pool; ` +
      JSON.stringify(Object.fromEntries([...struck].sort())),
  );
  expect(violations).toEqual([]);
  expect(watch.failures).toEqual([]);
  expect(proxy.faultsStruck).toBeGreaterThanOrEqual(WANTED_FAULTS);
});
