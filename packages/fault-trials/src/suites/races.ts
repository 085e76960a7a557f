import { fileURLToPath } from "node:url";
import type { ArtifactService, Scope } from "@artifact-kit/core";
import { describe, expect, it } from "vitest";
import { putFromProcesses } from "../processes.js";

/** What the race suite needs of an object-store adapter and its server. */
export interface RaceBackend {
  /** The server's endpoint, as worker processes reach it. */
  endpoint(): string;
  /** A new, empty bucket on the server; its name. */
  newBucket(): Promise<string>;
  /** A new service instance on `bucket`, with a client of its own (as another host's). */
  open(bucket: string): ArtifactService;
  /** Path of the module that exports `openRaceService` for the worker processes (RaceOpener). */
  opener: string;
}

const scope: Scope = { kind: "app", app: "race" };
const worker = fileURLToPath(new URL("../put-worker.js", import.meta.url));

async function allVersions(service: ArtifactService, name: string): Promise<number[]> {
  return (await service.listVersions(scope, name)).items.map((meta) => meta.version);
}

/** Puts racing for one name, from instances in one process and from many OS processes. */
export function describeRaces(backend: RaceBackend): void {
  describe("racing puts to one name", () => {
    it("two service instances get distinct versions and lose nothing", async () => {
      const bucket = await backend.newBucket();
      const instances = [backend.open(bucket), backend.open(bucket)];
      const metas = await Promise.all(
        instances.flatMap((service, i) =>
          Array.from({ length: 8 }, (_, j) =>
            service.put(scope, "shared", new TextEncoder().encode(`${i}:${j}`)),
          ),
        ),
      );
      const versions = metas.map((meta) => meta.version);
      expect(new Set(versions).size).toBe(16);
      const observer = instances[0] as ArtifactService;
      expect(await allVersions(observer, "shared")).toEqual([...versions].sort((a, b) => a - b));
      for (const meta of metas) {
        const artifact = await observer.get(scope, "shared", { version: meta.version });
        expect(artifact.sha256).toBe(meta.sha256);
      }
    });

    // Contention on one name is ordinary (parallel tool calls): no put may be refused for it.
    // Before puts retried with backoff for as long as their deadline allowed, they gave up
    // after 8 lost races with `overloaded`: 8 x 8 lost 1 to 5 puts in most runs, 16 x 8 lost
    // 7 to 44 of its 128 puts in every run.
    it.each([
      [4, 8],
      [8, 8],
      [16, 8],
    ])(
      "%i OS processes x %i puts: every put succeeds, with distinct versions",
      async (processes, puts) => {
        const bucket = await backend.newBucket();
        const outcomes = await putFromProcesses(
          worker,
          { opener: backend.opener, endpoint: backend.endpoint(), bucket, name: "shared" },
          processes,
          puts,
        );
        expect(outcomes.filter((outcome) => outcome.version === undefined)).toEqual([]);
        const versions = outcomes.map((outcome) => outcome.version as number);
        expect(versions).toHaveLength(processes * puts);
        expect(new Set(versions).size).toBe(processes * puts);
        const observer = backend.open(bucket);
        expect(await allVersions(observer, "shared")).toEqual([...versions].sort((a, b) => a - b));
      },
      // Puts carry the longest deadline (see put-worker.ts); a slow machine only makes them wait.
      330_000,
    );
  });
}
