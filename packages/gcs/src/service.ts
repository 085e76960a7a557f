import { type Capabilities, defineCapabilities } from "@artifact-kit/core";
import { AdapterService } from "@artifact-kit/core/adapter";
import { type GcsArtifactServiceOptions, type GcsConfig, resolveGcsConfig } from "./config.js";
import { GcsStore } from "./store.js";

function gcsCapabilities(config: GcsConfig): Capabilities {
  const { maxPageLimit, legacyListLimit, maxArtifactBytes, maxConcurrency, maxContentionWaitMs } =
    config;
  return defineCapabilities({
    durability: "durable",
    maxPageLimit,
    legacyListLimit,
    quotas: {
      appliesTo: "global",
      bounds: { maxArtifactBytes, maxConcurrency, maxContentionWaitMs },
    },
    transfer: { streamingUpload: true, streamingDownload: true, byteRanges: true },
  });
}

/**
 * Artifact service on one GCS bucket. Instances keep no state that matters for correctness:
 * any number of them, on any number of hosts, may share a bucket and prefix. Versions are
 * allocated by create-only writes of permanent allocation objects, and published by one
 * create-only object holding manifest and data, so a reader never sees a partial artifact.
 */
export class GcsArtifactService extends AdapterService {
  constructor(options: GcsArtifactServiceOptions) {
    const config = resolveGcsConfig(options);
    super(new GcsStore(config), gcsCapabilities(config));
  }
}
