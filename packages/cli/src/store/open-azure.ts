import type * as AzurePackage from "@artifact-kit/azure";
import { invalidArgument } from "@artifact-kit/core";
import type * as BlobPackage from "@azure/storage-blob";
import type { Opener } from "./backends.js";

/** Where the CLI finds the account: a connection string, as the Azure tools export it. */
const CONNECTION_STRING_VARIABLE = "AZURE_STORAGE_CONNECTION_STRING";

/**
 * The account and its credential come from AZURE_STORAGE_CONNECTION_STRING (an account key,
 * a SAS, or Azurite's development account); the container must exist.
 *
 * A command that writes opens with `open`, whose probe writes and deletes a blob to check
 * that the container refuses a second create-only write; one that only reads constructs the
 * service without it, so a read-only SAS can list and get.
 */
export const open: Opener<"azure"> = async (location, [azure, blobPackage], { readOnly }) => {
  const { AzureArtifactService } = azure as typeof AzurePackage;
  const { BlobServiceClient } = blobPackage as typeof BlobPackage;
  const connectionString = process.env[CONNECTION_STRING_VARIABLE];
  if (!connectionString) {
    throw invalidArgument(
      "store",
      `an az:// store needs the account's connection string in ${CONNECTION_STRING_VARIABLE}`,
    );
  }
  const container = BlobServiceClient.fromConnectionString(connectionString).getContainerClient(
    location.container,
  );
  const options = { container, prefix: location.prefix, ...location.bounds };
  return readOnly ? new AzureArtifactService(options) : AzureArtifactService.open(options);
};
