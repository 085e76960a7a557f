import {
  type ArtifactError,
  asArtifactError,
  type Deadline,
  unavailable,
} from "@artifact-kit/core";
import type { Pool, PoolClient, QueryResultRow } from "pg";
import type { Statement } from "./statements.js";

// Every statement runs on a checked-out client whose backend is cancelled (pg_cancel_backend,
// from another connection of the pool) the moment the request's deadline passes or its signal
// aborts: the running query stops, not only the wait for it. A cancelled client is discarded,
// so a late cancel can never hit the next user's statement.

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
    const client = await this.#connect(deadline, signal);
    let cancelled = false;
    const cancel = () => {
      cancelled = true;
      void this.#cancelBackend(client);
    };
    signal?.addEventListener("abort", cancel, { once: true });
    let broken: unknown;
    // A backend terminated while the client is checked out surfaces as the query's error;
    // without a listener, the client's own 'error' event would crash the process.
    const onClientError = (error: unknown) => {
      broken = error;
    };
    client.on("error", onClientError);
    try {
      if (signal?.aborted) cancel();
      deadline.check();
      const remaining = remainingMs(deadline);
      const filled = values.map((value) => (value === REMAINING_MS ? remaining : value));
      const result = await client.query<Row>({ ...statement, values: filled });
      return result.rows;
    } catch (error) {
      if (!isSqlError(error)) broken = error;
      throw this.#map(error, deadline, operation, cancelled, failure);
    } finally {
      signal?.removeEventListener("abort", cancel);
      client.removeListener("error", onClientError);
      client.release(cancelled ? true : (broken as Error | undefined));
    }
  }

  async #connect(deadline: Deadline, signal: AbortSignal | undefined): Promise<PoolClient> {
    const connecting = this.#pool.connect();
    if (!signal) return this.#wrapConnect(connecting);
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<never>((_, reject) => {
      onAbort = () => reject(deadline.failure() ?? deadlineFailure(deadline));
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([this.#wrapConnect(connecting), aborted]);
    } catch (error) {
      // A connection that arrives after the request gave up goes straight back.
      connecting.then(
        (client) => client.release(),
        () => undefined,
      );
      throw error;
    } finally {
      if (onAbort) signal.removeEventListener("abort", onAbort);
    }
  }

  async #wrapConnect(connecting: Promise<PoolClient>): Promise<PoolClient> {
    try {
      return await connecting;
    } catch (error) {
      throw asArtifactError(error, "connect");
    }
  }

  async #cancelBackend(client: PoolClient): Promise<void> {
    const pid = (client as unknown as { processID?: unknown }).processID;
    if (typeof pid !== "number") return;
    await this.#pool.query("SELECT pg_cancel_backend($1)", [pid]).catch(() => undefined);
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

/** The SQLSTATE of an error the server sent, or undefined (a broken connection, ...). */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** The server reported an error of its own; the connection itself is still good. */
function isSqlError(error: unknown): boolean {
  const code = sqlState(error);
  return code !== undefined && !code.startsWith("08") && !code.startsWith("57P");
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
