import { GcsArtifactService as AdkGcsArtifactService, LogLevel, setLogLevel } from "@google/adk";
import { AdkStore } from "../adk-store.js";
import { type ObjectStoreOptions, objectStoreSuite } from "../object-store/suite.js";
import type { Suite } from "../suite.js";
import { gcsBucket, PROJECT, refuseEmulatorHostVariable } from "./bucket.js";

const PEER_BUCKET = "ak-bench-peer";

/**
 * Issue 4: the gcs adapter beside `@google/adk`'s GcsArtifactService and raw client calls,
 * all on fake-gcs-server at `endpoint`.
 */
export function gcsSuite(endpoint: string, options: ObjectStoreOptions): Promise<Suite> {
  refuseEmulatorHostVariable();
  // The peer logs a warning for every artifact it fails to load; the suite fails on that anyway.
  setLogLevel(LogLevel.ERROR);
  return objectStoreSuite(
    {
      title: "gcs",
      origin: endpoint,
      labels: {
        ours: "ours (@artifact-kit/gcs)",
        floor: "floor (raw file.save / file.download / getFiles)",
      },
      bucket: gcsBucket,
      peer: (via) => {
        const bucket = gcsBucket(via, PEER_BUCKET);
        const options = { apiEndpoint: via, projectId: PROJECT };
        return {
          label: "peer (adk GcsArtifactService)",
          store: new AdkStore(() => new AdkGcsArtifactService(PEER_BUCKET, options), {
            bytesInOut: false,
            clear: () => bucket.empty(),
          }),
        };
      },
    },
    options,
  );
}
