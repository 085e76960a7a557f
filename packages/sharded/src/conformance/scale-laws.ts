import type { ArtifactService, Scope } from "@artifact-kit/core";
import { expect } from "vitest";
import { memoryShards } from "../memory.js";
import type { RoutingStrategy } from "../options.js";
import type { Shard, ShardFactory } from "../shard.js";
import { law, type RouterContext, type RouterLaw } from "./context.js";
import { appScope, bytes, ScriptedShards } from "./scripted-shards.js";

// Scale and handles: thousands of scopes (past 256 and 1,024 workers) each routed to its own
// data, through reclamation and across a restart; and two routers on one backend at once,
// each seeing what the other wrote (no router may keep a per-instance copy of a worker's data).

// Past 256 and 1,024 workers (the 257th and 1,025th scope), and a page of 1,000.
const SCOPES = 1_100;

/** Scopes of every kind, with ids that look alike across kinds and by case. */
export function manyScopes(count: number): Scope[] {
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
export async function fillScopes(service: ArtifactService, scopes: readonly Scope[]) {
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
export async function expectOwnData(
  service: ArtifactService,
  scopes: readonly Scope[],
  what: string,
) {
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
 * Workers that trust the router, as an adapter opened for one scope may: each stores every
 * call under the scope it was opened for, whatever the call names. Data then stays apart only
 * if the router never sends a scope to another scope's worker.
 */
function oneScopeWorkers(): ShardFactory {
  const factory = memoryShards();
  return {
    capabilities: factory.capabilities,
    async open(shard: Shard) {
      const store = await factory.open(shard);
      const served = shard.scope as Scope;
      return new Proxy(store, {
        get(target, key) {
          const value = Reflect.get(target, key, target);
          if (typeof value !== "function") return value;
          if (key === "capabilities" || key === "close") return value.bind(target);
          return async (scope: Scope, ...rest: unknown[]) =>
            answeredAs(await value.call(target, served, ...rest), scope);
        },
      });
    },
  };
}

function everyScopeReadsItsOwn(strategy: RoutingStrategy, factory: () => ShardFactory) {
  return async ({ router }: RouterContext) => {
    const scopes = manyScopes(SCOPES);
    const service = router(factory(), { strategy, maxActiveScopes: 5_000 });
    await fillScopes(service, scopes);
    await expectOwnData(service, scopes, strategy);
    expect(service.status().activeScopes).toBe(strategy === "shared" ? 1 : SCOPES);
  };
}

async function throughReclamationAndRestart({ router }: RouterContext) {
  const scopes = manyScopes(SCOPES);
  const shards = new ScriptedShards("durable");
  const options = { maxActiveScopes: 100, maxRouterQueue: 5_000 };
  const first = router(shards, options);
  await fillScopes(first, scopes);
  await expectOwnData(first, scopes, "under reclamation");
  expect(first.status().activeScopes).toBeLessThanOrEqual(100);
  await first.close();
  const restarted = router(shards, options);
  await expectOwnData(restarted, scopes, "after a restart");
}

/** A burst of new durable scopes ten times maxActiveScopes is served without refusal. */
async function burstThroughReclamation({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const service = router(shards, { maxActiveScopes: 100, maxRouterQueue: SCOPES });
  const outcomes = await Promise.allSettled(
    Array.from({ length: SCOPES }, (_, i) => service.put(appScope(`s${i}`), "x", bytes(String(i)))),
  );
  const refusals = outcomes.flatMap((outcome) =>
    outcome.status === "rejected" ? [(outcome.reason as { code?: string }).code] : [],
  );
  expect(refusals).toEqual([]);
  expect(service.status().activeScopes).toBeLessThanOrEqual(100);
}

/**
 * Two routers on one durable backend at once (two processes): each reads what the other
 * wrote, at every step, through workers it keeps open between the writes.
 */
async function twoRoutersOnOneBackend({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const one = router(shards);
  const two = router(shards);
  const scopes = [appScope("a"), { kind: "user", app: "a", user: "u" } as Scope];
  for (const [round, writer, reader] of [
    [1, one, two],
    [2, two, one],
    [3, one, two],
  ] as const) {
    for (const scope of scopes) {
      await writer.put(scope, "x", bytes(`round ${round}`));
      const read = await reader.get(scope, "x");
      expect(Buffer.from(read.data).toString(), `round ${round}`).toBe(`round ${round}`);
      expect((await reader.head(scope, "x")).version).toBe(round);
      const versions = (await reader.listVersions(scope, "x")).items.map((meta) => meta.version);
      expect(Math.max(...versions), `round ${round}: the latest version listed`).toBe(round);
    }
  }
  await one.delete(scopes[0] as Scope, "x", "all");
  await expect(two.get(scopes[0] as Scope, "x")).rejects.toMatchObject({ code: "not_found" });
  expect((await two.listNames(scopes[0] as Scope)).items).toEqual([]);
}

export const SCALE_LAWS: readonly RouterLaw[] = [
  ...(["exact_scope", "shared"] as const).map((strategy) =>
    law(
      "scale",
      `${strategy}: every one of ${SCOPES} scopes reads only its own data`,
      everyScopeReadsItsOwn(strategy, () => memoryShards()),
    ),
  ),
  law(
    "scale",
    `exact_scope over workers that trust the router: every one of ${SCOPES} scopes (past 1,024 workers) reads only its own`,
    everyScopeReadsItsOwn("exact_scope", oneScopeWorkers),
  ),
  law(
    "scale",
    `exact_scope over durable workers: ${SCOPES} scopes through 100 workers, then a restarted router, each reads its own`,
    throughReclamationAndRestart,
  ),
  law(
    "scale",
    "a burst of new durable scopes ten times maxActiveScopes is served without refusal",
    burstThroughReclamation,
  ),
  law(
    "two handles",
    "two routers on one durable backend each read what the other wrote",
    twoRoutersOnOneBackend,
  ),
];
