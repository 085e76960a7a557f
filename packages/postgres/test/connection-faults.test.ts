import type { TcpFault } from "@artifact-kit/test-proxy";
import type pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { PostgresEffectJournal } from "../src/effects.js";
import { migrate, PostgresArtifactService } from "../src/index.js";
import { freshSchema, freshService } from "./support/database.js";
import { data, outcomeOf, same } from "./support/outcomes.js";
import { type ProcessWatch, type Proxied, startProxied, watchProcess } from "./support/proxied.js";

// Connections cut by a TCP proxy between the service and a real server, at the statements
// that matter: a lost reply to a statement that committed must never cost the bytes it
// published, and no cut may end the process.
const scope = { kind: "app", app: "connection-faults" } as const;

let proxied: Proxied;
let direct: Awaited<ReturnType<typeof freshService>>;
let watch: ProcessWatch;
beforeAll(async () => {
  proxied = await startProxied();
  direct = await freshService();
});
beforeEach(() => {
  watch = watchProcess();
});
afterEach(() => {
  watch.stop();
  proxied.proxy.disarmAll();
});
afterAll(async () => {
  await proxied.stop();
  await direct.dispose();
});

/** Streams `bytes` to a new upload in two writes and publishes it. */
async function streamed(
  service: PostgresArtifactService,
  name: string,
  bytes: Uint8Array,
  idempotencyKey: string,
) {
  const upload = await service.openUpload(scope, name, { idempotencyKey });
  const half = Math.floor(bytes.length / 2);
  await upload.write(bytes.subarray(0, half));
  await upload.write(bytes.subarray(half));
  return upload.finish();
}

describe.each([1_000, 1_500_000])(
  "a streamed upload of %i bytes whose publishing reply is lost",
  (size) => {
    test("is absent or reads back whole, and its keyed retry answers a readable version", async () => {
      const service = await PostgresArtifactService.open({
        pool: proxied.pool(),
        schema: direct.schema,
      });
      const name = `lost-reply-${size}`;
      const bytes = data(size, size % 7);
      const fault = proxied.proxy.armAtClientText("publishUpload", "drop-reply");
      expect(await outcomeOf(streamed(service, name, bytes, `key-${size}`))).toBe("unavailable");
      expect(fault.struck).toBe(true);
      // Read on a connection of its own: whatever committed is what every host sees.
      const published = (await direct.service.listVersions(scope, name)).items;
      expect(published.length).toBeLessThanOrEqual(1);
      for (const meta of published) {
        const got = await direct.service.get(scope, name, { version: meta.version });
        expect(same(got.data, bytes)).toBe(true);
      }
      const retried = await streamed(service, name, bytes, `key-${size}`);
      const got = await direct.service.get(scope, name, { version: retried.version });
      expect(same(got.data, bytes)).toBe(true);
      expect((await direct.service.listVersions(scope, name)).items).toHaveLength(1);
      await service.close();
      expect(watch.failures).toEqual([]);
    });
  },
);

interface CutCall {
  readonly what: string;
  /** Text the call's client sends at the statement to cut. */
  readonly at: string;
  readonly run: (pool: pg.Pool, schema: string) => Promise<unknown>;
}

const cutCalls: CutCall[] = [
  {
    what: "PostgresArtifactService.open",
    at: "server_encoding",
    run: (pool, schema) => PostgresArtifactService.open({ pool, schema }),
  },
  {
    what: "PostgresArtifactService.open with migrate",
    at: "pg_advisory_xact_lock",
    run: (pool) => PostgresArtifactService.open({ pool, schema: freshSchema(), migrate: true }),
  },
  { what: "migrate()", at: "CREATE SCHEMA", run: (pool) => migrate(pool, freshSchema()) },
  {
    what: "PostgresEffectJournal.claimOrphans",
    at: "SKIP LOCKED",
    run: async (pool, schema) => {
      const journal = await PostgresEffectJournal.open({ pool, schema });
      return journal.claimOrphans({
        owner: "reconciler",
        leaseMs: 1_000,
        limit: 10,
        maxAttempts: 3,
      });
    },
  },
];
const faults: TcpFault[] = ["cut", "reset", "drop-reply"];

describe.each(cutCalls)("a connection cut during $what", ({ at, run }) => {
  test.each(faults)(
    "%s: the call fails with unavailable and the process lives on",
    async (fault) => {
      const pool = proxied.pool();
      const armed = proxied.proxy.armAtClientText(at, fault);
      expect(await outcomeOf(run(pool, direct.schema))).toBe("unavailable");
      expect(armed.struck).toBe(true);
      // The pool recovers: a new connection replaces the cut one.
      await expect(run(pool, direct.schema)).resolves.toBeDefined();
      expect(watch.failures).toEqual([]);
    },
  );
});
