import { describeFaultTrials } from "@artifact-kit/fault-trials";
import { S3ArtifactService } from "../src/index.js";
import { SLOW_DOWN } from "./support/fault-proxy.js";
import { endpoint, freshBucket, newClient } from "./support/server.js";

const MiB = 1024 * 1024;

// Now and then a streamed upload above one part, and repair() among the operations.
describeFaultTrials({
  backend: "s3 (moto)",
  serverEndpoint: endpoint(),
  unavailable: SLOW_DOWN,
  largeUploadBytes: 5 * MiB + 17,
  async openLane(proxyEndpoint) {
    const bucket = await freshBucket();
    const open = (via?: string) =>
      new S3ArtifactService({ client: newClient(via), bucket, partBytes: 5 * MiB });
    return { subject: open(proxyEndpoint), observer: open() };
  },
});
