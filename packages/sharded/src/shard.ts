import { join } from "node:path";
import {
  type ArtifactService,
  type Capabilities,
  type Scope,
  scopeDigest,
  scopeKey,
} from "@artifact-kit/core";
import type { RoutingStrategy } from "./options.js";

/** What one worker serves: one exact scope, or every scope (the shared worker). */
export interface Shard {
  /** The scope this worker serves, or undefined for the shared worker. */
  readonly scope: Scope | undefined;
  /**
   * Deterministic and path-safe: the SHA-256 scope digest, or `shared`. The same scope
   * gets the same id in every process and after every restart.
   */
  readonly id: string;
}

/**
 * Opens the adapter instance (the worker) for one shard. `capabilities` is what every
 * worker reports; the router derives its own contract from it and checks each worker against it.
 */
export interface ShardFactory {
  readonly capabilities: Capabilities;
  open(shard: Shard): ArtifactService | Promise<ArtifactService>;
  /**
   * Every scope an exact-scope worker has been opened for, in this process or before it,
   * emptied ones included: what the router's listScopes asks about. A durable factory needs
   * it; without it the router knows only the scopes it opened itself since it started, which
   * for volatile workers (never reclaimed) is every scope there is.
   */
  scopes?(): Promise<readonly Scope[]>;
}

/** The one worker of the `shared` strategy. */
export const SHARED_SHARD: Shard = Object.freeze({ scope: undefined, id: "shared" });

/** The key the router tracks the worker for `scope` by (cheap: it runs on every call). */
export function routeKey(strategy: RoutingStrategy, scope: Scope): string {
  return strategy === "shared" ? SHARED_SHARD.id : scopeKey(scope);
}

/** The shard that serves `scope` (hashed only when a worker is opened). */
export function shardOf(strategy: RoutingStrategy, scope: Scope): Shard {
  return strategy === "shared" ? SHARED_SHARD : Object.freeze({ scope, id: scopeDigest(scope) });
}

/** The sub-directory of `root` that holds one shard's durable data: `root/shards/<id>`. */
export function shardRoot(root: string, shard: Shard): string {
  return join(root, "shards", shard.id);
}
