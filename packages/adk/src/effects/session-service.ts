import { effectPendingReconciliation } from "@artifact-kit/core";
import {
  type AppendEventRequest,
  BaseSessionService,
  type CreateSessionRequest,
  type DeleteSessionRequest,
  type Event,
  type GetSessionRequest,
  type ListSessionsRequest,
  type ListSessionsResponse,
  type Session,
} from "@google/adk";
import type { PendingPuts } from "./pending.js";

/**
 * Wraps a session service so that the journaled puts an event's `artifactDelta` names are
 * marked `committed` only once the wrapped `appendEvent` resolved: the event is durable, so
 * the versions are referenced. If the append fails, the run fails with
 * effect_pending_reconciliation and the effects stay open for the reconciler, never dropped.
 */
export class EffectCommittingSessionService extends BaseSessionService {
  readonly #inner: BaseSessionService;
  readonly #pending: PendingPuts;

  constructor(inner: BaseSessionService, pending: PendingPuts) {
    super();
    this.#inner = inner;
    this.#pending = pending;
  }

  createSession(request: CreateSessionRequest): Promise<Session> {
    return this.#inner.createSession(request);
  }

  getSession(request: GetSessionRequest): Promise<Session | undefined> {
    return this.#inner.getSession(request);
  }

  listSessions(request: ListSessionsRequest): Promise<ListSessionsResponse> {
    return this.#inner.listSessions(request);
  }

  deleteSession(request: DeleteSessionRequest): Promise<void> {
    return this.#inner.deleteSession(request);
  }

  override async appendEvent(request: AppendEventRequest): Promise<Event> {
    const { session, event } = request;
    const key = { appName: session.appName, userId: session.userId, sessionId: session.id };
    const puts = this.#pending.take(key, event.actions?.artifactDelta ?? {});
    let appended: Event;
    try {
      appended = await this.#inner.appendEvent(request);
    } catch (error) {
      if (puts.length === 0) throw error;
      throw pendingFailure(puts, "the session event recording them was not appended", error);
    }
    for (const put of puts) {
      try {
        await put.writer.commit(put.effectId);
      } catch (error) {
        throw pendingFailure(puts, "the event is durable but the journal could not commit", error);
      }
    }
    return appended;
  }
}

function pendingFailure(puts: readonly { effectId: string }[], why: string, cause: unknown): Error {
  const ids = puts.map((put) => put.effectId).join(", ");
  const [first] = puts;
  return effectPendingReconciliation(
    first?.effectId ?? "",
    `artifact effects ${ids} are published but ${why}; a reconciler will settle them`,
    cause,
  );
}
