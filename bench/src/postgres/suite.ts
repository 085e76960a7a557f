import { randomUUID } from "node:crypto";
import { PostgresArtifactService } from "@artifact-kit/postgres";
import pg from "pg";
import { KitStore } from "../kit-store.js";
import type { Workload } from "../measure.js";
import type { StoreUnderTest } from "../store.js";
import { compare, type Row, type Suite } from "../suite.js";
import { getLatestWorkload, KiB, MiB, type PutBounds, payload, putWorkload } from "../workloads.js";
import { RawPostgresFloor } from "./floor.js";
import { listNamesWorkload, rawListNamesWorkload, seedNames } from "./names.js";

const PUT_BOUNDS: PutBounds = { maxBytes: 256 * MiB, maxVersions: 1_000 };
const GET_HISTORY = 2;
const WRITERS = 16;
const NAME_COUNTS = [1_000, 100_000] as const;

const COLUMNS = [
  { id: "ours", label: "ours (@artifact-kit/postgres)" },
  { id: "floor", label: "floor (raw parameterised INSERT / SELECT, same pool)" },
] as const;

/**
 * Issue 20: the postgres adapter beside raw SQL on the same pool and server. Each store is a
 * schema of its own; the adapter's is emptied (untimed) by TRUNCATE on reset.
 */
export async function postgresSuite(databaseUrl: string): Promise<Suite> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: WRITERS + 2 });
  const schemas: string[] = [];
  const openService = async () => {
    const schema = `bench_${randomUUID().replaceAll("-", "")}`;
    schemas.push(schema);
    return { schema, service: await PostgresArtifactService.open({ pool, schema, migrate: true }) };
  };
  const ours = await openService();
  const truncate = () =>
    pool.query(
      `TRUNCATE "${ours.schema}".names, "${ours.schema}".versions, "${ours.schema}".blocks,
        "${ours.schema}".uploads, "${ours.schema}".idempotency_keys, "${ours.schema}".scope_usage;
       UPDATE "${ours.schema}".totals SET bytes = 0, artifacts = 0`,
    );
  const stores: Record<"ours" | "floor", StoreUnderTest> = {
    // A new service instance over the emptied schema, as KitStore closes the old one.
    ours: new KitStore(async () => {
      await truncate();
      return PostgresArtifactService.open({ pool, schema: ours.schema });
    }),
    floor: await RawPostgresFloor.create(pool),
  };

  const both = (
    label: string,
    build: (store: StoreUnderTest) => Workload,
    target?: Row["target"],
  ) =>
    ({
      label,
      batch: 1,
      workloads: { ours: build(stores.ours), floor: build(stores.floor) },
      ...(target && { target }),
    }) satisfies Row;
  const putTarget = { comparison: "vsFloorTime", bound: 2, holds: "atMost" } as const;
  const getTarget = { comparison: "vsFloorOps", bound: 0.7, holds: "atLeast" } as const;

  const listRows: Row[] = [];
  for (const count of NAME_COUNTS) {
    const listed = await openService();
    await seedNames(pool, listed.schema, count);
    listRows.push({
      label: `listNames page of 100 at ${count.toLocaleString("en")} names`,
      batch: 1,
      workloads: {
        ours: listNamesWorkload(listed.service, count),
        floor: rawListNamesWorkload(pool, listed.schema, count),
      },
    });
  }

  const rows: Row[] = [
    both("put 4 KiB", (store) => putWorkload(store, payload(4 * KiB), PUT_BOUNDS), putTarget),
    both("put 1 MiB", (store) => putWorkload(store, payload(MiB), PUT_BOUNDS), putTarget),
    both(
      "get latest 4 KiB",
      (store) => getLatestWorkload(store, payload(4 * KiB), GET_HISTORY),
      getTarget,
    ),
    both(
      "get latest 1 MiB",
      (store) => getLatestWorkload(store, payload(MiB), GET_HISTORY),
      getTarget,
    ),
    both(`${WRITERS} concurrent 4 KiB puts to one name`, (store) =>
      concurrentPutsWorkload(store, payload(4 * KiB)),
    ),
    ...listRows,
  ];
  return {
    title: "postgres",
    columns: COLUMNS,
    comparisons: [
      compare("vsFloorTime", "ours/floor time", "ours", "floor", "time"),
      compare("vsFloorOps", "ours/floor ops/s", "ours", "floor", "throughput"),
    ],
    rows,
    minSamples: 10,
    close: async () => {
      await stores.ours.close();
      await stores.floor.close();
      for (const schema of schemas) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    },
  };
}

/** WRITERS puts of `bytes` to one name at once; one sample is the whole group. */
function concurrentPutsWorkload(store: StoreUnderTest, bytes: Uint8Array): Workload {
  let versions = 0;
  return {
    prepare: () => store.reset(),
    run: async () => {
      versions += WRITERS;
      await Promise.all(Array.from({ length: WRITERS }, () => store.put("shared.bin", bytes)));
    },
    afterSample: async () => {
      if (versions >= PUT_BOUNDS.maxVersions) {
        versions = 0;
        await store.reset();
      }
    },
  };
}
