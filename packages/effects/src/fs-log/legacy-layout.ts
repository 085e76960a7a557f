import { opendir, readdir, readFile, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { EffectRecord } from "../types.js";
import type { EffectLog } from "./effect-log.js";
import { errorCode } from "./fs-calls.js";

// Journals written before the log kept one directory per effect under effects/, holding
// numbered revisions (`0000000001.json`, ...): the state was the newest revision that parses,
// a torn newest one (a power loss before its sync) falling back to the one below. Opening
// such a journal carries every effect into the log once, then removes the old directories.
// Processes of the version before must be stopped first: they would keep writing there.

const REVISION_FILE = /^(\d{10})\.json$/;

/** An effect's newest whole revision in the old layout; undefined when it has none. */
async function readOldEffect(
  dir: string,
  effectId: string,
): Promise<{ record: EffectRecord; revision: number } | undefined> {
  const revisions = (await readdir(dir))
    .map((name) => REVISION_FILE.exec(name)?.[1])
    .filter((digits): digits is string => digits !== undefined)
    .map(Number)
    .sort((a, b) => b - a);
  for (const revision of revisions) {
    const name = `${String(revision).padStart(10, "0")}.json`;
    try {
      const record = JSON.parse(await readFile(join(dir, name), "utf8")) as EffectRecord;
      if (record?.effectId === effectId) return { record, revision };
    } catch {
      // torn: the revision below is the state
    }
  }
  return undefined;
}

/**
 * Carries the effects of a journal of the old layout at `root` into `log`; nothing when the
 * journal has none. Several processes may open the journal at once: the first renames
 * effects/ aside, and all carry what is there (a carried record is taken once, and never
 * over one a later change or a prune has written), so each open returns with every effect
 * in the log. A process killed midway leaves the renamed directory for the next open.
 */
export async function carryOldLayout(root: string, log: EffectLog): Promise<void> {
  const migrating = join(root, "migrating");
  try {
    await rename(join(root, "effects"), migrating);
  } catch (error) {
    const code = errorCode(error);
    if (code !== "ENOENT" && code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
  }
  let entries: Awaited<ReturnType<typeof opendir>>;
  try {
    entries = await opendir(migrating);
  } catch (error) {
    if (errorCode(error) === "ENOENT") return; // nothing (left) to carry
    throw error;
  }
  for await (const entry of entries) {
    if (!entry.isDirectory()) continue;
    let found: Awaited<ReturnType<typeof readOldEffect>>;
    try {
      found = await readOldEffect(join(migrating, entry.name), entry.name);
    } catch (error) {
      if (errorCode(error) === "ENOENT") continue; // carried and removed by another process
      throw error;
    }
    if (found) await log.append({ kind: "carry", ...found }, false);
  }
  // One sync makes every carried record durable before the old copies go.
  await log.sync();
  await Promise.all(
    ["migrating", "tmp", "trash"].map((dir) =>
      rm(join(root, dir), { recursive: true, force: true }),
    ),
  );
}
