import { toAdkArtifactService } from "@artifact-kit/adk";
import { ShardedArtifactService } from "@artifact-kit/sharded";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { PostgresArtifactService } from "../src/index.js";
import { freshService } from "./support/database.js";

// The adapter under the other layers, through their public APIs only: the sharded router
// (a worker per scope, each a service on the same schema) and the ADK bridge.
let subject: Awaited<ReturnType<typeof freshService>>;
beforeAll(async () => {
  subject = await freshService();
});
afterAll(async () => {
  await subject.dispose();
});

const bytes = (text: string) => new TextEncoder().encode(text);

describe("the sharded router over postgres", () => {
  test("exact_scope workers on one schema: reclaimed workers reopen the same data", async () => {
    const router = new ShardedArtifactService(
      {
        capabilities: subject.service.capabilities(),
        open: () => PostgresArtifactService.open({ pool: subject.pool, schema: subject.schema }),
      },
      { strategy: "exact_scope", maxActiveScopes: 2, idleScopeTimeoutMs: 1 },
    );
    try {
      const scopes = ["a", "b", "c"].map((app) => ({ kind: "app", app }) as const);
      for (const scope of scopes) {
        await router.put(scope, "n", bytes(scope.app));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // Three scopes through two workers: one was reclaimed and reopened, its data intact.
      for (const scope of scopes) {
        const artifact = await router.get(scope, "n");
        expect(new TextDecoder().decode(artifact.data)).toBe(scope.app);
        expect((await router.put(scope, "n", bytes("again"))).version).toBe(2);
      }
      expect(router.status().evictions).toBeGreaterThan(0);
      // The workers wrote through to the schema every other host sees.
      expect(
        (await subject.service.listVersions({ kind: "app", app: "a" }, "n")).items,
      ).toHaveLength(2);
    } finally {
      await router.close();
    }
  });
});

describe("the ADK bridge over postgres", () => {
  test("save, load, list keys and versions map onto the adapter's scopes", async () => {
    const adk = toAdkArtifactService(subject.service);
    const key = { appName: "bot", userId: "ada", sessionId: "s1" };
    expect(
      await adk.saveArtifact({ ...key, filename: "notes.txt", artifact: { text: "one" } }),
    ).toBe(0);
    await adk.saveArtifact({ ...key, filename: "notes.txt", artifact: { text: "two" } });
    await adk.saveArtifact({ ...key, filename: "user:profile.txt", artifact: { text: "me" } });
    expect(await adk.loadArtifact({ ...key, filename: "notes.txt" })).toMatchObject({
      text: "two",
    });
    expect(await adk.loadArtifact({ ...key, filename: "notes.txt", version: 0 })).toMatchObject({
      text: "one",
    });
    expect(await adk.listArtifactKeys(key)).toEqual(["notes.txt", "user:profile.txt"]);
    expect(await adk.listVersions({ ...key, filename: "notes.txt" })).toEqual([0, 1]);
    const session = { kind: "session", app: "bot", user: "ada", session: "s1" } as const;
    expect((await subject.service.listNames(session)).items).toEqual(["notes.txt"]);
  });
});
