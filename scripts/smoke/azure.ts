import { AzureArtifactService } from "@artifact-kit/azure";
import type { Scope } from "@artifact-kit/core";
import { BlobServiceClient } from "@azure/storage-blob";

// The connection string of the Azurite .ci/run started (packages/azure/scripts/start-azurite.sh).
const connectionString = process.env.AZURE_STORAGE_CONNECTION_STRING;
if (!connectionString)
  throw new Error("AZURE_STORAGE_CONNECTION_STRING is not set: start Azurite first");
const container = BlobServiceClient.fromConnectionString(connectionString).getContainerClient(
  `smoke-${process.pid}-${Date.now()}`,
);
await container.create();
const service = await AzureArtifactService.open({ container });
const scope: Scope = { kind: "session", app: "smoke", user: "u", session: "s" };
const meta = await service.put(scope, "hello.txt", new TextEncoder().encode("hello"));
const artifact = await service.get(scope, "hello.txt", { version: meta.version });
if (new TextDecoder().decode(artifact.data) !== "hello") throw new Error("round trip failed");
await service.close();
await container.delete();
console.log(`azure: put v${meta.version} through @azure/storage-blob and read it back`);
