import { describeConnectionFaults } from "@artifact-kit/fault-trials";
import { GcsArtifactService } from "../src/index.js";
import { endpoint, freshBucket, newStorage } from "./support/emulator.js";

describeConnectionFaults({
  serverEndpoint: endpoint,
  cutJsonRepliesHang:
    "@google-cloud/storage 7 waits forever for a JSON reply whose connection closed mid-body (node-fetch 2); a read of object bytes is bounded by readIdleMs, these are not",
  async openStore() {
    const bucket = await freshBucket();
    // A cut reply is noticed only by the read's wait for more bytes (src/idle-read.ts): a
    // short one here, so that each such trial ends soon.
    return (via) =>
      via
        ? new GcsArtifactService({ bucket: newStorage(via).bucket(bucket.name), readIdleMs: 3_000 })
        : new GcsArtifactService({ bucket });
  },
});
