import { createHash } from "node:crypto";
import type { ArtifactMeta } from "@artifact-kit/core";
import type { PostgresArtifactService } from "../../src/index.js";
import { below, expectUnavailable, outcomeOf, pick, type TrialContext } from "./trial-context.js";

// The artifact operations of the fault trials, each judged right after it returns against
// what a clean connection sees: an acknowledged put is there with its bytes, a failed one is
// absent or there once, an acknowledged delete removed exactly its versions, a failed one
// those or none, and nothing deleted ever comes back.

const SCOPES = [
  { kind: "app", app: "trials-a" },
  { kind: "user", app: "trials-b", user: "ada" },
] as const;
type TrialScope = (typeof SCOPES)[number];
const NAMES = ["n0", "n1", "n2"];
/** Most bytes of an ordinary payload, and of the occasional one that spans blocks. */
const SMALL_BYTES = 4_000;
const LARGE_BYTES = 2_500_000;

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

interface NameState {
  /** Versions published, with the SHA-256 of the payload that published them. */
  readonly published: Map<number, string>;
  readonly deleted: Set<number>;
}

export class StoreTrials {
  readonly #ctx: TrialContext;
  readonly #names = new Map<string, NameState>();
  #payloads = 0;

  constructor(ctx: TrialContext) {
    this.#ctx = ctx;
  }

  /** A put or streamed upload, with an idempotency key half the time (retried if it fails). */
  async publish(streamed: boolean): Promise<void> {
    const { scope, name } = this.#pickName();
    const bytes = this.#payload();
    const key = this.#ctx.random() < 0.5 ? `k${this.#payloads}` : undefined;
    const what = `${streamed ? "upload" : "put"} ${label(scope, name)} (${bytes.length} bytes${key ? `, key ${key}` : ""})`;
    const before = await this.#observe(scope, name, what);
    const send = (service: PostgresArtifactService) =>
      streamed
        ? upload(service, scope, name, bytes, key)
        : service.put(scope, name, bytes, key ? { idempotencyKey: key } : {});
    const outcome = await this.#ctx.faulted(streamed ? "upload" : "put", () =>
      send(this.#ctx.service),
    );
    const after = await this.#observe(scope, name, what);
    const added = [...after].filter(([version]) => !before.has(version));
    if (after.size - added.length !== before.size)
      this.#ctx.violation(`${what}: removed a version`);
    const digest = sha256(bytes);
    if (added.some(([, sha]) => sha !== digest) || added.length > 1) {
      this.#ctx.violation(`${what}: published ${JSON.stringify(added)}, not once its own bytes`);
    }
    if (outcome.ok && added[0]?.[0] !== outcome.value.version) {
      this.#ctx.violation(
        `${what}: acknowledged ${outcome.value.version}, published ${JSON.stringify(added)}`,
      );
    }
    expectUnavailable(this.#ctx, what, outcome);
    if (outcome.ok || key === undefined) return;
    // A keyed retry (no fault armed now) answers the version the first try published, if any.
    const retried = await outcomeOf(() => send(this.#ctx.service));
    const settled = await this.#observe(scope, name, `${what}, retried`);
    const holding = [...settled].filter(([, sha]) => sha === digest).map(([version]) => version);
    if (!retried.ok) this.#ctx.violation(`${what}: its keyed retry failed with ${retried.code}`);
    else if (holding.length !== 1 || holding[0] !== retried.value.version) {
      this.#ctx.violation(`${what}: retried as ${retried.value.version}, published as ${holding}`);
    } else if (added[0] && added[0][0] !== retried.value.version) {
      this.#ctx.violation(
        `${what}: published ${added[0][0]}, the retry answered ${retried.value.version}`,
      );
    }
  }

  /** Deletes one version (live or not), the latest, or all versions of a name. */
  async delete(): Promise<void> {
    const { scope, name } = this.#pickName();
    const selector = pick(this.#ctx.random, ["version", "latest", "all"] as const);
    const before = await this.#observe(scope, name, `delete ${label(scope, name)}`);
    const live = [...before.keys()].sort((a, b) => a - b);
    const target: number | "latest" | "all" =
      selector === "version"
        ? (live[below(this.#ctx.random, live.length + 1)] ?? 1_000_000)
        : selector;
    const what = `delete ${label(scope, name)} ${target}`;
    const expected = new Set(
      target === "all"
        ? live
        : target === "latest"
          ? live.slice(-1)
          : live.filter((v) => v === target),
    );
    const outcome = await this.#ctx.faulted("delete", () =>
      this.#ctx.service.delete(scope, name, target),
    );
    const after = await this.#observe(scope, name, what);
    const removed = new Set([...before.keys()].filter((version) => !after.has(version)));
    if (after.size !== before.size - removed.size) this.#ctx.violation(`${what}: added a version`);
    const exact = same(removed, expected);
    const told = outcome.ok ? "acknowledged" : outcome.code;
    const wrong = `${what}: ${told}, removed [${[...removed]}], expected [${[...expected]}]`;
    if (outcome.ok) {
      if (expected.size === 0 || !exact) this.#ctx.violation(wrong);
    } else if (outcome.code === "not_found") {
      if (expected.size > 0 || removed.size > 0) this.#ctx.violation(wrong);
    } else {
      expectUnavailable(this.#ctx, what, outcome);
      // Cut short: it removed all it was asked to, or nothing.
      if (removed.size > 0 && !exact) this.#ctx.violation(wrong);
    }
    const state = this.#state(scope, name);
    for (const version of removed) state.deleted.add(version);
  }

  /** Every version published and not deleted reads back whole; nothing deleted is back. */
  async audit(): Promise<void> {
    for (const scope of SCOPES) {
      for (const name of NAMES) {
        const live = await this.#observe(scope, name, `audit ${label(scope, name)}`);
        for (const [version, digest] of live) {
          const got = await outcomeOf(() => this.#ctx.clean.get(scope, name, { version }));
          if (!got.ok || sha256(got.value.data) !== digest) {
            this.#ctx.violation(
              `audit ${label(scope, name)} ${version}: ${got.ok ? "other bytes" : got.code}`,
            );
          }
        }
      }
    }
  }

  /** The live versions of a name on the clean connection, checked against what was seen. */
  async #observe(scope: TrialScope, name: string, what: string): Promise<Map<number, string>> {
    const state = this.#state(scope, name);
    const live = new Map<number, string>();
    for (let cursor: number | undefined; ; ) {
      const page = await this.#ctx.clean.listVersions(
        scope,
        name,
        cursor === undefined ? {} : { cursor },
      );
      for (const meta of page.items) live.set(meta.version, meta.sha256);
      if (page.nextCursor === undefined) break;
      cursor = page.nextCursor;
    }
    for (const [version, digest] of live) {
      if (state.deleted.has(version))
        this.#ctx.violation(`${what}: deleted version ${version} is back`);
      const known = state.published.get(version);
      if (known !== undefined && known !== digest)
        this.#ctx.violation(`${what}: version ${version} changed`);
      state.published.set(version, digest);
    }
    return live;
  }

  #state(scope: TrialScope, name: string): NameState {
    const key = label(scope, name);
    let state = this.#names.get(key);
    if (!state) {
      state = { published: new Map(), deleted: new Set() };
      this.#names.set(key, state);
    }
    return state;
  }

  #pickName(): { scope: TrialScope; name: string } {
    return { scope: pick(this.#ctx.random, SCOPES), name: pick(this.#ctx.random, NAMES) };
  }

  /** Bytes no other payload of the run has (their first bytes count payloads). */
  #payload(): Uint8Array {
    const { random } = this.#ctx;
    const size = 8 + below(random, random() < 0.1 ? LARGE_BYTES : SMALL_BYTES);
    const bytes = new Uint8Array(size).map((_, i) => (i * 31 + size) % 251);
    new DataView(bytes.buffer).setFloat64(0, ++this.#payloads);
    return bytes;
  }
}

async function upload(
  service: PostgresArtifactService,
  scope: TrialScope,
  name: string,
  bytes: Uint8Array,
  idempotencyKey: string | undefined,
): Promise<ArtifactMeta> {
  const sink = await service.openUpload(scope, name, idempotencyKey ? { idempotencyKey } : {});
  try {
    for (let at = 0; at < bytes.length; at += 700_000) {
      await sink.write(bytes.subarray(at, at + 700_000));
    }
    return await sink.finish();
  } catch (error) {
    await sink.abort().catch(() => undefined);
    throw error;
  }
}

const label = (scope: TrialScope, name: string) => `${scope.app}/${name}`;
const same = (a: Set<number>, b: Set<number>) => a.size === b.size && [...a].every((v) => b.has(v));
