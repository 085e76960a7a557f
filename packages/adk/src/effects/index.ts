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
  type JournaledArtifacts,
  journalArtifacts,
  type PutDecision,
  validateLease,
} from "@artifact-kit/effects";
import type { BaseArtifactService, BaseSessionService } from "@google/adk";
import { type AdkBridgeOptions, toAdkArtifactService } from "../bridge.js";
import { USER_NAMESPACE_PREFIX } from "../location.js";
import { optional } from "../optional.js";
import { toAdkVersion } from "../version.js";
import type { AdkDeleteRequest, AdkMutation, AdkPutRequest } from "../writer.js";
import { DEFAULT_MAX_DELETE_VERSIONS, deleteEveryVersion } from "./deletes.js";
import { PendingPuts } from "./pending.js";
import { EffectCommittingSessionService } from "./session-service.js";

export { EffectCommittingSessionService } from "./session-service.js";

export interface AdkEffectsOptions {
  journal: EffectJournal;
  /** This runtime's id: the lease holder of every effect it journals (never a reconciler's). */
  owner: string;
  /** How long an effect stays this runtime's before a reconciler may judge it. */
  leaseMs: number;
  /** Most puts waiting for their event at once (default 10 000); older ones go to the reconciler. */
  maxPending?: number;
  /**
   * Most live versions one `deleteArtifact` removes (default 1000); a name with more is
   * refused with quota_exceeded before anything is deleted.
   */
  maxDeleteVersions?: number;
}

const DEFAULT_MAX_PENDING = 10_000;

/**
 * Journaled artifact writes for an ADK runtime. Every put and delete through
 * `artifactService()` is journaled (intent, call, applied), correlated with the app, user,
 * session and, for a tool call, its invocation and function call. A put carries its effect id
 * as idempotency key; the session service from `sessionService(inner)` commits it once the
 * event naming it in its `artifactDelta` is appended. A `deleteArtifact` is one delete effect
 * per live version, each committed once its version is gone. `handler()` settles the rest.
 */
export class AdkEffects {
  readonly #service: ArtifactService;
  readonly #options: Required<Omit<AdkEffectsOptions, "maxPending" | "maxDeleteVersions">>;
  readonly #pending: PendingPuts;
  readonly #maxDeleteVersions: number;

  constructor(service: ArtifactService, options: AdkEffectsOptions) {
    const opts = validateOptionKeys(
      options,
      ["journal", "owner", "leaseMs", "maxPending", "maxDeleteVersions"],
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
    this.#maxDeleteVersions =
      opts.maxDeleteVersions === undefined
        ? DEFAULT_MAX_DELETE_VERSIONS
        : validatePositiveInteger(opts.maxDeleteVersions, "maxDeleteVersions");
  }

  /** The bridge (`toAdkArtifactService`) with every put and delete journaled. */
  artifactService(options: Omit<AdkBridgeOptions, "writer"> = {}): BaseArtifactService {
    return toAdkArtifactService(this.#service, {
      ...options,
      writer: {
        put: (request) => this.#put(request),
        delete: (request) => this.#delete(request),
      },
    });
  }

  /** `inner` with the journaled puts of each appended event committed after the append. */
  sessionService(inner: BaseSessionService): BaseSessionService {
    return new EffectCommittingSessionService(inner, this.#pending);
  }

  /**
   * The reconciler's handler for these effects. A published orphan put is committed when its
   * session holds an event whose `artifactDelta` names it, and compensated (its version
   * deleted) otherwise. An open delete is judged by its target version alone (`decide` is
   * asked about puts only): committed if the version is gone, not_applied if it is live.
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
    const writer = this.#journaled(request);
    const { effectId, effect } = await writer.put(request.name, request.data, request.options);
    const pendingKey = PendingPuts.key(request.key, request.filename, toAdkVersion(effect.version));
    this.#pending.add(pendingKey, { effectId, writer });
    return effect;
  }

  async #delete(request: AdkDeleteRequest): Promise<void> {
    const journaled = this.#journaled(request);
    return deleteEveryVersion(this.#service, journaled, request, this.#maxDeleteVersions);
  }

  /** The journaled capability for a mutation's scope, its effects correlated with its request. */
  #journaled({ key, call, scope }: AdkMutation): JournaledArtifacts {
    return journalArtifacts(this.#service, scope, {
      ...this.#options,
      correlation: {
        app: key.appName,
        user: key.userId,
        session: key.sessionId,
        ...optional("invocation", call?.invocationId),
        ...optional("toolCall", call?.functionCallId),
      },
    });
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
