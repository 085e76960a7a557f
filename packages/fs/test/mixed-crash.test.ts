import { existsSync, lstatSync } from "node:fs";
import { type ArtifactMeta, isArtifactError, type Scope } from "@artifact-kit/core";
import { seededRandom } from "@artifact-kit/test-proxy";
import { afterAll, describe, expect, it } from "vitest";
import { FsArtifactService, fsArtifactPaths } from "../src/index.js";
import { tempRoot } from "./helpers.js";
import { type KillPoint, reached } from "./kill-points.js";
import { NAMES, type Op, type PutOp, parseRun, payload, StoreModel } from "./mixed-model.js";
import { startChild } from "./processes.js";

// A child runs one workload of what users mix (fixtures/mixed-crash-child.mjs) and is killed
// with SIGKILL at an event, never a timer: a begin or acknowledgement it reports, or a store
// file it removes or creates (kill-points.ts). Then
// the parent does what a caller does after a crash: reads, retries the operation in flight
// (a keyed put under its key, a delete of what it targeted), retries keyed puts, runs
// repair(). Throughout: every acknowledged put reads back its bytes unless an acknowledged
// delete removed it, every acknowledged delete stays deleted, and a key publishes at most once.
// Every third trial a repair (fixtures/repair-child.mjs) is SIGKILLed too, inside its first
// or second run over what the writer left, before the parent looks.
// One root for all trials, so later trials run on what earlier crashes left behind.
// FS_CRASH_TRIALS=N runs longer (at least 24, for the checks that the kills landed inside
// keyed puts and deletes); FS_CRASH_SEED picks another fixed sequence.

const TRIALS = Number(process.env.FS_CRASH_TRIALS ?? 48);
const SEED = Number(process.env.FS_CRASH_SEED ?? 30);
/** The kill lands in one of the child's first operations (each has a begin and a done). */
const MAX_OPERATIONS = 30;
/** Keys of earlier trials retried after each trial, besides the trial's own. */
const EARLIER_KEYS = 12;
const SCOPE: Scope = { kind: "user", app: "mixed-crash", user: "u" };

/** Runs `call`; an ArtifactError is its code, not a throw. */
async function answer<T>(call: () => Promise<T>): Promise<T | string> {
  try {
    return await call();
  } catch (error) {
    if (isArtifactError(error)) return error.code;
    throw error;
  }
}

/** A keyed put repeated exactly as the child made it: its version, or an error code. */
function retryPut(service: FsArtifactService, put: PutOp): Promise<number | string> {
  const options = { metadata: { tag: put.tag }, idempotencyKey: put.key as string };
  return answer(async () => {
    const data = payload(put.tag, put.size);
    return (await service.put(SCOPE, put.name, data, options)).version;
  });
}

async function listAll(service: FsArtifactService, name: string): Promise<ArtifactMeta[]> {
  const items: ArtifactMeta[] = [];
  let cursor: number | undefined;
  do {
    const page = await service.listVersions(SCOPE, name, {
      limit: 1000,
      ...(cursor === undefined ? {} : { cursor }),
    });
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return items;
}

/** What is wrong with version `version` of `name` as the bytes of `put`; undefined if intact. */
async function readsBack(service: FsArtifactService, version: number, put: PutOp) {
  const got = await answer(() => service.get(SCOPE, put.name, { version }));
  if (typeof got === "string") return `${put.name}@${version} (${put.tag}): ${got}`;
  const bytes = Buffer.from(payload(put.tag, put.size));
  const same = got.metadata.tag === put.tag && bytes.equals(Buffer.from(got.data));
  return same ? undefined : `${put.name}@${version} holds other bytes than ${put.tag}`;
}

/** Starts fixtures/repair-child on `root` and SIGKILLs it once it starts run number `run`. */
async function killedRepair(root: string, run: number): Promise<void> {
  const repairer = startChild("repair-child.mjs", [root]);
  await repairer.waitFor("start", run);
  repairer.process.kill("SIGKILL");
  await repairer.done;
}

interface Trial {
  readonly violations: string[];
  readonly pending: string;
}

class MixedCrashRun {
  readonly model = new StoreModel();
  readonly #random = seededRandom(SEED);
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  async trial(index: number): Promise<Trial> {
    const child = startChild("mixed-crash-child.mjs", [
      this.#root,
      String(SEED * 100_000 + index),
      // Tags and keys unique per root: no run gets near a million operations.
      String(index * 1_000_000),
    ]);
    await reached(child, this.#killPoint(index));
    child.process.kill("SIGKILL");
    const { lines, signal } = await child.done;
    expect(signal).toBe("SIGKILL");
    const { acknowledged, pending } = parseRun(lines);
    // Every third trial, a repair is killed too, inside its first or second run over what
    // the writer left: a crash during recovery changes nothing the checks below allow.
    if (index % 3 === 2) await killedRepair(this.#root, 1 + (index % 2));
    const violations: string[] = [];
    const before = new Set(this.model.keys.keys());
    for (const { op, outcome } of acknowledged) violations.push(...this.model.apply(op, outcome));
    const service = await FsArtifactService.open({ root: this.#root });
    try {
      const seen = await this.#observeAfterKill(service, pending, violations);
      // Every other trial, repair runs before any retry: it must keep a keyed put cut short
      // for its retry (publishing nothing) and leave a delete cut short deleted.
      if (index % 2 === 1) await this.#repair(service, violations);
      await this.#finishPending(service, pending, seen, violations);
      const keys = this.#keysToRetry(before, pending);
      await this.#retryKeys(service, keys, "after the crash", violations);
      await this.#repair(service, violations);
      await this.#observeExactly(service, violations);
      await this.#retryKeys(service, keys, "after repair", violations);
    } finally {
      await service.close();
    }
    const kind = !pending
      ? "none"
      : pending.op === "delete"
        ? `delete:${typeof pending.selector === "number" ? "version" : pending.selector}`
        : pending.op === "put" && pending.key !== undefined
          ? "put:keyed"
          : pending.op;
    return { violations: violations.map((v) => `trial ${index}: ${v}`), pending: kind };
  }

  /**
   * Before anything is retried: the acknowledged state, give or take the operation in flight.
   * Returns the version of the put in flight if it is visible.
   */
  async #observeAfterKill(
    service: FsArtifactService,
    pending: Op | undefined,
    violations: string[],
  ): Promise<number | undefined> {
    let inFlight: number | undefined;
    for (const name of NAMES) {
      const listed = new Set((await listAll(service, name)).map((meta) => meta.version));
      const targets =
        pending?.op === "delete" && pending.name === name ? this.model.targets(pending) : [];
      for (const [version, put] of this.model.livesOf(name)) {
        if (listed.has(version)) {
          const wrong = await readsBack(service, version, put);
          if (wrong) violations.push(`after the crash: ${wrong}`);
        } else if (!targets.includes(version)) {
          violations.push(`after the crash: acknowledged ${name}@${version} is missing`);
        }
      }
      for (const version of listed) {
        if (this.model.livesOf(name).has(version)) continue;
        const ours = pending?.op === "put" && pending.name === name && inFlight === undefined;
        if (ours && version > (this.model.highWater.get(name) as number)) {
          inFlight = version;
          const wrong = await readsBack(service, version, pending);
          if (wrong) violations.push(`after the crash, the put in flight: ${wrong}`);
        } else {
          violations.push(`after the crash: ${name}@${version} is listed, unacknowledged`);
        }
      }
      await this.#expectDeleted(service, name, "after the crash", violations);
    }
    return inFlight;
  }

  /**
   * When the kill comes, in turn: after any begin or acknowledgement; after the begin of a
   * delete (deletes are short: a kill at a random line seldom lands inside one); as a version
   * is unpublished, between the metadata's removal and the payload's; as a key is bound,
   * between the binding and the publication.
   */
  #killPoint(index: number): KillPoint {
    const at = Math.floor(this.#random() * MAX_OPERATIONS);
    const paths = NAMES.map((name) => fsArtifactPaths(this.#root, SCOPE, name, 1));
    const nameDirs = paths.map((path) => path.nameDir);
    // keys/<nd>/ beside names/<nd>/ (layout.ts)
    const keyDirs = nameDirs.map((dir) => dir.replace(/\/names\/(?=[0-9a-f]{64}$)/, "/keys/"));
    const mode = index % 4;
    if (mode === 2 && nameDirs.every((dir) => existsSync(dir))) {
      return { kind: "file", dirs: nameDirs, names: /^\d+\.m$/, appears: false, skip: at % 5 };
    }
    if (mode === 3 && keyDirs.every((dir) => existsSync(dir))) {
      // A binding a keyed put just linked is its version file's second name (the third comes
      // with the publication); a delete's head-only copy that replaces one has a single name.
      const bound = (path: string) =>
        (lstatSync(path, { throwIfNoEntry: false })?.nlink ?? 0) === 2;
      return {
        kind: "file",
        dirs: keyDirs,
        names: /\.json$/,
        appears: true,
        accepts: bound,
        skip: at % 5,
      };
    }
    if (mode === 1) {
      const delete_ = /^begin (\d+) \{"op":"delete"/;
      return { kind: "line", matches: (line) => Number(delete_.exec(line)?.[1]) >= at / 3 };
    }
    const prefix = `${this.#random() < 0.5 ? "begin" : "done"} ${at} `;
    return { kind: "line", matches: (line) => line.startsWith(prefix) };
  }

  /** Retries the operation in flight as its caller would, and records its outcome. */
  async #finishPending(
    service: FsArtifactService,
    pending: Op | undefined,
    seen: number | undefined,
    violations: string[],
  ): Promise<void> {
    if (pending?.op === "put") {
      if (pending.key === undefined) {
        if (seen !== undefined) this.model.published(pending, seen);
        return;
      }
      const got = await retryPut(service, pending);
      const above = (this.model.highWater.get(pending.name) as number) < Number(got);
      if (typeof got !== "number" || (seen !== undefined && got !== seen) || !above) {
        violations.push(`the keyed put in flight, retried: ${got} (visible before: ${seen})`);
      } else {
        this.model.published(pending, got);
      }
    } else if (pending?.op === "delete") {
      // A delete whose answer was lost is retried on what it targeted; ok and not_found both
      // tell the caller it is gone.
      const targets = this.model.targets(pending);
      for (const version of targets) {
        const got = await answer(() => service.delete(SCOPE, pending.name, version));
        if (got !== undefined && got !== "not_found") {
          violations.push(`the delete in flight, retried on ${pending.name}@${version}: ${got}`);
        }
      }
      this.model.removed(pending.name, targets);
    } else if (pending?.op === "retry") {
      const got = await retryPut(service, { ...pending, op: "put" });
      const expected = this.model.expectedRetry(pending.key);
      if (got !== expected) violations.push(`the retry in flight: ${got}, expected ${expected}`);
    }
  }

  /** This trial's keys, the one in flight, and a sample of earlier ones. */
  #keysToRetry(before: Set<string>, pending: Op | undefined): PutOp[] {
    const earlier = [...before];
    const keys = new Set([...this.model.keys.keys()].filter((key) => !before.has(key)));
    for (let i = 0; i < EARLIER_KEYS && earlier.length > 0; i++) {
      keys.add(earlier[Math.floor(this.#random() * earlier.length)] as string);
    }
    const puts = [...keys].map((key) => this.model.keys.get(key)?.put as PutOp);
    // A keyed put in flight that published nothing is retried once more.
    if (pending?.op === "put" && pending.key !== undefined && !this.model.keys.has(pending.key)) {
      puts.push(pending);
    }
    return puts;
  }

  /** Every keyed put retried: its version while it lives, not_found once deleted. */
  async #retryKeys(
    service: FsArtifactService,
    puts: readonly PutOp[],
    when: string,
    violations: string[],
  ): Promise<void> {
    for (const put of puts) {
      const expected = this.model.expectedRetry(put.key as string) ?? "a new version";
      const got = await retryPut(service, put);
      if (got !== expected)
        violations.push(`${when}, retry of ${put.key}: ${got}, expected ${expected}`);
    }
  }

  async #repair(service: FsArtifactService, violations: string[]): Promise<void> {
    const report = await service.repair({ minAgeMs: 0 });
    if (report.corrupt !== 0 || !report.complete) {
      violations.push(`repair: ${JSON.stringify(report)}`);
    }
  }

  /** Exactly the model: every live version intact and listed once, every deleted one gone. */
  async #observeExactly(service: FsArtifactService, violations: string[]): Promise<void> {
    for (const name of NAMES) {
      const listed = await listAll(service, name);
      const versions = listed.map((meta) => meta.version);
      const live = [...this.model.livesOf(name).keys()].sort((a, b) => a - b);
      if (versions.join() !== live.join()) {
        violations.push(`after repair: ${name} lists [${versions}], expected [${live}]`);
      }
      const keys = listed.flatMap((meta) => meta.idempotencyKey ?? []);
      if (new Set(keys).size !== keys.length) violations.push(`${name}: a key listed twice`);
      for (const [version, put] of this.model.livesOf(name)) {
        const wrong = await readsBack(service, version, put);
        if (wrong) violations.push(`after repair: ${wrong}`);
      }
      await this.#expectDeleted(service, name, "after repair", violations);
    }
  }

  async #expectDeleted(
    service: FsArtifactService,
    name: string,
    when: string,
    violations: string[],
  ): Promise<void> {
    for (const version of this.model.deleted.get(name) ?? []) {
      const got = await answer(() => service.head(SCOPE, name, { version }));
      if (got !== "not_found") violations.push(`${when}: deleted ${name}@${version} came back`);
    }
  }
}

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups) await cleanup();
});

describe("crash trials that mix what users mix", () => {
  it(`${TRIALS} SIGKILLs inside keyed and unkeyed puts, retries and deletes of every kind`, {
    timeout: 900_000,
  }, async () => {
    const temp = await tempRoot("mixed-crash");
    cleanups.push(temp.cleanup);
    const run = new MixedCrashRun(temp.root);
    const violations: string[] = [];
    const inFlight: Record<string, number> = {};
    for (let index = 0; index < TRIALS; index++) {
      const trial = await run.trial(index);
      violations.push(...trial.violations);
      inFlight[trial.pending] = (inFlight[trial.pending] ?? 0) + 1;
    }
    const deleted = [...run.model.deleted.values()].reduce((sum, set) => sum + set.size, 0);
    console.log(
      `mixed crash: ${TRIALS} kills, ${run.model.keys.size} keys bound, ${deleted} versions deleted, ` +
        `${violations.length} violations in ${new Set(violations.map((v) => v.split(":")[0])).size} trials; killed in:`,
      inFlight,
    );
    expect(violations.slice(0, 20)).toEqual([]);
    // The kills land inside the operations that matter, not only between them.
    expect(inFlight["put:keyed"] ?? 0).toBeGreaterThan(TRIALS / 8);
    const deletes = ["version", "latest", "all"].map((kind) => inFlight[`delete:${kind}`] ?? 0);
    expect(deletes.reduce((sum, count) => sum + count)).toBeGreaterThan(TRIALS / 4);
  });
});
