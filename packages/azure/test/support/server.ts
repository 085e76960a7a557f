import { randomUUID } from "node:crypto";
import {
  BlobServiceClient,
  type ContainerClient,
  StorageRetryPolicyType,
} from "@azure/storage-blob";
import { inject } from "vitest";

export const connectionString = (): string => inject("azureConnectionString");

/**
 * A client of `container` on the server, or through a proxy in front of it (`at`, the proxy's
 * origin, replaces the connection string's), with quick retries for fault tests.
 */
export function containerClient(container: string, at?: string): ContainerClient {
  const service = BlobServiceClient.fromConnectionString(
    at === undefined ? connectionString() : throughProxy(connectionString(), at),
    {
      retryOptions: {
        retryPolicyType: StorageRetryPolicyType.EXPONENTIAL,
        maxTries: 4,
        retryDelayInMs: 50,
        maxRetryDelayInMs: 500,
      },
    },
  );
  return service.getContainerClient(container);
}

/** A new, empty container on the server; a client of it. */
export async function freshContainer(): Promise<ContainerClient> {
  const container = containerClient(`ak-${randomUUID()}`);
  await container.create();
  return container;
}

function throughProxy(connection: string, origin: string): string {
  return connection.replace(/BlobEndpoint=https?:\/\/[^/;]+/, `BlobEndpoint=${origin}`);
}

/** The scheme, host and port of the service's blob endpoint (what a proxy forwards to). */
export function blobOrigin(): string {
  const endpoint = /BlobEndpoint=([^;]+)/.exec(connectionString())?.[1];
  if (!endpoint) throw new Error("the connection string names no BlobEndpoint");
  return new URL(endpoint).origin;
}
