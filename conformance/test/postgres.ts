import { postgresSubjects } from "@artifact-kit/postgres/testing";
import pg from "pg";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** A pool on the server .ci/run (or the package's global setup) started. */
export const matrixPostgresPool = () =>
  new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 });

/** postgres on that server, a pool per subject. */
export const postgresMatrixSubjects = () => postgresSubjects(matrixPostgresPool);
