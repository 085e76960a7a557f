import { randomUUID } from "node:crypto";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import { type ArtifactMeta, corruptArtifact, type Deadline } from "@artifact-kit/core";
import {
  type DataDigest,
  newVersionRecord,
  type ParsedPublication,
  type ParsedUpload,
} from "@artifact-kit/core/adapter";
import type { VersionAllocator } from "./allocator.js";
import type { FsConfig } from "./config.js";
import { createDurably, removeQuietly, syncDirectory, syncHandle } from "./io.js";
import { finishBinding, type KeyBindings, type KeyedPut } from "./keys.js";
import { keyFile, type NamePaths, type ScopePaths, versionFile } from "./layout.js";
import { sealRecord } from "./sealed-record.js";
import { reservationRecord } from "./version-files.js";

/** A data file being published, and what is published with it. */
export interface Staging {
  readonly scopeDirs: ScopePaths;
  readonly nameDirs: NamePaths;
  readonly dataStage: string;
  readonly request: ParsedPublication | ParsedUpload;
  readonly digest: DataDigest;
}

/** What publication needs beside the staged request. */
export interface Publisher {
  readonly config: FsConfig;
  readonly allocator: VersionAllocator;
  readonly keys: KeyBindings;
}

/**
 * The put protocol after the data is being staged. Without an idempotency key: reserve the
 * next version (recording the block digests in the reservation), stage the metadata record,
 * fsync all of it, then rename the data and finally the metadata into place: the publication
 * point. With a key, the key is looked up first (a bound key is answered without writing), and
 * the record is published by binding the key to it and linking the binding to `<v>.m`.
 */
export async function publish(
  publisher: Publisher,
  staging: Staging,
  staged: Promise<void>,
  deadline: Deadline = staging.request.deadline,
): Promise<ArtifactMeta> {
  // The key's look-up runs while the data is staged: a staging failure meanwhile must not
  // count as unhandled (it would end the process). publishNew and dropStaged still see it.
  staged.catch(() => {});
  const keyed = keyedPut(staging);
  const binding = keyed && keyFile(staging.scopeDirs, staging.nameDirs.digest, keyed.key);
  const nameAt = {
    scope: staging.request.scope,
    name: staging.request.name,
    dir: staging.nameDirs.dir,
  };
  // The data being staged is not needed when the key is already bound, or its look-up
  // failed: it is waited for, then removed.
  const dropStaged = async () => {
    await Promise.allSettled([staged]);
    await removeQuietly(staging.dataStage);
  };
  const answerBound = async (bound: ArtifactMeta): Promise<ArtifactMeta> => {
    await dropStaged();
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
      await dropStaged();
      throw error;
    });
    if (bound) return answerBound(bound);
  }
  const outcome = await publishNew(publisher, staging, staged, deadline, binding);
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
  staged: Promise<void>,
  deadline: Deadline,
  binding: string | undefined,
): Promise<{ meta: ArtifactMeta } | { lostTo: string }> {
  const { config, allocator } = publisher;
  const { scopeDirs, nameDirs, dataStage, request, digest } = staging;
  const metaStage = join(scopeDirs.staging, `${randomUUID()}.m`);
  let placedData: string | undefined;
  let committed = false;
  try {
    // The reservation and the payload are independent: write them at the same time.
    const [reserved, written] = await Promise.allSettled([
      allocator.reserve(scopeDirs, nameDirs).then(async ({ version, reservation }) => {
        try {
          const meta = newVersionRecord(request, digest, version);
          const record = sealRecord({ ...meta });
          await reservation.writeFile(reservationRecord(digest));
          // The reservation is fsynced together with the staged files, before anything
          // is renamed into place: concurrent fsyncs share journal commits.
          await Promise.all([
            syncHandle(reservation),
            createDurably(metaStage, record, config.fileMode),
          ]);
          return meta;
        } finally {
          await reservation.close();
        }
      }),
      staged,
    ]);
    if (reserved.status === "rejected") throw reserved.reason;
    if (written.status === "rejected") throw written.reason;
    const meta = reserved.value;
    deadline.check();
    const dataTarget = versionFile(nameDirs.dir, meta.version, "d");
    await rename(dataStage, dataTarget);
    placedData = dataTarget;
    await syncDirectory(nameDirs.dir);
    deadline.check();
    if (binding === undefined) {
      await rename(metaStage, versionFile(nameDirs.dir, meta.version, "m"));
      committed = true;
      await syncDirectory(nameDirs.dir);
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
    await Promise.all([removeQuietly(metaStage), finishBinding(binding, at)]);
    return { meta };
  } finally {
    if (!committed) {
      await removeQuietly(placedData ?? dataStage);
      await removeQuietly(metaStage);
    }
  }
}
