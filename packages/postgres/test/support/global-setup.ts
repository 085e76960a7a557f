import { fileURLToPath } from "node:url";
import { testServerSetup } from "@artifact-kit/test-proxy";
import pg from "pg";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

/** The server DATABASE_URL names, or a throwaway one started by scripts/start-postgres.sh. */
export default testServerSetup("databaseUrl", {
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
