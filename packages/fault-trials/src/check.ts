import { isArtifactError } from "@artifact-kit/core";
import { sha256Hex } from "@artifact-kit/core/adapter";
import type { TrialService } from "./lane.js";
import type { LaneLog, PutRecord } from "./records.js";

/** What a clean client finds of one name: each live version's digest, read back whole. */
type Live = Map<number, string>;

/**
 * The promises a trial checks, on a clean client after every lane has settled:
 * - every acknowledged put reads back its bytes, unless a delete took it;
 * - a failed put is absent or published once; a keyed one, after the caller's retry under its
 *   key (done here), is published exactly once, or not_found when a delete took it;
 * - every acknowledged delete stays deleted, also after the keyed retries and `repair()`;
 * - no live version is one that no put of the trial wrote.
 * Returns the violations found, each a sentence naming the lane's seed.
 */
export async function checkLane(log: LaneLog, observer: TrialService): Promise<string[]> {
  const violations: string[] = [];
  const report = (what: string) => violations.push(`seed ${log.seed}: ${what}`);
  for (const error of log.foreignErrors)
    report(`failed with something not an ArtifactError: ${error}`);
  const retried = await retryEveryKey(log, observer, report);
  const live = new Map<string, Live>();
  for (const name of log.names) live.set(name, await readLive(log, observer, name, report));
  checkPuts(log, live, retried, report);
  checkDeletes(log, live, report);
  if (observer.repair) {
    await observer.repair({ olderThanMs: 1 });
    for (const name of log.names) {
      const after = await readLive(log, observer, name, report);
      const before = [...(live.get(name) as Live).keys()];
      if (String([...after.keys()]) !== String(before)) {
        report(
          `repair() changed the live versions of "${name}": [${before}] -> [${[...after.keys()]}]`,
        );
      }
    }
  }
  return violations;
}

type Retried = Map<PutRecord, number | "not_found">;

async function retryEveryKey(
  log: LaneLog,
  observer: TrialService,
  report: (what: string) => void,
): Promise<Retried> {
  const retried: Retried = new Map();
  for (const put of log.puts) {
    if (!put.key) continue;
    const data = put.data as Uint8Array;
    try {
      const meta = await observer.put(log.scope, put.name, data, { idempotencyKey: put.key });
      retried.set(put, meta.version);
    } catch (error) {
      if (isArtifactError(error, "not_found")) retried.set(put, "not_found");
      else report(`the retry of keyed put #${put.op} on a clean client failed: ${error}`);
    }
  }
  return retried;
}

async function readLive(
  log: LaneLog,
  observer: TrialService,
  name: string,
  report: (what: string) => void,
): Promise<Live> {
  const live: Live = new Map();
  const page = await observer.listVersions(log.scope, name);
  for (const meta of page.items) {
    try {
      const artifact = await observer.get(log.scope, name, { version: meta.version });
      live.set(meta.version, sha256Hex(artifact.data));
    } catch (error) {
      report(`"${name}" v${meta.version} is listed but unreadable: ${String(error)}`);
    }
  }
  return live;
}

function checkPuts(
  log: LaneLog,
  live: Map<string, Live>,
  retried: Retried,
  report: (what: string) => void,
): void {
  const deleted = deletedVersions(log);
  for (const put of log.puts) {
    const versions = live.get(put.name) as Live;
    const copies = [...versions].filter(([, sha]) => sha === put.sha256).map(([v]) => v);
    const label = `${put.key ? "keyed " : ""}put #${put.op} to "${put.name}"`;
    if (new Set(put.acknowledged).size > 1) {
      report(`${label} was acknowledged as different versions ${put.acknowledged}`);
    }
    if (copies.length > 1) report(`${label} is published ${copies.length} times: v${copies}`);
    for (const version of put.acknowledged) {
      const gone = deleted.surely.has(`${put.name}\n${version}`);
      const maybeGone = gone || deleted.maybe.has(`${put.name}\n${version}`);
      if (!maybeGone && versions.get(version) !== put.sha256) {
        report(`${label} was acknowledged as v${version}, which does not read back its bytes`);
      }
    }
    const outcome = retried.get(put);
    if (outcome === undefined) continue;
    if (outcome === "not_found") {
      if (copies.length > 0) report(`${label}: its retry is not_found, yet v${copies} is live`);
      if (!deleteMayHaveTaken(log, put)) {
        report(`${label}: its retry is not_found, though no delete could have taken it`);
      }
    } else if (copies.length !== 1 || copies[0] !== outcome) {
      report(`${label}: its retry answered v${outcome}, but its bytes are live as [${copies}]`);
    } else if (put.acknowledged.some((version) => version !== outcome)) {
      report(`${label}: acknowledged as v${put.acknowledged}, its retry answered v${outcome}`);
    }
  }
  const written = new Set(log.puts.map((put) => put.sha256));
  for (const [name, versions] of live) {
    for (const [version, sha] of versions) {
      if (!written.has(sha)) report(`"${name}" v${version} holds bytes no put of this trial wrote`);
    }
  }
}

function checkDeletes(log: LaneLog, live: Map<string, Live>, report: (what: string) => void) {
  for (const del of log.deletes) {
    if (!del.acknowledged) continue;
    const versions = live.get(del.name) as Live;
    for (const version of del.targets) {
      if (versions.has(version)) {
        report(
          `delete #${del.op} (${String(del.selector)}) of "${del.name}" was acknowledged, yet v${version} is live`,
        );
      }
    }
  }
}

/** Versions an acknowledged delete took (surely), and ones a failed delete may have taken. */
function deletedVersions(log: LaneLog): { surely: Set<string>; maybe: Set<string> } {
  const surely = new Set<string>();
  const maybe = new Set<string>();
  for (const del of log.deletes) {
    for (const version of del.targets) {
      (del.acknowledged ? surely : maybe).add(`${del.name}\n${version}`);
    }
  }
  return { surely, maybe };
}

/** A keyed put's version may be gone if a delete of its name came after it began. */
function deleteMayHaveTaken(log: LaneLog, put: PutRecord): boolean {
  return log.deletes.some(
    (del) =>
      del.name === put.name &&
      del.op > put.op &&
      (put.acknowledged.length === 0 || put.acknowledged.some((v) => del.targets.includes(v))),
  );
}
