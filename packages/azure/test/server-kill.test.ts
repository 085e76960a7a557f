import { fileURLToPath } from "node:url";
import { describeServerKill } from "@artifact-kit/fault-trials";
import { BlobServiceClient, StorageRetryPolicyType } from "@azure/storage-blob";
import { AzureArtifactService } from "../src/index.js";

// Azurite of the test's own SIGKILLed under calls in flight (the suite says what is checked).
describeServerKill({
  server: "Azurite",
  script: fileURLToPath(new URL("../scripts/start-azurite.sh", import.meta.url)),
  stateDirVar: "AZURITE_STATE_DIR",
  endpointVar: "AZURE_STORAGE_CONNECTION_STRING",
  pidVar: "AZURITE_PID",
  async open(connectionString) {
    // Few, quick retries: the server is dead for good once killed.
    const container = BlobServiceClient.fromConnectionString(connectionString, {
      retryOptions: {
        retryPolicyType: StorageRetryPolicyType.EXPONENTIAL,
        maxTries: 3,
        retryDelayInMs: 50,
        maxRetryDelayInMs: 200,
      },
    }).getContainerClient(`ak-kill-${process.pid}`);
    await container.create();
    return new AzureArtifactService({ container, blockBytes: 1024 * 1024 });
  },
});
