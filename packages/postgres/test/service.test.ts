import { type ArtifactError, allNames, type Scope } from "@artifact-kit/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { migrate, PostgresArtifactService, SCHEMA_VERSION } from "../src/index.js";
import { databaseUrl, freshSchema, freshService, newPool } from "./support/database.js";

let subject: Awaited<ReturnType<typeof freshService>>;
beforeAll(async () => {
  subject = await freshService();
});
afterAll(async () => {
  await subject.dispose();
});

const codeOf = async (promise: Promise<unknown>) =>
  promise.then(
    () => "resolved",
    (error: ArtifactError) => `${error.code}${error.detail?.field ? `:${error.detail.field}` : ""}`,
  );
const bytes = (text: string) => new TextEncoder().encode(text);

describe("options and migrations", () => {
  test("unknown options, a bad pool and unsafe schema names are invalid_argument", async () => {
    const pool = subject.pool;
    const open = (options: unknown) =>
      PostgresArtifactService.open(options as Parameters<typeof PostgresArtifactService.open>[0]);
    expect(await codeOf(open({ pool, bogus: 1 }))).toBe("invalid_argument:postgresOptions.bogus");
    expect(await codeOf(open({ pool: {} }))).toBe("invalid_argument:pool");
    for (const schema of [
      'a"; DROP SCHEMA public; --',
      "Upper",
      "1st",
      "pg_x",
      "",
      "a".repeat(64),
    ]) {
      expect(await codeOf(open({ pool, schema }))).toBe("invalid_argument:schema");
    }
    expect(await codeOf(open({ pool, maxArtifactBytes: 0 }))).toBe(
      "invalid_argument:maxArtifactBytes",
    );
    expect(await codeOf(open({ pool, migrate: "yes" }))).toBe("invalid_argument:migrate");
  });

  test("open without migrate fails on a missing schema; migrate is idempotent and concurrent-safe", async () => {
    const schema = freshSchema();
    const pool = newPool(6);
    try {
      expect(await codeOf(PostgresArtifactService.open({ pool, schema }))).toBe("unavailable");
      const reports = await Promise.all([1, 2, 3].map(() => migrate(pool, schema)));
      expect(reports.filter((report) => report.from === 0)).toHaveLength(1);
      expect(reports.every((report) => report.to === SCHEMA_VERSION)).toBe(true);
      expect(await migrate(pool, schema)).toEqual({
        schema,
        from: SCHEMA_VERSION,
        to: SCHEMA_VERSION,
      });
      const service = await PostgresArtifactService.open({ pool, schema });
      expect((await service.put({ kind: "app", app: "m" }, "n", bytes("x"))).version).toBe(1);
    } finally {
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await pool.end();
    }
  });

  test("capabilities name every bound", () => {
    expect(subject.service.capabilities().quotas.bounds).toEqual({
      maxArtifactBytes: 64 * 1024 * 1024,
      maxScopeBytes: 1024 ** 3,
      maxTotalBytes: 64 * 1024 ** 3,
      maxScopeArtifacts: 100_000,
      maxTotalArtifacts: 10_000_000,
      uploadLeaseMs: 3_600_000,
    });
  });
});

describe("hostile input", () => {
  const hostile = [
    "it's",
    'quote"d',
    "back\\slash",
    "'; DROP TABLE names; --",
    "$1 $$ $fn$",
    "%_ LIKE",
    "ünï/cødé/𝄞",
    `${"é".repeat(511)}x`, // 1,023 UTF-8 bytes
  ];

  // Keys are at most 256 bytes: the long name's key is its first 100 characters.
  const key = (name: string) => name.slice(0, 100);

  test("names, scopes, metadata, mime types and keys that would break naive SQL round-trip", async () => {
    const scope: Scope = { kind: "session", app: "a'b", user: 'u"\\', session: "s'; --" };
    for (const [i, name] of hostile.entries()) {
      const metadata = { [name]: name, nested: { list: [name, "\\x00", "\u2028"] } };
      const mimeType = `text/x-${i}'"\\`;
      const meta = await subject.service.put(scope, name, bytes(name), {
        metadata,
        mimeType,
        idempotencyKey: key(name),
      });
      const got = await subject.service.get(scope, name);
      expect(new TextDecoder().decode(got.data)).toBe(name);
      expect(got.metadata).toEqual(metadata);
      expect(got.mimeType).toBe(mimeType);
      expect(got.idempotencyKey).toBe(key(name));
      expect(meta.version).toBe(1);
    }
    expect(await allNames(subject.service, scope)).toEqual(
      [...hostile].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b))),
    );
  });

  test("the longest scope parts and near-limit metadata full of quotes and backslashes round-trip", async () => {
    const part = `'"\\${"x".repeat(252)}`; // 256 bytes
    const scope: Scope = { kind: "session", app: part, user: part, session: part };
    const metadata = { text: `'"\\$$`.repeat(2_000), list: ["'", '"', "\\", "\u0000"] };
    await subject.service.put(scope, "long", bytes("x"), { metadata });
    const got = await subject.service.head(scope, "long");
    expect(got.metadata).toEqual(metadata);
    expect(got.scope).toEqual(scope);
  });

  test("NUL and over-long input are invalid_argument and write nothing", async () => {
    const scope: Scope = { kind: "app", app: "nul" };
    expect(await codeOf(subject.service.put(scope, "a\0b", bytes("x")))).toBe(
      "invalid_argument:name",
    );
    expect(await codeOf(subject.service.put({ kind: "app", app: "a\0" }, "n", bytes("x")))).toBe(
      "invalid_argument:scope.app",
    );
    expect(await codeOf(subject.service.put(scope, "é".repeat(513), bytes("x")))).toBe(
      "invalid_argument:name",
    );
    expect(
      await codeOf(subject.service.put(scope, "n", bytes("x"), { idempotencyKey: "k\0" })),
    ).toBe("invalid_argument:idempotencyKey");
    expect(await codeOf(subject.service.put(scope, "n", bytes("x"), { mimeType: "a/b\0" }))).toBe(
      "invalid_argument:mimeType",
    );
    expect(await allNames(subject.service, scope)).toEqual([]);
  });
});

describe("idempotency keys", () => {
  const scope: Scope = { kind: "user", app: "idem", user: "u" };

  test("a retry returns the first version; another payload or a deleted version fails", async () => {
    const first = await subject.service.put(scope, "r", bytes("one"), { idempotencyKey: "k1" });
    const retry = await subject.service.put(scope, "r", bytes("one"), { idempotencyKey: "k1" });
    expect(retry).toEqual(first);
    expect(
      await codeOf(subject.service.put(scope, "r", bytes("two"), { idempotencyKey: "k1" })),
    ).toBe("invalid_argument:idempotencyKey");
    // The same key under another name is another key.
    expect(
      (await subject.service.put(scope, "other", bytes("one"), { idempotencyKey: "k1" })).version,
    ).toBe(1);
    const upload = await subject.service.openUpload(scope, "r", { idempotencyKey: "k1" });
    await upload.write(bytes("one"));
    expect(await upload.finish()).toEqual(first);
    await subject.service.delete(scope, "r", first.version);
    expect(
      await codeOf(subject.service.put(scope, "r", bytes("one"), { idempotencyKey: "k1" })),
    ).toBe("not_found");
    expect((await subject.service.put(scope, "r", bytes("one"))).version).toBe(first.version + 1);
    // Metadata is compared as stored (JSON), so a retry carrying -0 matches the stored 0.
    const signed = await subject.service.put(scope, "zero", bytes("z"), {
      metadata: { x: -0 },
      idempotencyKey: "z",
    });
    const retried = await subject.service.put(scope, "zero", bytes("z"), {
      metadata: { x: -0 },
      idempotencyKey: "z",
    });
    expect(retried.version).toBe(signed.version);
    const staged = await subject.pool.query(
      `SELECT count(*)::int AS n FROM "${subject.schema}".uploads`,
    );
    expect(staged.rows[0].n).toBe(0);
  });

  test("concurrent puts and uploads with one key publish one version, all report it", async () => {
    const puts = Array.from({ length: 12 }, (_, i) =>
      i % 3 === 0
        ? (async () => {
            const upload = await subject.service.openUpload(scope, "same", {
              idempotencyKey: "once",
            });
            await upload.write(bytes("payload"));
            return upload.finish();
          })()
        : subject.service.put(scope, "same", bytes("payload"), { idempotencyKey: "once" }),
    );
    const metas = await Promise.all(puts);
    expect(new Set(metas.map((meta) => meta.version)).size).toBe(1);
    const page = await subject.service.listVersions(scope, "same");
    expect(page.items).toHaveLength(1);
  });
});

describe("a pool with its own int8 parser", () => {
  test("bigint (or number) int8 values read back as the same versions and sizes", async () => {
    const pool = new pg.Pool({
      connectionString: databaseUrl(),
      max: 2,
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          oid === 20
            ? BigInt
            : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
      },
    });
    try {
      const service = await PostgresArtifactService.open({ pool, schema: subject.schema });
      const scope: Scope = { kind: "app", app: "int8" };
      const meta = await service.put(scope, "n", bytes("abc"));
      expect(meta.version).toBe(1);
      expect((await service.get(scope, "n")).size).toBe(3);
      const upload = await service.openUpload(scope, "n");
      await upload.write(bytes("def"));
      expect((await upload.finish()).version).toBe(2);
      const download = await service.openDownload(scope, "n", { range: { offset: 1, length: 1 } });
      expect(await download.read()).toEqual(bytes("e"));
      await service.delete(scope, "n", "all");
      expect(await service.repair()).toEqual({ uploads: 0, blocks: 0 });
    } finally {
      await pool.end();
    }
  });
});

describe("repair", () => {
  const scope: Scope = { kind: "app", app: "repair" };

  test("removes only uploads past the lease; a repaired upload cannot publish", async () => {
    const upload = await subject.service.openUpload(scope, "staged");
    await upload.write(new Uint8Array(1_200_000));
    expect(await subject.service.repair()).toEqual({ uploads: 0, blocks: 0 });
    expect(await subject.service.repair({ olderThanMs: 0 })).toEqual({ uploads: 1, blocks: 1 });
    expect(await codeOf(upload.finish())).toBe("unavailable");
    expect(await allNames(subject.service, scope)).toEqual([]);
    expect(await codeOf(subject.service.repair({ olderThanMs: -1 }))).toBe(
      "invalid_argument:olderThanMs",
    );
    expect(await codeOf(subject.service.repair({ bogus: 1 } as never))).toBe(
      "invalid_argument:repairOptions.bogus",
    );
  });
});
