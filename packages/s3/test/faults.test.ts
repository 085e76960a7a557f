import { describeFaults } from "@artifact-kit/fault-trials";
import type { SeenRequest } from "@artifact-kit/test-proxy";
import { S3ArtifactService } from "../src/index.js";
import { SLOW_DOWN } from "./support/fault-proxy.js";
import { endpoint, freshBucket, newClient } from "./support/server.js";

const MiB = 1024 * 1024;
// S3's smallest part: a larger upload is a multipart one.
const PART_BYTES = 5 * MiB;

describeFaults({
  serverEndpoint: endpoint,
  unavailable: SLOW_DOWN,
  async openStore() {
    const bucket = await freshBucket();
    return (via) =>
      new S3ArtifactService({ client: newClient(via), bucket, partBytes: PART_BYTES });
  },
  // Requests by what they do in the protocol's layout (see object-store's ObjectLayout).
  requests: {
    allocation: (r) => r.method === "PUT" && r.url.includes("/a/"),
    publish: (r) => r.method === "PUT" && r.url.includes("/n/") && !r.url.includes("uploadId="),
    listing: (r) => r.method === "GET" && r.url.includes("list-type=2"),
    // The seal decides (the marker before it is written by every delete).
    deletion: (r) => r.method === "PUT" && r.url.includes("/e/"),
  },
  // The seal records its delete's request id: a retried seal knows itself.
  lostDeletionReply: "deleted",
  // Past one part, so the version is completed by a CompleteMultipartUpload.
  streamedUpload: {
    bytes: PART_BYTES + MiB,
    completion: (r: SeenRequest) =>
      r.method === "POST" && r.url.includes("/n/") && r.url.includes("uploadId="),
  },
});
