import { describeConnectionFaults } from "@artifact-kit/fault-trials";
import { S3ArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newClient } from "./support/server.js";

const MiB = 1024 * 1024;

describeConnectionFaults({
  serverEndpoint: endpoint,
  async openStore() {
    const bucket = await freshBucket();
    return (via) => new S3ArtifactService({ client: newClient(via), bucket, partBytes: 5 * MiB });
  },
});
