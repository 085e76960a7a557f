import { expect } from "vitest";
import type { ShardFactory } from "../shard.js";
import { law, type RouterContext, type RouterLaw } from "./context.js";
import { appScope, bytes, ScriptedShards } from "./scripted-shards.js";

// listScopes of an exact-scope router: it keeps no listing of its own, so it asks about every
// scope a worker was ever opened for: the factory's scopes() when it has them, else each scope
// the router opened since it started, reclaimed or not.

const apps = (ids: readonly string[]) => ids.map(appScope);

/**
 * A restarted router lists what was written before it (the factory remembers, not the
 * router), also more scopes than it may hold workers for: each probe reclaims another's.
 */
async function restartedRouterLists({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const first = router(shards);
  for (const app of ["a", "b"]) await first.put(appScope(app), "x", bytes(app));
  await first.close();
  const second = router(shards, { maxActiveScopes: 1 });
  expect((await second.listScopes({ kind: "app" })).items).toEqual(apps(["a", "b"]));
  await second.put(appScope("c"), "x", bytes("c"));
  expect((await second.listScopes({ kind: "app" })).items).toEqual(apps(["a", "b", "c"]));
}

/** Without the factory's scopes(), a scope whose worker was reclaimed is still listed. */
async function reclaimedScopesListed({ router }: RouterContext) {
  const shards = new ScriptedShards("durable");
  const forgetful: ShardFactory = {
    capabilities: shards.capabilities,
    open: (shard) => shards.open(shard),
  };
  const service = router(forgetful, { maxActiveScopes: 1 });
  for (const app of ["a", "b", "c"]) await service.put(appScope(app), "x", bytes(app));
  expect(service.status().evictions).toBe(2);
  expect((await service.listScopes({ kind: "app" })).items).toEqual(apps(["a", "b", "c"]));
}

export const LISTING_LAWS: readonly RouterLaw[] = [
  law(
    "scope listing",
    "a restarted exact-scope router lists the scopes written before it, more than maxActiveScopes",
    restartedRouterLists,
  ),
  law(
    "scope listing",
    "without the factory's scopes(), a scope whose worker was reclaimed is still listed",
    reclaimedScopesListed,
  ),
];
