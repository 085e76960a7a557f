import { invalidArgument } from "@artifact-kit/core";
import {
  looksLike,
  OBJECT_STORE_DEFAULTS,
  type ObjectStoreBounds,
  resolveOptions,
  resolvePrefix,
} from "@artifact-kit/object-store";
import type { ContainerClient } from "@azure/storage-blob";
import { AZURE_MAX_LIST_KEYS } from "./azure-bucket.js";

/** Bounds and defaults; every one is reported by `capabilities()`. */
export interface AzureArtifactServiceBounds extends ObjectStoreBounds {
  /** Largest artifact, put or streamed, in bytes (default 4 GiB; a put is one Put Blob). */
  maxArtifactBytes?: number;
  /** Largest and default page of listNames / listVersions (default 1,000; at most 5,000). */
  maxPageLimit?: number;
  /** Bytes per staged block of a streamed upload, and the most it buffers (default 8 MiB). */
  blockBytes?: number;
}

export interface AzureArtifactServiceOptions extends AzureArtifactServiceBounds {
  /**
   * A ContainerClient of @azure/storage-blob for an existing container, configured by the
   * caller (account, credential, retries): `BlobServiceClient.fromConnectionString(...)
   * .getContainerClient("artifacts")`, or one built on a token credential or a SAS URL.
   */
  container: ContainerClient;
  /** Blob-name prefix shared by every instance of one store, e.g. "artifacts/" (default ""). */
  prefix?: string;
}

export interface AzureConfig extends Required<AzureArtifactServiceBounds> {
  container: ContainerClient;
  /** Empty, or ending in "/". */
  prefix: string;
}

const MiB = 1024 * 1024;
/** Azure's largest Put Block, and the most blocks one blob may commit. */
const MAX_BLOCK_BYTES = 4000 * MiB;
const MAX_BLOCKS = 50_000;
/** Azure's largest Put Blob. */
const MAX_PUT_BLOB_BYTES = 5000 * MiB;

export const AZURE_DEFAULTS: Readonly<Required<AzureArtifactServiceBounds>> = Object.freeze({
  maxArtifactBytes: 4 * 1024 * MiB,
  maxPageLimit: 1_000,
  ...OBJECT_STORE_DEFAULTS,
  blockBytes: 8 * MiB,
});

export function resolveAzureConfig(options: unknown): AzureConfig {
  const { given, bounds } = resolveOptions(
    options,
    AZURE_DEFAULTS,
    ["container", "prefix"],
    "azureOptions",
  );
  if (
    !looksLike<ContainerClient>(given.container, {
      getBlockBlobClient: "function",
      containerName: "string",
    })
  ) {
    throw invalidArgument("container", "must be a ContainerClient of @azure/storage-blob");
  }
  const config: AzureConfig = {
    container: given.container,
    prefix: resolveAzurePrefix(given.prefix),
    ...bounds,
  };
  if (config.maxPageLimit > AZURE_MAX_LIST_KEYS) {
    throw invalidArgument("maxPageLimit", "must be at most 5000, the largest Azure listing page");
  }
  if (config.blockBytes > MAX_BLOCK_BYTES) {
    throw invalidArgument("blockBytes", "must be at most 4000 MiB, Azure's largest block");
  }
  if (config.maxArtifactBytes > MAX_PUT_BLOB_BYTES - MiB) {
    throw invalidArgument("maxArtifactBytes", "must leave room in Azure's 5000 MiB Put Blob");
  }
  if (config.maxArtifactBytes > config.blockBytes * MAX_BLOCKS) {
    throw invalidArgument(
      "blockBytes",
      "is too small: a streamed upload of maxArtifactBytes would pass Azure's 50,000 blocks",
    );
  }
  return config;
}

/** Azure reads a backslash in a blob name as "/", so a prefix holding one would name another folder. */
function resolveAzurePrefix(value: unknown): string {
  const prefix = resolvePrefix(value);
  if (prefix.includes("\\")) throw invalidArgument("prefix", "contains a backslash");
  return prefix;
}
