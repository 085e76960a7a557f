import { type ArtifactError, type ArtifactErrorCode, capabilityDenied } from "../../errors.js";
import type { ArtifactMeta, ArtifactService, PutOptions, Scope } from "../../types.js";
import { freshScope } from "../arbitraries.js";
import { check, type LawContext } from "../check.js";
import { declaresTransfer } from "../declared-transfer.js";
import { expectArtifactError, expectEqual, fail } from "../expect.js";
import { digestOf, readAllVersions } from "../observe.js";
import { seededBytes } from "../payload.js";
import { expectNothingPublished, NAME, uploadChunks } from "./transfer-support.js";

// The publish gate (PutOptions.publishGate): a put or an upload does what it can before its
// commit point, waits for the caller's promise, and publishes only once it fulfils; refused,
// it publishes nothing and fails with the refusal. The gate tells the law when the write
// starts to wait (its `then` is called), so the store is looked at exactly while the
// publication is held back, with no clock. A write that ignores the gate, publishes before
// it, or publishes though it was refused fails here.

/** A gate the law opens or refuses once the write under test waits on it. */
class WatchedGate implements PromiseLike<undefined> {
  readonly #settled: Promise<undefined>;
  #open!: (value: undefined) => void;
  #refuse!: (reason: unknown) => void;
  /** Resolves when the write first calls `then`: it waits on the gate from there. */
  readonly reached: Promise<void>;
  #reach!: () => void;

  constructor() {
    this.#settled = new Promise<undefined>((open, refuse) => {
      this.#open = open;
      this.#refuse = refuse;
    });
    this.reached = new Promise<void>((reach) => {
      this.#reach = reach;
    });
  }

  // biome-ignore lint/suspicious/noThenProperty: the gate is a thenable by contract; its then is what tells the law the write waits
  then<A = undefined, B = never>(
    onOpened?: ((value: undefined) => A | PromiseLike<A>) | null,
    onRefused?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): PromiseLike<A | B> {
    this.#reach();
    return this.#settled.then(onOpened, onRefused);
  }

  open(): void {
    this.#open(undefined);
  }

  refuse(reason: unknown): void {
    this.#refuse(reason);
  }
}

/** One way of writing bytes that takes PutOptions: a put, or an upload where declared. */
interface GatedWrite {
  readonly what: string;
  start(scope: Scope, data: Uint8Array, options: PutOptions): Promise<ArtifactMeta>;
}

function writesOf(service: ArtifactService): GatedWrite[] {
  const put: GatedWrite = {
    what: "a put",
    start: (scope, data, options) => service.put(scope, NAME, data.slice(), options),
  };
  if (!declaresTransfer(service, "streamingUpload")) return [put];
  const upload: GatedWrite = {
    what: "an upload",
    start: (scope, data, options) =>
      uploadChunks(service, scope, [data.subarray(0, 300), data.subarray(300)], options),
  };
  return [put, upload];
}

const KEY = "gated-key";
const keyed = (key: string | undefined) => (key === undefined ? {} : { idempotencyKey: key });
const payload = (seed: number) => seededBytes(700, seed);

/** Fails unless the write starts to wait on its gate before it settles. */
async function reachesTheGate(pending: Promise<ArtifactMeta>, gate: WatchedGate, what: string) {
  const first = await Promise.race([
    gate.reached.then(() => "waiting"),
    pending.then(
      () => "succeeded",
      () => "failed",
    ),
  ]);
  if (first !== "waiting") fail(`${what}: ${first} without waiting for its publishGate`);
}

/** The one version of NAME is `meta`, holding `data`. */
async function expectOnly(
  service: ArtifactService,
  scope: Scope,
  meta: ArtifactMeta,
  data: Uint8Array,
  what: string,
) {
  const versions = (await readAllVersions(service, scope, NAME)).map((v) => v.version);
  expectEqual(versions, [meta.version], `${what}: the versions listed`);
  const read = await service.get(scope, NAME);
  expectEqual(read.version, meta.version, `${what}: the latest version`);
  expectEqual(digestOf(read.data), digestOf(data), `${what}: the bytes read back`);
}

/**
 * A write held by a pending gate: nothing is visible while it waits; opened, it publishes
 * `data` as the one version of NAME in `scope`.
 */
async function heldThenOpened(
  service: ArtifactService,
  write: GatedWrite,
  scope: Scope,
  data: Uint8Array,
  key: string | undefined,
  what: string,
) {
  const gate = new WatchedGate();
  const metadata = { gated: true };
  const pending = write.start(scope, data, { metadata, ...keyed(key), publishGate: gate });
  await reachesTheGate(pending, gate, what);
  await expectNothingPublished(service, scope, `${what} waiting on its publishGate`);
  gate.open();
  const meta = await pending;
  expectEqual(meta.idempotencyKey, key, `${what}: the reply's idempotencyKey`);
  await expectOnly(service, scope, meta, data, `${what} once its publishGate opened`);
}

/** Held by a pending gate, nothing is visible; opened, the write publishes its bytes. */
async function publishesOnceOpened({ service }: LawContext) {
  for (const write of writesOf(service)) {
    for (const key of [undefined, KEY]) {
      const what = `${write.what}${key === undefined ? "" : " with a key"}`;
      await heldThenOpened(service, write, freshScope("gate-opened"), payload(1), key, what);
    }
  }
}

/**
 * Refused, the write fails with the refusal and publishes nothing; a retry (with the key,
 * which what the refused write staged may be bound to) is held by its own gate and then
 * publishes once.
 */
async function publishesNothingWhenRefused({ service }: LawContext) {
  const refusals: [string | undefined, unknown, ArtifactErrorCode][] = [
    [undefined, capabilityDenied("the law refuses this publication"), "capability_denied"],
    [KEY, new Error("the journal is down"), "unavailable"],
  ];
  for (const write of writesOf(service)) {
    for (const [key, refusal, code] of refusals) {
      const what = `${write.what}${key === undefined ? "" : " with a key"} whose publishGate rejects`;
      const scope = freshScope("gate-refused");
      const data = payload(3);
      const gate = new WatchedGate();
      const pending = write.start(scope, data, {
        metadata: { gated: true },
        ...keyed(key),
        publishGate: gate,
      });
      await reachesTheGate(pending, gate, what);
      gate.refuse(refusal);
      await expectArtifactError(() => pending, code, what);
      await expectNothingPublished(service, scope, `after ${what}`);
      await heldThenOpened(service, write, scope, data, key, `a retry after ${what}`);
    }
  }
}

/** A publishGate that is not a promise is invalid_argument naming it, and nothing is written. */
async function refusesGatesThatAreNotPromises({ service }: LawContext) {
  for (const gate of [5, "open", {}, null]) {
    const scope = freshScope("gate-invalid");
    const options = { publishGate: gate } as unknown as PutOptions;
    const what = `a put with publishGate ${JSON.stringify(gate)}`;
    const error = await expectArtifactError(
      () => service.put(scope, NAME, payload(4), options),
      "invalid_argument",
      what,
    );
    expectEqual((error as ArtifactError).detail.field, "publishGate", `${what}: detail.field`);
    await expectNothingPublished(service, scope, `after ${what}`);
  }
}

export const publishGateLaws = [
  check(
    "publication",
    "a put or upload waiting on its publishGate shows nothing; once the gate fulfils it publishes its bytes, with or without a key",
    publishesOnceOpened,
  ),
  check(
    "publication",
    "a put or upload whose publishGate rejects fails with the rejection (an ArtifactError as it is, else unavailable) and publishes nothing; a retry publishes once",
    publishesNothingWhenRefused,
  ),
  check(
    "publication",
    "a publishGate that is not a promise is invalid_argument naming it (detail.field) and writes nothing",
    refusesGatesThatAreNotPromises,
  ),
];
