import { randomBytes, randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, cliJson, withTempDir } from "./support/cli.js";
import { freshBucket, gcsEndpoint } from "./support/gcs.js";

// The CLI spawned against fake-gcs-server (started by the gcs package's global setup).

describe("artifact-kit on a gcs:// store", () => {
  it("puts, lists, gets, counts and deletes a scope through the emulator", async () => {
    const endpoint = gcsEndpoint();
    const bucket = await freshBucket(endpoint);
    const store = ["--store", `gcs://${bucket}/team/prod`, "--gcs-endpoint", endpoint];
    const scope = ["--app", "agent", "--user", "u1"];
    await withTempDir(async (cwd) => {
      const small = join(cwd, "small.txt");
      const big = join(cwd, "big.bin");
      await writeFile(small, "hello");
      const bytes = randomBytes(4 * 1024 * 1024); // the streaming threshold
      await writeFile(big, bytes);
      const put = await cliJson(
        ["put", "notes/small.txt", small, "--mime", "text/plain", ...store, ...scope],
        { cwd },
      );
      expect(put).toMatchObject({ code: 0, body: { version: 1, size: 5, streamed: false } });
      const streamed = await cliJson(["put", "big.bin", big, ...store, ...scope], { cwd });
      expect(streamed).toMatchObject({
        code: 0,
        body: { version: 1, size: bytes.byteLength, streamed: true },
      });

      const names = await cliJson<{ items: string[] }>(["ls", ...store, ...scope], { cwd });
      expect(names.body.items).toEqual(["big.bin", "notes/small.txt"]);
      const out = join(cwd, "out.bin");
      expect((await cli(["get", "big.bin@1", "-o", out, ...store, ...scope], { cwd })).code).toBe(
        0,
      );
      expect(Buffer.compare(await readFile(out), bytes)).toBe(0);
      expect((await cliJson(["info", "notes/small.txt@2", ...store, ...scope], { cwd })).code).toBe(
        3,
      );

      // The same bucket under another prefix is another store.
      const other = ["--store", `gcs://${bucket}/team/dev`, "--gcs-endpoint", endpoint];
      expect(
        (await cliJson<{ items: string[] }>(["ls", ...other, ...scope], { cwd })).body.items,
      ).toEqual([]);

      const dry = await cliJson<{ confirm: string }>(["rm-scope", ...store, ...scope], { cwd });
      expect(dry.body).toMatchObject({ dryRun: true, names: 2, versions: 2 });
      const done = await cliJson(["rm-scope", "--confirm", dry.body.confirm, ...store, ...scope], {
        cwd,
      });
      expect(done).toMatchObject({ code: 0, body: { dryRun: false, names: 2 } });
      expect((await cliJson(["stats", ...store, ...scope], { cwd })).body).toMatchObject({
        names: 0,
        bytes: 0,
      });
    });
  });

  it("a bucket that does not exist is unavailable, exit 6", async () => {
    const endpoint = gcsEndpoint();
    await withTempDir(async (cwd) => {
      const result = await cliJson(
        [
          "ls",
          "--store",
          `gcs://missing-${randomUUID()}`,
          "--gcs-endpoint",
          endpoint,
          "--app",
          "a",
        ],
        { cwd },
      );
      expect(result).toMatchObject({ code: 6, body: { error: { code: "unavailable" } } });
    });
  });
});
