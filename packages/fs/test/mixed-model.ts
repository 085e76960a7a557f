// What a store must hold after the acknowledged operations of fixtures/mixed-crash-child.mjs:
// the live versions of each name with the put that made each, the versions whose deletion
// was acknowledged (they must never come back), and the version each idempotency key bound.

export const NAMES = ["a", "b", "c"] as const;

/** The child's payload of a put (see fixtures/mixed-crash-child.mjs). */
export const payload = (tag: string, size: number): Uint8Array =>
  new TextEncoder().encode(`${tag};`.repeat(size).slice(0, size));

export interface PutOp {
  readonly op: "put";
  readonly name: string;
  readonly tag: string;
  readonly size: number;
  readonly streamed: boolean;
  readonly key?: string;
}

export interface RetryOp extends Omit<PutOp, "op"> {
  readonly op: "retry";
  readonly key: string;
}

export interface DeleteOp {
  readonly op: "delete";
  readonly name: string;
  readonly selector: number | "latest" | "all";
}

export type Op = PutOp | RetryOp | DeleteOp;
/** A put's version; a retry's version or not_found; a delete's ok or not_found. */
export type Outcome = number | "ok" | "not_found";

/** The operations a killed child acknowledged, in order, and the one it was in (if any). */
export function parseRun(lines: readonly string[]): {
  acknowledged: { op: Op; outcome: Outcome }[];
  pending: Op | undefined;
} {
  const acknowledged: { op: Op; outcome: Outcome }[] = [];
  let pending: Op | undefined;
  for (const line of lines) {
    const match = /^(begin|done) \d+ (.*)$/.exec(line);
    if (!match) continue;
    const { outcome, ...op } = JSON.parse(match[2] as string) as Op & { outcome?: Outcome };
    if (match[1] === "begin") {
      pending = op;
    } else {
      acknowledged.push({ op, outcome: outcome as Outcome });
      pending = undefined;
    }
  }
  return { acknowledged, pending };
}

export class StoreModel {
  /** Per name, live version -> the put that published it. */
  readonly live = new Map<string, Map<number, PutOp>>(NAMES.map((name) => [name, new Map()]));
  /** Per name, versions whose deletion was acknowledged. */
  readonly deleted = new Map<string, Set<number>>(NAMES.map((name) => [name, new Set()]));
  /** Per key, the put and the version it bound. */
  readonly keys = new Map<string, { put: PutOp; version: number }>();
  /** Per name, the highest version ever acknowledged. */
  readonly highWater = new Map<string, number>(NAMES.map((name) => [name, 0]));

  livesOf(name: string): Map<number, PutOp> {
    return this.live.get(name) as Map<number, PutOp>;
  }

  /** Records a put acknowledged with `version` (a keyed one also binds its key). */
  published(put: PutOp, version: number): void {
    this.livesOf(put.name).set(version, put);
    if (put.key !== undefined) this.keys.set(put.key, { put, version });
    this.highWater.set(put.name, Math.max(this.highWater.get(put.name) as number, version));
  }

  /** Records the acknowledged deletion of `versions` of `name`. */
  removed(name: string, versions: Iterable<number>): void {
    for (const version of versions) {
      this.livesOf(name).delete(version);
      this.deleted.get(name)?.add(version);
    }
  }

  /** The live versions a delete removes, judged before it runs. */
  targets(op: DeleteOp): number[] {
    const versions = [...this.livesOf(op.name).keys()].sort((a, b) => a - b);
    if (op.selector === "all") return versions;
    if (op.selector === "latest") return versions.slice(-1);
    return versions.includes(op.selector) ? [op.selector] : [];
  }

  /** What a retry of the keyed put under `key` must answer now. */
  expectedRetry(key: string): number | "not_found" | undefined {
    const bound = this.keys.get(key);
    if (!bound) return undefined;
    return this.livesOf(bound.put.name).has(bound.version) ? bound.version : "not_found";
  }

  /**
   * Applies an acknowledged operation, returning what contradicts the model (an empty list
   * when the child's answer is the one the model predicts).
   */
  apply(op: Op, outcome: Outcome): string[] {
    if (op.op === "put") {
      this.published(op, outcome as number);
      return [];
    }
    if (op.op === "retry") {
      const expected = this.expectedRetry(op.key);
      return outcome === expected ? [] : [`retry of ${op.key}: ${outcome}, expected ${expected}`];
    }
    const targets = this.targets(op);
    this.removed(op.name, targets);
    const expected = targets.length > 0 ? "ok" : "not_found";
    return outcome === expected
      ? []
      : [`delete ${op.name} ${op.selector}: ${outcome}, expected ${expected}`];
  }
}
