import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Scope } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { S3ArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newClient } from "./support/server.js";

const scope: Scope = { kind: "app", app: "race" };
const worker = fileURLToPath(new URL("./support/put-worker.mjs", import.meta.url));

async function allVersions(service: S3ArtifactService, name: string): Promise<number[]> {
  return (await service.listVersions(scope, name)).items.map((meta) => meta.version);
}

describe("racing puts to one name", () => {
  it("two service instances get distinct versions and lose nothing", async () => {
    const bucket = await freshBucket();
    const instances = [0, 1].map(
      () => new S3ArtifactService({ client: newClient(), bucket, maxPutAttempts: 32 }),
    );
    const metas = await Promise.all(
      instances.flatMap((service, i) =>
        Array.from({ length: 8 }, (_, j) =>
          service.put(scope, "shared", new TextEncoder().encode(`${i}:${j}`)),
        ),
      ),
    );
    const versions = metas.map((meta) => meta.version);
    expect(new Set(versions).size).toBe(16);
    const observer = instances[0] as S3ArtifactService;
    expect(await allVersions(observer, "shared")).toEqual([...versions].sort((a, b) => a - b));
    for (const meta of metas) {
      const artifact = await observer.get(scope, "shared", { version: meta.version });
      expect(artifact.sha256).toBe(meta.sha256);
    }
  });

  it("two OS processes get distinct versions and lose nothing", async () => {
    const bucket = await freshBucket();
    const run = () =>
      promisify(execFile)(process.execPath, [worker, endpoint(), bucket, "shared", "6"]);
    const outputs = await Promise.all([run(), run()]);
    const versions = outputs.flatMap(({ stdout }) => JSON.parse(stdout) as number[]);
    expect(new Set(versions).size).toBe(12);
    const observer = new S3ArtifactService({ client: newClient(), bucket });
    expect(await allVersions(observer, "shared")).toEqual([...versions].sort((a, b) => a - b));
  });
});
