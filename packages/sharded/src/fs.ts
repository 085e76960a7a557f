import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { type Capabilities, invalidArgument, validateOptionKeys } from "@artifact-kit/core";
import { FS_DEFAULTS, FsArtifactService, type FsArtifactServiceOptions } from "@artifact-kit/fs";
import { type ShardFactory, shardRoot } from "./shard.js";
import { ShardLabels } from "./shard-labels.js";

/** The fs adapter's options for every worker; each worker's `root` is derived, never given. */
export type FsShardOptions = Omit<FsArtifactServiceOptions, "root">;

/**
 * Workers that are fs adapters, each on its own sub-root `root/shards/<id>` (created on
 * first use), so a restarted router finds every scope's data where it left it.
 */
export async function fsShards(root: string, options: FsShardOptions = {}): Promise<ShardFactory> {
  if (typeof root !== "string" || !isAbsolute(root)) {
    throw invalidArgument("root", "must be an absolute path");
  }
  // Checked here, not only by the adapter: `root` is derived per shard, so it is unknown.
  validateOptionKeys(options, Object.keys(FS_DEFAULTS), "fs");
  const capabilities = await fsCapabilities(options);
  const labels = new ShardLabels(root, {
    fileMode: options.fileMode ?? FS_DEFAULTS.fileMode,
    dirMode: options.dirMode ?? FS_DEFAULTS.dirMode,
  });
  return {
    capabilities,
    open: async (shard) => {
      const dir = shardRoot(root, shard);
      await mkdir(dir, { recursive: true, mode: options.dirMode ?? 0o700 });
      // Before the worker can take a put: a shard with data always has its label.
      await labels.record(shard);
      return FsArtifactService.open({ ...options, root: dir });
    },
    scopes: () => labels.scopes(),
  };
}

/**
 * What an fs worker with these options reports (it depends on the options alone). Read
 * from a throwaway store, which also validates the options before any worker is opened.
 */
async function fsCapabilities(options: FsShardOptions): Promise<Capabilities> {
  const probe = await mkdtemp(join(tmpdir(), "artifact-kit-sharded-probe-"));
  try {
    const service = await FsArtifactService.open({ ...options, root: probe });
    await service.close();
    return service.capabilities();
  } finally {
    await rm(probe, { recursive: true, force: true });
  }
}
