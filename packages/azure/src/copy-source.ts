import {
  BlobSASPermissions,
  type BlockBlobClient,
  type HttpAuthorization,
} from "@azure/storage-blob";

/** A staged blob as the source of Put Block From URL, and how the service may read it. */
export interface CopySource {
  readonly url: string;
  readonly options: { sourceAuthorization?: HttpAuthorization };
}

/** How long a read-only SAS for a staged blob lasts: the copies follow at once. */
const SAS_LIFETIME_MS = 60 * 60 * 1000;
const STORAGE_SCOPE = "https://storage.azure.com/.default";

/**
 * Put Block From URL reads its source as an outside caller would, so the staged blob's URL
 * must carry its own authorization: a short read-only SAS when the client signs with the
 * account key (Azurite's, or a connection string's), the client's own bearer token with a
 * token credential (Microsoft Entra ID), or the SAS the container URL already carries.
 */
export async function copySourceOf(blob: BlockBlobClient): Promise<CopySource> {
  const credential: unknown = blob.credential;
  if (hasAccountKey(credential)) {
    const url = await blob.generateSasUrl({
      permissions: BlobSASPermissions.parse("r"),
      expiresOn: new Date(Date.now() + SAS_LIFETIME_MS),
    });
    return { url, options: {} };
  }
  if (isTokenCredential(credential)) {
    const token = await credential.getToken(STORAGE_SCOPE);
    if (token) {
      return {
        url: blob.url,
        options: { sourceAuthorization: { scheme: "Bearer", value: token.token } },
      };
    }
  }
  return { url: blob.url, options: {} };
}

function hasAccountKey(credential: unknown): boolean {
  return (
    typeof credential === "object" &&
    credential !== null &&
    typeof (credential as { accountName?: unknown }).accountName === "string" &&
    typeof (credential as { computeHMACSHA256?: unknown }).computeHMACSHA256 === "function"
  );
}

function isTokenCredential(
  credential: unknown,
): credential is { getToken(scope: string): Promise<{ token: string } | null> } {
  return (
    typeof credential === "object" &&
    credential !== null &&
    typeof (credential as { getToken?: unknown }).getToken === "function"
  );
}
