import { type ObjectStoreOptions, objectStoreSuite } from "../object-store/suite.js";
import type { Suite } from "../suite.js";
import { azureContainer, blobOrigin } from "./client.js";

/** Issue 36: the azure adapter beside raw client calls on the same blob service (Azurite). */
export function azureSuite(connectionString: string, options: ObjectStoreOptions): Promise<Suite> {
  return objectStoreSuite(
    {
      title: "azure",
      origin: blobOrigin(connectionString),
      labels: {
        ours: "ours (@artifact-kit/azure)",
        floor: "floor (raw Put Blob / Get Blob / List Blobs)",
      },
      bucket: (via, name) => azureContainer(connectionString, via, name),
    },
    options,
  );
}
