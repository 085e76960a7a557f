import { BlobServiceClient, type ContainerClient } from "@azure/storage-blob";

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
