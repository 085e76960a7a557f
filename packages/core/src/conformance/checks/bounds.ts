import type { ArtifactError, ArtifactErrorCode } from "../../errors.js";
import { quotaLimitCode } from "../../errors.js";
import type { ArtifactService, Capabilities, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { type CheckOutcome, check, type LawContext, skip } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "../expect.js";
import { readAllNames, readAllVersions } from "../observe.js";
import { expectScopeUnlisted } from "./options.js";

// Declared bounds are driven to their edge: exactly the bound succeeds, one more fails
// with the declared error and writes nothing. Bounds too large to reach cheaply are
// skipped with the reason; pass `createBounded` to reach them.

export const MAX_PUTS = 600;
/** The most bytes a law puts to reach a bound; a larger bound is skipped (pass createBounded). */
export const MAX_BYTES = 16 * 1024 * 1024;

type Bounds = Readonly<Record<string, number>>;

export interface Slot {
  scope: Scope;
  name: string;
}

/**
 * Where the i-th put of a fill goes: versions per name, names per scope and per-scope
 * counts and bytes kept below their own bounds, so only the bound under test is reached.
 */
export class Layout {
  readonly #perName: number;
  readonly #namesPerScope: number;
  readonly #artifactsPerScope: number;
  readonly #bytesPerScope: number;
  readonly #label: string;
  #scope: Scope;
  #names = 0;
  #inName = 0;
  #inScope = 0;
  #bytesInScope = 0;
  scopes = 1;

  constructor(bounds: Bounds, label: string, keep: ReadonlySet<string>, spread?: Spread) {
    const cap = (key: string) =>
      keep.has(key) ? Number.POSITIVE_INFINITY : (bounds[key] ?? Number.POSITIVE_INFINITY);
    this.#perName = spread === undefined ? Math.min(cap("maxVersionsPerName"), 50) : 1;
    this.#namesPerScope = spread === "scope" ? 1 : cap("maxNamesPerScope");
    this.#artifactsPerScope = cap("maxScopeArtifacts");
    this.#bytesPerScope = cap("maxScopeBytes");
    this.#label = label;
    this.#scope = freshScope(label);
  }

  /** The slot for a put of `size` bytes; opens a new name or scope when one is full. */
  next(size: number, newScopes: boolean): Slot | undefined {
    const scopeFull =
      this.#inScope + 1 > this.#artifactsPerScope ||
      this.#bytesInScope + size > this.#bytesPerScope;
    const nameFull = this.#inName >= this.#perName || this.#names === 0;
    if (scopeFull || (nameFull && this.#names >= this.#namesPerScope)) {
      if (!newScopes) return undefined;
      this.#scope = freshScope(this.#label);
      this.scopes += 1;
      this.#names = 0;
      this.#inScope = 0;
      this.#bytesInScope = 0;
    }
    if (this.#inName >= this.#perName || this.#names === 0) {
      this.#names += 1;
      this.#inName = 0;
    }
    this.#inName += 1;
    this.#inScope += 1;
    this.#bytesInScope += size;
    return { scope: this.#scope, name: `n${this.#names}` };
  }

  get current(): Slot {
    return { scope: this.#scope, name: `n${Math.max(1, this.#names)}` };
  }
}

/** A bound that counts names or scopes: every put of the fill takes a new one. */
type Spread = "name" | "scope";

export interface BoundSpec {
  /** The bound's name in capabilities().quotas.bounds. */
  bound: string;
  spread?: Spread;
  /**
   * The bound counts a whole scope, so racers for its last room may each take a name of
   * their own: a lock per name (which serializes racers on one name) must not be what
   * keeps them from passing it together.
   */
  scopeWide?: true;
  code: ArtifactErrorCode;
  /** Expected detail on the error: detail.limit for quotas, detail.kind for capacity. */
  detail: Readonly<Record<string, string>>;
  /** How the bound is approached: puts of `size` bytes, `count` of them. */
  plan(
    bound: number,
    bounds: Bounds,
  ): { size: number; count: number; newScopes: boolean; over: OverPut } | string;
}

type OverPut = (layout: Layout, bound: number) => Slot & { size: number };

const sameNameOnePlus: OverPut = (layout) => ({ ...layout.current, size: 1 });
/** For service-wide bounds: a scope of its own, so no per-scope bound is hit instead. */
const newScopeOnePlus: OverPut = () => ({ scope: freshScope("one-too-many"), name: "n1", size: 1 });

export const SPECS: readonly BoundSpec[] = [
  {
    bound: "maxScopeArtifacts",
    scopeWide: true,
    code: "quota_exceeded",
    detail: { limit: quotaLimitCode("maxScopeArtifacts") },
    plan: (bound) => ({ size: 1, count: bound, newScopes: false, over: sameNameOnePlus }),
  },
  {
    bound: "maxTotalArtifacts",
    code: "quota_exceeded",
    detail: { limit: quotaLimitCode("maxTotalArtifacts") },
    plan: (bound) => ({ size: 1, count: bound, newScopes: true, over: newScopeOnePlus }),
  },
  {
    bound: "maxScopeBytes",
    scopeWide: true,
    code: "quota_exceeded",
    detail: { limit: quotaLimitCode("maxScopeBytes") },
    plan: (bound, bounds) => bytePlan(bound, bounds, false),
  },
  {
    bound: "maxTotalBytes",
    code: "quota_exceeded",
    detail: { limit: quotaLimitCode("maxTotalBytes") },
    plan: (bound, bounds) => bytePlan(bound, bounds, true),
  },
  {
    bound: "maxVersionsPerName",
    code: "capacity_reached",
    detail: { kind: "version" },
    plan: (bound) => ({ size: 1, count: bound, newScopes: false, over: sameNameOnePlus }),
  },
  {
    bound: "maxNamesPerScope",
    spread: "name",
    code: "capacity_reached",
    detail: { kind: "name" },
    plan: (bound) => ({
      size: 1,
      count: bound,
      newScopes: false,
      over: (layout) => ({ scope: layout.current.scope, name: "one-name-too-many", size: 1 }),
    }),
  },
  {
    bound: "maxScopes",
    spread: "scope",
    code: "capacity_reached",
    detail: { kind: "scope" },
    plan: (bound) => ({
      size: 1,
      count: bound,
      newScopes: true,
      over: newScopeOnePlus,
    }),
  },
];

/** Puts of the largest size allowed, the last one topping the bound up exactly. */
function bytePlan(bound: number, bounds: Bounds, newScopes: boolean) {
  const size = Math.min(bound, bounds.maxArtifactBytes ?? bound, 1024 * 1024);
  if (bound % size !== 0) return `${bound} is not a multiple of the put size ${size}`;
  return {
    size,
    count: bound / size,
    newScopes,
    over: newScopes ? newScopeOnePlus : sameNameOnePlus,
  };
}

/** Which bounds the layout may ignore because they are the one under test. */
export const layoutKeeps = (spec: BoundSpec) => new Set([spec.bound]);

async function driveBound(
  service: ArtifactService,
  spec: BoundSpec,
  bound: number,
): Promise<CheckOutcome> {
  const bounds = service.capabilities().quotas.bounds;
  const plan = spec.plan(bound, bounds);
  if (typeof plan === "string") return skip(`${spec.bound}: ${plan}`);
  if (plan.count > MAX_PUTS || plan.count * plan.size > MAX_BYTES) {
    return skip(
      `${spec.bound} = ${bound} is too large to reach in a test; pass createBounded with a smaller one`,
    );
  }
  const layout = new Layout(bounds, `bound-${spec.bound}`, layoutKeeps(spec), spec.spread);
  const data = new Uint8Array(plan.size);
  let last: Slot | undefined;
  for (let i = 0; i < plan.count; i++) {
    const slot = layout.next(plan.size, plan.newScopes);
    if (!slot) return skip(`${spec.bound} cannot be reached before another declared bound`);
    await service.put(slot.scope, slot.name, data);
    last = slot;
  }
  const over = plan.over(layout, bound);
  const before = await readAllVersions(service, over.scope, over.name);
  const error = (await expectArtifactError(
    () => service.put(over.scope, over.name, new Uint8Array(over.size)),
    spec.code,
    `the put beyond ${spec.bound} = ${bound}`,
  )) as ArtifactError;
  for (const [key, value] of Object.entries(spec.detail)) {
    expectEqual(error.detail[key], value, `detail.${key} of the ${spec.code} error`);
  }
  expectEqual(error.detail.bound, bound, `detail.bound of the ${spec.code} error`);
  expectEqual(
    await readAllVersions(service, over.scope, over.name),
    before,
    "the rejected put wrote nothing",
  );
  if (plan.newScopes)
    await expectScopeUnlisted(service, over.scope, `a put beyond ${spec.bound} into a new scope`);
  // Quotas count what is live, so a delete frees room; capacity ceilings count what was
  // ever allocated (versions are never reused), so they stay reached.
  if (spec.code !== "quota_exceeded" || !last) return undefined;
  await service.delete(last.scope, last.name, "latest");
  const refill = plan.over(layout, bound);
  await service
    .put(refill.scope, refill.name, new Uint8Array(plan.size))
    .catch((error: unknown) =>
      fail(
        `a put of ${plan.size} bytes into the room freed by deleting ${plan.size} bytes under ${spec.bound} = ${bound}: expected success, got ${String(error)}`,
      ),
    );
  const again = plan.over(layout, bound);
  await expectArtifactError(
    () => service.put(again.scope, again.name, new Uint8Array(1)),
    spec.code,
    `a put beyond ${spec.bound} = ${bound} once the freed room is used again`,
  );
  return freedByDeleteAll(service, spec, bound, plan, layout, last);
}

/**
 * delete("all") frees the room of every version it removed, and a delete by number its
 * version's, as the delete of latest does: a count or a byte total that one selector's path
 * keeps apart drifts. The name is refilled with as
 * many puts as it held, then one more is refused. The refill goes where the over-put goes
 * (one name, or new scopes), so it is skipped where names, versions or scopes are capped.
 */
async function freedByDeleteAll(
  service: ArtifactService,
  spec: BoundSpec,
  bound: number,
  plan: { size: number; over: OverPut },
  layout: Layout,
  last: Slot,
): Promise<CheckOutcome> {
  const { bounds } = service.capabilities().quotas;
  if (["maxVersionsPerName", "maxNamesPerScope", "maxScopes"].some((cap) => cap in bounds))
    return undefined;
  const emptied = await readAllVersions(service, last.scope, last.name);
  // The delete of latest above may have emptied it (a name the fill gave one version).
  if (emptied.length === 0) return undefined;
  await service.delete(last.scope, last.name, "all");
  let refilled: Slot & { version: number } = { ...last, version: 0 };
  for (let i = 0; i < emptied.length; i++) {
    const slot = plan.over(layout, bound);
    const meta = await service
      .put(slot.scope, slot.name, new Uint8Array(plan.size))
      .catch((error: unknown) =>
        fail(
          `put ${i + 1} of ${emptied.length} into the room freed by delete("all") of ${emptied.length} versions under ${spec.bound} = ${bound}: expected success, got ${String(error)}`,
        ),
      );
    refilled = { ...slot, version: meta.version };
  }
  const over = plan.over(layout, bound);
  await expectArtifactError(
    () => service.put(over.scope, over.name, new Uint8Array(1)),
    spec.code,
    `a put beyond ${spec.bound} = ${bound} once the room delete("all") freed is used again`,
  );
  // And a delete by number (of the last refill) frees its version's room in turn.
  await service.delete(refilled.scope, refilled.name, refilled.version);
  const again = plan.over(layout, bound);
  await service
    .put(again.scope, again.name, new Uint8Array(plan.size))
    .catch((error: unknown) =>
      fail(
        `a put into the room freed by deleting version ${refilled.version} by number under ${spec.bound} = ${bound}: expected success, got ${String(error)}`,
      ),
    );
  const full = plan.over(layout, bound);
  await expectArtifactError(
    () => service.put(full.scope, full.name, new Uint8Array(1)),
    spec.code,
    `a put beyond ${spec.bound} = ${bound} once the room a delete by number freed is used again`,
  );
  return undefined;
}

export const declared = (capabilities: Capabilities, bound: string) =>
  capabilities.quotas.bounds[bound];

/** Bounds over the whole service, which a router with per-shard quotas splits among workers. */
export const SERVICE_WIDE_BOUNDS = new Set(["maxTotalArtifacts", "maxTotalBytes", "maxScopes"]);

/** The bound is enforced exactly; for quotas, a delete frees exactly its room. */
function boundIsEnforcedExactly(spec: BoundSpec) {
  return async ({ service }: LawContext) => {
    const capabilities = service.capabilities();
    const bound = declared(capabilities, spec.bound);
    if (bound === undefined) return skip(`the adapter declares no ${spec.bound}`);
    if (capabilities.quotas.appliesTo === "per_shard" && SERVICE_WIDE_BOUNDS.has(spec.bound)) {
      return skip(
        `${spec.bound} applies per shard: each worker enforces its own, so the service has no single edge`,
      );
    }
    return driveBound(service, spec, bound);
  };
}

/** maxArtifactBytes accepts exactly the bound and rejects one byte more. */
async function artifactSizeIsExact({ service }: LawContext) {
  const bound = declared(service.capabilities(), "maxArtifactBytes");
  if (bound === undefined) return skip("the adapter declares no maxArtifactBytes");
  if (bound > MAX_BYTES)
    return skip(`maxArtifactBytes = ${bound} is too large for a test; pass createBounded`);
  const scope = freshScope("artifact-size");
  await service.put(scope, "big", new Uint8Array(bound));
  const tooLarge = (await expectArtifactError(
    () => service.put(scope, "big", new Uint8Array(bound + 1)),
    "artifact_too_large",
    "a put one byte over maxArtifactBytes",
  )) as ArtifactError;
  expectEqual(
    [tooLarge.detail.limit, tooLarge.detail.bound],
    [quotaLimitCode("maxArtifactBytes"), bound],
    "detail.limit and detail.bound of the artifact_too_large error",
  );
  expectEqual(
    (await readAllVersions(service, scope, "big")).length,
    1,
    "the oversized put wrote nothing",
  );
  await boundCountsDataOnly(service, bound);
  return undefined;
}

/**
 * The bound is on the data alone: metadata, mimeType and key do not count against it. A
 * keyed put refused as too large binds nothing: its key then publishes a put that fits.
 */
async function boundCountsDataOnly(service: ArtifactService, bound: number): Promise<void> {
  const scope = freshScope("artifact-size-described");
  const options = {
    mimeType: `application/${"x".repeat(240)}`,
    metadata: { note: "m".repeat(8_000), nested: { list: [1, 2, 3] } },
    idempotencyKey: "k".repeat(256),
  };
  await expectArtifactError(
    () => service.put(scope, "big", new Uint8Array(bound + 1), options),
    "artifact_too_large",
    "a described put one byte over maxArtifactBytes",
  );
  await expectScopeUnlisted(service, scope, "a put refused as too large into a new scope");
  const meta = await service.put(scope, "big", new Uint8Array(bound), options);
  expectEqual(
    [meta.version, meta.size],
    [1, bound],
    "a described put of exactly maxArtifactBytes, under the key the oversized put carried",
  );
  if (!declaresTransfer(service, "streamingUpload")) return;
  const upload = await service.openUpload(scope, "streamed", { ...options, idempotencyKey: "u" });
  await upload.write(new Uint8Array(bound));
  expectEqual(
    (await upload.finish()).size,
    bound,
    "a described upload of exactly maxArtifactBytes",
  );
}

/** limit defaults to and is capped at maxPageLimit, for listNames and listVersions. */
async function pageLimitCapsBothListings({ service }: LawContext) {
  const { maxPageLimit } = service.capabilities().pagination;
  expectTrue(
    Number.isSafeInteger(maxPageLimit) && maxPageLimit >= 1,
    "maxPageLimit is a positive integer",
  );
  if (maxPageLimit >= MAX_PUTS)
    return skip(`maxPageLimit = ${maxPageLimit} is too large; pass createBounded`);
  const scope = freshScope("page-limit");
  for (let i = 0; i <= maxPageLimit; i++)
    await service.put(scope, `p${String(i).padStart(4, "0")}`, new Uint8Array(0));
  for (const options of [{}, { limit: maxPageLimit + 5 }]) {
    const page = await service.listNames(scope, options);
    expectEqual(page.items.length, maxPageLimit, `a page with ${JSON.stringify(options)}`);
    expectTrue(page.nextCursor !== undefined, "a capped page has a nextCursor");
  }
  expectEqual(
    (await readAllNames(service, scope)).length,
    maxPageLimit + 1,
    "all names over pages",
  );
  const { maxVersionsPerName, maxScopeArtifacts } = service.capabilities().quotas.bounds;
  const room = Math.min(
    maxVersionsPerName ?? Number.POSITIVE_INFINITY,
    maxScopeArtifacts ?? Number.POSITIVE_INFINITY,
  );
  if (room <= maxPageLimit) {
    return skip(`one name holds no more than one page of versions (${room})`);
  }
  const versions = freshScope("page-limit-versions");
  for (let i = 0; i <= maxPageLimit; i++) await service.put(versions, "v", new Uint8Array(0));
  for (const options of [{}, { limit: maxPageLimit + 5 }]) {
    const page = await service.listVersions(versions, "v", options);
    expectEqual(page.items.length, maxPageLimit, `a version page with ${JSON.stringify(options)}`);
    expectTrue(page.nextCursor !== undefined, "a capped version page has a nextCursor");
  }
  return undefined;
}

/** Legacy list returns every live version up to legacyListLimit, then refuses. */
async function legacyListIsBounded({ service }: LawContext) {
  const { legacyListLimit } = service.capabilities().pagination;
  if (legacyListLimit >= MAX_PUTS)
    return skip(`legacyListLimit = ${legacyListLimit} is too large; pass createBounded`);
  const layout = new Layout(service.capabilities().quotas.bounds, "legacy-list", new Set());
  for (let i = 0; i < legacyListLimit; i++) {
    const slot = layout.next(0, false);
    if (!slot) return skip("legacyListLimit cannot be reached in one scope before another bound");
    await service.put(slot.scope, slot.name, new Uint8Array(0));
  }
  const { scope } = layout.current;
  expectEqual((await service.list(scope)).length, legacyListLimit, "list at legacyListLimit");
  const extra = layout.next(0, false);
  if (!extra) return skip("one version beyond legacyListLimit does not fit in one scope");
  await service.put(extra.scope, extra.name, new Uint8Array(0));
  await expectArtifactError(
    () => service.list(scope),
    "result_limit_exceeded",
    "list beyond legacyListLimit",
  );
  return undefined;
}

const bounded = { needs: ["bounded"] } as const;

export const boundLaws = [
  check(
    "bounds",
    "maxArtifactBytes accepts exactly the bound and rejects one byte more (artifact_too_large), counting the data alone (not metadata, mimeType or key); a refused keyed put binds nothing",
    artifactSizeIsExact,
    bounded,
  ),
  ...SPECS.map((spec) =>
    check(
      "bounds",
      `${spec.bound} is enforced exactly (${spec.code})${spec.code === "quota_exceeded" ? "; a delete (of latest, of all, by number) frees exactly its room" : ""}`,
      boundIsEnforcedExactly(spec),
      bounded,
    ),
  ),
  check(
    "bounds",
    "limit defaults to and is capped at maxPageLimit, for listNames and listVersions",
    pageLimitCapsBothListings,
    bounded,
  ),
  check(
    "bounds",
    "legacy list returns every live version up to legacyListLimit, then result_limit_exceeded",
    legacyListIsBounded,
    bounded,
  ),
];
