import { isDeepStrictEqual } from "node:util";
import { isArtifactError } from "../errors.js";
import { DEFAULT_MIME_TYPE } from "../limits.js";
import type { ArtifactMeta, JsonObject, Scope } from "../types.js";
import { copyScope, inspectValue, TargetCommand } from "./commands.js";
import { expectArtifactError, expectEqual, expectTrue, fail } from "./expect.js";
import type { ModelVersion, ReferenceModel } from "./model.js";
import { expectPlausibleCreatedAt, expectRecord, scribble } from "./observe.js";
import type { Payload } from "./payload.js";
import type { ServiceHolder } from "./subject.js";

// The model's puts, with and without an idempotency key. A put under a key already bound in
// (scope, name) must write nothing and answer as PutOptions.idempotencyKey says: the bound
// version's record for the same payload, invalid_argument for another, not_found once the
// bound version is deleted. Every reply is checked in every field against the model.

export interface PutInput {
  payload: Payload;
  mimeType: string | undefined;
  metadata: JsonObject | undefined;
  /** Scribble on the caller's buffer and metadata before the put resolves, not after. */
  scribbleInFlight: boolean;
}

/** What one put sends; `data` is the kit's own copy, which the adapter never sees. */
interface PutRequest {
  data: Uint8Array;
  mimeType: string | undefined;
  metadata: JsonObject | undefined;
  idempotencyKey: string | undefined;
  scribbleInFlight: boolean;
}

/** Sends `request`, scribbles on what the caller gave, and checks the reply against the model. */
async function putAndCheck(
  model: ReferenceModel,
  real: ServiceHolder,
  scope: Scope,
  name: string,
  request: PutRequest,
  what: string,
): Promise<void> {
  const sent = request.data.slice();
  const metadata = request.metadata === undefined ? undefined : structuredClone(request.metadata);
  const options = {
    ...(request.mimeType === undefined ? {} : { mimeType: request.mimeType }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
  };
  const startedAt = Date.now();
  const bound = real.service.capabilities().quotas.bounds.maxArtifactBytes;
  const pending = real.service.put(copyScope(scope), name, sent, options);
  if (request.scribbleInFlight) scribble([sent, metadata]);
  if (bound !== undefined && sent.byteLength > bound) {
    await expectArtifactError(() => pending, "artifact_too_large", what);
    return;
  }
  const binding =
    request.idempotencyKey === undefined
      ? undefined
      : model.keyBinding(scope, name, request.idempotencyKey);
  if (binding) {
    await expectKeyReplay(model, scope, name, binding, request, () => pending, what);
    return;
  }
  const meta = await pending;
  scribble([sent, metadata]);
  const highWater = model.highWater(scope, name);
  expectTrue(
    Number.isSafeInteger(meta.version) && meta.version > highWater,
    `${what}: version: expected above the high-water ${highWater}, got ${meta.version}`,
  );
  const expected: ModelVersion = {
    version: meta.version,
    data: request.data,
    mimeType: request.mimeType ?? DEFAULT_MIME_TYPE,
    metadata: request.metadata ?? {},
    createdAt: expectPlausibleCreatedAt(meta, startedAt, what),
    ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
  };
  expectRecord(meta, scope, name, expected, `${what} reply`);
  model.record(scope, name, expected);
  scribble(meta);
}

/** Same payload as the bound version: bytes, mimeType and metadata, absent ones defaulted. */
function samePayload(bound: ModelVersion, request: PutRequest): boolean {
  return (
    Buffer.from(bound.data).equals(Buffer.from(request.data)) &&
    bound.mimeType === (request.mimeType ?? DEFAULT_MIME_TYPE) &&
    isDeepStrictEqual(bound.metadata, request.metadata ?? {})
  );
}

/**
 * A put under a bound key writes nothing; its answer depends on the bound version (PutOptions):
 * not_found when it was deleted, whatever the payload; else the version when the payload is
 * the same, invalid_argument when it differs.
 */
async function expectKeyReplay(
  model: ReferenceModel,
  scope: Scope,
  name: string,
  binding: ModelVersion,
  request: PutRequest,
  put: () => Promise<ArtifactMeta>,
  what: string,
): Promise<void> {
  const replays = model.coverage.keyReplays;
  const live = model.find(scope, name, binding.version);
  const same = samePayload(binding, request);
  const bound = `the key's version ${binding.version}`;
  if (!live) replays.deleted += 1;
  else if (same) replays.same += 1;
  else replays.differing += 1;
  if (live && same) {
    const meta = await put();
    expectRecord(meta, scope, name, live, `${what}: a retry answers with ${bound}`);
    scribble(meta);
    return;
  }
  const expected = live
    ? `invalid_argument (another payload than ${bound})`
    : `not_found (${bound} was deleted${same ? "" : "; deletion is judged before the payload"})`;
  const error = await put().then(
    (meta) => fail(`${what}: expected ${expected}, but it succeeded with ${inspectValue(meta)}`),
    (reason: unknown) => reason,
  );
  if (!live && isArtifactError(error, "not_found")) {
    expectEqual(error.detail.version, binding.version, `${what}: detail.version of not_found`);
  } else if (live && isArtifactError(error, "invalid_argument")) {
    expectEqual(error.detail.field, "idempotencyKey", `${what}: detail.field of invalid_argument`);
  } else fail(`${what}: expected ${expected}, got ${inspectValue(error)}`);
}

const keyText = (key: string | undefined) =>
  key === undefined ? "" : `, idempotencyKey ${JSON.stringify(key)}`;

export class PutCommand extends TargetCommand {
  constructor(
    scope: Scope,
    name: string,
    readonly input: PutInput,
    readonly idempotencyKey: string | undefined,
  ) {
    super(scope, name);
  }
  run(model: ReferenceModel, real: ServiceHolder) {
    const { input } = this;
    return putAndCheck(
      model,
      real,
      this.scope,
      this.name,
      {
        data: input.payload.bytes,
        mimeType: input.mimeType,
        metadata: input.metadata,
        idempotencyKey: this.idempotencyKey,
        scribbleInFlight: input.scribbleInFlight,
      },
      `${this}`,
    );
  }
  toString() {
    const { input } = this;
    return `put(${this.target}, ${input.payload}, mimeType ${inspectValue(input.mimeType)}, metadata ${inspectValue(input.metadata)}${keyText(this.idempotencyKey)}${input.scribbleInFlight ? ", caller scribbles in flight" : ""})`;
  }
}

/** How a retry differs from the put that bound its key. */
export type RetryChange = "none" | "bytes" | "mimeType" | "metadata";

function changed(bound: ModelVersion, change: RetryChange) {
  const data = bound.data.slice();
  // One byte more when there is none to flip: empty data cannot change otherwise.
  const bytes = data.byteLength === 0 ? Uint8Array.of(0) : data;
  if (change === "bytes" && data.byteLength > 0) bytes[0] = (bytes[0] ?? 0) ^ 0xff;
  return {
    data: change === "bytes" ? bytes : data,
    mimeType:
      change !== "mimeType"
        ? bound.mimeType
        : bound.mimeType === "text/csv"
          ? "text/plain"
          : "text/csv",
    metadata: change === "metadata" ? { ...bound.metadata, retried: true } : bound.metadata,
  };
}

/**
 * A retry of the put that bound `key` in (scope, name): its payload again, or changed in one
 * way; it runs only once the key is bound (fast-check skips it before).
 */
export class RetryCommand extends TargetCommand {
  constructor(
    scope: Scope,
    name: string,
    readonly idempotencyKey: string,
    readonly change: RetryChange,
  ) {
    super(scope, name);
  }
  override check(model: Readonly<ReferenceModel>) {
    return model.keyBinding(this.scope, this.name, this.idempotencyKey) !== undefined;
  }
  run(model: ReferenceModel, real: ServiceHolder) {
    const bound = model.keyBinding(this.scope, this.name, this.idempotencyKey) as ModelVersion;
    const request = {
      ...changed(bound, this.change),
      idempotencyKey: this.idempotencyKey,
      scribbleInFlight: false,
    };
    return putAndCheck(model, real, this.scope, this.name, request, `${this}`);
  }
  toString() {
    const how = this.change === "none" ? "the same payload" : `other ${this.change}`;
    return `retry(${this.target}${keyText(this.idempotencyKey)}, ${how} as the put that bound it)`;
  }
}
