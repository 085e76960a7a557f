import { isArtifactError, unavailable } from "@artifact-kit/core";
import type * as PostgresPackage from "@artifact-kit/postgres";
import type * as PgPackage from "pg";
import type { Opener } from "./backends.js";

/**
 * One pool for the command (or the server). `allowExitOnIdle` lets a one-shot command exit
 * once its queries are done; errors of idle connections are left to the queries that use them.
 *
 * A command that writes migrates the schema first (creating it on a new database); one that
 * only reads checks that the schema is current instead, so a role with SELECT alone can list
 * and get.
 */
export const open: Opener<"postgres"> = async (location, [postgres, pg], { readOnly }) => {
  const { PostgresArtifactService } = postgres as typeof PostgresPackage;
  const { Pool } = ((pg as { default?: typeof PgPackage }).default ?? pg) as typeof PgPackage;
  const pool = new Pool({ connectionString: location.connectionString, allowExitOnIdle: true });
  pool.on("error", () => undefined);
  try {
    return await PostgresArtifactService.open({
      pool,
      ...(location.schema === undefined ? {} : { schema: location.schema }),
      migrate: !readOnly,
      ...location.bounds,
    });
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (!readOnly || !isArtifactError(error, "unavailable")) throw error;
    // The adapter's advice (migrate()) is for programs; a CLI user needs the command.
    throw unavailable(
      `${error.message} (if the schema is missing or behind: read commands never create or upgrade it; a command that writes, such as put or demo, does, with a role allowed to)`,
      error,
    );
  }
};
