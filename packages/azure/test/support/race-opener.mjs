// The azure service the race workers of @artifact-kit/fault-trials open (see its put-worker):
// `endpoint` is the service's connection string, `bucket` the container.
import { BlobServiceClient } from "@azure/storage-blob";
import { AzureArtifactService } from "../../dist/index.js";

export function openRaceService(connectionString, containerName) {
  const container =
    BlobServiceClient.fromConnectionString(connectionString).getContainerClient(containerName);
  // Contention is bounded by the adapter's wait, 60 s by default: ten minutes here, so that a
  // loaded machine's slowness cannot pass for a refusal (a refusal is what the races look for).
  return new AzureArtifactService({ container, maxContentionWaitMs: 600_000 });
}
