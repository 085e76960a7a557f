import { invalidArgument, validateOptionKeys, validatePositiveInteger } from "@artifact-kit/core";

/** `exact_scope`: one worker per exact app, user or session scope. `shared`: one worker for all. */
export type RoutingStrategy = "exact_scope" | "shared";

export const ROUTING_STRATEGIES: readonly RoutingStrategy[] = Object.freeze([
  "exact_scope",
  "shared",
]);

export interface ShardedArtifactServiceOptions {
  /** How scopes map to workers (default `exact_scope`). */
  strategy?: RoutingStrategy;
  /**
   * Most workers alive at once (default 1,000). A new scope beyond it fails with
   * `max_active_scopes_reached` unless an idle durable worker can be reclaimed.
   */
  maxActiveScopes?: number;
  /** Most cold-route requests waiting for or being given a worker (default 1,000); beyond: `overloaded`. */
  maxRouterQueue?: number;
  /**
   * How long a durable worker may sit idle before the router closes it (1..86,400,000 ms,
   * default 60,000). At `maxActiveScopes`, a new scope does not wait for it: the least
   * recently used durable worker with nothing in flight is reclaimed at once.
   */
  idleScopeTimeoutMs?: number;
  /**
   * How long an open upload or download may go without a call before the router ends it
   * (upload aborted, download cancelled, later calls fail with `timeout`) and lets its worker
   * go (1..86,400,000 ms, default 60,000): a transfer its owner walked away from without
   * `abort()`, `cancel()`, a deadline or a signal never pins a worker for longer.
   */
  transferIdleTimeoutMs?: number;
  /** Workers opened at the same time (default 4). */
  maxConcurrentOpens?: number;
}

export type RouterConfig = Readonly<Required<ShardedArtifactServiceOptions>>;

export const MAX_IDLE_SCOPE_TIMEOUT_MS = 86_400_000;
const TIMEOUT_KEYS = ["idleScopeTimeoutMs", "transferIdleTimeoutMs"] as const;

export const ROUTER_DEFAULTS: RouterConfig = Object.freeze({
  strategy: "exact_scope",
  maxActiveScopes: 1_000,
  maxRouterQueue: 1_000,
  idleScopeTimeoutMs: 60_000,
  transferIdleTimeoutMs: 60_000,
  maxConcurrentOpens: 4,
});

const COUNT_KEYS = ["maxActiveScopes", "maxRouterQueue", "maxConcurrentOpens"] as const;

/** Validates the router's options (unknown keys rejected) and fills in the defaults. */
export function resolveRouterConfig(options: unknown): RouterConfig {
  const given = validateOptionKeys(options, Object.keys(ROUTER_DEFAULTS), "routerOptions");
  const config: Required<ShardedArtifactServiceOptions> = { ...ROUTER_DEFAULTS };
  if (given.strategy !== undefined) {
    if (!ROUTING_STRATEGIES.includes(given.strategy as RoutingStrategy)) {
      throw invalidArgument("strategy", `must be one of ${ROUTING_STRATEGIES.join(", ")}`);
    }
    config.strategy = given.strategy as RoutingStrategy;
  }
  for (const key of COUNT_KEYS) {
    if (given[key] !== undefined) config[key] = validatePositiveInteger(given[key], key);
  }
  for (const key of TIMEOUT_KEYS) {
    if (given[key] === undefined) continue;
    const timeout = validatePositiveInteger(given[key], key);
    if (timeout > MAX_IDLE_SCOPE_TIMEOUT_MS) {
      throw invalidArgument(key, `must be at most ${MAX_IDLE_SCOPE_TIMEOUT_MS}`);
    }
    config[key] = timeout;
  }
  return Object.freeze(config);
}
