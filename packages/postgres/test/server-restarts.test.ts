import { spawn } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { scopeDigest } from "@artifact-kit/core";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { PostgresArtifactService } from "../src/index.js";
import { data, outcomeOf, same } from "./support/outcomes.js";
import { answers, type OwnServer, startOwnServer } from "./support/own-server.js";
import { type ProcessWatch, watchProcess } from "./support/proxied.js";

// The server process itself killed (SIGKILL) and restarted under the adapter, on a server of
// the test's own: calls in flight (a put at the server, an upload between writes and at its
// publish, a download between reads) fail with `unavailable` and never end the process;
// after the restart the same pool and service go on, every acknowledged version reads back,
// every acknowledged delete stays deleted, and a keyed retry publishes at most once.
const scope = { kind: "app", app: "server-restarts" } as const;
const worker = fileURLToPath(new URL("./support/worker.mjs", import.meta.url));

let server: OwnServer;
let watch: ProcessWatch;
beforeAll(async () => {
  server = await startOwnServer();
}, 600_000);
afterAll(async () => {
  await server?.stop();
});
beforeEach(() => {
  watch = watchProcess();
});
afterEach(() => {
  watch.stop();
});

/** A pool as the README asks for one: named, so its backends can be found, and listened to. */
function ownPool(name: string) {
  const pool = new pg.Pool({ connectionString: server.url, max: 6, application_name: name });
  let idleErrors = 0;
  pool.on("error", () => {
    idleErrors += 1;
  });
  return { pool, idleErrors: () => idleErrors };
}

async function admin<T>(use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: server.url });
  client.on("error", () => undefined);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Holds the row lock of (scope, name) on a connection of its own (killed with the server). */
async function lockName(schema: string, name: string): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString: server.url });
  client.on("error", () => undefined);
  await client.connect();
  await client.query("BEGIN");
  await client.query(
    `SELECT 1 FROM "${schema}".names WHERE scope_key = $1 AND name = $2 FOR UPDATE`,
    [scopeDigest(scope), name],
  );
  return async () => {
    await client.query("ROLLBACK").catch(() => undefined);
    await client.end().catch(() => undefined);
  };
}

/** The backend of `application` that waits for a lock in a statement calling `fn`. */
async function blockedBackend(application: string, fn: string): Promise<number> {
  for (let tries = 0; tries < 1_200; tries++) {
    const found = await admin((client) =>
      client.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE application_name = $1
          AND wait_event_type = 'Lock' AND query LIKE $2`,
        [application, `%${fn}%`],
      ),
    );
    if (found.rows[0]) return found.rows[0].pid;
    await sleep(25);
  }
  throw new Error(`no backend of ${fn} waits for a lock`);
}

async function schemaOf(service: PostgresArtifactService, pool: pg.Pool, schema: string) {
  await service.close();
  return PostgresArtifactService.open({ pool, schema });
}

describe("the server SIGKILLed and restarted", () => {
  test("with a put, an upload, a publish and a download in flight", async () => {
    const schema = "restart_in_flight";
    const { pool, idleErrors } = ownPool("ak_restart");
    let service = await PostgresArtifactService.open({ pool, schema, migrate: true });
    // Acknowledged before the kill: versions to keep, and a delete to keep.
    const kept = await service.put(scope, "kept", data(1_500_000, 1));
    const doomed = await service.put(scope, "kept", data(10, 2));
    await service.delete(scope, "kept", doomed.version);
    const big = data(3_500_000, 3);
    await service.put(scope, "download", big);
    await service.put(scope, "locked", data(10, 4));
    await service.put(scope, "publish", data(10, 5));

    // In flight when the server dies.
    const releaseLocked = await lockName(schema, "locked");
    const lockedPut = outcomeOf(
      service.put(scope, "locked", data(2_000, 6), { idempotencyKey: "locked-put" }),
    );
    const releasePublish = await lockName(schema, "publish");
    const publishing = await service.openUpload(scope, "publish", { idempotencyKey: "publish" });
    await publishing.write(data(1_200_000, 7));
    const published = outcomeOf(publishing.finish());
    const upload = await service.openUpload(scope, "upload", { idempotencyKey: "upload" });
    await upload.write(data(1_100_000, 8));
    const download = await service.openDownload(scope, "download");
    const firstPiece = await download.read();
    await blockedBackend("ak_restart", "put_artifact");
    await blockedBackend("ak_restart", "publish_upload");

    await server.kill();
    expect(await lockedPut).toBe("unavailable");
    expect(await published).toBe("unavailable");
    const uploading = outcomeOf(
      (async () => {
        await upload.write(data(1_100_000, 9));
        return upload.finish();
      })(),
    );
    expect(await uploading).toBe("unavailable");
    const reading = outcomeOf(
      (async () => {
        while ((await download.read()) !== undefined);
      })(),
    );
    expect(await reading).toBe("unavailable");
    await download.cancel();
    // Calls while the server is down fail the same way.
    expect(await outcomeOf(service.get(scope, "kept"))).toBe("unavailable");
    await releaseLocked();
    await releasePublish();

    await server.restart();
    // The same pool and service go on once the server is back.
    service = await schemaOf(service, pool, schema);
    expect(
      same((await service.get(scope, "kept", { version: kept.version })).data, data(1_500_000, 1)),
    ).toBe(true);
    expect((await service.listVersions(scope, "kept")).items.map((m) => m.version)).toEqual([
      kept.version,
    ]);
    expect(await outcomeOf(service.get(scope, "kept", { version: doomed.version }))).toBe(
      "not_found",
    );
    expect(same((await service.get(scope, "download")).data, big)).toBe(true);
    expect(firstPiece?.byteLength).toBeGreaterThan(0);
    // Keyed retries publish once (the kill came before any of them committed).
    const retried = await service.put(scope, "locked", data(2_000, 6), {
      idempotencyKey: "locked-put",
    });
    expect((await service.listVersions(scope, "locked")).items.map((m) => m.version)).toEqual([
      1,
      retried.version,
    ]);
    const again = await service.openUpload(scope, "publish", { idempotencyKey: "publish" });
    await again.write(data(1_200_000, 7));
    const republished = await again.finish();
    expect((await service.listVersions(scope, "publish")).items).toHaveLength(2);
    expect(
      same(
        (await service.get(scope, "publish", { version: republished.version })).data,
        data(1_200_000, 7),
      ),
    ).toBe(true);
    // The killed upload staged a block; repair removes it, and nothing else is left over.
    await service.repair({ olderThanMs: 0 });
    const leftovers = await pool.query(
      `SELECT (SELECT count(*) FROM "${schema}".uploads)::int AS uploads,
        (SELECT count(*) FROM "${schema}".blocks b WHERE NOT EXISTS
          (SELECT 1 FROM "${schema}".versions v WHERE v.content_id = b.content_id))::int AS orphans`,
    );
    expect(leftovers.rows[0]).toEqual({ uploads: 0, orphans: 0 });
    await service.close();
    await pool.end();
    expect(idleErrors()).toBeGreaterThanOrEqual(0);
    expect(watch.failures).toEqual([]);
  });

  test("while the service is idle, its pool full of idle connections", async () => {
    const schema = "restart_idle";
    const { pool, idleErrors } = ownPool("ak_idle");
    const service = await PostgresArtifactService.open({ pool, schema, migrate: true });
    const acked = await Promise.all(
      Array.from({ length: 6 }, (_, i) => service.put(scope, `idle-${i}`, data(1_000, i))),
    );
    expect(pool.idleCount).toBeGreaterThan(1);
    const idle = pool.idleCount;
    await server.kill();
    // Every idle connection reports its loss on the pool (never on the process).
    while (idleErrors() < idle) await new Promise((resolve) => pool.once("error", resolve));
    expect(pool.idleCount).toBe(0);
    await server.restart();
    for (const [i, meta] of acked.entries()) {
      expect(
        same(
          (await service.get(scope, `idle-${i}`, { version: meta.version })).data,
          data(1_000, i),
        ),
      ).toBe(true);
    }
    await service.close();
    await pool.end();
    expect(watch.failures).toEqual([]);
  });

  test("close() while the server is down resolves, and later calls are closed", async () => {
    const schema = "restart_close";
    const { pool } = ownPool("ak_close");
    const service = await PostgresArtifactService.open({ pool, schema, migrate: true });
    await service.put(scope, "c", data(10, 1));
    await server.kill();
    const inFlight = outcomeOf(service.put(scope, "c", data(10, 2)));
    await service.close();
    expect(["unavailable", "closed"]).toContain(await inFlight);
    expect(await outcomeOf(service.get(scope, "c"))).toBe("closed");
    await pool.end();
    await server.restart();
    expect(watch.failures).toEqual([]);
  });
});

describe("one backend SIGKILLed: the postmaster resets every connection and recovers", () => {
  test("mid-put: unavailable, idle connections dropped, acknowledged data whole after recovery", async () => {
    const schema = "backend_kill";
    const { pool } = ownPool("ak_backend");
    const service = await PostgresArtifactService.open({ pool, schema, migrate: true });
    const acked = await service.put(scope, "b", data(2_500_000, 1));
    await Promise.all([service.put(scope, "x", data(10, 1)), service.put(scope, "y", data(10, 2))]);
    const release = await lockName(schema, "b");
    const put = outcomeOf(service.put(scope, "b", data(2_000, 2), { idempotencyKey: "b-put" }));
    await server.killBackend(await blockedBackend("ak_backend", "put_artifact"));
    expect(await put).toBe("unavailable");
    await release();
    await answers(server.url);
    // A connection the reset ended may still be handed out once: a call fails with
    // unavailable or succeeds, never anything else, and the pool heals.
    for (let tries = 0; ; tries++) {
      const outcome = await outcomeOf(service.get(scope, "b", { version: acked.version }));
      if (outcome === "acknowledged") break;
      expect(outcome).toBe("unavailable");
      expect(tries).toBeLessThan(6);
    }
    expect(
      same((await service.get(scope, "b", { version: acked.version })).data, data(2_500_000, 1)),
    ).toBe(true);
    const retried = await service.put(scope, "b", data(2_000, 2), { idempotencyKey: "b-put" });
    expect((await service.listVersions(scope, "b")).items.map((m) => m.version)).toEqual([
      acked.version,
      retried.version,
    ]);
    await service.close();
    await pool.end();
    expect(watch.failures).toEqual([]);
  });
});

describe("a pool the caller left without an 'error' listener", () => {
  test("the server killed while the service idles on it: the process lives on", async () => {
    const setup = ownPool("ak_setup");
    const opened = await PostgresArtifactService.open({
      pool: setup.pool,
      schema: "restart_unlistened",
      migrate: true,
    });
    await opened.close();
    await setup.pool.end();
    const child = spawn(
      process.execPath,
      [worker, "idle", server.url, "restart_unlistened", "idle"],
      { stdio: ["pipe", "pipe", "pipe"] },
    );
    let out = "";
    let errors = "";
    child.stdout.on("data", (chunk) => {
      out += String(chunk);
    });
    child.stderr.on("data", (chunk) => {
      errors += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    while (!out.includes("ready")) {
      await Promise.race([once(child.stdout, "data"), exited]);
      if (child.exitCode !== null) break;
    }
    expect(errors).toBe("");
    await server.kill();
    await server.restart();
    child.stdin.write("go\n");
    expect({ code: await exited, errors }).toEqual({ code: 0, errors: "" });
    expect(out).toContain("size 10");
  });
});

describe("the server frozen (SIGSTOP) with calls in flight", () => {
  test("calls with a deadline end by it; after the thaw every acknowledged version reads back", async () => {
    const schema = "frozen";
    const { pool } = ownPool("ak_frozen");
    const service = await PostgresArtifactService.open({ pool, schema, migrate: true });
    const acked = await service.put(scope, "f", data(1_500_000, 1));
    const upload = await service.openUpload(scope, "f-upload", { timeoutMs: 60_000 });
    await upload.write(data(500_000, 2));
    let uploading: Promise<string> = Promise.resolve("not started");
    await server.freeze();
    try {
      const calls = {
        get: outcomeOf(service.get(scope, "f", { timeoutMs: 1_000 })),
        put: outcomeOf(service.put(scope, "f", data(10, 3), { timeoutMs: 1_000 })),
        delete: outcomeOf(service.delete(scope, "f", acked.version, { timeoutMs: 1_000 })),
        // The write stages a whole block; its statement meets the frozen server.
        upload: outcomeOf(
          (async () => {
            await upload.write(data(1_000_000, 4));
            return upload.finish();
          })(),
        ),
      };
      expect(await calls.get).toBe("timeout");
      expect(["timeout", "unavailable"]).toContain(await calls.put);
      expect(["timeout", "unavailable"]).toContain(await calls.delete);
      // The upload's own deadline has not passed: it may wait for the thaw.
      uploading = calls.upload;
    } finally {
      await server.thaw();
    }
    await answers(server.url);
    const uploadOutcome = await uploading;
    const uploaded = (await service.listVersions(scope, "f-upload")).items;
    if (uploadOutcome === "acknowledged") {
      expect(uploaded.map((m) => m.size)).toEqual([1_500_000]);
    } else {
      expect(["timeout", "unavailable"]).toContain(uploadOutcome);
      expect(uploaded).toEqual([]);
    }
    const live = (await service.listVersions(scope, "f")).items.map((m) => m.version);
    expect(live[0]).toBe(acked.version);
    expect(
      same((await service.get(scope, "f", { version: acked.version })).data, data(1_500_000, 1)),
    ).toBe(true);
    await service.close();
    await pool.end();
    expect(watch.failures).toEqual([]);
  });

  test("an upload aborted while the server is frozen ends before the thaw, its clean-up too", async () => {
    const { pool } = ownPool("ak_frozen_abort");
    const service = await PostgresArtifactService.open({
      pool,
      schema: "frozen_abort",
      migrate: true,
    });
    const owner = new AbortController();
    const upload = await service.openUpload(scope, "aborted", { signal: owner.signal });
    await server.freeze();
    try {
      // The write stages a whole block; its statement meets the frozen server.
      const writing = outcomeOf(upload.write(data(1_100_000, 5)));
      owner.abort(new Error("the upload's owner went away"));
      // The staging statement is cancelled, and the clean-up that follows it waits for the
      // frozen server only so long: both settle while the server is still frozen.
      expect(await writing).toBe("aborted");
      await upload.abort();
    } finally {
      await server.thaw();
    }
    await answers(server.url);
    expect((await service.listVersions(scope, "aborted")).items).toEqual([]);
    await service.close();
    await pool.end();
    expect(watch.failures).toEqual([]);
  });
});
