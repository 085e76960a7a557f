import { postgresSubjects } from "@artifact-kit/postgres/testing";
import pg from "pg";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** postgres on the server .ci/run (or the package's global setup) started. */
export const postgresMatrixSubjects = () =>
  postgresSubjects(() => new pg.Pool({ connectionString: inject("databaseUrl"), max: 2 }));
