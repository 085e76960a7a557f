import { ArtifactError, asArtifactError } from "@artifact-kit/core";
import type { Pool, PoolClient } from "pg";

// pg emits 'error' on a client whose connection dies, even while a query of it is failing
// with the same cause, and a checked-out client has no listener of the pool's: without one
// of ours the process ends. So every client this package checks out is watched from checkout
// to release, and a client that broke goes back to the pool as broken (the pool drops it).

/** A client checked out of the caller's pool, with an 'error' listener for its whole loan. */
export class ClientLoan {
  readonly client: PoolClient;
  #broken: Error | undefined;
  readonly #onError = (error: Error) => {
    this.#broken ??= error;
  };

  private constructor(client: PoolClient) {
    this.client = client;
    client.on("error", this.#onError);
  }

  /** Checks a client out; a failure to connect is `unavailable`. */
  static async borrow(connecting: Promise<PoolClient>, operation: string): Promise<ClientLoan> {
    try {
      return new ClientLoan(await connecting);
    } catch (error) {
      throw asArtifactError(error, `${operation}: connect`);
    }
  }

  /**
   * Notes a failure while the client was in use: anything but the server's own error or a
   * refusal of ours (an ArtifactError) leaves the client unusable.
   */
  noteFailure(error: unknown): void {
    if (error instanceof ArtifactError || isServerError(error)) return;
    this.#broken ??= toError(error);
  }

  /** Returns the client: broken (or `discard`ed) ones are ended by the pool, not reused. */
  release(discard = false): void {
    this.client.removeListener("error", this.#onError);
    this.client.release(this.#broken ?? discard);
  }
}

/**
 * Runs `use` on a client of the pool's, for statements that must share one connection (a
 * transaction, a session setting); any failure is an ArtifactError (`unavailable` unless it
 * already is one).
 */
export async function withClient<T>(
  pool: Pool,
  operation: string,
  use: (client: PoolClient) => Promise<T>,
): Promise<T> {
  const loan = await ClientLoan.borrow(pool.connect(), operation);
  try {
    return await use(loan.client);
  } catch (error) {
    loan.noteFailure(error);
    throw asArtifactError(error, operation);
  } finally {
    loan.release();
  }
}

/** Runs `use` in one transaction on a client of its own: committed, or rolled back on failure. */
export function withTransaction<T>(
  pool: Pool,
  operation: string,
  use: (client: PoolClient) => Promise<T>,
): Promise<T> {
  return withClient(pool, operation, async (client) => {
    try {
      await client.query("BEGIN");
      const result = await use(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      // On a broken connection this fails too, and the server rolls back for us.
      await client.query("ROLLBACK").catch(() => undefined);
      throw error;
    }
  });
}

/** The SQLSTATE of an error the server sent, or undefined (a broken connection, ...). */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/** The server reported an error of its own; the connection itself is still good. */
function isServerError(error: unknown): boolean {
  const code = sqlState(error);
  return code !== undefined && !code.startsWith("08") && !code.startsWith("57P");
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
