import {
  type ArtifactError,
  asArtifactError,
  type Deadline,
  unavailable,
} from "@artifact-kit/core";
import type { Pool, QueryResultRow } from "pg";
import { ClientLoan, sqlState, withClient } from "./client-loan.js";
import { OverdueWatch, overdueFailure } from "./overdue.js";
import type { Statement } from "./statements.js";

// Every statement runs on a checked-out client whose backend is cancelled (pg_cancel_backend,
// from another connection of the pool) the moment the request's deadline passes or its signal
// aborts: the running query stops, not only the wait for it. A cancelled client is discarded,
// so a late cancel can never hit the next user's statement. One still unanswered a grace after
// the cancel (a frozen server or network) has its connection dropped (overdue.ts).

/** SQLSTATEs raised by the store's own functions (see migrations.ts). */
const DEADLINE_PASSED = "AKT01";
/** PostgreSQL's: query_canceled (our cancel) and lock_not_available (lock_timeout). */
const QUERY_CANCELED = "57014";
const LOCK_TIMEOUT = "55P03";

export type Failure = (error: unknown) => ArtifactError | undefined;

/**
 * Stands in a statement's values for the milliseconds its deadline has left, filled in right
 * before the statement is sent (after any wait for a connection): null for no deadline.
 */
export const REMAINING_MS: unique symbol = Symbol("remaining milliseconds");

export class Database {
  readonly #pool: Pool;

  constructor(pool: Pool) {
    this.#pool = pool;
  }

  /** Runs one statement under the deadline; `failure` maps the store's own SQLSTATEs. */
  async query<Row extends QueryResultRow>(
    deadline: Deadline,
    operation: string,
    statement: Statement,
    values: readonly unknown[],
    failure?: Failure,
  ): Promise<Row[]> {
    deadline.check();
    const signal = deadline.toSignal();
    const loan = await this.#connect(deadline, signal, operation);
    let cancelled = false;
    const overdue = new OverdueWatch();
    const cancel = () => {
      cancelled = true;
      // pg knows its backend's pid but does not declare it.
      void this.#cancelBackend((loan.client as unknown as { processID?: unknown }).processID);
      overdue.start(loan.client);
    };
    signal?.addEventListener("abort", cancel, { once: true });
    try {
      if (signal?.aborted) cancel();
      deadline.check();
      const remaining = remainingMs(deadline);
      const filled = values.map((value) => (value === REMAINING_MS ? remaining : value));
      const result = await loan.client.query<Row>({ ...statement, values: filled });
      return result.rows;
    } catch (error) {
      loan.noteFailure(error);
      // Only the statements that commit an effect carry the server's deadline check.
      if (overdue.dropped)
        throw overdueFailure(deadline, operation, values.includes(REMAINING_MS), error);
      throw this.#map(error, deadline, operation, cancelled, failure);
    } finally {
      overdue.stop();
      signal?.removeEventListener("abort", cancel);
      loan.release(cancelled);
    }
  }

  async #connect(
    deadline: Deadline,
    signal: AbortSignal | undefined,
    operation: string,
  ): Promise<ClientLoan> {
    const borrowing = ClientLoan.borrow(this.#pool.connect(), operation);
    if (!signal) return borrowing;
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(deadline.failure() ?? deadlineFailure(deadline));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([borrowing, aborted]);
    } catch (error) {
      // A connection that arrives after the request gave up goes straight back.
      borrowing.then(
        (loan) => loan.release(),
        () => undefined,
      );
      throw error;
    } finally {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  /** Cancels the statement running on backend `pid`, from another connection of the pool. */
  async #cancelBackend(pid: unknown): Promise<void> {
    if (typeof pid !== "number") return;
    await withClient(this.#pool, "cancel", (client) =>
      client.query("SELECT pg_cancel_backend($1)", [pid]),
    ).catch(() => undefined);
  }

  #map(
    error: unknown,
    deadline: Deadline,
    operation: string,
    cancelled: boolean,
    failure: Failure | undefined,
  ): ArtifactError {
    const code = sqlState(error);
    if (
      code === DEADLINE_PASSED ||
      code === LOCK_TIMEOUT ||
      (cancelled && code === QUERY_CANCELED)
    ) {
      return deadline.failure() ?? deadlineFailure(deadline);
    }
    return failure?.(error) ?? asArtifactError(error, operation);
  }
}

/** Whole milliseconds left (rounded down: the server must not outlast the client), or null. */
function remainingMs(deadline: Deadline): number | null {
  const remaining = deadline.remainingMs();
  return remaining === undefined ? null : Math.max(0, Math.floor(remaining));
}

/**
 * The server's clock said the deadline passed a moment before ours did (or the signal's
 * timer fired a millisecond early): the failure as of the deadline itself.
 */
function deadlineFailure(deadline: Deadline): ArtifactError {
  return (
    deadline.failure(deadline.expiresAt ?? Date.now()) ??
    unavailable("the statement was cancelled without a deadline")
  );
}
