import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, parseStoreUri } from "../src/store.js";
import { cliJson, withTempDir } from "./support/cli.js";
import {
  countOf,
  type Expectation,
  expectHolds,
  SCOPE_ARGS,
  seedSource,
} from "./support/copy-fixture.js";
import { copyKilledAfter } from "./support/killed-run.js";
import { databaseUrl, s3Endpoint } from "./support/servers.js";

// `artifact-kit copy` over real stores: fs -> postgres -> s3 -> fs, each hop killed with
// SIGKILL once its progress reports a third of the versions copied, then rerun to the end.
// COPY_VERSIONS sets how many versions are put on the source (120 by default; deleting every
// fifth version of one name per scope leaves about 4% fewer live). The 10,000 is
// `COPY_VERSIONS=10000 npx vitest run test/copy.test.ts`: 9,601 live versions per hop, 26 min
// on the 2-core development machine at load average 35 (2026-12-02).
const COUNT = Number(process.env.COPY_VERSIONS ?? 120);

interface CopySummaryBody {
  total: number;
  copied: number;
  skipped: number;
  failed: number;
  vanished: number;
  renumbered: number;
}

let env: NodeJS.ProcessEnv;
const saved = { ...process.env };
beforeAll(async () => {
  const s3 = {
    AWS_ENDPOINT_URL_S3: s3Endpoint(),
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: "test",
    AWS_SECRET_ACCESS_KEY: "test",
  };
  env = { ...process.env, ...s3 };
  // The test opens the stores itself too, through the CLI's openStore (the SDK's environment).
  Object.assign(process.env, s3);
});
afterAll(() => {
  process.env = saved;
});

async function expectStoreHolds(uri: string, expected: Expectation): Promise<void> {
  const service = await openStore(parseStoreUri(uri));
  try {
    await expectHolds(service, expected);
  } finally {
    await service.close();
  }
}

describe("artifact-kit copy fs -> postgres -> s3 -> fs", () => {
  it(
    `copies ${COUNT} versions through every hop, each hop killed midway and rerun`,
    async () => {
      await withTempDir(async (cwd) => {
        const bucket = `copy-${randomUUID()}`;
        await new S3Client({ endpoint: s3Endpoint(), forcePathStyle: true }).send(
          new CreateBucketCommand({ Bucket: bucket }),
        );
        const schema = new URL(databaseUrl());
        schema.searchParams.set("schema", `copy_${randomUUID().replaceAll("-", "")}`);
        schema.password = "not-printed"; // the server trusts the test's user; never shown
        const stores = [
          `fs:${join(cwd, "source")}`,
          schema.href,
          `s3://${bucket}/moved`,
          `fs:${join(cwd, "back")}`,
        ];
        const seeding = await openStore(parseStoreUri(stores[0] as string), { create: true });
        const expected = await seedSource(seeding, COUNT).finally(() => seeding.close());
        const total = countOf(expected);
        const killAfter = Math.floor(total / 3);
        for (const [hop, [from, to]] of [
          [stores[0], stores[1]],
          [stores[1], stores[2]],
          [stores[2], stores[3]],
        ].entries()) {
          const args = ["copy", from as string, to as string, ...SCOPE_ARGS];
          const killed = await copyKilledAfter(args, killAfter, { cwd, env });
          expect(killed.signal, killed.stderr).toBe("SIGKILL");
          const rerun = await cliJson<CopySummaryBody>([...args, "--progress", "none"], {
            cwd,
            env,
          });
          expect(rerun.code, rerun.stderr).toBe(0);
          expect(rerun.body).toMatchObject({ total, failed: 0, vanished: 0 });
          expect(JSON.stringify(rerun.body) + rerun.stderr + killed.stderr).not.toContain(
            "not-printed",
          );
          // Whatever the killed run published (its lines name at least killAfter) is found.
          expect(rerun.body.skipped).toBeGreaterThanOrEqual(killAfter);
          expect(rerun.body.copied + rerun.body.skipped).toBe(total);
          // The source's deletes left gaps: the first target numbers its copies 1, 2, 3, ...
          // (Later hops may renumber too: a put cut short by the kill may burn a version.)
          if (hop === 0) expect(rerun.body.renumbered).toBeGreaterThan(0);
          await expectStoreHolds(to as string, expected);
        }
      });
    },
    Math.max(600_000, COUNT * 300),
  );
});
