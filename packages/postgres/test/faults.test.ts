import { setTimeout as sleep } from "node:timers/promises";
import { type ArtifactError, scopeDigest } from "@artifact-kit/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PostgresArtifactService } from "../src/index.js";
import { databaseUrl, freshService } from "./support/database.js";
import { data, same } from "./support/outcomes.js";

// Faults on the real server: backends terminated mid-statement, lock waits cut by deadlines
// and signals. Statements are made to wait by holding the name's row lock from another
// connection, so the fault lands inside them, not before or after.
const scope = { kind: "app", app: "faults" } as const;

let subject: Awaited<ReturnType<typeof freshService>>;
let service: PostgresArtifactService;
let pool: pg.Pool;
beforeAll(async () => {
  subject = await freshService();
  // A pool of its own with a name, so its backends can be found and terminated.
  pool = new pg.Pool({ connectionString: databaseUrl(), max: 3, application_name: "ak_faults" });
  pool.on("error", () => undefined);
  service = await PostgresArtifactService.open({ pool, schema: subject.schema });
});
afterAll(async () => {
  await pool.end();
  await subject.dispose();
});

/** Holds the row lock of (scope, name) until the returned release is called. */
async function lockName(name: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: databaseUrl() });
  await client.connect();
  await client.query("BEGIN");
  const locked = await client.query(
    `SELECT 1 FROM "${subject.schema}".names WHERE scope_key = $1 AND name = $2 FOR UPDATE`,
    [scopeDigest(scope), name],
  );
  if (locked.rowCount !== 1) throw new Error(`no name row for ${name}`);
  return async () => {
    await client.query("ROLLBACK");
    await client.end();
  };
}

/** Polls pg_stat_activity every 25 ms for this many tries at most: 30 s, for a loaded machine. */
const POLL_TRIES = 1_200;

/** The backend of a statement of ours that waits for a lock and calls `fn`. */
async function blockedBackend(fn: string): Promise<number> {
  for (let tries = 0; tries < POLL_TRIES; tries++) {
    const found = await subject.pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE application_name = 'ak_faults'
        AND wait_event_type = 'Lock' AND query LIKE $1`,
      [`%${fn}%`],
    );
    if (found.rows[0]) return found.rows[0].pid;
    await sleep(25);
  }
  throw new Error(`no backend of ${fn} waits for a lock`);
}

async function running(fn: string): Promise<number> {
  const found = await subject.pool.query(
    `SELECT 1 FROM pg_stat_activity WHERE application_name = 'ak_faults' AND state = 'active'
      AND query LIKE $1`,
    [`%${fn}%`],
  );
  return found.rowCount ?? 0;
}

/** Polls until no backend of ours runs `fn` (or gives up, leaving the caller's check to fail). */
async function settled(fn: string): Promise<void> {
  for (let tries = 0; tries < POLL_TRIES && (await running(fn)) > 0; tries++) await sleep(25);
}

/** Staged uploads and blocks that belong to no version: what a fault must never leave. */
async function leftovers(): Promise<{ uploads: number; orphans: number }> {
  const s = `"${subject.schema}"`;
  const result = await subject.pool.query(
    `SELECT (SELECT count(*) FROM ${s}.uploads)::int AS uploads,
      (SELECT count(*) FROM ${s}.blocks b WHERE NOT EXISTS
        (SELECT 1 FROM ${s}.versions v WHERE v.content_id = b.content_id))::int AS orphans`,
  );
  return result.rows[0];
}

const versionsOf = async (name: string) =>
  (await service.listVersions(scope, name)).items.map((meta) => meta.version);

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => "resolved",
    (error: ArtifactError) => error.code,
  );

describe("a backend terminated mid-statement", () => {
  test("mid-put: no partial version, and the next put is correct", async () => {
    await service.put(scope, "put", data(10, 1));
    const release = await lockName("put");
    const put = failure(service.put(scope, "put", data(1_500_000, 2)));
    await subject.pool.query("SELECT pg_terminate_backend($1)", [
      await blockedBackend("put_artifact"),
    ]);
    expect(await put).toBe("unavailable");
    await release();
    expect(await versionsOf("put")).toEqual([1]);
    expect(await leftovers()).toEqual({ uploads: 0, orphans: 0 });
    const next = await service.put(scope, "put", data(1_500_000, 3));
    expect(next.version).toBe(2);
    expect(same((await service.get(scope, "put")).data, data(1_500_000, 3))).toBe(true);
  });

  test("mid-upload publish: nothing published, staged blocks discarded, next upload correct", async () => {
    await service.put(scope, "upload", data(10, 1));
    const upload = await service.openUpload(scope, "upload");
    await upload.write(data(1_500_000, 4));
    const release = await lockName("upload");
    const finish = failure(upload.finish());
    await subject.pool.query("SELECT pg_terminate_backend($1)", [
      await blockedBackend("publish_upload"),
    ]);
    expect(await finish).toBe("unavailable");
    await release();
    expect(await versionsOf("upload")).toEqual([1]);
    expect(await leftovers()).toEqual({ uploads: 0, orphans: 0 });
    const again = await service.openUpload(scope, "upload");
    await again.write(data(2_500_000, 5));
    expect((await again.finish()).version).toBe(2);
    expect(same((await service.get(scope, "upload")).data, data(2_500_000, 5))).toBe(true);
  });

  test("between upload writes: the upload either completes whole or leaves nothing", async () => {
    const upload = await service.openUpload(scope, "between");
    await upload.write(data(1_200_000, 6));
    await subject.pool.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'ak_faults'",
    );
    const outcome = await failure(
      (async () => {
        await upload.write(data(1_200_000, 7));
        return upload.finish();
      })(),
    );
    if (outcome === "resolved") {
      expect((await service.get(scope, "between")).size).toBe(2_400_000);
    } else {
      expect(outcome).toBe("unavailable");
      expect(await versionsOf("between")).toEqual([]);
    }
    expect(await leftovers()).toEqual({ uploads: 0, orphans: 0 });
    expect((await service.put(scope, "between", data(5, 8))).version).toBe(
      outcome === "resolved" ? 2 : 1,
    );
  });
});

describe("deadlines and signals cancel the running statement", () => {
  test("a put waiting past its timeout fails with timeout and never publishes", async () => {
    await service.put(scope, "slow", data(10, 1));
    const release = await lockName("slow");
    // The name stays locked until release(): a timeout can only come from the put's deadline.
    expect(await failure(service.put(scope, "slow", data(10, 2), { timeoutMs: 400 }))).toBe(
      "timeout",
    );
    // pg rejects on the server's error message, a moment before the backend reports itself
    // idle: wait for that, not for a time.
    await settled("put_artifact");
    expect(await running("put_artifact")).toBe(0);
    await release();
    expect(await versionsOf("slow")).toEqual([1]);
  });

  test("an aborted signal cancels a waiting put and a waiting delete on the server", async () => {
    await service.put(scope, "aborted", data(10, 1));
    const release = await lockName("aborted");
    const controller = new AbortController();
    const put = failure(service.put(scope, "aborted", data(10, 2), { signal: controller.signal }));
    const del = failure(service.delete(scope, "aborted", 1, { signal: controller.signal }));
    await blockedBackend("put_artifact");
    await blockedBackend("delete_artifact");
    controller.abort();
    expect([await put, await del]).toEqual(["aborted", "aborted"]);
    // The server's statements were cancelled, not only the client's waits.
    await settled("_artifact");
    expect(await running("_artifact")).toBe(0);
    await release();
    expect(await versionsOf("aborted")).toEqual([1]);
  });
});
