import fc from "fast-check";
import { isArtifactError, quotaLimitCode } from "../../errors.js";
import type { ArtifactService, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext, skip } from "../check.js";
import { expectEqual, expectTrue, fail } from "../expect.js";
import { readAllVersions } from "../observe.js";
import { MAX_BYTES } from "./bounds.js";

// Quotas reached across many names and scopes: random puts (sizes on the scale of
// maxArtifactBytes, several at once) and deletes (by number, latest, all) over three scopes
// of three names each, on the bounded subject. Every put must succeed or fail with
// quota_exceeded exactly as the live bytes and counts say, so accounting that drifts after a
// delete, or counts one scope's room in another, is caught at the first put it misjudges.

const SCOPES = 3;
const NAMES = 3;
const MAX_OPS = 40;
const MAX_COPIES = 8;
const QUOTAS = ["maxScopeBytes", "maxTotalBytes", "maxScopeArtifacts", "maxTotalArtifacts"];

type Selector = "latest" | "all" | { nth: number };
type Op =
  | { kind: "put"; target: number; size: number; copies: number }
  | { kind: "delete"; target: number; selector: Selector };

const opArb = (sizes: readonly number[]): fc.Arbitrary<Op> =>
  fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant("put" as const),
        target: fc.nat(SCOPES * NAMES - 1),
        size: fc.constantFrom(...sizes),
        copies: fc.integer({ min: 1, max: MAX_COPIES }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant("delete" as const),
        target: fc.nat(SCOPES * NAMES - 1),
        selector: fc.oneof(
          fc.constantFrom<Selector>("latest", "all"),
          fc.nat(7).map((nth) => ({ nth })),
        ),
      }),
    },
  );

/** Live versions and their sizes, per target (scope index * NAMES + name index). */
class QuotaModel {
  readonly live: Map<number, number>[] = Array.from({ length: SCOPES * NAMES }, () => new Map());

  bytes(targets: readonly number[]): number {
    return targets.reduce(
      (sum, t) => sum + [...(this.live[t]?.values() ?? [])].reduce((a, b) => a + b, 0),
      0,
    );
  }
  count(targets: readonly number[]): number {
    return targets.reduce((sum, t) => sum + (this.live[t]?.size ?? 0), 0);
  }
}

const all = Array.from({ length: SCOPES * NAMES }, (_, t) => t);
const inScopeOf = (target: number) => {
  const first = Math.floor(target / NAMES) * NAMES;
  return Array.from({ length: NAMES }, (_, i) => first + i);
};

/** The quotas a put of `size` into `target` would exceed, by their detail.limit codes. */
function exceeded(
  model: QuotaModel,
  bounds: Readonly<Record<string, number>>,
  target: number,
  size: number,
) {
  const scope = inScopeOf(target);
  const wouldBe: Record<string, number> = {
    maxScopeBytes: model.bytes(scope) + size,
    maxTotalBytes: model.bytes(all) + size,
    maxScopeArtifacts: model.count(scope) + 1,
    maxTotalArtifacts: model.count(all) + 1,
  };
  return QUOTAS.filter(
    (quota) =>
      bounds[quota] !== undefined && (wouldBe[quota] as number) > (bounds[quota] as number),
  ).map(quotaLimitCode);
}

async function runOps(service: ArtifactService, ops: readonly Op[]) {
  const { bounds } = service.capabilities().quotas;
  const scopes: Scope[] = Array.from({ length: SCOPES }, () => freshScope("quota-model"));
  const where = (target: number) => ({
    scope: scopes[Math.floor(target / NAMES)] as Scope,
    name: `q${target % NAMES}`,
  });
  const model = new QuotaModel();
  for (const [step, op] of ops.entries()) {
    const { scope, name } = where(op.target);
    const live = model.live[op.target] as Map<number, number>;
    const what = `step ${step}: ${JSON.stringify(op)} with ${model.bytes(all)} bytes in ${model.count(all)} versions live`;
    if (op.kind === "delete") {
      const versions = [...live.keys()];
      const selector =
        typeof op.selector === "string"
          ? op.selector
          : (versions[op.selector.nth % Math.max(1, versions.length)] ?? 1);
      if (versions.length === 0) continue;
      await service.delete(scope, name, selector);
      if (selector === "all") live.clear();
      else live.delete(selector === "latest" ? (versions.at(-1) as number) : selector);
      continue;
    }
    for (let copy = 0; copy < op.copies; copy++) {
      const over = exceeded(model, bounds, op.target, op.size);
      const outcome = await service.put(scope, name, new Uint8Array(op.size)).then(
        (meta) => meta,
        (error: unknown) => error,
      );
      if (over.length === 0) {
        if (outcome instanceof Error)
          fail(`${what}, copy ${copy}: expected the put to fit, got ${String(outcome)}`);
        live.set((outcome as { version: number }).version, op.size);
        continue;
      }
      expectTrue(
        isArtifactError(outcome, "quota_exceeded"),
        `${what}, copy ${copy}: expected quota_exceeded (${over.join(", ")}), got ${outcome instanceof Error ? String(outcome) : "success"}`,
      );
      expectTrue(
        over.includes(String(outcome.detail.limit)),
        `${what}, copy ${copy}: detail.limit ${String(outcome.detail.limit)}, expected one of ${over.join(", ")}`,
      );
    }
  }
  for (const [target, live] of model.live.entries()) {
    const { scope, name } = where(target);
    const sizes = (await readAllVersions(service, scope, name)).map((meta) => [
      meta.version,
      meta.size,
    ]);
    expectEqual(sizes, [...live.entries()], `the live versions of target ${target} at the end`);
  }
}

/** Every put over many names and scopes fits or fails exactly as the live bytes and counts say. */
async function quotasAcrossNamesAndScopes({ service, property, fresh }: LawContext) {
  const { quotas } = service.capabilities();
  if (!QUOTAS.some((quota) => quotas.bounds[quota] !== undefined)) {
    return skip("the adapter declares no byte or artifact quota");
  }
  if (quotas.appliesTo === "per_shard") {
    return skip("quotas apply per shard: the service as a whole has no single edge to model");
  }
  const capacities = ["maxNamesPerScope", "maxScopes", "maxVersionsPerName"] as const;
  const tight = capacities.filter(
    (bound) => (quotas.bounds[bound] ?? Number.POSITIVE_INFINITY) < 400,
  );
  if (tight.length > 0) return skip(`${tight.join(", ")} could be reached first`);
  const most = quotas.bounds.maxArtifactBytes ?? 4096;
  // Sizes scale with maxArtifactBytes: a run of the largest puts must stay affordable.
  if (most * MAX_OPS * MAX_COPIES > MAX_BYTES) {
    return skip(`maxArtifactBytes = ${most} is too large for a test; pass createBounded`);
  }
  const sizes = [0, 1, Math.floor(most / 4), Math.floor(most / 2) + 1, most];
  await property(
    [fc.array(opArb(sizes), { maxLength: MAX_OPS, size: "max" })],
    (ops) => fresh((holder) => runOps(holder.service, ops)),
    // A drift shows only when a later put lands near the edge: in memory, where runs cost
    // little, twice the runs (a mutant that frees the wrong version's room escaped one run).
    { scale: service.capabilities().durability === "volatile" ? 1 : 0.5, min: 10 },
  );
  return undefined;
}

export const quotaLaws = [
  check(
    "bounds",
    "over three scopes of three names, random puts and deletes each fit or fail with quota_exceeded exactly as the live bytes and counts say (accounting stays exact after every delete)",
    quotasAcrossNamesAndScopes,
    { needs: ["bounded"] },
  ),
];
