import type { ArtifactService, Scope } from "@artifact-kit/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  createArtifactRuntime,
  memoryShards,
  type Shard,
  ShardedArtifactService,
  type ShardFactory,
} from "../src/index.js";
import { appScope, bytes, ScriptedShards } from "./fixtures.js";
import { tempRoot } from "./temp.js";

// The router's bounds and timers at their edges: admission exactly at maxActiveScopes under
// concurrent cold routes, idle reclamation and transfer idle timers on a faked clock (one
// millisecond before the edge and at it), and thousands of scopes routed to their own data,
// across a restart too.

afterEach(() => {
  vi.useRealTimers();
});

/** Scopes of every kind, with ids that look alike across kinds and by case. */
function manyScopes(count: number): Scope[] {
  return Array.from({ length: count }, (_, i): Scope => {
    const id = `s${i}`;
    switch (i % 4) {
      case 0:
        return { kind: "app", app: id };
      case 1:
        return { kind: "user", app: id.toUpperCase(), user: id };
      case 2:
        return { kind: "session", app: "app", user: id, session: id };
      default:
        return { kind: "user", app: "app", user: `${id}/x` };
    }
  });
}

/** Writes a name of its own and a shared name into every scope, in parallel batches. */
async function fill(service: ArtifactService, scopes: readonly Scope[]) {
  for (let at = 0; at < scopes.length; at += 100) {
    await Promise.all(
      scopes.slice(at, at + 100).map(async (scope, j) => {
        const i = at + j;
        await service.put(scope, "shared", bytes(`shared ${i}`));
        await service.put(scope, `own-${i}`, bytes(`own ${i}`));
      }),
    );
  }
}

/** Every scope reads exactly its own data back. */
async function expectOwnData(service: ArtifactService, scopes: readonly Scope[], what: string) {
  for (let at = 0; at < scopes.length; at += 100) {
    await Promise.all(
      scopes.slice(at, at + 100).map(async (scope, j) => {
        const i = at + j;
        const shared = await service.get(scope, "shared");
        expect(Buffer.from(shared.data).toString(), `${what}: scope ${i}`).toBe(`shared ${i}`);
        expect((await service.listNames(scope)).items, `${what}: names of scope ${i}`).toEqual([
          `own-${i}`,
          "shared",
        ]);
      }),
    );
  }
}

async function everyScopeReadsItsOwn(
  factory: ShardFactory,
  strategy: "exact_scope" | "shared",
  scopes: readonly Scope[],
) {
  const router = new ShardedArtifactService(factory, { strategy, maxActiveScopes: 5_000 });
  try {
    await fill(router, scopes);
    await expectOwnData(router, scopes, strategy);
  } finally {
    await router.close();
  }
}

/** Gives `meta`-like replies (and page items) the scope the caller asked about. */
function answeredAs(reply: unknown, scope: Scope): unknown {
  if (typeof reply !== "object" || reply === null) return reply;
  const page = reply as { items?: unknown[] };
  if (Array.isArray(page.items)) {
    return { ...page, items: page.items.map((item) => answeredAs(item, scope)) };
  }
  return "scope" in reply ? { ...reply, scope } : reply;
}

/**
 * A worker that trusts the router: it serves one scope, so it stores every call under that
 * scope whatever the call names, and answers with the scope asked about.
 */
function oneScopeWorker(store: ArtifactService, served: Scope): ArtifactService {
  return new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      if (key === "capabilities" || key === "close") return value.bind(target);
      return async (scope: Scope, ...rest: unknown[]) =>
        answeredAs(await value.call(target, served, ...rest), scope);
    },
  });
}

/** One-scope workers; the mutant, past `recycledAfter` shards, hands out the first ones again. */
function oneScopeWorkers(recycledAfter = Number.POSITIVE_INFINITY): ShardFactory {
  const factory = memoryShards();
  const workers: ArtifactService[] = [];
  return {
    capabilities: factory.capabilities,
    async open(shard: Shard) {
      const worker =
        workers.length >= recycledAfter
          ? (workers[workers.length % recycledAfter] as ArtifactService)
          : oneScopeWorker(await factory.open(shard), shard.scope as Scope);
      workers.push(worker);
      return worker;
    },
  };
}

describe("admission at its edge", () => {
  for (const bound of [1, 3]) {
    it(`of ${bound + 3} concurrent cold routes, exactly maxActiveScopes = ${bound} are admitted`, async () => {
      const shards = new ScriptedShards("volatile");
      const router = new ShardedArtifactService(shards, { maxActiveScopes: bound });
      const outcomes = await Promise.allSettled(
        Array.from({ length: bound + 3 }, (_, i) => router.put(appScope(`c${i}`), "x", bytes("x"))),
      );
      const admitted = outcomes.filter((outcome) => outcome.status === "fulfilled");
      expect(admitted).toHaveLength(bound);
      for (const outcome of outcomes) {
        if (outcome.status === "rejected") {
          expect(outcome.reason).toMatchObject({ code: "max_active_scopes_reached" });
        }
      }
      expect(router.status().activeScopes).toBe(bound);
      expect(shards.opened).toHaveLength(bound);
      await router.close();
    });
  }
});

describe("timers at their edge, on a faked clock", () => {
  const T = 1000;

  it("an idle durable worker is never closed before idleScopeTimeoutMs, and is by twice that", async () => {
    vi.useFakeTimers({
      toFake: ["Date", "setTimeout", "clearTimeout", "setInterval", "clearInterval"],
    });
    const shards = new ScriptedShards("durable");
    const router = new ShardedArtifactService(shards, { idleScopeTimeoutMs: T });
    // Last used half-way to the first sweep: the sweep at T finds it idle for T/2 only.
    await vi.advanceTimersByTimeAsync(T / 2);
    await router.put(appScope("a"), "x", bytes("a"));
    await vi.advanceTimersByTimeAsync(T - 1);
    expect(shards.workers[0]?.closed, "closed before it was idle for T").toBe(false);
    await vi.advanceTimersByTimeAsync(T / 2 + 1);
    expect(shards.workers[0]?.closed, "still open once idle for 1.5 T").toBe(true);
    expect(router.status()).toMatchObject({ activeScopes: 0, evictions: 1 });
    await expect(router.get(appScope("a"), "x")).resolves.toMatchObject({ version: 1 });
    await router.close();
  });

  it("a transfer idle for transferIdleTimeoutMs - 1 goes on; idle for transferIdleTimeoutMs it ends", async () => {
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    const shards = new ScriptedShards("durable", "native");
    const router = new ShardedArtifactService(shards, { transferIdleTimeoutMs: T });
    const upload = await router.openUpload(appScope("a"), "x");
    for (let round = 0; round < 3; round++) {
      await vi.advanceTimersByTimeAsync(T - 1);
      await upload.write(bytes(`chunk ${round}`));
    }
    await vi.advanceTimersByTimeAsync(T);
    await expect(upload.write(bytes("late"))).rejects.toMatchObject({
      code: "timeout",
      detail: { limit: "transfer_idle_timeout_ms", bound: T },
    });
    await expect(router.head(appScope("a"), "x")).rejects.toMatchObject({ code: "not_found" });
    await router.close();
  });
});

describe("thousands of scopes", () => {
  const scopes = manyScopes(3_000);

  for (const strategy of ["exact_scope", "shared"] as const) {
    it(
      `${strategy}: every one of 3,000 scopes reads only its own data`,
      () => everyScopeReadsItsOwn(memoryShards(), strategy, scopes),
      120_000,
    );
  }

  // The law above rejects a router whose workers mix scopes only past 1,024 of them, which
  // no law with a few dozen scopes can see.
  it("rejects one-scope workers recycled past 1,024 shards (the 1,025th scope lands on the first's)", async () => {
    // The same workers, never recycled, pass: only the recycling is wrong.
    await everyScopeReadsItsOwn(oneScopeWorkers(), "exact_scope", scopes);
    await expect(
      everyScopeReadsItsOwn(oneScopeWorkers(1024), "exact_scope", scopes),
    ).rejects.toThrow();
  }, 120_000);

  it("exact_scope over durable workers: 3,000 scopes through 200 workers, then a restarted router, each reads its own", async () => {
    const shards = new ScriptedShards("durable");
    const options = { maxActiveScopes: 200, maxRouterQueue: 5_000 };
    const first = new ShardedArtifactService(shards, options);
    await fill(first, scopes);
    await expectOwnData(first, scopes, "under reclamation");
    await first.close();
    const restarted = new ShardedArtifactService(shards, options);
    await expectOwnData(restarted, scopes, "after a restart");
    await restarted.close();
  }, 120_000);

  it("durable_local: 120 scopes on disk, routed to the same shard after a restart", async () => {
    const root = await tempRoot();
    const some = scopes.slice(0, 120);
    const open = () => createArtifactRuntime("durable_local", { root, maxActiveScopes: 40 });
    const first = await open();
    await fill(first, some);
    await first.close();
    const restarted = await open();
    await expectOwnData(restarted, some, "durable_local after a restart");
    await restarted.close();
  }, 120_000);
});
