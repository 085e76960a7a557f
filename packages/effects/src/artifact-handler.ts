import {
  type ArtifactMeta,
  type ArtifactService,
  checkMetaReply,
  checkVersionPageReply,
  invalidArgument,
  isArtifactError,
  overloaded,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";
import type { EffectHandler, Reconciliation } from "./reconcile.js";
import type { EffectReceipt, EffectRecord } from "./types.js";

/** What to do with a put that did publish: keep it (commit) or delete it (compensate). */
export type PutDecision = "commit" | "compensate";

export interface ArtifactHandlerOptions {
  /**
   * Chooses per orphaned put that published (for example: commit if the session holds the
   * event, compensate otherwise). Default: compensate, as nothing durable refers to it.
   */
  decide?: (effect: EffectRecord, published: ArtifactMeta) => PutDecision | Promise<PutDecision>;
  /** Most version pages read while looking for an intended put's version (default 100). */
  maxPages?: number;
}

const DEFAULT_MAX_PAGES = 100;

function receiptOf(meta: ArtifactMeta): EffectReceipt {
  return { version: meta.version, sha256: meta.sha256, size: meta.size };
}

/**
 * A handler for effects on artifact-kit services that observes exactly: a put published the
 * version carrying its effect id as idempotency key, or nothing; a delete's target version is
 * gone, or not. Compensation deletes exactly the version the put published.
 */
export function artifactEffectHandler(
  service: ArtifactService,
  options: ArtifactHandlerOptions = {},
): EffectHandler {
  const opts = validateOptionKeys(options, ["decide", "maxPages"], "handlerOptions");
  if (opts.decide !== undefined && typeof opts.decide !== "function") {
    throw invalidArgument("decide", "must be a function");
  }
  const decide = (opts.decide as ArtifactHandlerOptions["decide"]) ?? (() => "compensate" as const);
  const maxPages =
    opts.maxPages === undefined
      ? DEFAULT_MAX_PAGES
      : validatePositiveInteger(opts.maxPages, "maxPages");

  async function headOrUndefined(effect: EffectRecord, version: number, signal: AbortSignal) {
    try {
      const meta = await service.head(effect.scope, effect.name, { version, signal });
      return checkMetaReply(meta, effect.scope, effect.name);
    } catch (error) {
      if (isArtifactError(error, "not_found")) return undefined;
      throw error;
    }
  }

  /** The live version this put published, found by its idempotency key. */
  async function published(
    effect: EffectRecord,
    signal: AbortSignal,
  ): Promise<ArtifactMeta | undefined> {
    if (effect.receipt !== undefined) {
      const meta = await headOrUndefined(effect, effect.receipt.version, signal);
      return meta?.idempotencyKey === effect.effectId ? meta : undefined;
    }
    const limit = service.capabilities().pagination.maxPageLimit;
    let cursor: number | undefined;
    for (let page = 0; page < maxPages; page++) {
      let reply: unknown;
      try {
        reply = await service.listVersions(effect.scope, effect.name, {
          signal,
          ...(cursor === undefined ? {} : { cursor }),
        });
      } catch (error) {
        if (isArtifactError(error, "not_found")) return undefined;
        throw error;
      }
      const versions = checkVersionPageReply(reply, effect.scope, effect.name, limit);
      const match = versions.items.find((meta) => meta.idempotencyKey === effect.effectId);
      if (match !== undefined) return match;
      cursor = versions.nextCursor;
      if (cursor === undefined) return undefined;
    }
    throw overloaded(
      `effect ${effect.effectId}: "${effect.name}" has more versions than maxPages lets one attempt read`,
      "maxPages",
      maxPages,
    );
  }

  async function settlePut(effect: EffectRecord, signal: AbortSignal): Promise<Reconciliation> {
    const meta = await published(effect, signal);
    if (meta === undefined) {
      // A recorded version that is gone was removed by someone: nothing of it is left to keep.
      return effect.receipt === undefined
        ? { outcome: "not_applied" }
        : { outcome: "compensated", receipt: effect.receipt };
    }
    const receipt = receiptOf(meta);
    if ((await decide(effect, meta)) === "commit") return { outcome: "committed", receipt };
    try {
      await service.delete(effect.scope, effect.name, meta.version, { signal });
    } catch (error) {
      if (!isArtifactError(error, "not_found")) throw error;
    }
    return { outcome: "compensated", receipt };
  }

  async function settleDelete(effect: EffectRecord, signal: AbortSignal): Promise<Reconciliation> {
    const target = effect.target;
    if (target === undefined) throw invalidArgument("target", "a delete effect without a target");
    const live = await headOrUndefined(effect, target.version, signal);
    // A deleted version cannot be brought back: a delete that happened is committed.
    return live === undefined
      ? { outcome: "committed", receipt: target }
      : { outcome: "not_applied" };
  }

  return Object.freeze({
    reconcile(effect: EffectRecord, signal: AbortSignal): Promise<Reconciliation> {
      return effect.operation === "put" ? settlePut(effect, signal) : settleDelete(effect, signal);
    },
  });
}
