import { link } from "node:fs/promises";
import { dirname } from "node:path";
import { type ArtifactMeta, corruptArtifact, type Deadline, unavailable } from "@artifact-kit/core";
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
import { type Bound, finishBinding, type KeyBindings, type KeyedPut, TORN } from "./keys.js";
import {
  keyFile,
  MAX_BINDING_GENERATIONS,
  type NamePaths,
  type ScopePaths,
  versionFile,
} from "./layout.js";
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
 * first (a bound key is answered without writing), and the version file is bound to the key
 * before the first round, which makes the binding durable too, and published by linking the
 * binding to `<v>.m` in the second (keys.ts). A publish gate is waited for after the first
 * round, before anything is published (a keyed replay waits for it before it looks).
 */
export async function publish(
  publisher: Publisher,
  staging: Staging,
  deadline: Deadline = staging.request.deadline,
): Promise<ArtifactMeta> {
  const keyed = keyedPut(staging);
  if (!keyed) {
    const outcome = await publishNew(publisher, staging, deadline, undefined);
    return (outcome as { meta: ArtifactMeta }).meta;
  }
  const nameAt = {
    scope: staging.request.scope,
    name: staging.request.name,
    dir: staging.nameDirs.dir,
  };
  const { scopeDirs, nameDirs } = staging;
  const replay = async (binding: string, bound: Bound) => {
    await staging.request.publishGate; // a replay may finish the binding's publication
    return publisher.keys.replay(
      binding,
      bound,
      { ...nameAt, version: bound.meta.version },
      keyed,
      deadline,
    );
  };
  let dropped = false;
  try {
    // Each generation past the first replaces a binding a power cut tore (keys.ts).
    for (let generation = 0; generation < MAX_BINDING_GENERATIONS; generation++) {
      const binding = keyFile(scopeDirs, nameDirs.digest, keyed.key, generation);
      const bound = await publisher.keys.read(binding, nameAt, keyed.key);
      if (bound === TORN) continue;
      if (bound) {
        const answer = await replay(binding, bound);
        if (answer !== TORN) return answer;
        continue;
      }
      dropped = true; // publishNew lets go of the staging, whatever happens
      const outcome = await publishNew(publisher, staging, deadline, binding);
      if ("meta" in outcome) return outcome.meta;
      // Another put bound the key between the look-up and the binding: answer as a retry.
      const lostTo = await publisher.keys.read(binding, nameAt, keyed.key);
      if (lostTo === undefined) throw corruptArtifact("the idempotency key binding vanished", {});
      const answer = lostTo === TORN ? TORN : await replay(binding, lostTo);
      // Only a binding torn before this put began and bound again meanwhile comes here.
      if (answer === TORN) throw unavailable("the idempotency key was bound again; retry the put");
      return answer;
    }
    throw corruptArtifact(`the idempotency key has ${MAX_BINDING_GENERATIONS} torn bindings`, {});
  } finally {
    if (!dropped) await staging.drop();
  }
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
    // The directory already holds the reservation: its sync starts while the file is written.
    const reservationSynced = syncDirectory(nameDirs.dir, config);
    reservationSynced.catch(() => {}); // awaited below, unless a step before fails
    await writer.complete(encodeHead(meta, staging.payloadOffset), encodeTail(digest));
    deadline.check();
    if (binding !== undefined) {
      if (!(await publisher.keys.bind(versionFileAt, binding))) return { lostTo: binding };
      // Bound: from here on the version is the key's, and whoever comes next finishes it.
      committed = true;
    }
    // One round of syncs: the version file and the directories that hold its reservation
    // and its binding are made durable at the same time (concurrent fsyncs share journal
    // commits), before the file is published: a power cut may not keep a publication whose
    // reservation or binding it lost.
    await allSettledOrFirstFailure([
      writer.sync(),
      reservationSynced,
      ...(binding === undefined ? [] : [syncDirectory(dirname(binding), config)]),
    ]);
    // What the caller holds the publication back for (PutOptions.publishGate): all that can
    // go before it has gone, so its wait overlaps the round above.
    await request.publishGate;
    if (binding === undefined) {
      // Only here: a put that bound its key is past its commit point, whatever the deadline.
      deadline.check();
      await link(versionFileAt, versionFile(nameDirs.dir, meta.version, "m"));
      committed = true;
      await syncDirectory(nameDirs.dir, config);
      return { meta };
    }
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
