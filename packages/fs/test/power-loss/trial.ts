import { stat } from "node:fs/promises";
import { join } from "node:path";
import { isArtifactError } from "@artifact-kit/core";
import { seededRandom } from "@artifact-kit/test-proxy";
import { FsArtifactService } from "../../src/index.js";
import { walk } from "../processes.js";
import type { CrashFs, CutMode, TrialResult } from "./crashfs.js";
import { LARGE_UPLOAD_BYTES, NAMES, payload, SCOPES, type Step, writerScript } from "./script.js";
import {
  keyOf,
  Model,
  putOptions,
  type ResolvedStep,
  runWriter,
  type WriterResult,
} from "./writer.js";

const open = (root: string) => FsArtifactService.open({ root, maxScanEntries: 1_000 });

/**
 * Runs the seed's writer script on an empty disk once to count its mutating operations,
 * then again on a fresh disk with the power cut at a random one of them; remounts what the
 * disk kept, reopens the store and checks it against what was acknowledged.
 */
export async function runTrial(
  crashfs: CrashFs,
  mode: CutMode,
  seed: number,
): Promise<TrialResult> {
  const steps = writerScript(seed);
  const root = crashfs.mountpoint;

  // Count the mutating operations of each step in an uncut run, then cut the power at a
  // random operation of a random step (uniform over operations alone, the few operations of
  // a delete would seldom be hit).
  await crashfs.fresh();
  const counting = await open(root);
  const violations: string[] = [];
  const boundaries = [(await crashfs.status()).ops];
  const uncut = await runWriter(counting, steps, new Model(), violations, async () => {
    boundaries.push((await crashfs.status()).ops);
  });
  await counting.close();
  if (uncut.inFlight) violations.push(`broken: the uncut run failed: ${String(uncut.error)}`);
  const cutAt = pickCut(boundaries, seededRandom(seed ^ 0x5eed));

  await crashfs.fresh();
  const model = new Model();
  const writer = await open(root);
  await crashfs.arm(cutAt);
  const written = await runWriter(writer, steps, model, violations);
  await writer.close();
  const { cutOn } = await crashfs.status();
  // The cut is the only failure: the step it hits fails with unavailable (EIO).
  const { error } = written;
  if (
    written.inFlight &&
    (cutOn === "" || !isArtifactError(error) || error.code !== "unavailable")
  ) {
    violations.push(`broken: a step failed other than by the cut: ${String(error)}`);
  }
  const report = await crashfs.remount(mode, seed);

  const puts = new Map<string, PutStep>();
  for (const step of steps) if (step.op === "put") puts.set(step.tag, step);
  const service = await open(root);
  try {
    await checkState(service, model, written.inFlight, puts, violations);
    const cutKeyedPut = written.inFlight?.op === "put" && written.inFlight.key !== undefined;
    await checkRepair(service, root, violations, cutKeyedPut ? 1 : 0);
    await checkKeyedRetries(service, model, steps, written, violations);
    // The retries finished whatever repair kept for them: now nothing may be left.
    await checkRepair(service, root, violations, 0);
    await checkNoReuse(service, model, [...puts.values()], violations);
  } finally {
    await service.close();
  }
  return {
    mode,
    seed,
    acknowledged: written.acknowledged,
    inFlight: written.inFlight ? stepKind(written.inFlight) : "idle",
    report,
    violations,
  };
}

type PutStep = Extract<Step, { op: "put" }>;

/** The operation to cut at, counted from the first step's start: a random one of a random step. */
function pickCut(boundaries: readonly number[], random: () => number): number {
  const first = boundaries[0] as number;
  const spans: [number, number][] = [];
  for (let i = 1; i < boundaries.length; i++) {
    const start = boundaries[i - 1] as number;
    const end = boundaries[i] as number;
    if (end > start) spans.push([start - first, end - first]);
  }
  const [start, end] = spans[Math.floor(random() * spans.length)] ?? [0, 1];
  return start + 1 + Math.floor(random() * (end - start));
}

function stepKind(step: ResolvedStep): string {
  if (step.op === "put") {
    if (!step.chunks) return step.key === undefined ? "put" : "put:keyed";
    return step.size >= LARGE_UPLOAD_BYTES ? "upload:large" : "upload";
  }
  return `delete:${step.selector}`;
}

/**
 * Every acknowledged put is there, whole, with its bytes; nothing acknowledged as deleted
 * came back; the step in flight is all or nothing (a delete of "all" may be partial).
 */
async function checkState(
  service: FsArtifactService,
  model: Model,
  inFlight: ResolvedStep | undefined,
  puts: ReadonlyMap<string, PutStep>,
  violations: string[],
): Promise<void> {
  for (const [index, scope] of SCOPES.entries()) {
    const listed: string[] = [];
    for (const name of NAMES) {
      const key = keyOf({ scope: index, name });
      const want = model.versions(key);
      const got = (await service.listVersions(scope, name)).items.map((meta) => meta.version);
      if (got.length > 0) listed.push(name);
      const pending = inFlight && keyOf(inFlight) === key ? inFlight : undefined;
      let allowedExtra: number[] = [];
      let allowedMissing: number[] = [];
      if (pending?.op === "put") {
        allowedExtra = got.filter((v) => v > (model.highWater.get(key) ?? 0));
        if (allowedExtra.length > 1) violations.push(`torn: two versions of one put: ${key}`);
      } else if (pending?.op === "delete") {
        allowedMissing = pending.targets;
      }
      for (const version of want) {
        if (!got.includes(version) && !allowedMissing.includes(version)) {
          violations.push(
            `lost: acknowledged put ${model.tags.get(`${key}@${version}`)} (${key} v${version})`,
          );
        }
      }
      for (const version of got) {
        if (!want.includes(version) && !allowedExtra.includes(version)) {
          violations.push(`undone: ${key} v${version} is back after an acknowledged delete`);
        }
        const tag =
          model.tags.get(`${key}@${version}`) ?? (pending?.op === "put" ? pending.tag : undefined);
        await checkBytes(service, index, name, version, tag, puts, violations);
      }
    }
    const names = (await service.listNames(scope)).items;
    if (JSON.stringify(names) !== JSON.stringify([...listed].sort(compareBytes))) {
      violations.push(`listing: listNames gives ${JSON.stringify(names)}, versions say ${listed}`);
    }
  }
}

const compareBytes = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));

async function checkBytes(
  service: FsArtifactService,
  scopeIndex: number,
  name: string,
  version: number,
  tag: string | undefined,
  puts: ReadonlyMap<string, PutStep>,
  violations: string[],
): Promise<void> {
  const where = `${scopeIndex}/${name} v${version}`;
  const scope = SCOPES[scopeIndex];
  const step = tag === undefined ? undefined : puts.get(tag);
  try {
    if (!scope || !step) throw new Error("no put made it");
    const artifact = await service.get(scope, name, { version });
    const stored = (artifact.metadata as { tag?: unknown }).tag;
    if (stored !== tag || !Buffer.from(artifact.data).equals(payload(step))) {
      violations.push(`torn: ${where} holds other bytes than put ${tag}`);
    }
  } catch (error) {
    violations.push(`torn: ${where} cannot be read: ${String(error)}`);
  }
}

/**
 * After repair, no staging file and no half-published version remains, but for at most
 * `mayAwaitRetry` versions of a keyed put the cut hit, whose key's binding holds them whole:
 * repair keeps those unpublished for the key's retry (a version file a binding holds has a
 * second link).
 */
async function checkRepair(
  service: FsArtifactService,
  root: string,
  violations: string[],
  mayAwaitRetry: number,
) {
  const report = await service.repair({ minAgeMs: 0 });
  if (report.awaitingRetry > mayAwaitRetry) {
    violations.push(`garbage: repair kept ${report.awaitingRetry} bound versions for a retry`);
  }
  if (report.corrupt > 0) violations.push(`torn: repair found ${report.corrupt} corrupt versions`);
  if (!report.complete) violations.push("garbage: repair did not complete");
  const files = (await walk(root)).filter((e) => e.kind === "file").map((e) => e.path);
  const present = new Set(files);
  let keptForRetry = 0;
  for (const path of files) {
    if (path.startsWith("staging/") || path.includes("/staging/")) {
      violations.push(`garbage: ${path} after repair`);
    }
    const base = path.slice(0, -1);
    if (path.endsWith(".d") && !present.has(`${base}m`))
      violations.push(`garbage: ${path} unpublished`);
    if (path.endsWith(".m") && !present.has(`${base}r`)) {
      violations.push(`torn: ${path} without its reservation`);
    }
    // A version file left by a put cut short, or by a delete: repair empties it, unless it
    // keeps it for a retry (counted in the report).
    const emptied = path.endsWith(".t") || (path.endsWith(".r") && !present.has(`${base}m`));
    const file = emptied ? await stat(join(root, path)) : undefined;
    if (file !== undefined && file.size > 0) {
      const bound = path.endsWith(".r") && file.nlink >= 2;
      if (bound && ++keptForRetry <= report.awaitingRetry) continue;
      violations.push(`garbage: ${path} still holds bytes after repair`);
    }
  }
}

/**
 * Every keyed put retried after reopening gets what its key says: an acknowledged put's
 * version while it is live, not_found once an acknowledged delete removed it; the put the cut
 * hit gets the version it published (or, if none became visible, one new version) and never
 * not_found, as its key was never acknowledged as spent.
 */
async function checkKeyedRetries(
  service: FsArtifactService,
  model: Model,
  steps: readonly Step[],
  written: WriterResult,
  violations: string[],
) {
  const inFlight = written.inFlight;
  for (const [index, step] of steps.entries()) {
    if (step.op !== "put" || step.key === undefined || index > written.acknowledged) continue;
    const key = keyOf(step);
    const scope = SCOPES[step.scope] as (typeof SCOPES)[number];
    const where = `keyed put ${step.tag} (${key})`;
    const acked = [...model.tags].find(([, tag]) => tag === step.tag)?.[0];
    const version = acked === undefined ? undefined : Number(acked.split("@").at(-1));
    const cutHit = index === written.acknowledged;
    if (cutHit && inFlight?.op !== "put") continue;
    const maybeDeleted =
      version !== undefined &&
      inFlight?.op === "delete" &&
      keyOf(inFlight) === key &&
      inFlight.targets.includes(version);
    const visible = (await service.listVersions(scope, step.name)).items;
    const published = visible.find((meta) => meta.idempotencyKey === step.key)?.version;
    let got: number | undefined;
    try {
      got = (await service.put(scope, step.name, payload(step), putOptions(step))).version;
    } catch (error) {
      if (!(isArtifactError(error) && error.code === "not_found")) {
        violations.push(`keyed: retry of ${where} fails: ${String(error)}`);
        continue;
      }
    }
    if (cutHit) {
      if (got === undefined) violations.push(`keyed: retry of ${where}, cut short, is not_found`);
      else if (published !== undefined && got !== published) {
        violations.push(`keyed: retry of ${where} got v${got}, not the published v${published}`);
      }
    } else if (version !== undefined && model.versions(key).includes(version)) {
      if (got !== version && !(maybeDeleted && got === undefined)) {
        violations.push(`keyed: retry of ${where} got ${got ?? "not_found"}, not v${version}`);
      }
    } else if (got !== undefined && !maybeDeleted) {
      violations.push(`keyed: retry of ${where}, deleted, published v${got} again`);
    }
  }
}

/**
 * A put after reopening works and goes above every version acknowledged or visible, on
 * every artifact the script puts to (whether or not its puts ran before the cut).
 */
async function checkNoReuse(
  service: FsArtifactService,
  model: Model,
  puts: readonly PutStep[],
  violations: string[],
) {
  const keys = new Set(puts.map(keyOf));
  for (const [index, scope] of SCOPES.entries()) {
    for (const name of NAMES) {
      const key = keyOf({ scope: index, name });
      if (!keys.has(key)) continue;
      const visible = (await service.listVersions(scope, name)).items.map((m) => m.version);
      const floor = Math.max(model.highWater.get(key) ?? 0, ...visible);
      try {
        const { version } = await service.put(scope, name, new TextEncoder().encode("after"));
        if (version <= floor)
          violations.push(`reused: ${key} v${version} after reopening (floor ${floor})`);
      } catch (error) {
        violations.push(`broken: a put to ${key} after reopening fails: ${String(error)}`);
      }
    }
  }
}
