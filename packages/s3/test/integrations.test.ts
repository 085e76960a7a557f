import { randomUUID } from "node:crypto";
import { runInInvocationScope, toAdkArtifactService } from "@artifact-kit/adk";
import { ShardedArtifactService } from "@artifact-kit/sharded";
import { beforeAll, describe, expect, test } from "vitest";
import { S3ArtifactService } from "../src/index.js";
import { freshBucket, newClient } from "./support/server.js";

// The adapter under the other layers, through their public APIs only, against the real
// server: the sharded router (a worker per scope, each its own S3ArtifactService with its
// own client, as on another host) and the ADK bridge.
let bucket: string;
beforeAll(async () => {
  bucket = await freshBucket();
});

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);
/** A store of its own in the shared bucket: every test starts empty. */
const freshPrefix = () => randomUUID();
const openWorker = (prefix: string) => () =>
  S3ArtifactService.open({ client: newClient(), bucket, prefix });

describe("the sharded router over s3", () => {
  test("reclaimed exact_scope workers reopen the bucket: data intact, versions never reused", async () => {
    const prefix = freshPrefix();
    const probe = await openWorker(prefix)();
    const capabilities = probe.capabilities();
    await probe.close();
    const router = new ShardedArtifactService(
      { capabilities, open: openWorker(prefix) },
      { strategy: "exact_scope", maxActiveScopes: 2, idleScopeTimeoutMs: 1 },
    );
    try {
      const scopes = ["a", "b", "c"].map((app) => ({ kind: "app", app }) as const);
      for (const scope of scopes) {
        await router.put(scope, "n", bytes(`${scope.app}1`));
        await router.put(scope, "n", bytes(`${scope.app}2`));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // Three scopes through two workers: at least one was closed and opened again.
      expect(router.status().evictions).toBeGreaterThan(0);
      for (const scope of scopes) {
        expect(text((await router.get(scope, "n")).data)).toBe(`${scope.app}2`);
        await router.delete(scope, "n", "all");
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // A worker that never saw the deleted versions still continues above them: the
      // allocations in the bucket, not an instance's memory, keep versions from reuse.
      for (const scope of scopes) {
        expect((await router.put(scope, "n", bytes("again"))).version).toBe(3);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      // The workers wrote through to the bucket every other host sees.
      const outside = new S3ArtifactService({ client: newClient(), bucket, prefix });
      const versions = await outside.listVersions({ kind: "app", app: "a" }, "n");
      expect(versions.items.map((meta) => meta.version)).toEqual([3]);
      await outside.close();
    } finally {
      await router.close();
    }
  });

  test("cold routes beyond maxRouterQueue are overloaded and open no worker", async () => {
    const prefix = freshPrefix();
    const opened: number[] = [];
    const open = openWorker(prefix);
    const unopened = new S3ArtifactService({ client: newClient(), bucket, prefix });
    const capabilities = unopened.capabilities();
    await unopened.close();
    const router = new ShardedArtifactService(
      {
        capabilities,
        open: async () => {
          opened.push(opened.length);
          return open();
        },
      },
      { maxConcurrentOpens: 1, maxRouterQueue: 2 },
    );
    try {
      // Issued in one tick: each open probes the server, so none is done when the third comes.
      const first = router.put({ kind: "app", app: "a" }, "x", bytes("a"));
      const second = router.put({ kind: "app", app: "b" }, "x", bytes("b"));
      const third = router.put({ kind: "app", app: "c" }, "x", bytes("c"));
      await expect(third).rejects.toMatchObject({
        code: "overloaded",
        detail: { limit: "max_router_queue", bound: 2 },
      });
      await expect(Promise.all([first, second])).resolves.toMatchObject([
        { version: 1 },
        { version: 1 },
      ]);
      expect(opened).toHaveLength(2);
      // The refused put changed nothing: its scope is empty, and it is admitted once drained.
      await expect(router.listNames({ kind: "app", app: "c" })).resolves.toMatchObject({
        items: [],
      });
      await expect(router.put({ kind: "app", app: "c" }, "x", bytes("c"))).resolves.toMatchObject({
        version: 1,
      });
    } finally {
      await router.close();
    }
  });
});

/** Two instances on one fresh store, as two hosts would be, each behind its own bridge. */
async function twoHosts() {
  const prefix = freshPrefix();
  const firstService = await openWorker(prefix)();
  const secondService = await openWorker(prefix)();
  return {
    first: toAdkArtifactService(firstService),
    second: toAdkArtifactService(secondService),
    firstService,
    close: () => Promise.all([firstService.close(), secondService.close()]),
  };
}

describe("the ADK bridge over s3", () => {
  const key = { appName: "bot", userId: "ada", sessionId: "s1" };

  test("what one instance saves, another reads in the same scopes: session files and user: files", async () => {
    const { first: writer, second: reader, firstService: service, close } = await twoHosts();
    const saves = ["one", "two"].map((text) => ({
      ...key,
      filename: "notes.txt",
      artifact: { text },
    }));
    for (const [index, save] of saves.entries()) {
      expect(await writer.saveArtifact(save)).toBe(index);
    }
    await writer.saveArtifact({ ...key, filename: "user:profile.txt", artifact: { text: "me" } });
    // ADK counts versions from 0; the adapter from 1, in the session's own scope.
    expect(await reader.listVersions({ ...key, filename: "notes.txt" })).toEqual([0, 1]);
    const first = await reader.loadArtifact({ ...key, filename: "notes.txt", version: 0 });
    expect(first).toMatchObject({ text: "one" });
    const session = { kind: "session", app: "bot", user: "ada", session: "s1" } as const;
    expect((await service.listVersions(session, "notes.txt")).items).toMatchObject([
      { version: 1 },
      { version: 2 },
    ]);
    // user: files live in the user's scope, so every session of that user lists them.
    expect(await reader.listArtifactKeys(key)).toEqual(["notes.txt", "user:profile.txt"]);
    expect(await reader.listArtifactKeys({ ...key, sessionId: "s2" })).toEqual([
      "user:profile.txt",
    ]);
    expect((await service.listNames({ kind: "user", app: "bot", user: "ada" })).items).toEqual([
      "profile.txt",
    ]);
    await close();
  });

  test("a deleted artifact's versions are never handed out again, by any instance", async () => {
    const { first, second, close } = await twoHosts();
    await first.saveArtifact({ ...key, filename: "a.txt", artifact: { text: "one" } });
    await first.saveArtifact({ ...key, filename: "a.txt", artifact: { text: "two" } });
    await first.deleteArtifact({ ...key, filename: "a.txt" });
    expect(await first.loadArtifact({ ...key, filename: "a.txt" })).toBeUndefined();
    expect(await first.listVersions({ ...key, filename: "a.txt" })).toEqual([]);
    // Another instance (another host) has no memory of versions 0 and 1.
    expect(
      await second.saveArtifact({ ...key, filename: "a.txt", artifact: { text: "three" } }),
    ).toBe(2);
    expect(await first.loadArtifact({ ...key, filename: "a.txt", version: 0 })).toBeUndefined();
    expect(await first.loadArtifact({ ...key, filename: "a.txt" })).toMatchObject({
      text: "three",
    });
    await close();
  });

  test("code bound to one invocation reaches only its own app, user and session", async () => {
    const service = await openWorker(freshPrefix())();
    const adk = toAdkArtifactService(service);
    await adk.saveArtifact({ ...key, filename: "mine.txt", artifact: { text: "mine" } });
    const other = { ...key, userId: "eve" };
    await adk.saveArtifact({ ...other, filename: "hers.txt", artifact: { text: "hers" } });
    await runInInvocationScope(key, async () => {
      expect(await adk.loadArtifact({ ...key, filename: "mine.txt" })).toMatchObject({
        text: "mine",
      });
      await expect(adk.loadArtifact({ ...other, filename: "hers.txt" })).rejects.toMatchObject({
        code: "capability_denied",
        detail: { field: "userId" },
      });
      await expect(
        adk.saveArtifact({ ...key, sessionId: "s2", filename: "x.txt", artifact: { text: "x" } }),
      ).rejects.toMatchObject({ code: "capability_denied", detail: { field: "sessionId" } });
      await expect(adk.deleteArtifact({ ...other, filename: "hers.txt" })).rejects.toMatchObject({
        code: "capability_denied",
      });
    });
    // The refused calls changed nothing in the bucket.
    expect(await adk.listArtifactKeys(other)).toEqual(["hers.txt"]);
    expect(await adk.listArtifactKeys({ ...key, sessionId: "s2" })).toEqual([]);
    await service.close();
  });
});
