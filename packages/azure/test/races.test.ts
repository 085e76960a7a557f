import { fileURLToPath } from "node:url";
import type { Scope } from "@artifact-kit/core";
import { putFromProcesses } from "@artifact-kit/fault-trials";
import { describe, expect, it } from "vitest";
import { AzureArtifactService } from "../src/index.js";
import { connectionString, containerClient, freshContainer } from "./support/server.js";

const scope: Scope = { kind: "app", app: "race" };
const worker = fileURLToPath(new URL("./support/put-worker.mjs", import.meta.url));

async function allVersions(service: AzureArtifactService, name: string): Promise<number[]> {
  return (await service.listVersions(scope, name)).items.map((meta) => meta.version);
}

describe("racing puts to one name", () => {
  it("two service instances get distinct versions and lose nothing", async () => {
    const { containerName } = await freshContainer();
    const instances = [0, 1].map(
      () => new AzureArtifactService({ container: containerClient(containerName) }),
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
    const observer = instances[0] as AzureArtifactService;
    expect(await allVersions(observer, "shared")).toEqual([...versions].sort((a, b) => a - b));
    for (const meta of metas) {
      const artifact = await observer.get(scope, "shared", { version: meta.version });
      expect(artifact.sha256).toBe(meta.sha256);
    }
  });

  // Contention on one name is ordinary (parallel tool calls): no put may be refused for it.
  it.each([
    [4, 8],
    [8, 8],
  ])(
    "%i OS processes x %i puts: every put succeeds, with distinct versions",
    async (processes, puts) => {
      const { containerName } = await freshContainer();
      const outcomes = await putFromProcesses(
        worker,
        { endpoint: connectionString(), bucket: containerName, name: "shared" },
        processes,
        puts,
      );
      expect(outcomes.filter((outcome) => outcome.version === undefined)).toEqual([]);
      const versions = outcomes.map((outcome) => outcome.version as number);
      expect(versions).toHaveLength(processes * puts);
      expect(new Set(versions).size).toBe(processes * puts);
      const observer = new AzureArtifactService({ container: containerClient(containerName) });
      expect(await allVersions(observer, "shared")).toEqual([...versions].sort((a, b) => a - b));
    },
    // Puts carry the longest deadline (see put-worker.mjs); a slow machine only makes them wait.
    330_000,
  );
});
