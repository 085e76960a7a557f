import { describeConnectionFaults } from "@artifact-kit/fault-trials";
import { AzureArtifactService } from "../src/index.js";
import { blobOrigin, containerClient, freshContainer } from "./support/server.js";

describeConnectionFaults({
  serverEndpoint: blobOrigin,
  async openStore() {
    const { containerName } = await freshContainer();
    return (via) =>
      new AzureArtifactService({
        container: containerClient(containerName, via),
        blockBytes: 128 * 1024,
      });
  },
});
