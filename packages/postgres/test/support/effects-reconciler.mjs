// One reconciler process of the effects race, on the built packages: one reconcile pass over
// the Postgres journal in <schema>, started when the parent writes a line.
//   node effects-reconciler.mjs <url> <schema> <owner>
// Prints the effects its handler was given and the pass's report as JSON.
import { artifactEffectHandler, reconcile } from "@artifact-kit/effects";
import pg from "pg";
import { PostgresEffectJournal } from "../../dist/effects.js";
import { PostgresArtifactService } from "../../dist/index.js";

const [url, schema, owner] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 2 });
pool.on("error", () => undefined);
const service = await PostgresArtifactService.open({ pool, schema });
const journal = await PostgresEffectJournal.open({ pool, schema });
const inner = artifactEffectHandler(service);
const handled = [];
const handler = {
  reconcile(effect, signal) {
    handled.push(effect.effectId);
    return inner.reconcile(effect, signal);
  },
};
process.stdout.write("ready\n");
await new Promise((resolve) => process.stdin.once("data", resolve));
const report = await reconcile(journal, handler, {
  owner,
  limit: 1000,
  timeBudgetMs: 60_000,
  leaseMs: 60_000,
  retry: { attempts: 3, backoffMs: 100, maxBackoffMs: 1000 },
});
process.stdout.write(`${JSON.stringify({ handled, report })}\n`);
await service.close();
await journal.close();
await pool.end();
