import type { Scope } from "@artifact-kit/core";
import { PostgresArtifactService } from "@artifact-kit/postgres";
import pg from "pg";

// The server .ci/run started (packages/postgres/scripts/start-postgres.sh); a schema of its own.
const connectionString = process.env.DATABASE_URL;
if (!connectionString) throw new Error("DATABASE_URL is not set: start PostgreSQL first");
const pool = new pg.Pool({ connectionString });
const schema = `smoke_${process.pid}_${Date.now()}`;
try {
  const service = await PostgresArtifactService.open({ pool, schema, migrate: true });
  const scope: Scope = { kind: "session", app: "smoke", user: "u", session: "s" };
  const meta = await service.put(scope, "hello.txt", new TextEncoder().encode("hello"));
  const artifact = await service.get(scope, "hello.txt", { version: meta.version });
  if (new TextDecoder().decode(artifact.data) !== "hello") throw new Error("round trip failed");
  await service.close();
  console.log(`postgres: put v${meta.version} through pg and read it back`);
} finally {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
}
