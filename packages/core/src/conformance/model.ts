import { scopeKey } from "../scope.js";
import type { JsonObject, Scope } from "../types.js";

export interface ModelVersion {
  version: number;
  /** The kit's own copy of the bytes it sent: the adapter never sees this buffer. */
  data: Uint8Array;
  mimeType: string;
  metadata: JsonObject;
  /** As the put reply stated it; every later read must state the same. */
  createdAt: number;
  /** The idempotency key the version was put with, if any. */
  idempotencyKey?: string;
}

interface ModelName {
  highWater: number;
  live: ModelVersion[];
  /** Every idempotency key put here, bound for good to the version it published. */
  keys: Map<string, ModelVersion>;
}

const utf8 = new TextEncoder();

/** UTF-8 byte order by an independent oracle (Buffer.compare), not by core's comparator. */
export function byUtf8Bytes(a: string, b: string): number {
  return Buffer.compare(utf8.encode(a), utf8.encode(b));
}

/**
 * What a command sequence did to each artifact, so the kit can measure its own generators:
 * did one artifact see puts, a delete and a read while two or more versions were live?
 */
export class ModelCoverage {
  /** Artifacts read (get, head or listed) while two or more of their versions were live. */
  readonly readWithTwoLive = new Set<string>();
  /** Artifacts that lost a version to a delete. */
  readonly deletedFrom = new Set<string>();
  largestPut = 0;
  commands = 0;
  /** Puts under a bound key, by what the store had to answer. */
  readonly keyReplays = { same: 0, differing: 0, deleted: 0 };

  /** True when one artifact was put to, deleted from and read with two versions live. */
  get multiStep(): boolean {
    for (const key of this.readWithTwoLive) if (this.deletedFrom.has(key)) return true;
    return false;
  }
}

/** The pure reference model the kit checks every adapter against. */
export class ReferenceModel {
  readonly #scopes = new Map<string, Map<string, ModelName>>();
  readonly coverage = new ModelCoverage();

  #entry(scope: Scope, name: string): ModelName | undefined {
    return this.#scopes.get(scopeKey(scope))?.get(name);
  }

  highWater(scope: Scope, name: string): number {
    return this.#entry(scope, name)?.highWater ?? 0;
  }

  live(scope: Scope, name: string): readonly ModelVersion[] {
    return this.#entry(scope, name)?.live ?? [];
  }

  latest(scope: Scope, name: string): ModelVersion | undefined {
    return this.live(scope, name).at(-1);
  }

  find(scope: Scope, name: string, version: number): ModelVersion | undefined {
    return this.live(scope, name).find((v) => v.version === version);
  }

  /** The version `key` published under (scope, name), live or deleted: keys are never released. */
  keyBinding(scope: Scope, name: string, key: string): ModelVersion | undefined {
    return this.#entry(scope, name)?.keys.get(key);
  }

  record(scope: Scope, name: string, version: ModelVersion): void {
    const key = scopeKey(scope);
    let names = this.#scopes.get(key);
    if (!names) {
      names = new Map();
      this.#scopes.set(key, names);
    }
    const entry: ModelName = names.get(name) ?? { highWater: 0, live: [], keys: new Map() };
    entry.highWater = version.version;
    entry.live.push(version);
    if (version.idempotencyKey !== undefined) entry.keys.set(version.idempotencyKey, version);
    names.set(name, entry);
    this.coverage.largestPut = Math.max(this.coverage.largestPut, version.data.byteLength);
  }

  /** Removes what `selector` names and returns how many versions went. */
  delete(scope: Scope, name: string, selector: number | "latest" | "all"): number {
    const entry = this.#entry(scope, name);
    if (!entry) return 0;
    const before = entry.live.length;
    if (selector === "all") entry.live = [];
    else if (selector === "latest") entry.live = entry.live.slice(0, -1);
    else entry.live = entry.live.filter((v) => v.version !== selector);
    const removed = before - entry.live.length;
    if (removed > 0) this.coverage.deletedFrom.add(JSON.stringify([scopeKey(scope), name]));
    return removed;
  }

  /** Notes a read of (scope, name) for the coverage measure. */
  noteRead(scope: Scope, name: string): void {
    if (this.live(scope, name).length >= 2) {
      this.coverage.readWithTwoLive.add(JSON.stringify([scopeKey(scope), name]));
    }
  }

  names(scope: Scope): string[] {
    const names = this.#scopes.get(scopeKey(scope)) ?? new Map<string, ModelName>();
    return [...names]
      .filter(([, entry]) => entry.live.length > 0)
      .map(([name]) => name)
      .sort(byUtf8Bytes);
  }

  liveCount(scope: Scope): number {
    return this.names(scope).reduce((sum, name) => sum + this.live(scope, name).length, 0);
  }
}
