import { type ArtifactError, type Deadline, unavailable } from "@artifact-kit/core";
import type { PoolClient } from "pg";

// A statement whose deadline passed is cancelled on the server (database.ts), and a live
// server answers that at once. A server or network that froze with the answer in flight never
// answers, nor the cancel: without more, the call would outlive its deadline forever. So the
// connection is dropped when a cancelled statement is still unanswered this long after its
// deadline, and the call ends.

/** How long a cancelled statement may keep its answer before its connection is dropped. */
export const CANCEL_GRACE_MS = 5_000;

/** A watch over one statement: drops its connection once it is overdue. */
export class OverdueWatch {
  #timer: NodeJS.Timeout | undefined;
  #dropped = false;

  /** Starts the grace (once): the statement's deadline passed and its cancel was sent. */
  start(client: PoolClient): void {
    this.#timer ??= setTimeout(() => {
      this.#dropped = true;
      dropConnection(client);
    }, CANCEL_GRACE_MS);
  }

  /** The statement settled: no drop. */
  stop(): void {
    clearTimeout(this.#timer);
  }

  /** Whether the connection was dropped with the statement unanswered. */
  get dropped(): boolean {
    return this.#dropped;
  }
}

/**
 * The failure of a statement dropped unanswered after its deadline. One that commits (a
 * publish or a delete) was sent and may have committed before the answer was lost, so it is
 * `unavailable` (retry a put under its idempotency key to learn which); a read is the
 * deadline's own failure.
 */
export function overdueFailure(
  deadline: Deadline,
  operation: string,
  commits: boolean,
  cause: unknown,
): ArtifactError {
  const passed = deadline.failure(deadline.expiresAt ?? Date.now());
  if (!commits && passed) return passed;
  return unavailable(
    `${operation}: the server did not answer by the deadline; the statement may have committed`,
    passed ?? cause,
  );
}

/** Closes the client's socket now: its outstanding query fails, and the pool discards it. */
function dropConnection(client: PoolClient): void {
  // pg keeps the socket on its connection without declaring it.
  const connection = (client as unknown as { connection?: { stream?: { destroy(): void } } })
    .connection;
  connection?.stream?.destroy();
}
