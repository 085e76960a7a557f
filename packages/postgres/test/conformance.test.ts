import { describeArtifactService } from "@artifact-kit/core/conformance";
import { postgresSubjects } from "../src/testing.js";
import { newPool } from "./support/database.js";

// Each subject gets its own schema and pool; reopen is a new pool on the same schema, as
// another host would be; corruption flips a stored byte with SQL.
describeArtifactService("postgres", {
  ...postgresSubjects(() => newPool(2)),
  numRuns: 30,
  // The scale laws put 1,100+ names and versions: headroom for a loaded CI machine.
  testTimeoutMs: 600_000,
});
