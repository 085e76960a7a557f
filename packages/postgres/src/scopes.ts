import type { Deadline, Scope, ScopePage } from "@artifact-kit/core";
import { type ParsedListScopes, scopeDigest, scopePageOf } from "@artifact-kit/core/adapter";
import type { Database } from "./database.js";
import type { Statement, Statements } from "./statements.js";

// Scope discovery for the postgres adapter: the `scopes` table maps each scope_key digest to
// its ids (written once, before the scope's first publication), and scope_usage counts the
// scope's live versions exactly, under the same row locks as publish and delete. Only this
// service's schema is read.

export class ScopeRows {
  readonly #database: Database;
  readonly #sql: Statements;
  /** Scope keys whose row this instance has written or found: rows are never removed. */
  readonly #recorded = new Set<string>();

  constructor(database: Database, sql: Statements) {
    this.#database = database;
    this.#sql = sql;
  }

  /** Makes sure `scope` has its row before anything is published into it. */
  async record(scope: Scope, deadline: Deadline, operation: "put" | "upload"): Promise<void> {
    const key = scopeDigest(scope);
    if (this.#recorded.has(key)) return;
    await this.#database.query(deadline, operation, this.#sql.recordScope, [
      key,
      scope.app,
      scope.kind === "app" ? null : scope.user,
      scope.kind === "session" ? scope.session : null,
    ]);
    this.#recorded.add(key);
  }

  async page(request: ParsedListScopes): Promise<ScopePage> {
    const { statement, values } = this.#query(request);
    const rows = await this.#database.query<{ id: string }>(
      request.deadline,
      "listScopes",
      statement,
      values,
    );
    return scopePageOf(
      request.level,
      rows.map((row) => row.id),
      request.limit,
    );
  }

  #query({ level, cursor, limit }: ParsedListScopes): { statement: Statement; values: unknown[] } {
    const sql = this.#sql;
    const after = cursor === undefined ? [] : [cursor];
    switch (level.kind) {
      case "app":
        return {
          statement: cursor === undefined ? sql.listAppsFirst : sql.listAppsAfter,
          values: [limit + 1, ...after],
        };
      case "user":
        return {
          statement: cursor === undefined ? sql.listUsersFirst : sql.listUsersAfter,
          values: [limit + 1, level.app, ...after],
        };
      case "session":
        return {
          statement: cursor === undefined ? sql.listSessionsFirst : sql.listSessionsAfter,
          values: [limit + 1, level.app, level.user, ...after],
        };
    }
  }
}
