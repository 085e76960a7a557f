import { randomUUID } from "node:crypto";
import { azureSubjects } from "@artifact-kit/azure/testing";
import {
  BlobServiceClient,
  type ContainerClient,
  StorageRetryPolicyType,
} from "@azure/storage-blob";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    azureConnectionString: string;
  }
}

/**
 * A client of `container` on Azurite, or through a proxy at `origin`. Retries: twice, soon
 * (the SDK's own default waits seconds, which hundreds of injected faults cannot afford).
 */
export function azureContainer(container: string, origin?: string): ContainerClient {
  const connection = inject("azureConnectionString");
  const through =
    origin === undefined
      ? connection
      : connection.replace(/BlobEndpoint=https?:\/\/[^/;]+/, `BlobEndpoint=${origin}`);
  return BlobServiceClient.fromConnectionString(through, {
    retryOptions: {
      retryPolicyType: StorageRetryPolicyType.EXPONENTIAL,
      maxTries: 2,
      retryDelayInMs: 20,
      maxRetryDelayInMs: 200,
    },
  }).getContainerClient(container);
}

/** A new container on Azurite; its name. */
export async function azureMatrixContainer(): Promise<string> {
  const name = `matrix-${randomUUID()}`;
  await azureContainer(name).create();
  return name;
}

export const azureMatrixSubjects = (container: () => string) =>
  azureSubjects(() => azureContainer(container()));
