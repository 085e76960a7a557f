// One reconciler process of the effects race, on the built packages: one reconcile pass over
// the Postgres journal in <schema>, started when the parent writes a line.
//   node effects-reconciler.mjs <url> <schema> <owner>
// Prints the effects its handler was given and the pass's report as JSON.
import pg from "pg";
import { reconcileOnceWhenTold } from "../../../effects/test/fixtures/reconciler-race.mjs";
import { PostgresEffectJournal } from "../../dist/effects.js";
import { PostgresArtifactService } from "../../dist/index.js";

const [url, schema, owner] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 2 });
pool.on("error", () => undefined);
const service = await PostgresArtifactService.open({ pool, schema });
const journal = await PostgresEffectJournal.open({ pool, schema });
await reconcileOnceWhenTold(journal, service, owner);
await service.close();
await journal.close();
await pool.end();
