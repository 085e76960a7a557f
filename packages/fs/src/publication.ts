import { randomUUID } from "node:crypto";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { type ArtifactMeta, corruptArtifact, type Deadline } from "@artifact-kit/core";
import {
  allSettledOrFirstFailure,
  type DataDigest,
  newVersionRecord,
  type ParsedPublication,
  type ParsedUpload,
} from "@artifact-kit/core/adapter";
import type { VersionAllocator } from "./allocator.js";
import type { FsConfig } from "./config.js";
import { createDurably, removeQuietly, syncDirectory } from "./io.js";
import { finishBinding, type KeyBindings, type KeyedPut } from "./keys.js";
import { keyFile, type NamePaths, type ScopePaths, versionFile } from "./layout.js";
import { sealRecord } from "./sealed-record.js";
import { recordBlocks } from "./version-files.js";

/** A payload being published, and what is published with it. */
export interface Staging {
  readonly scopeDirs: ScopePaths;
  readonly nameDirs: NamePaths;
  readonly request: ParsedPublication | ParsedUpload;
  readonly digest: DataDigest;
  /**
   * Makes the payload the new file `target` (its version's `<v>.d`): resolves once the entry
   * exists, with a promise that its bytes are durable.
   */
  readonly place: (target: string) => Promise<{ readonly durable: Promise<void> }>;
  /** Lets go of a payload that was not placed, or whose publication failed. */
  readonly drop: () => Promise<void>;
}

/** What publication needs beside the staged request. */
export interface Publisher {
  readonly config: FsConfig;
  readonly allocator: VersionAllocator;
  readonly keys: KeyBindings;
}

/**
 * The put protocol. Without an idempotency key: reserve the next version, write the payload
 * straight to `<v>.d` and the metadata record to a staging file, make both and the name
 * directory durable at once, then rename the record to `<v>.m` (the publication point) and
 * make the directory durable again: two rounds of syncs, as any durable write needs. With a
 * key, the key is looked up first (a bound key is answered without writing), and the record
 * is published by binding the key to it and linking the binding to `<v>.m`.
 */
export async function publish(
  publisher: Publisher,
  staging: Staging,
  deadline: Deadline = staging.request.deadline,
): Promise<ArtifactMeta> {
  const keyed = keyedPut(staging);
  const binding = keyed && keyFile(staging.scopeDirs, staging.nameDirs.digest, keyed.key);
  const nameAt = {
    scope: staging.request.scope,
    name: staging.request.name,
    dir: staging.nameDirs.dir,
  };
  const answerBound = async (bound: ArtifactMeta): Promise<ArtifactMeta> => {
    await staging.drop();
    return publisher.keys.replay(
      binding as string,
      bound,
      { ...nameAt, version: bound.version },
      keyed as KeyedPut,
      deadline,
    );
  };
  if (keyed && binding) {
    const bound = await publisher.keys.read(binding, nameAt, keyed.key).catch(async (error) => {
      await staging.drop();
      throw error;
    });
    if (bound) return answerBound(bound);
  }
  const outcome = await publishNew(publisher, staging, deadline, binding);
  if ("meta" in outcome) return outcome.meta;
  // Another put bound the key between the look-up and the binding: answer as a retry.
  const bound = await publisher.keys.read(outcome.lostTo, nameAt, (keyed as KeyedPut).key);
  if (!bound) throw corruptArtifact("the idempotency key binding vanished", {});
  return answerBound(bound);
}

function keyedPut({ request, digest }: Staging): KeyedPut | undefined {
  if (request.idempotencyKey === undefined) return undefined;
  const { mimeType, metadata } = request;
  return {
    key: request.idempotencyKey,
    payload: { size: digest.size, sha256: digest.sha256, mimeType, metadata },
  };
}

/**
 * Publishes a new version; with `binding`, only if the key can still be bound, else reports
 * the binding it lost to. Nothing of a failed or lost request stays visible; its version
 * stays reserved (burned).
 */
async function publishNew(
  publisher: Publisher,
  staging: Staging,
  deadline: Deadline,
  binding: string | undefined,
): Promise<{ meta: ArtifactMeta } | { lostTo: string }> {
  const { config, allocator } = publisher;
  const { scopeDirs, nameDirs, request, digest } = staging;
  const metaStage = join(scopeDirs.staging, `${randomUUID()}.m`);
  let placedData: string | undefined;
  let committed = false;
  try {
    const { version, reservation } = await allocator.reserve(scopeDirs, nameDirs);
    const meta = newVersionRecord(request, digest, version);
    const dataTarget = versionFile(nameDirs.dir, version, "d");
    // One round of syncs: the payload, the record, the block digests and the directory
    // (which now holds the reservation and the payload) are made durable at the same time;
    // concurrent fsyncs share journal commits. The record is published only after all of it.
    await allSettledOrFirstFailure([
      recordBlocks(reservation, digest, config),
      createDurably(metaStage, sealRecord({ ...meta }), config),
      staging.place(dataTarget).then(async ({ durable }) => {
        placedData = dataTarget;
        await allSettledOrFirstFailure([durable, syncDirectory(nameDirs.dir, config)]);
      }),
    ]);
    deadline.check();
    if (binding === undefined) {
      await rename(metaStage, versionFile(nameDirs.dir, meta.version, "m"));
      committed = true;
      await syncDirectory(nameDirs.dir, config);
      return { meta };
    }
    if (!(await publisher.keys.bind(metaStage, binding))) return { lostTo: binding };
    // Bound: from here on the version is the key's, and whoever comes next finishes it.
    committed = true;
    const at = {
      scope: request.scope,
      name: request.name,
      dir: nameDirs.dir,
      version: meta.version,
    };
    // The staged record is the binding's inode under another name: it goes meanwhile.
    await Promise.all([removeQuietly(metaStage), finishBinding(binding, at, config)]);
    return { meta };
  } finally {
    if (!committed) {
      if (placedData !== undefined) await removeQuietly(placedData);
      await staging.drop();
      await removeQuietly(metaStage);
    }
  }
}
