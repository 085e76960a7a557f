import { describeFaults } from "@artifact-kit/fault-trials";
import type { SeenRequest } from "@artifact-kit/test-proxy";
import { AzureArtifactService } from "../src/index.js";
import { SERVER_BUSY } from "./support/fault-proxy.js";
import { blobOrigin, containerClient, freshContainer } from "./support/server.js";

const KiB = 1024;
const BLOCK_BYTES = 128 * KiB;

describeFaults({
  serverEndpoint: blobOrigin,
  unavailable: SERVER_BUSY,
  async openStore() {
    const { containerName } = await freshContainer();
    return (via) =>
      new AzureArtifactService({
        container: containerClient(containerName, via),
        blockBytes: BLOCK_BYTES,
      });
  },
  // Requests by what they do in the protocol's layout (see object-store's ObjectLayout).
  requests: {
    allocation: (r) => r.method === "PUT" && r.url.includes("/a/"),
    publish: (r) => r.method === "PUT" && r.url.includes("/n/") && !r.url.includes("comp="),
    listing: (r) => r.method === "GET" && r.url.includes("comp=list"),
    // The seal decides (the marker before it is written by every delete).
    deletion: (r) => r.method === "PUT" && r.url.includes("/e/"),
  },
  // The seal records its delete's request id: a retried seal knows itself.
  lostDeletionReply: "deleted",
  // Past two blocks, so the version is completed by a Put Block List.
  streamedUpload: {
    bytes: 2 * BLOCK_BYTES + 44 * KiB + 17,
    completion: (r: SeenRequest) =>
      r.method === "PUT" && r.url.includes("/n/") && r.url.includes("comp=blocklist"),
  },
});
