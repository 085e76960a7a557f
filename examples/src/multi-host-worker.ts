// One host of the multi-host example (started by multi-host.ts, one OS process each): it
// opens the shared S3 store and the shared Postgres effect journal, puts versions of the
// shared names through journaled puts, and on command runs the reconciler.
//
//   node dist/multi-host-worker.js '<HostConfig as JSON>'
//
// It talks to the coordinator in lines: JSON events on stdout, commands on stdin
// ("go", "reconcile <effectId> <policy>", "exit").
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";
import { artifactEffectHandler, journalArtifacts, reconcile } from "@artifact-kit/effects";
import { PostgresEffectJournal } from "@artifact-kit/postgres/effects";
import { S3ArtifactService } from "@artifact-kit/s3";
import pg from "pg";
import { type HostConfig, s3Client } from "./multi-host-shared.js";

const TERMINAL = new Set(["committed", "compensated", "not_applied"]);

async function main(config: HostConfig): Promise<void> {
  const emit = (event: Record<string, unknown>) =>
    process.stdout.write(`${JSON.stringify({ host: config.host, ...event })}\n`);
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 4 });
  pool.on("error", () => undefined);
  const client = s3Client(config.s3Endpoint);
  const service = await S3ArtifactService.open({
    client,
    bucket: config.bucket,
    prefix: config.prefix,
  });
  const journal = await PostgresEffectJournal.open({ pool, schema: config.schema });
  const writer = (leaseMs: number) =>
    journalArtifacts(service, config.scope, { journal, owner: `writer-${config.host}`, leaseMs });
  const artifacts = writer(config.leaseMs);

  let go!: () => void;
  const started = new Promise<void>((resolve) => {
    go = resolve;
  });
  const tasks: Promise<void>[] = [];
  let closing!: () => void;
  const closed = new Promise<void>((resolve) => {
    closing = resolve;
  });
  const commands = createInterface({ input: process.stdin });
  commands.on("line", (line) => {
    const [command, ...args] = line.trim().split(" ");
    if (command === "go") go();
    else if (command === "reconcile") {
      tasks.push(
        settle(args[0] ?? "", args[1] ?? "compensate").catch((error: unknown) => {
          emit({ event: "error", error: String(error) });
          process.exit(1);
        }),
      );
    } else if (command === "exit") closing();
  });
  // The coordinator is gone (its end of stdin closed): stop, whatever this host was doing.
  commands.once("close", () => process.exit(1));

  // One reconciler pass after another until the effect is settled: each pass claims only
  // orphans whose writer's lease has ended, so between passes it waits for that lease.
  async function settle(effectId: string, policy: string): Promise<void> {
    const handler = artifactEffectHandler(service, {
      decide: () => (policy === "commit" ? "commit" : "compensate"),
    });
    const settled: Array<{ effectId: string; outcome: string }> = [];
    // A bound for a hang only, far past the orphan's lease.
    const giveUpAt = Date.now() + 480_000;
    let passes = 0;
    for (;;) {
      const record = await journal.get(effectId);
      if (record === undefined) throw new Error(`no effect ${effectId} in the journal`);
      if (TERMINAL.has(record.phase)) {
        emit({ event: "reconciled", effectId, phase: record.phase, passes, settled });
        return;
      }
      if (Date.now() > giveUpAt) throw new Error(`effect ${effectId} still ${record.phase}`);
      await sleep(Math.max(0, record.lease.expiresAt - Date.now()) + 50);
      passes += 1;
      const report = await reconcile(journal, handler, {
        owner: `reconciler-${config.host}`,
        limit: 100,
        timeBudgetMs: 30_000,
        leaseMs: 30_000,
        retry: { attempts: 5, backoffMs: 200, maxBackoffMs: 2000 },
      });
      settled.push(...report.settled);
    }
  }

  async function putOne(index: number, commit: boolean): Promise<void> {
    const name = config.names[index % config.names.length] as string;
    const data = new TextEncoder().encode(`${config.host} put #${index} of ${name}\n`);
    const through = commit ? artifacts : writer(config.orphanLeaseMs ?? config.leaseMs);
    const put = await through.put(name, data, { mimeType: "text/plain" });
    const fact = { name, version: put.receipt.version, sha256: put.receipt.sha256 };
    if (!commit) {
      // Intent and receipt are in the journal, the commit is not: an orphan if we die now.
      emit({ event: "orphan", effectId: put.effectId, ...fact });
      return;
    }
    await artifacts.commit(put.effectId);
    emit({ event: "acked", effectId: put.effectId, ...fact });
  }

  emit({ event: "ready", pid: process.pid });
  await started;
  if (config.orphanAfter !== undefined) {
    for (let index = 0; index < config.orphanAfter; index++) await putOne(index, true);
    await putOne(config.orphanAfter, false);
    // Wait for the coordinator's SIGKILL (or its "exit", which never comes to a victim).
  } else {
    let next = 0;
    const lane = async () => {
      while (next < config.puts) await putOne(next++, true);
    };
    await Promise.all(Array.from({ length: config.lanes }, lane));
    emit({ event: "done", puts: config.puts });
  }
  await closed;
  await Promise.all(tasks);
  await journal.close();
  await service.close();
  await pool.end();
  client.destroy();
}

const raw = process.argv[2];
if (raw === undefined) {
  console.error("usage: multi-host-worker.js '<HostConfig as JSON>'");
  process.exit(2);
}
main(JSON.parse(raw) as HostConfig).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stdout.write(`${JSON.stringify({ event: "error", error: String(error) })}\n`);
    console.error(error);
    process.exit(1);
  },
);
