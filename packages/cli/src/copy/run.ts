import {
  type ArtifactMeta,
  type ArtifactService,
  isArtifactError,
  type Scope,
} from "@artifact-kit/core";
import { copyKey } from "./key.js";
import { forEachConcurrently } from "./pool.js";
import { Tally, type VersionRecord } from "./tally.js";
import { copyVersion, expectSameBytes, rereadCopy } from "./version.js";
import { countVersions, namesOf, versionsOf } from "./walk.js";

export interface CopyRequest {
  readonly source: ArtifactService;
  readonly target: ArtifactService;
  readonly scopes: readonly Scope[];
  /** Only names that start with it. */
  readonly prefix?: string;
  /** Read every copy back from the target and hash it. */
  readonly reread: boolean;
  /** Names copied at once (each name's versions one after the other). */
  readonly concurrency: number;
  /** Told the total once counted, then each version as it is settled. */
  readonly onStart: (total: number) => void;
  readonly onVersion: (record: VersionRecord, tally: Tally) => void;
}

/**
 * Errors of the backend rather than of one version: the copy stops (a rerun continues where
 * it stopped). Any other ArtifactError fails its version and holds back the name's rest.
 */
const STOPPING = new Set(["unavailable", "timeout", "aborted", "overloaded", "closed"]);

/**
 * Copies every live version of every name (under `prefix`) of each scope, `concurrency`
 * names at a time, each name's versions one after the other in ascending order, so that its
 * copies get ascending versions on the target and the target's latest is the source's.
 */
export async function runCopy(request: CopyRequest): Promise<Tally> {
  const tally = new Tally(await countVersions(request.source, request.scopes, request.prefix));
  request.onStart(tally.total);
  const settle = (record: VersionRecord) => {
    tally.add(record);
    request.onVersion(record, tally);
  };
  await forEachConcurrently(namesOfScopes(request), request.concurrency, ({ scope, name }) =>
    copyName(request, scope, name, settle),
  );
  return tally;
}

async function* namesOfScopes(
  request: CopyRequest,
): AsyncGenerator<{ scope: Scope; name: string }> {
  for (const scope of request.scopes) {
    for await (const name of namesOf(request.source, scope, request.prefix)) yield { scope, name };
  }
}

async function copyName(
  request: CopyRequest,
  scope: Scope,
  name: string,
  settle: (record: VersionRecord) => void,
): Promise<void> {
  const { source, target } = request;
  const versions = await versionsOf(source, scope, name);
  const onTarget = new Map<string, ArtifactMeta>();
  for (const meta of await versionsOf(target, scope, name)) {
    if (meta.idempotencyKey !== undefined) onTarget.set(meta.idempotencyKey, meta);
  }
  // A missing copy below one already there would land above it: the target's order (and
  // its latest) would differ from the source's. Such a version is reported, not copied.
  const lastPresent = versions.findLastIndex((meta) => onTarget.has(copyKey(meta)));
  let heldBack: VersionRecord | undefined;
  for (const [index, meta] of versions.entries()) {
    const base = { scope, name, sourceVersion: meta.version, size: meta.size };
    const found = onTarget.get(copyKey(meta));
    if (heldBack !== undefined && found === undefined) {
      settle({
        ...base,
        outcome: "failed",
        code: "held_back",
        message: `not copied: v${heldBack.sourceVersion} of the name failed (${heldBack.code}), and a later version copied first would come before it`,
      });
      continue;
    }
    if (found === undefined && index < lastPresent) {
      settle({
        ...base,
        outcome: "failed",
        code: "out_of_order",
        message:
          "not copied: a later version's copy is already on the target, this one would come after it",
      });
      continue;
    }
    const record = await settleVersion(request, meta, found, base);
    if (record.outcome === "failed") heldBack ??= record;
    settle(record);
  }
}

type RecordBase = Pick<VersionRecord, "scope" | "name" | "sourceVersion" | "size">;

async function settleVersion(
  request: CopyRequest,
  meta: ArtifactMeta,
  found: ArtifactMeta | undefined,
  base: RecordBase,
): Promise<VersionRecord> {
  const { source, target } = request;
  try {
    const copy = found ?? (await copyVersion(source, target, meta, copyKey(meta)));
    if (found !== undefined) expectSameBytes(meta, found, "records");
    if (request.reread) await rereadCopy(target, meta, copy);
    return { ...base, targetVersion: copy.version, outcome: found ? "skipped" : "copied" };
  } catch (error) {
    if (!isArtifactError(error) || STOPPING.has(error.code)) throw error;
    if (error.code === "not_found" && (await goneFromSource(source, meta))) {
      return { ...base, outcome: "vanished" };
    }
    return { ...base, outcome: "failed", code: error.code, message: error.message };
  }
}

/** not_found may be the source's (deleted meanwhile) or the target's (a deleted copy's key). */
async function goneFromSource(source: ArtifactService, meta: ArtifactMeta): Promise<boolean> {
  try {
    await source.head(meta.scope, meta.name, { version: meta.version });
    return false;
  } catch (error) {
    if (isArtifactError(error, "not_found")) return true;
    throw error;
  }
}
