import type { ConformanceCheck } from "@artifact-kit/core/conformance";
import { describe, it } from "vitest";
import { ADMISSION_LAWS } from "./admission-laws.js";
import { bindRouterLaw, type RouterLaw, type ShardedRouterConformanceOptions } from "./context.js";
import { FAILURE_LAWS } from "./failure-laws.js";
import { LISTING_LAWS } from "./listing-laws.js";
import { RECLAIM_LAWS } from "./reclaim-laws.js";
import { ROUTING_LAWS } from "./routing-laws.js";
import { SCALE_LAWS } from "./scale-laws.js";
import { TIME_LAWS } from "./time-laws.js";
import { TRANSFER_CALL_LAWS } from "./transfer-call-laws.js";
import { TRANSFER_LAWS } from "./transfer-laws.js";

export type {
  FakedClock,
  RouterContext,
  RouterLaw,
  RouterUnderTest,
  ShardedRouterConformanceOptions,
} from "./context.js";
export { describeRouterOverMemory } from "./memory-subjects.js";
export { expectOwnData, fillScopes, manyScopes } from "./scale-laws.js";
export {
  appScope,
  bytes,
  type Deferred,
  deferred,
  type Hook,
  ScriptedShards,
  type ScriptedTransfer,
} from "./scripted-shards.js";

/**
 * The router kit: what a router adds to the artifact-service kit (which checks the contract it
 * serves). Admission, reclamation, timers at their edges, worker failure, close, scope
 * listing, transfer holds, scale and two routers on one backend, each law over the kit's
 * instrumented workers.
 */
export const ROUTER_LAWS: readonly RouterLaw[] = Object.freeze([
  ...ROUTING_LAWS,
  ...ADMISSION_LAWS,
  ...RECLAIM_LAWS,
  ...TIME_LAWS,
  ...FAILURE_LAWS,
  ...LISTING_LAWS,
  ...TRANSFER_LAWS,
  ...TRANSFER_CALL_LAWS,
  ...SCALE_LAWS,
]);

/** Every router law bound to `options` (only those whose name has `options.only`). */
export function shardedRouterChecks(options: ShardedRouterConformanceOptions): ConformanceCheck[] {
  return ROUTER_LAWS.map((routerLaw) => bindRouterLaw(routerLaw, options)).filter(
    (check) => options.only === undefined || check.name.includes(options.only),
  );
}

/** Registers the router kit as a vitest suite. */
export function describeShardedRouter(
  name: string,
  options: ShardedRouterConformanceOptions,
): void {
  describe(`sharded router conformance: ${name}`, () => {
    for (const check of shardedRouterChecks(options)) {
      it(check.name, { timeout: options.testTimeoutMs ?? 120_000 }, async () => {
        await check.run();
      });
    }
  });
}
