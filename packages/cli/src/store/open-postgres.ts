import type * as PostgresPackage from "@artifact-kit/postgres";
import type * as PgPackage from "pg";
import type { Opener } from "./backends.js";

/**
 * One pool for the command (or the server). `allowExitOnIdle` lets a one-shot command exit
 * once its queries are done; errors of idle connections are left to the queries that use them.
 */
export const open: Opener<"postgres"> = async (location, [postgres, pg]) => {
  const { PostgresArtifactService } = postgres as typeof PostgresPackage;
  const { Pool } = ((pg as { default?: typeof PgPackage }).default ?? pg) as typeof PgPackage;
  const pool = new Pool({ connectionString: location.connectionString, allowExitOnIdle: true });
  pool.on("error", () => undefined);
  return PostgresArtifactService.open({
    pool,
    ...(location.schema === undefined ? {} : { schema: location.schema }),
    migrate: true,
    ...location.bounds,
  });
};
