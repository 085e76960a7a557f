import { scopeKey } from "../scope.js";
import type { JsonObject, Scope } from "../types.js";

export interface ModelVersion {
  version: number;
  data: Uint8Array;
  mimeType: string;
  metadata: JsonObject;
}

interface ModelName {
  highWater: number;
  live: ModelVersion[];
}

const utf8 = new TextEncoder();

/** UTF-8 byte order by an independent oracle (Buffer.compare), not by core's comparator. */
export function byUtf8Bytes(a: string, b: string): number {
  return Buffer.compare(utf8.encode(a), utf8.encode(b));
}

/** The pure reference model the kit checks every adapter against. */
export class ReferenceModel {
  readonly #scopes = new Map<string, Map<string, ModelName>>();

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

  record(scope: Scope, name: string, version: ModelVersion): void {
    const key = scopeKey(scope);
    let names = this.#scopes.get(key);
    if (!names) {
      names = new Map();
      this.#scopes.set(key, names);
    }
    const entry = names.get(name) ?? { highWater: 0, live: [] };
    entry.highWater = version.version;
    entry.live.push(version);
    names.set(name, entry);
  }

  /** Removes what `selector` names and returns how many versions went. */
  delete(scope: Scope, name: string, selector: number | "latest" | "all"): number {
    const entry = this.#entry(scope, name);
    if (!entry) return 0;
    const before = entry.live.length;
    if (selector === "all") entry.live = [];
    else if (selector === "latest") entry.live = entry.live.slice(0, -1);
    else entry.live = entry.live.filter((v) => v.version !== selector);
    return before - entry.live.length;
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
