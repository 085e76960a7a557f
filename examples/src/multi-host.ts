// Several OS processes as hosts against one PostgreSQL and one S3 endpoint: each host keeps
// its artifacts in the same S3 store and its effect journal in the same Postgres schema, and
// puts versions of the same names at once. One host is killed (SIGKILL) when it reports a
// put whose intent and receipt are journaled but not committed; another host's reconciler
// settles that orphan; then this coordinator checks what every host was told.
//
//   DATABASE_URL=postgres://... S3_ENDPOINT=http://... node dist/multi-host.js
//
// Optional: HOSTS (3), PUTS per host (12), POLICY for the orphan (compensate | commit),
// S3_BUCKET (artifact-kit-examples, created if missing). Exits 1 if an invariant fails.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { ArtifactMeta, Scope } from "@artifact-kit/core";
import { PostgresEffectJournal } from "@artifact-kit/postgres/effects";
import { S3ArtifactService } from "@artifact-kit/s3";
import { CreateBucketCommand, HeadBucketCommand } from "@aws-sdk/client-s3";
import pg from "pg";
import { type HostConfig, s3Client } from "./multi-host-shared.js";

interface Fact {
  host: string;
  effectId: string;
  name: string;
  version: number;
  sha256: string;
}
type HostEvent = Partial<Fact> & {
  event: string;
  phase?: string;
  passes?: number;
  settled?: unknown[];
  error?: string;
};

const databaseUrl = process.env.DATABASE_URL;
const s3Endpoint = process.env.S3_ENDPOINT;
if (!databaseUrl || !s3Endpoint) {
  console.error("multi-host: set DATABASE_URL (PostgreSQL) and S3_ENDPOINT (an S3 server)");
  process.exit(2);
}
const hosts = positive("HOSTS", 3);
const puts = positive("PUTS", 12);
const policy = process.env.POLICY === "commit" ? "commit" : "compensate";
if (hosts < 2) {
  console.error("multi-host: HOSTS must be at least 2 (a victim and a reconciler)");
  process.exit(2);
}

const run = randomBytes(4).toString("hex");
const schema = `multi_host_${run}`;
const bucket = process.env.S3_BUCKET ?? "artifact-kit-examples";
const prefix = `multi-host/${run}`;
const scope: Scope = { kind: "session", app: "multi-host", user: "example", session: run };
const names = ["plan.md", "notes.txt", "result.json"];
const victimPuts = Math.floor(puts / 2);
const workerScript = fileURLToPath(new URL("./multi-host-worker.js", import.meta.url));

// The shared state: the journal's schema (one migrate, then every host opens it) and the
// bucket; the artifacts live under a prefix of this run's own.
const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
pool.on("error", () => undefined);
const journal = await PostgresEffectJournal.open({ pool, schema, migrate: true });
const client = s3Client(s3Endpoint);
try {
  await client.send(new HeadBucketCommand({ Bucket: bucket }));
} catch {
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
}
const service = await S3ArtifactService.open({ client, bucket, prefix });
console.log(
  `multi-host: run ${run}, ${hosts} hosts x ${puts} puts over ${names.length} names; ` +
    `journal in schema ${schema}, artifacts in s3://${bucket}/${prefix}`,
);

const acked: Fact[] = [];
let orphan: Fact | undefined;
let reconciled: HostEvent | undefined;
const children: ChildProcess[] = [];
const failures: string[] = [];
// Never leave hosts behind: on a stall or when this coordinator is stopped, stop them too.
const abandon = (why: string) => {
  console.error(`multi-host: ${why}`);
  for (const child of children) child.kill("SIGKILL");
  process.exit(1);
};
// A bound for a hang only: a busy CI machine, with other suites on the same servers, is slow.
const overall = setTimeout(() => abandon("timed out after 540 s"), 540_000);
process.once("SIGTERM", () => abandon("stopped (SIGTERM)"));
process.once("SIGINT", () => abandon("stopped (SIGINT)"));

/** Starts one host and resolves once it said ready; `on` gets each later event. */
function startHost(config: HostConfig, on: (event: HostEvent) => void) {
  const child = spawn(process.execPath, [workerScript, JSON.stringify(config)], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  children.push(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  const ready = new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on("line", (line) => {
      const event = JSON.parse(line) as HostEvent;
      if (event.event === "ready") resolve();
      else if (event.event === "error") failures.push(`${config.host}: ${event.error}`);
      else on(event);
    });
    exited.then(({ code, signal }) =>
      reject(new Error(`${config.host} exited (${code ?? signal}) before it was ready`)),
    );
  });
  const send = (line: string) => child.stdin?.write(`${line}\n`);
  return { config, child, exited, ready, send };
}

const configs: HostConfig[] = Array.from({ length: hosts }, (_, index) => ({
  host: `host-${index}`,
  databaseUrl,
  schema,
  s3Endpoint,
  bucket,
  prefix,
  scope,
  names,
  puts: index === 0 ? victimPuts + 1 : puts,
  lanes: 2,
  // Every committed put holds a long lease, so no reconciler judges it while its host lives;
  // the victim's orphan a shorter one, so it becomes claimable soon after the victim dies.
  leaseMs: 60_000,
  ...(index === 0 ? { orphanAfter: victimPuts, orphanLeaseMs: 30_000 } : {}),
}));

let resolveReconciled!: () => void;
const reconciledOnce = new Promise<void>((resolve) => {
  resolveReconciled = resolve;
});
const doneHosts = new Set<string>();
const started = configs.map((config) =>
  startHost(config, (event) => {
    const fact = event as Fact & HostEvent;
    if (event.event === "acked") acked.push(fact);
    else if (event.event === "done") doneHosts.add(config.host);
    else if (event.event === "orphan") {
      // The event, not a timer: the victim dies right after its journal holds the intent and
      // the receipt but no commit, and another host is told to reconcile.
      orphan = fact;
      victim.child.kill("SIGKILL");
      reconciler.send(`reconcile ${fact.effectId} ${policy}`);
    } else if (event.event === "reconciled") {
      reconciled = event;
      resolveReconciled();
    }
  }),
);
const [victim, reconciler] = started as [(typeof started)[0], (typeof started)[0]];
const survivors = started.slice(1);

await Promise.all(started.map((host) => host.ready));
for (const host of started) host.send("go");

const victimExit = await victim.exited;
if (victimExit.signal !== "SIGKILL") {
  failures.push(`host-0 exited (${victimExit.code}) before it reported an orphan`);
} else {
  await Promise.race([
    reconciledOnce,
    reconciler.exited.then(({ code }) => {
      if (reconciled) return;
      failures.push(`${reconciler.config.host} exited (${code}) before the orphan was settled`);
    }),
  ]);
}
for (const host of survivors) host.send("exit");
for (const host of survivors) {
  const { code } = await host.exited;
  if (code !== 0) failures.push(`${host.config.host} exited with ${code}`);
  else if (!doneHosts.has(host.config.host)) failures.push(`${host.config.host} did not finish`);
}
clearTimeout(overall);

// The invariants.
// 1. Every acknowledged version is readable, with the bytes it was acknowledged with.
let readable = 0;
for (const fact of acked) {
  try {
    const artifact = await service.get(scope, fact.name, { version: fact.version });
    if (artifact.sha256 === fact.sha256) readable++;
    else failures.push(`${fact.name} v${fact.version} has another digest`);
  } catch (error) {
    failures.push(`${fact.name} v${fact.version} (acked by ${fact.host}) unreadable: ${error}`);
  }
}
// 2. Versions are distinct: no version of a name was acknowledged to two puts.
const keys = new Set(acked.map((fact) => `${fact.name}\0${fact.version}`));
if (keys.size !== acked.length) failures.push(`${acked.length - keys.size} duplicate versions`);
// 3. No orphan is left open, and the orphan went the policy's way.
const open = (await journal.list()).filter(
  (effect) => !["committed", "compensated", "not_applied"].includes(effect.phase),
);
if (open.length > 0) failures.push(`${open.length} effects left open`);
const expected = policy === "commit" ? "committed" : "compensated";
if (orphan === undefined) failures.push("the victim reported no orphan");
else if (reconciled?.phase !== expected) {
  failures.push(`the orphan is ${reconciled?.phase}, not ${expected}`);
}
// 4. What is live is exactly what was acknowledged (plus the orphan if committed).
const live: ArtifactMeta[] = [];
for (const name of names) {
  let cursor: number | undefined;
  do {
    const page = await service.listVersions(scope, name, cursor ? { cursor } : {});
    live.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
}
const accounted = new Set(keys);
if (orphan && policy === "commit") accounted.add(`${orphan.name}\0${orphan.version}`);
const stray = live.filter((meta) => !accounted.has(`${meta.name}\0${meta.version}`));
if (stray.length > 0 || live.length !== accounted.size) {
  failures.push(`${live.length} live versions, ${accounted.size} accounted for`);
}

const summary = {
  hosts,
  killed: 1,
  acked: acked.length,
  readable,
  distinctVersions: keys.size,
  liveVersions: live.length,
  orphans: orphan ? 1 : 0,
  orphanOutcome: reconciled?.phase ?? null,
  reconcilerPasses: reconciled?.passes ?? 0,
  openEffects: open.length,
  failures,
};
for (const name of names) {
  const versions = live.filter((meta) => meta.name === name).map((meta) => meta.version);
  console.log(`  ${name}: versions ${versions.join(", ")}`);
}
if (orphan) {
  console.log(
    `  orphan: ${orphan.name} v${orphan.version} of ${orphan.host} (killed) -> ` +
      `${reconciled?.phase} by ${reconciler.config.host} in ${reconciled?.passes} pass(es)`,
  );
}
for (const failure of failures) console.log(`  FAILED: ${failure}`);
console.log(`summary ${JSON.stringify(summary)}`);

await journal.close();
await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
await pool.end();
await service.close();
client.destroy();
process.exit(failures.length === 0 ? 0 : 1);

function positive(variable: string, fallback: number): number {
  const value = Number(process.env[variable] ?? fallback);
  if (!Number.isInteger(value) || value < 1) {
    console.error(`multi-host: ${variable} must be a positive integer`);
    process.exit(2);
  }
  return value;
}
