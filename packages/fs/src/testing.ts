import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ArtifactMeta, ArtifactService } from "@artifact-kit/core";
import {
  type ArtifactServiceConformanceOptions,
  flipFileByte,
  type RepairableService,
  repairFromAnotherInstance,
  type ServiceSubject,
} from "@artifact-kit/core/conformance";
import type { FsArtifactServiceOptions } from "./config.js";
import type { FsDurability } from "./io.js";
import { fsArtifactPaths } from "./layout.js";
import { FsArtifactService } from "./service.js";
import { fsPayloadLocation } from "./version-reads.js";

type FsBounds = Omit<FsArtifactServiceOptions, "root">;

/** Small enough for the kit to drive every ceiling, page and list limit to its edge. */
const SMALL_FS_BOUNDS: Readonly<FsBounds> = Object.freeze({
  maxScanEntries: 12,
  maxNamesPerScope: 6,
  maxVersionsPerName: 4,
  maxArtifactBytes: 4096,
  maxPageLimit: 3,
  legacyListLimit: 4,
});

/** What opens a service on a root: the fs adapter, or anything built like it. */
export interface FsServiceClass {
  open(options: FsArtifactServiceOptions): Promise<ArtifactService>;
}

/**
 * One subject on a fresh directory under the OS temp dir: reopen is a new instance on the
 * same root (a restart, sharing nothing in memory), openAnother the same while the first
 * stays open (another process on the root), openNeighbour a service on a sibling root (another
 * tenant of the same parent directory), corrupt flips a byte of the version's payload in
 * place (as disk corruption would), maintain runs repair() from another instance, cleanup
 * removes the directory and both roots in it.
 */
export async function fsSubject(
  bounds: FsBounds = {},
  Service: FsServiceClass = FsArtifactService,
): Promise<ServiceSubject> {
  const parent = await realpath(await mkdtemp(join(tmpdir(), "artifact-kit-conformance-")));
  const root = join(parent, "tenant");
  const neighbour = join(parent, "neighbour");
  await mkdir(root);
  await mkdir(neighbour);
  const service = await Service.open({ ...bounds, root });
  return {
    service,
    // repair() with its defaults, from an instance of its own, as an operator would run it;
    // a class without repair (e.g. a wrapper of the adapter) has nothing to maintain.
    ...(isRepairable(service)
      ? {
          maintain: repairFromAnotherInstance(async () => {
            const other = await Service.open({ ...bounds, root });
            if (!isRepairable(other)) throw new TypeError("the service class has no repair()");
            return other;
          }),
        }
      : {}),
    reopen: () => Service.open({ ...bounds, root }),
    openAnother: () => Service.open({ ...bounds, root }),
    openNeighbour: () => Service.open({ ...bounds, root: neighbour }),
    corrupt: async (meta: ArtifactMeta, offset: number) => {
      const payload = await fsPayloadLocation(
        fsArtifactPaths(root, meta.scope, meta.name, meta.version),
      );
      await flipFileByte(payload.path, payload.offset + offset);
    },
    cleanup: () => rm(parent, { recursive: true, force: true }),
  };
}

const isRepairable = (service: ArtifactService): service is ArtifactService & RepairableService =>
  typeof (service as Partial<RepairableService>).repair === "function";

/**
 * The conformance kit's subjects for the fs adapter (or a class built like it), with the
 * given durability ("durable" by default; "process" skips every fsync).
 */
export function fsSubjects(
  Service: FsServiceClass = FsArtifactService,
  durability: FsDurability = "durable",
): Pick<ArtifactServiceConformanceOptions, "create" | "createBounded"> {
  return {
    create: () => fsSubject({ durability }, Service),
    createBounded: () => fsSubject({ ...SMALL_FS_BOUNDS, durability }, Service),
  };
}
