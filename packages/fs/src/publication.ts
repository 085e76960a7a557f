import { randomUUID } from "node:crypto";
import { rename } from "node:fs/promises";
import { join } from "node:path";
import type {
  ArtifactMeta,
  DataDigest,
  Deadline,
  ParsedPut,
  ParsedUpload,
} from "@artifact-kit/core";
import type { VersionAllocator } from "./allocator.js";
import type { FsConfig } from "./config.js";
import { createDurably, removeQuietly, syncDirectory } from "./io.js";
import { type NamePaths, type ScopePaths, versionFile } from "./layout.js";
import { FORMAT } from "./records.js";

/** A data file being published, and what is published with it. */
export interface Staging {
  readonly scopeDirs: ScopePaths;
  readonly nameDirs: NamePaths;
  readonly dataStage: string;
  readonly request: ParsedPut | ParsedUpload;
  readonly digest: DataDigest;
}

/**
 * The put protocol after the data is being staged: reserve the next version (recording the
 * block digests in the reservation), stage the metadata record, fsync all of it, then
 * rename the data and finally the metadata into place: the publication point.
 */
export async function publish(
  config: FsConfig,
  allocator: VersionAllocator,
  staging: Staging,
  staged: Promise<void>,
  deadline: Deadline = staging.request.deadline,
): Promise<ArtifactMeta> {
  const { scopeDirs, nameDirs, dataStage, request, digest } = staging;
  const metaStage = join(scopeDirs.staging, `${randomUUID()}.m`);
  let placedData: string | undefined;
  let published = false;
  try {
    // The reservation and the payload are independent: write them at the same time.
    const [reserved, written] = await Promise.allSettled([
      allocator.reserve(scopeDirs, nameDirs).then(async ({ version, reservation }) => {
        try {
          const meta: ArtifactMeta = Object.freeze({
            scope: request.scope,
            name: request.name,
            version,
            mimeType: request.mimeType,
            size: digest.size,
            sha256: digest.sha256,
            createdAt: Date.now(),
            metadata: request.metadata,
          });
          const record = JSON.stringify({ format: FORMAT, ...meta });
          await reservation.writeFile(digest.blocks.join(""));
          // The reservation is fsynced together with the staged files, before anything
          // is renamed into place: concurrent fsyncs share journal commits.
          await Promise.all([
            reservation.sync(),
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
    await rename(metaStage, versionFile(nameDirs.dir, meta.version, "m"));
    published = true;
    await syncDirectory(nameDirs.dir);
    return meta;
  } finally {
    if (!published) {
      // The version stays reserved (burned); nothing of this request stays visible.
      await removeQuietly(placedData ?? dataStage);
      await removeQuietly(metaStage);
    }
  }
}
