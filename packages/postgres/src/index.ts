export {
  DEFAULT_SCHEMA,
  MAX_ARTIFACT_BYTES_CEILING,
  POSTGRES_DEFAULTS,
  type PostgresArtifactServiceBounds,
  type PostgresArtifactServiceOptions,
} from "./config.js";
export { type MigrationReport, migrate } from "./migrate.js";
export { MIGRATIONS, type Migration, SCHEMA_VERSION } from "./migrations.js";
export { PostgresArtifactService, type RepairOptions, type RepairReport } from "./service.js";
