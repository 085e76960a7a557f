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
 * A client of `container` on Azurite, or through a fault proxy at `origin`. Through the
 * proxy it tries twice, soon (the SDK's own default waits seconds, which hundreds of injected
 * faults cannot afford). Direct, it tries four times, as the SDK does by default, with waits
 * up to a second: on a loaded machine Azurite drops an odd request, which no adapter can
 * help and the SDK's retries exist for (a matrix run failed on one such list, 2026-12-02).
 */
export function azureContainer(container: string, origin?: string): ContainerClient {
  const connection = inject("azureConnectionString");
  const through =
    origin === undefined
      ? connection
      : connection.replace(/BlobEndpoint=https?:\/\/[^/;]+/, `BlobEndpoint=${origin}`);
  const retryOptions =
    origin === undefined
      ? { maxTries: 4, retryDelayInMs: 50, maxRetryDelayInMs: 1_000 }
      : { maxTries: 2, retryDelayInMs: 20, maxRetryDelayInMs: 200 };
  return BlobServiceClient.fromConnectionString(through, {
    retryOptions: { retryPolicyType: StorageRetryPolicyType.EXPONENTIAL, ...retryOptions },
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
