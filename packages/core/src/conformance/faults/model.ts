import { fail } from "../expect.js";

// What the kit knows of one (scope, name) while faults are injected. An operation that
// failed with unavailable or timeout may or may not have taken effect: its put is "maybe
// published", its delete "maybe done". The next read of the name (the kit reads every
// version back after each fault) resolves each maybe one way, and from then on the model is
// exact again: an acknowledged version never goes, a deleted one never comes back, and a
// version appears only if a put explains it, each put (or keyed retry) at most once.

/** A version the kit knows is live: the payload's tag and the key it was put with. */
export interface KnownVersion {
  readonly tag: number;
  readonly key: string | undefined;
}

/** A put that failed: it may have published its payload under some version above `above`. */
interface MaybePut {
  readonly tag: number;
  readonly key: string | undefined;
  readonly above: number;
  readonly what: string;
}

/**
 * A key's binding: to a version, or "maybe" after a put under it failed (the key may be bound
 * to a version the backend reserved and never published; a retry publishes that one).
 */
export type KeyState = { readonly bound: number } | { readonly maybeAbove: number };

/** A listed version as the resolution sees it. */
export interface ListedVersion {
  readonly version: number;
  readonly tag: number;
  readonly key: string | undefined;
}

export class FaultNameModel {
  /** Highest version known to be allocated: a lower bound of the store's high-water. */
  highWater = 0;
  readonly live = new Map<number, KnownVersion>();
  readonly gone = new Set<number>();
  readonly #maybePuts: MaybePut[] = [];
  readonly #maybeGone = new Set<number>();
  readonly keys = new Map<string, KeyState>();

  constructor(readonly name: string) {}

  /** True while a failed operation is unresolved (the next read resolves it). */
  get uncertain(): boolean {
    return this.#maybePuts.length > 0 || this.#maybeGone.size > 0;
  }

  latest(): number | undefined {
    return this.live.size === 0 ? undefined : Math.max(...this.live.keys());
  }

  /** An acknowledged put (or keyed retry) answered `version`. */
  acknowledged(version: number, tag: number, key: string | undefined, what: string): void {
    if (this.gone.has(version)) fail(`${what}: answered version ${version}, which was deleted`);
    const known = this.live.get(version);
    if (known && (known.tag !== tag || known.key !== key)) {
      fail(`${what}: answered version ${version}, which holds another put's payload`);
    }
    this.live.set(version, { tag, key });
    this.highWater = Math.max(this.highWater, version);
    if (key !== undefined) this.keys.set(key, { bound: version });
  }

  /** A put failed with unavailable or timeout: it may have published. */
  maybePut(tag: number, key: string | undefined, what: string): void {
    const state = key === undefined ? undefined : this.keys.get(key);
    const above =
      state && "maybeAbove" in state ? Math.min(state.maybeAbove, this.highWater) : this.highWater;
    this.#maybePuts.push({ tag, key, above, what });
    if (key !== undefined && !(state && "bound" in state))
      this.keys.set(key, { maybeAbove: above });
  }

  deleted(versions: readonly number[]): void {
    for (const version of versions) {
      this.live.delete(version);
      this.gone.add(version);
    }
  }

  /** A delete failed with unavailable or timeout: each of its versions may be gone. */
  maybeDeleted(versions: readonly number[]): void {
    for (const version of versions) this.#maybeGone.add(version);
  }

  /** Resolves every maybe against a complete listing of the name, read with no fault armed. */
  resolve(listed: readonly ListedVersion[], step: string): void {
    const seen = new Map(listed.map((entry) => [entry.version, entry]));
    for (const [version, known] of this.live) {
      const entry = seen.get(version);
      if (!entry && this.#maybeGone.has(version)) {
        this.deleted([version]);
        continue;
      }
      if (!entry) fail(`${step}: acknowledged version ${version} of ${this.name} is lost`);
      if (entry.tag !== known.tag) {
        fail(`${step}: version ${version} of ${this.name} holds another payload than was put`);
      }
    }
    for (const version of this.gone) {
      if (seen.has(version)) fail(`${step}: deleted version ${version} of ${this.name} came back`);
    }
    for (const entry of listed) {
      if (!this.live.has(entry.version)) this.#explain(entry, step);
    }
    this.#maybePuts.length = 0;
    this.#maybeGone.clear();
  }

  /** A version nobody acknowledged: a failed put must explain it, each at most once. */
  #explain(entry: ListedVersion, step: string): void {
    const at = this.#maybePuts.findIndex(
      (put) => put.tag === entry.tag && put.key === entry.key && entry.version > put.above,
    );
    const put = this.#maybePuts[at];
    if (!put) {
      fail(
        `${step}: version ${entry.version} of ${this.name} (payload ${entry.tag}${entry.key === undefined ? "" : `, key ${JSON.stringify(entry.key)}`}) appeared, and no failed put explains it: a put published twice, or something deleted came back`,
      );
    }
    this.#maybePuts.splice(at, 1);
    if (put.key !== undefined) {
      const state = this.keys.get(put.key);
      if (state && "bound" in state && state.bound !== entry.version) {
        fail(
          `${step}: key ${JSON.stringify(put.key)} of ${this.name} published version ${entry.version} after version ${state.bound}: a keyed retry published twice`,
        );
      }
    }
    this.acknowledged(entry.version, entry.tag, entry.key, `${step} (${put.what})`);
  }
}
