import { link } from "node:fs/promises";
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
import { syncDirectory } from "./io.js";
import { finishBinding, type KeyBindings, type KeyedPut } from "./keys.js";
import { keyFile, type NamePaths, type ScopePaths, versionFile } from "./layout.js";
import { encodeHead, encodeTail } from "./version-file.js";
import type { VersionFileWriter } from "./version-writer.js";

/** A payload being published, and what is published with it. */
export interface Staging {
  readonly scopeDirs: ScopePaths;
  readonly nameDirs: NamePaths;
  readonly request: ParsedPublication | ParsedUpload;
  readonly digest: DataDigest;
  /** Where the payload starts in the version file (payloadOffsetFor the request). */
  readonly payloadOffset: number;
  /**
   * Makes the version file at `path` (the reservation `<v>.r`) exclusively, holding the
   * payload at `payloadOffset` or ready for it; EEXIST when another put holds the version.
   */
  readonly reserve: (path: string) => Promise<VersionFileWriter>;
  /** Lets go of what the staging still holds once the request ends, published or not. */
  readonly drop: () => Promise<void>;
}

/** What publication needs beside the staged request. */
export interface Publisher {
  readonly config: FsConfig;
  readonly allocator: VersionAllocator;
  readonly keys: KeyBindings;
}

/**
 * The put protocol. Without an idempotency key: reserve the next version by making its
 * version file `<v>.r` exclusively (the payload written there, or an upload's staging file
 * linked there), complete it with its record and make it and the name directory durable at
 * once, then link it to `<v>.m` (the publication point) and make the directory durable
 * again: two rounds of syncs, as any durable write needs. With a key, the key is looked up
 * first (a bound key is answered without writing), and the version file is published by
 * binding the key to it and linking the binding to `<v>.m`.
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
 * stays reserved (burned), its reservation emptied.
 */
async function publishNew(
  publisher: Publisher,
  staging: Staging,
  deadline: Deadline,
  binding: string | undefined,
): Promise<{ meta: ArtifactMeta } | { lostTo: string }> {
  const { config, allocator } = publisher;
  const { nameDirs, request, digest } = staging;
  let writer: VersionFileWriter | undefined;
  let committed = false;
  try {
    const reserved = await allocator.reserve(nameDirs, staging.reserve);
    writer = reserved.reservation;
    const meta = newVersionRecord(request, digest, reserved.version);
    const versionFileAt = versionFile(nameDirs.dir, meta.version, "r");
    // One round of syncs: the version file and the directory that holds its reservation are
    // made durable at the same time (concurrent fsyncs share journal commits), before the
    // file is published: a power cut may not keep a publication whose reservation it lost.
    await allSettledOrFirstFailure([
      writer.complete(encodeHead(meta, staging.payloadOffset), encodeTail(digest)),
      syncDirectory(nameDirs.dir, config),
    ]);
    deadline.check();
    if (binding === undefined) {
      await link(versionFileAt, versionFile(nameDirs.dir, meta.version, "m"));
      committed = true;
      await syncDirectory(nameDirs.dir, config);
      return { meta };
    }
    if (!(await publisher.keys.bind(versionFileAt, binding))) return { lostTo: binding };
    // Bound: from here on the version is the key's, and whoever comes next finishes it.
    committed = true;
    const at = {
      scope: request.scope,
      name: request.name,
      dir: nameDirs.dir,
      version: meta.version,
    };
    await finishBinding(binding, at, config, true);
    return { meta };
  } finally {
    await writer?.finish(committed);
    await staging.drop();
  }
}
