import { fileURLToPath } from "node:url";
import { startTestServer } from "@artifact-kit/test-proxy";
import pg from "pg";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** The server DATABASE_URL names, or a throwaway one started by scripts/start-postgres.sh. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await startTestServer({
    variable: "DATABASE_URL",
    script: fileURLToPath(new URL("../../scripts/start-postgres.sh", import.meta.url)),
    stateDirVariable: "PG_STATE_DIR",
    answers: async (url) => {
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.query("SELECT 1");
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  });
  project.provide("databaseUrl", server.value);
  return server.stop;
}
