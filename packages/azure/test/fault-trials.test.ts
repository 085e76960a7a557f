import { describeFaultTrials } from "@artifact-kit/fault-trials";
import { AzureArtifactService } from "../src/index.js";
import { SERVER_BUSY } from "./support/fault-proxy.js";
import { blobOrigin, containerClient, freshContainer } from "./support/server.js";

const blockBytes = 128 * 1024;

// Now and then a streamed upload above one block (staged, then copied by Put Block From URL),
// and repair() among the operations.
describeFaultTrials({
  backend: "azure (Azurite)",
  serverEndpoint: blobOrigin(),
  unavailable: SERVER_BUSY,
  largeUploadBytes: blockBytes + 17,
  async openLane(proxyEndpoint) {
    const { containerName } = await freshContainer();
    const open = (via?: string) =>
      new AzureArtifactService({ container: containerClient(containerName, via), blockBytes });
    return { subject: open(proxyEndpoint), observer: open() };
  },
});
