import {
  type ArtifactEffect,
  type ArtifactService,
  invalidArgument,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";
import {
  type ArtifactHandlerOptions,
  artifactEffectHandler,
  type EffectHandler,
  type EffectJournal,
  type EffectRecord,
  journalArtifacts,
  type PutDecision,
  validateLease,
} from "@artifact-kit/effects";
import type { BaseArtifactService, BaseSessionService } from "@google/adk";
import { type AdkBridgeOptions, toAdkArtifactService } from "../bridge.js";
import { USER_NAMESPACE_PREFIX } from "../location.js";
import { optional } from "../optional.js";
import { toAdkVersion } from "../version.js";
import type { AdkPutRequest } from "../writer.js";
import { PendingPuts } from "./pending.js";
import { EffectCommittingSessionService } from "./session-service.js";

export { EffectCommittingSessionService } from "./session-service.js";

export interface AdkEffectsOptions {
  journal: EffectJournal;
  /** This runtime's id: the lease holder of every put it journals (never a reconciler's). */
  owner: string;
  /** How long a put stays this runtime's before a reconciler may judge it. */
  leaseMs: number;
  /** Most puts waiting for their event at once (default 10 000); older ones go to the reconciler. */
  maxPending?: number;
}

const DEFAULT_MAX_PENDING = 10_000;

/**
 * Journaled artifact writes for an ADK runtime. Every put through `artifactService()` is
 * journaled (intent, put carrying the effect id as idempotency key, applied), correlated with
 * the app, user, session and, for a tool call, its invocation and function call. The session
 * service from `sessionService(inner)` commits them once the event naming them in its
 * `artifactDelta` is appended; `handler()` settles the rest by asking the session.
 */
export class AdkEffects {
  readonly #service: ArtifactService;
  readonly #options: Required<Omit<AdkEffectsOptions, "maxPending">>;
  readonly #pending: PendingPuts;

  constructor(service: ArtifactService, options: AdkEffectsOptions) {
    const opts = validateOptionKeys(
      options,
      ["journal", "owner", "leaseMs", "maxPending"],
      "adkEffectsOptions",
    );
    if (typeof (opts.journal as EffectJournal | undefined)?.intend !== "function") {
      throw invalidArgument("journal", "must be an EffectJournal");
    }
    const { owner, leaseMs } = validateLease({ owner: opts.owner, leaseMs: opts.leaseMs });
    this.#service = service;
    this.#options = { journal: opts.journal as EffectJournal, owner, leaseMs };
    this.#pending = new PendingPuts(
      opts.maxPending === undefined
        ? DEFAULT_MAX_PENDING
        : validatePositiveInteger(opts.maxPending, "maxPending"),
    );
  }

  /** The bridge (`toAdkArtifactService`) with every put journaled. */
  artifactService(options: Omit<AdkBridgeOptions, "writer"> = {}): BaseArtifactService {
    return toAdkArtifactService(this.#service, {
      ...options,
      writer: { put: (request) => this.#put(request) },
    });
  }

  /** `inner` with the journaled puts of each appended event committed after the append. */
  sessionService(inner: BaseSessionService): BaseSessionService {
    return new EffectCommittingSessionService(inner, this.#pending);
  }

  /**
   * The reconciler's handler for these puts: a published orphan is committed when its session
   * holds an event whose `artifactDelta` names it, and compensated (its version deleted)
   * otherwise.
   */
  handler(
    sessionService: BaseSessionService,
    options: Omit<ArtifactHandlerOptions, "decide"> = {},
  ): EffectHandler {
    return artifactEffectHandler(this.#service, {
      ...options,
      decide: (effect, published) => sessionHoldsPut(sessionService, effect, published.version),
    });
  }

  async #put(request: AdkPutRequest): Promise<ArtifactEffect> {
    const { key, call } = request;
    const writer = journalArtifacts(this.#service, request.scope, {
      ...this.#options,
      correlation: {
        app: key.appName,
        user: key.userId,
        session: key.sessionId,
        ...optional("invocation", call?.invocationId),
        ...optional("toolCall", call?.functionCallId),
      },
    });
    const { effectId, effect } = await writer.put(request.name, request.data, request.options);
    const pendingKey = PendingPuts.key(key, request.filename, toAdkVersion(effect.version));
    this.#pending.add(pendingKey, { effectId, writer });
    return effect;
  }
}

/** The ADK filename a put's scope and name stand for. */
function filenameOf(effect: EffectRecord): string {
  return effect.scope.kind === "user" ? `${USER_NAMESPACE_PREFIX}${effect.name}` : effect.name;
}

async function sessionHoldsPut(
  sessionService: BaseSessionService,
  effect: EffectRecord,
  version: number,
): Promise<PutDecision> {
  const { app, user, session } = effect.correlation ?? {};
  if (app === undefined || user === undefined || session === undefined) return "compensate";
  const found = await sessionService.getSession({ appName: app, userId: user, sessionId: session });
  const filename = filenameOf(effect);
  const adkVersion = toAdkVersion(version);
  const recorded = found?.events.some(
    (event) => event.actions?.artifactDelta?.[filename] === adkVersion,
  );
  return recorded ? "commit" : "compensate";
}
