import { AzureArtifactService } from "@artifact-kit/azure";
import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";
import type { BenchBucket } from "../object-store/bucket.js";

/**
 * A client of `container` on the blob service that `connectionString` names (Azurite in CI),
 * its requests sent to `origin` (a counting proxy in front of that service) instead.
 */
export function benchContainer(
  connectionString: string,
  origin: string,
  container: string,
): ContainerClient {
  const through = connectionString.replace(
    /BlobEndpoint=https?:\/\/[^/;]+/,
    `BlobEndpoint=${origin}`,
  );
  return BlobServiceClient.fromConnectionString(through).getContainerClient(container);
}

/** The scheme, host and port of the connection string's blob endpoint. */
export function blobOrigin(connectionString: string): string {
  const endpoint = /BlobEndpoint=([^;]+)/.exec(connectionString)?.[1];
  if (!endpoint) throw new Error("the Azure connection string names no BlobEndpoint");
  return new URL(endpoint).origin;
}

/** Creates the container if needed and removes every blob in it, a listing page at a time. */
export async function emptyContainer(container: ContainerClient): Promise<void> {
  await container.createIfNotExists();
  for await (const page of container.listBlobsFlat().byPage({ maxPageSize: 500 })) {
    await Promise.all(page.segment.blobItems.map((blob) => container.deleteBlob(blob.name)));
  }
}

/**
 * The container `name` of the service `connectionString` names, reached through `origin`:
 * raw Put Blob, Get Blob and List Blobs.
 */
export function azureContainer(
  connectionString: string,
  origin: string,
  name: string,
): BenchBucket {
  const container = benchContainer(connectionString, origin, name);
  return {
    empty: () => emptyContainer(container),
    service: (bounds) => new AzureArtifactService({ container, ...bounds }),
    put: (key, bytes) => container.getBlockBlobClient(key).upload(bytes, bytes.byteLength),
    get: async (key) => {
      // One Get Blob (downloadToBuffer would read the properties first).
      const response = await container.getBlockBlobClient(key).download();
      const chunks: Uint8Array[] = [];
      for await (const chunk of response.readableStreamBody as AsyncIterable<Uint8Array>) {
        chunks.push(chunk);
      }
      return Buffer.concat(chunks);
    },
    list: async (prefix, max) =>
      (
        await container
          .listBlobsFlat({ prefix })
          .byPage({ maxPageSize: max ?? 5000 })
          .next()
      ).value,
    names: async () => {
      const names: string[] = [];
      for await (const blob of container.listBlobsFlat()) names.push(blob.name);
      return names;
    },
  };
}
