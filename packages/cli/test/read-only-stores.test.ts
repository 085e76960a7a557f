import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { FaultProxy } from "@artifact-kit/test-proxy";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { cli, cliJson, withTempDir } from "./support/cli.js";
import { databaseUrl, s3Endpoint } from "./support/servers.js";

// Issue 33.11: a read-only role or bucket policy must be able to list and get. Only commands
// that write probe the bucket (an object written and deleted) or migrate the schema.

const scope = ["--app", "ro", "--user", "u"];

/** Every read command, each expected to succeed and show the one version put before. */
async function readsSucceed(store: string, cwd: string, env: NodeJS.ProcessEnv) {
  const args = ["--store", store, ...scope];
  const ls = await cliJson<{ items: string[] }>(["ls", ...args], { cwd, env });
  expect([ls.code, ls.body.items]).toEqual([0, ["a.txt"]]);
  const versions = await cliJson<{ items: { version: number }[] }>(["versions", "a.txt", ...args], {
    cwd,
    env,
  });
  expect([versions.code, versions.body.items.map((v) => v.version)]).toEqual([0, [1]]);
  const info = await cliJson(["info", "a.txt", ...args], { cwd, env });
  expect(info).toMatchObject({ code: 0, body: { version: 1, size: 5 } });
  const stats = await cliJson(["stats", ...args], { cwd, env });
  expect(stats).toMatchObject({ code: 0, body: { names: 1 } });
  const got = await cli(["get", "a.txt", "-o", "-", ...args], { cwd, env });
  expect([got.code, got.stdout]).toEqual([0, "hello"]);
}

async function putOne(store: string, cwd: string, env: NodeJS.ProcessEnv) {
  await writeFile(join(cwd, "a.txt"), "hello");
  return cli(["put", "a.txt", "a.txt", "--store", store, ...scope], { cwd, env });
}

describe("read commands need read permissions only", () => {
  it("postgres://: a role with SELECT alone lists and gets; reads never migrate", async () => {
    const admin = new pg.Pool({ connectionString: databaseUrl(), max: 1 });
    const schema = `ro_${randomUUID().replaceAll("-", "")}`;
    const role = `reader_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
    const url = (user?: string) => {
      const at = new URL(databaseUrl());
      at.searchParams.set("schema", schema);
      if (user !== undefined) [at.username, at.password] = [user, "read-only"];
      return at.href;
    };
    try {
      await withTempDir(async (cwd) => {
        // Reads on a schema never created: refused, with the way out, and nothing created.
        const fresh = await cli(["ls", "--store", url(), ...scope], { cwd });
        expect(fresh.code).toBe(6);
        expect(fresh.stderr).toMatch(/a command that writes, such as put or demo/);
        const created = await admin.query("SELECT to_regnamespace($1) AS oid", [schema]);
        expect(created.rows[0].oid).toBeNull();

        expect((await putOne(url(), cwd, process.env)).code).toBe(0);
        await admin.query(`CREATE ROLE ${role} LOGIN PASSWORD 'read-only'`);
        await admin.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
        await admin.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
        await readsSucceed(url(role), cwd, process.env);
        // The role really is read-only: a write through it is refused.
        expect((await putOne(url(role), cwd, process.env)).code).not.toBe(0);
      });
    } finally {
      await admin.query(`DROP OWNED BY ${role}`).catch(() => undefined);
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });

  it("s3://: a bucket that refuses every write (a read-only policy) lists and gets", async () => {
    const bucket = `cli-ro-${randomUUID()}`;
    const credentials = { accessKeyId: "test", secretAccessKey: "test" };
    const client = new S3Client({
      endpoint: s3Endpoint(),
      region: "us-east-1",
      forcePathStyle: true,
      credentials,
    });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    const proxy = await FaultProxy.start(s3Endpoint());
    const env = (endpoint: string) => ({
      ...process.env,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    });
    const store = `s3://${bucket}/team`;
    try {
      await withTempDir(async (cwd) => {
        expect((await putOne(store, cwd, env(s3Endpoint()))).code).toBe(0);
        const denied = {
          status: 403,
          contentType: "application/xml",
          body: "<Error><Code>AccessDenied</Code><Message>read-only policy</Message></Error>",
        };
        const writes = (request: { method: string }) => !["GET", "HEAD"].includes(request.method);
        proxy.inject(writes, { answer: denied }, Number.POSITIVE_INFINITY);
        await readsSucceed(store, cwd, env(proxy.endpoint));
        expect(proxy.seen.filter(writes)).toEqual([]);
        // The policy bites: a write through it is refused, at its probe.
        expect((await putOne(store, cwd, env(proxy.endpoint))).code).not.toBe(0);
        expect(proxy.seen.filter(writes).length).toBeGreaterThan(0);
      });
    } finally {
      await proxy.close();
      client.destroy();
    }
  });
});
