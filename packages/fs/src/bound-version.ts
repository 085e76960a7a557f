import { lstat, open } from "node:fs/promises";
import { dirname } from "node:path";
import { type ArtifactMeta, isArtifactError } from "@artifact-kit/core";
import { allSettledOrFirstFailure, BlockDigester } from "@artifact-kit/core/adapter";
import {
  isMissing,
  readExactly,
  readFileRange,
  releaseInBackground,
  syncDirectory,
  syncHandle,
  type WriteSettings,
} from "./io.js";
import { versionFile } from "./layout.js";
import { ReadOnlyFile } from "./read-only-file.js";
import {
  encodeTail,
  FIRST_READ_BYTES,
  MAX_METADATA_FILE_BYTES,
  readTail,
  readVersionHead,
  versionFileBytes,
} from "./version-file.js";
import type { VersionAddress } from "./version-files.js";

// A keyed put links its key's binding to its version file before the file is durable, and
// makes both durable in the same round of syncs (publication.ts). While the binder lives,
// whoever finds the binding finds the file whole (it was written before the link); after a
// power cut the binding may survive and the file's bytes, or its reservation's entry, not.
// So a binding whose version is not published is checked before anyone publishes it, and
// made durable first: the binder may still be on its way, or was cut short.

/**
 * Whether the version file a binding holds, not yet published, is whole: the same file as
 * the version's reservation `<v>.r` (a power cut can lose the reservation's entry and keep
 * the binding's), of the size its head says, its payload and block digests those its record
 * names. Reads the whole payload: this runs only for a binding found unpublished, after a
 * crash or beside its binder.
 */
export async function isWholeBoundVersion(
  binding: string,
  at: Pick<VersionAddress, "dir" | "version">,
  meta: Pick<ArtifactMeta, "size" | "sha256">,
): Promise<boolean> {
  const handle = await ReadOnlyFile.open(binding);
  if (!handle) return false;
  try {
    const [stats, reservation] = await Promise.all([
      handle.stat(),
      lstat(versionFile(at.dir, at.version, "r")).catch((error: unknown) => {
        if (isMissing(error)) return undefined;
        throw error;
      }),
    ]);
    if (reservation?.ino !== stats.ino || reservation.dev !== stats.dev) return false;
    const first = await readExactly(handle, Math.min(stats.size, FIRST_READ_BYTES));
    if (!first) return false;
    const head = await readVersionHead(handle, first, stats.size, MAX_METADATA_FILE_BYTES, "", {});
    if (head.format !== 2 || stats.size !== versionFileBytes(meta, head.payloadOffset)) {
      return false;
    }
    const end = head.payloadOffset + meta.size;
    const digester = new BlockDigester();
    for await (const piece of readFileRange(handle, head.payloadOffset, end)) {
      digester.update(piece);
    }
    const digest = digester.digest();
    if (digest.size !== meta.size || digest.sha256 !== meta.sha256) return false;
    const tail = await readTail(handle, head.payloadOffset, meta.size);
    return tail === encodeTail(digest).toString("latin1");
  } catch (error) {
    // A head that does not read is torn like any other mismatch here; an I/O error is not.
    if (isArtifactError(error, "corrupt_artifact")) return false;
    throw error;
  } finally {
    releaseInBackground(handle);
  }
}

/**
 * Makes a binding and the version file it holds durable, with both directories' entries
 * (the binding's, the reservation's): what its binder's first round of syncs does, done
 * again by whoever publishes a binding it did not make.
 */
export async function makeBindingDurable(
  binding: string,
  at: Pick<VersionAddress, "dir">,
  settings: Pick<WriteSettings, "durability">,
): Promise<void> {
  const syncFile = async () => {
    // Like syncDirectory: under "process" durability nothing is opened for a sync that is none.
    if (settings.durability === "process") return;
    const handle = await open(binding, "r");
    try {
      await syncHandle(handle, settings, true);
    } finally {
      releaseInBackground(handle);
    }
  };
  await allSettledOrFirstFailure([
    syncFile(),
    syncDirectory(dirname(binding), settings),
    syncDirectory(at.dir, settings),
  ]);
}

/**
 * Whether a binding that cannot be read was torn by a power cut in its binder's round of
 * syncs, rather than damaged: a binding in the format before version files was durable
 * before it was linked, and a version file that is also published (linked as `<v>.r`,
 * `<v>.m` and the binding) was durable before its publication, so either is damage.
 */
export async function isTornBinding(binding: string): Promise<boolean> {
  const handle = await ReadOnlyFile.open(binding);
  if (!handle) return false;
  try {
    const { nlink, size } = await handle.stat();
    const first = size > 0 ? await readExactly(handle, 1) : undefined;
    return nlink < 3 && first?.[0] !== 0x7b; /* "{" */
  } finally {
    releaseInBackground(handle);
  }
}
