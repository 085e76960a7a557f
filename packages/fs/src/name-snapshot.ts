import { randomUUID } from "node:crypto";
import { rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "@artifact-kit/core";
import { removeQuietly } from "./io.js";
import type { ScopePaths } from "./layout.js";
import { FORMAT, parseFormatRecord, readSmallFile } from "./records.js";

// A scope's name snapshot: the names its slots held when some instance last read them all,
// so that the next instance's first listing reads one file instead of every slot. It is only
// a cache of slot contents, and trusted as nothing more: an entry is used only for a slot
// that exists, and only when its name hashes to the slot's digest (which is then exactly the
// name the slot holds). Anything unreadable is ignored and the slots are read instead, so it
// needs no fsync and a torn or stale one is harmless.

/** In the scope's directory, beside names/. */
const SNAPSHOT_FILE = "names.snapshot";
/** Largest snapshot read: 5,000 names of 1,024 bytes each, JSON-escaped, fit well within it. */
const MAX_SNAPSHOT_BYTES = 64 * 1024 * 1024;

/** The snapshot's entries (digest -> name), or an empty map when there is none to trust. */
export async function readNameSnapshot(scopeDirs: ScopePaths): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  try {
    const bytes = await readSmallFile(
      join(scopeDirs.dir, SNAPSHOT_FILE),
      MAX_SNAPSHOT_BYTES,
      "the name snapshot",
      {},
    );
    const names = bytes && parseFormatRecord(bytes, "the name snapshot", {}).names;
    if (!Array.isArray(names)) return entries;
    for (const name of names) {
      if (typeof name === "string") entries.set(sha256Hex(name), name);
    }
  } catch {
    // A cache that cannot be read is no cache: the slots are read instead.
  }
  return entries;
}

/** Replaces the scope's snapshot with `names` (best effort; any failure leaves the old one). */
export async function writeNameSnapshot(
  scopeDirs: ScopePaths,
  names: readonly string[],
  fileMode: number,
): Promise<void> {
  const temp = join(scopeDirs.staging, `${randomUUID()}.snapshot`);
  try {
    await writeFile(temp, JSON.stringify({ format: FORMAT, names }), {
      mode: fileMode,
      flag: "wx",
    });
    await rename(temp, join(scopeDirs.dir, SNAPSHOT_FILE));
  } catch {
    await removeQuietly(temp);
  }
}
