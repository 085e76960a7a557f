import { randomUUID } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { BlobServiceClient } from "@azure/storage-blob";
import { describe, expect, it } from "vitest";
import { cli, cliJson, withTempDir } from "./support/cli.js";
import { azureConnectionString, databaseUrl, s3Endpoint } from "./support/servers.js";

// The CLI spawned against the servers the postgres, s3 and azure packages' global setups started.

/** put, ls, get and a not_found that names the store (`shown`) without its password. */
async function roundTrip(
  store: string[],
  env: NodeJS.ProcessEnv,
  { hidden, shown }: { hidden?: string; shown?: string } = {},
) {
  const scope = ["--app", "agent", "--user", "u1"];
  await withTempDir(async (cwd) => {
    const file = join(cwd, "note.txt");
    await writeFile(file, "hello");
    const put = await cliJson(["put", "notes/a.txt", file, ...store, ...scope], { cwd, env });
    expect(put).toMatchObject({ code: 0, body: { version: 1, size: 5 } });
    const names = await cliJson<{ items: string[] }>(["ls", ...store, ...scope], { cwd, env });
    expect(names.body.items).toEqual(["notes/a.txt"]);
    const got = await cli(["get", "notes/a.txt", "-o", "-", ...store, ...scope], { cwd, env });
    expect([got.code, got.stdout]).toEqual([0, "hello"]);
    const missing = await cli(["info", "notes/none.txt", ...store, ...scope], { cwd, env });
    expect(missing.code).toBe(3);
    if (hidden !== undefined) expect(missing.stderr).not.toContain(hidden);
    if (shown !== undefined) expect(missing.stderr).toContain(`of the store ${shown} not found`);
  });
}

describe("artifact-kit on postgres://, s3:// and az:// stores", () => {
  it("puts, lists and gets through a postgres:// store in its own schema", async () => {
    const url = new URL(databaseUrl());
    const schema = `cli_${randomUUID().replaceAll("-", "")}`;
    url.searchParams.set("schema", schema);
    url.password = "not-printed";
    const shown = `postgres://${url.username}@${url.host}${url.pathname}?schema=${schema}`;
    await roundTrip(["--store", url.href], process.env, { hidden: "not-printed", shown });
  });

  it("runs the demo on postgres without printing the password", async () => {
    const url = new URL(databaseUrl());
    url.searchParams.set("schema", `demo_${randomUUID().replaceAll("-", "")}`);
    url.password = "not-printed";
    await withTempDir(async (cwd) => {
      const demo = await cli(["demo", "--store", url.href], { cwd });
      expect(demo.code).toBe(0);
      expect(demo.stdout).toContain("artifact-kit demo");
      expect(demo.stdout + demo.stderr).not.toContain("not-printed");
    });
  });

  it("puts, lists and gets through an s3:// store, the endpoint from the SDK's environment", async () => {
    const endpoint = s3Endpoint();
    const bucket = `cli-${randomUUID()}`;
    const env = {
      ...process.env,
      AWS_ENDPOINT_URL_S3: endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test",
    };
    const client = new S3Client({
      endpoint,
      region: "us-east-1",
      forcePathStyle: true,
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
    });
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    await roundTrip(["--store", `s3://${bucket}/team`], env);
  });

  it("puts, lists and gets through az:// and azblob:// stores, the account from the environment", async () => {
    const connectionString = azureConnectionString();
    const container = `cli-${randomUUID()}`;
    await BlobServiceClient.fromConnectionString(connectionString)
      .getContainerClient(container)
      .create();
    const env = { ...process.env, AZURE_STORAGE_CONNECTION_STRING: connectionString };
    await roundTrip(["--store", `az://${container}/team`], env);
    // The same store under the other scheme: the put above is there.
    const scope = ["--app", "agent", "--user", "u1"];
    await withTempDir(async (cwd) => {
      const listed = await cliJson<{ items: string[] }>(
        ["ls", "--store", `azblob://${container}/team`, ...scope],
        { cwd, env },
      );
      expect(listed.body.items).toEqual(["notes/a.txt"]);
    });
  });

  it("repairs an az:// store: orphaned staging past --min-age-ms goes, published versions stay", async () => {
    const connectionString = azureConnectionString();
    const container = BlobServiceClient.fromConnectionString(connectionString).getContainerClient(
      `cli-${randomUUID()}`,
    );
    await container.create();
    const env = { ...process.env, AZURE_STORAGE_CONNECTION_STRING: connectionString };
    const store = ["--store", `az://${container.containerName}/team`];
    await roundTrip(store, env);
    // What an upload that died between staging and publication leaves under the prefix.
    const orphan = container.getBlockBlobClient("team/u/dead-upload");
    await orphan.upload("staged", 6);
    const { lastModified } = await orphan.getProperties();
    await withTempDir(async (cwd) => {
      const young = await cliJson(["repair", ...store], { cwd, env });
      expect(young).toMatchObject({
        code: 0,
        body: { abortedUploads: 0, removedStaging: 0, removedChunks: 0 },
      });
      // Wait on the clock passing the blob's own time, not on a fixed sleep.
      while (Date.now() <= (lastModified?.getTime() ?? 0) + 1) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      const text = await cli(["repair", "--min-age-ms", "1", ...store], { cwd, env });
      expect([text.code, text.stdout.trim()]).toEqual([
        0,
        "repair: abortedUploads 0, removedStaging 1, removedChunks 0",
      ]);
      expect(await orphan.exists()).toBe(false);
      const scope = ["--app", "agent", "--user", "u1"];
      const kept = await cli(["get", "notes/a.txt", "-o", "-", ...store, ...scope], { cwd, env });
      expect([kept.code, kept.stdout]).toEqual([0, "hello"]);
      const refused = await cli(["repair", "--min-age-ms", "0", ...store], { cwd, env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("olderThanMs");
    });
  });

  it("an az:// store without a connection string is refused as invalid_argument, naming it", async () => {
    const env = { ...process.env, AZURE_STORAGE_CONNECTION_STRING: "" };
    await withTempDir(async (cwd) => {
      const store = ["--store", "az://container/team", "--app", "agent"];
      const refused = await cli(["ls", ...store], { cwd, env });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain("AZURE_STORAGE_CONNECTION_STRING");
    });
  });
});
