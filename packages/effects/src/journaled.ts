import { randomUUID } from "node:crypto";
import {
  type ArtifactEffect,
  type ArtifactService,
  type BoundArtifacts,
  bindArtifacts,
  capabilityDenied,
  checkMetaReply,
  effectPendingReconciliation,
  invalidArgument,
  isArtifactError,
  MAX_TIMEOUT_MS,
  notFound,
  type PutOptions,
  parseTimeoutMs,
  type RequestOptions,
  type Scope,
  sha256Hex,
  validateOptionKeys,
  validateScope,
} from "@artifact-kit/core";
import type { EffectJournal, EffectReceipt, EffectRecord } from "./types.js";
import { validateEffectId, validateLease } from "./validate.js";

/** Failures that, by the service contract, changed nothing: the effect did not happen. */
const NOTHING_CHANGED = new Set([
  "invalid_argument",
  "artifact_too_large",
  "quota_exceeded",
  "capacity_reached",
  "max_active_scopes_reached",
  "capability_denied",
  "closed",
  "not_found",
  "timeout",
  "aborted",
  "overloaded",
]);

/** Part of the lease kept free after the service call's deadline, for recording the receipt. */
const LEASE_MARGIN = 0.2;
/** Most effects whose fencing token a capability remembers until they are committed. */
const MAX_REMEMBERED_TOKENS = 1024;

export interface JournaledOptions {
  journal: EffectJournal;
  /**
   * Who writes (a process or runtime id); the lease holder of every effect it starts. Must
   * differ from every reconciler's owner.
   */
  owner: string;
  /**
   * How long a started effect stays this writer's before a reconciler may take it over. The
   * service call's deadline is cut to fit inside it, so a reconciler never judges an effect
   * whose call may still land.
   */
  leaseMs: number;
  /** Opaque ids recorded with every effect (invocation, tool call). */
  correlation?: Readonly<Record<string, string>>;
}

export interface JournaledPutOptions extends PutOptions {
  /** The effect's id (default: a random UUID); also the put's idempotency key. */
  effectId?: string;
  correlation?: Readonly<Record<string, string>>;
}

export interface JournaledDeleteOptions extends RequestOptions {
  effectId?: string;
  correlation?: Readonly<Record<string, string>>;
}

/** What a journaled mutation did: its effect id, the receipt, and the metadata-only effect. */
export interface JournaledEffect {
  readonly effectId: string;
  readonly fencingToken: number;
  readonly receipt: EffectReceipt;
  readonly effect: ArtifactEffect;
}

function receiptOf(effect: { version: number; sha256: string; size: number }): EffectReceipt {
  return Object.freeze({ version: effect.version, sha256: effect.sha256, size: effect.size });
}

/**
 * A scoped capability whose puts and deletes are journaled: intent -> service call ->
 * applied, each returned with its effect id. `commit` marks them committed once whatever
 * records them (a session event) is durable. When an effect may have happened but could not
 * be recorded, the call fails with effect_pending_reconciliation; it never claims a rollback.
 */
export class JournaledArtifacts {
  readonly scope: Scope;
  readonly #service: ArtifactService;
  readonly #bound: Pick<BoundArtifacts, "put" | "delete">;
  readonly #journal: EffectJournal;
  readonly #owner: string;
  readonly #leaseMs: number;
  readonly #correlation: Readonly<Record<string, string>> | undefined;
  /**
   * The fencing tokens of the effects this capability applied and has not committed yet: a
   * commit settles with it directly, and the journal refuses it if a reconciler has since
   * claimed the effect, as it would after a read. Bounded; a forgotten token is read back.
   */
  readonly #tokens = new Map<string, number>();

  constructor(service: ArtifactService, scope: Scope, options: JournaledOptions) {
    const opts = validateOptionKeys(
      options,
      ["journal", "owner", "leaseMs", "correlation"],
      "journaledOptions",
    );
    if (typeof (opts.journal as EffectJournal | undefined)?.intend !== "function") {
      throw invalidArgument("journal", "must be an EffectJournal");
    }
    const { owner, leaseMs } = validateLease({ owner: opts.owner, leaseMs: opts.leaseMs });
    this.scope = validateScope(scope);
    this.#service = service;
    this.#bound = bindArtifacts(service, this.scope, { allow: ["put", "delete"] });
    this.#journal = opts.journal as EffectJournal;
    this.#owner = owner;
    this.#leaseMs = leaseMs;
    this.#correlation = opts.correlation as JournaledOptions["correlation"];
  }

  /**
   * Writes the intent and starts the put at once: the put does all it can before its
   * publication, then waits for the intent (its publishGate), so the two rounds of syncs
   * overlap, and a version never exists before the intent that accounts for it.
   */
  async put(
    name: string,
    data: Uint8Array,
    options: JournaledPutOptions = {},
  ): Promise<JournaledEffect> {
    const { effectId = randomUUID(), correlation, ...putOptions } = options;
    if (putOptions.idempotencyKey !== undefined) {
      throw invalidArgument("idempotencyKey", "a journaled put uses its effect id as the key");
    }
    if (putOptions.publishGate !== undefined) {
      throw invalidArgument("publishGate", "a journaled put publishes once its intent is durable");
    }
    if (!(data instanceof Uint8Array)) throw invalidArgument("data", "must be a Uint8Array");
    const requestDigest = sha256Hex(
      JSON.stringify({
        operation: "put",
        name,
        size: data.byteLength,
        sha256: sha256Hex(data),
        mimeType: putOptions.mimeType ?? null,
        metadata: putOptions.metadata ?? null,
      }),
    );
    const started = Date.now();
    const intent = this.#intend("put", name, requestDigest, undefined, effectId, correlation);
    // Past the lease's margin a reconciler may judge the effect first: then publish nothing.
    const publishGate = intent.then(() => this.#checkLease(started, "publication"));
    publishGate.catch(() => {}); // the put waits on it; a put refused before that does not
    const call = this.#start(started, putOptions, (timeoutMs) =>
      this.#bound.put(name, data, {
        ...putOptions,
        timeoutMs,
        idempotencyKey: effectId,
        publishGate,
      }),
    );
    call.catch(() => {}); // awaited once the intent is written; it may fail first
    let record: EffectRecord;
    try {
      record = await intent;
    } catch (error) {
      await call.catch(() => {}); // its gate refused: it published nothing
      throw error;
    }
    return this.#perform(record, call);
  }

  /** Deletes one exact version ("latest" is resolved first, and that version is recorded). */
  async delete(
    name: string,
    selector: number | "latest",
    options: JournaledDeleteOptions = {},
  ): Promise<JournaledEffect> {
    const { effectId, correlation, ...requestOptions } = options;
    if (
      selector !== "latest" &&
      (typeof selector !== "number" || !Number.isSafeInteger(selector))
    ) {
      throw invalidArgument("selector", 'a journaled delete takes a version number or "latest"');
    }
    const head = checkMetaReply(
      await this.#service.head(this.scope, name, {
        ...requestOptions,
        ...(selector === "latest" ? {} : { version: selector }),
      }),
      this.scope,
      name,
    );
    const target = receiptOf(head);
    const requestDigest = sha256Hex(JSON.stringify({ operation: "delete", name, ...target }));
    const started = Date.now();
    const record = await this.#intend("delete", name, requestDigest, target, effectId, correlation);
    const call = this.#start(started, requestOptions, async (timeoutMs) => {
      const [effect] = await this.#bound.delete(name, target.version, {
        ...requestOptions,
        timeoutMs,
      });
      if (effect === undefined) throw invalidArgument("selector", "nothing was deleted");
      return effect;
    });
    return this.#perform(record, call);
  }

  /**
   * Marks effects as committed; call it once the event recording them is durable. The
   * fencing token is the one this capability's put or delete ran under (read back from the
   * journal, while this capability's owner holds the lease, when it is not remembered): once
   * a reconciler claimed the effect, commit fails with capability_denied and the
   * reconciler's judgement stands. Committing again is a no-op.
   */
  async commit(effectIds: string | readonly string[]): Promise<EffectRecord[]> {
    const ids = typeof effectIds === "string" ? [effectIds] : [...effectIds];
    const committed: EffectRecord[] = [];
    for (const id of ids) {
      const effectId = validateEffectId(id);
      const token = this.#tokens.get(effectId) ?? (await this.#tokenHeld(effectId));
      committed.push(await this.#journal.settle(effectId, token, "committed"));
      this.#tokens.delete(effectId);
    }
    return committed;
  }

  /** The effect's current fencing token, read back, if this capability's owner holds it. */
  async #tokenHeld(effectId: string): Promise<number> {
    const record = await this.#journal.get(effectId);
    if (record === undefined) throw notFound(`effect ${effectId}`, { effectId });
    if (record.phase !== "committed" && record.lease.owner !== this.#owner) {
      throw capabilityDenied(`effect ${effectId} is leased to ${record.lease.owner}`, {
        effectId,
        owner: record.lease.owner,
      });
    }
    return record.lease.fencingToken;
  }

  async #intend(
    operation: "put" | "delete",
    name: string,
    requestDigest: string,
    target: EffectReceipt | undefined,
    effectId: string | undefined,
    correlation: Readonly<Record<string, string>> | undefined,
  ): Promise<EffectRecord> {
    const ids = correlation ?? this.#correlation;
    return this.#journal.intend(
      {
        effectId: effectId ?? randomUUID(),
        operation,
        scope: this.scope,
        name,
        requestDigest,
        ...(target === undefined ? {} : { target }),
        ...(ids === undefined ? {} : { correlation: ids }),
      },
      { owner: this.#owner, leaseMs: this.#leaseMs },
    );
  }

  /** Fails when the lease, less its margin, has run out since `started`. */
  #checkLease(started: number, before: string): number {
    const budget = Math.floor(this.#leaseMs * (1 - LEASE_MARGIN)) - (Date.now() - started);
    if (budget < 1) throw invalidArgument("leaseMs", `the lease ran out before the ${before}`);
    return budget;
  }

  /** Starts the service call with a deadline that ends inside the lease. */
  async #start(
    started: number,
    options: RequestOptions,
    call: (timeoutMs: number) => Promise<ArtifactEffect>,
  ): Promise<ArtifactEffect> {
    // Validated (a fraction rounded up) before the cut, so a bad timeout is named as such
    // rather than as a lease that ran out.
    const asked = parseTimeoutMs(options.timeoutMs) ?? MAX_TIMEOUT_MS;
    return call(Math.min(asked, this.#checkLease(started, "call")));
  }

  /** The started service call and the applied record, each failure's outcome classified. */
  async #perform(record: EffectRecord, call: Promise<ArtifactEffect>): Promise<JournaledEffect> {
    const { effectId } = record;
    const token = record.lease.fencingToken;
    let effect: ArtifactEffect;
    try {
      effect = await call;
    } catch (error) {
      if (isArtifactError(error) && NOTHING_CHANGED.has(error.code)) {
        // Nothing happened; if even this cannot be recorded, the reconciler will see so.
        await this.#journal.settle(effectId, token, "not_applied").catch(() => {});
        throw error;
      }
      throw effectPendingReconciliation(
        effectId,
        `the ${record.operation} of "${record.name}" may have happened; a reconciler will settle effect ${effectId}`,
        error,
      );
    }
    const receipt = receiptOf(effect);
    try {
      await this.#journal.markApplied(effectId, token, receipt);
    } catch (error) {
      throw effectPendingReconciliation(
        effectId,
        `the ${record.operation} of "${record.name}" happened (version ${receipt.version}) but could not be journaled`,
        error,
      );
    }
    this.#remember(effectId, token);
    return Object.freeze({ effectId, fencingToken: token, receipt, effect });
  }

  #remember(effectId: string, token: number): void {
    if (this.#tokens.size >= MAX_REMEMBERED_TOKENS) {
      this.#tokens.delete(this.#tokens.keys().next().value as string);
    }
    this.#tokens.set(effectId, token);
  }
}

/** A journaled scoped capability over `service` for one scope. */
export function journalArtifacts(
  service: ArtifactService,
  scope: Scope,
  options: JournaledOptions,
): JournaledArtifacts {
  return new JournaledArtifacts(service, scope, options);
}
