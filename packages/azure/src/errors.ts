/**
 * What an @azure/storage-blob failure says: the HTTP status and the service's error code
 * (x-ms-error-code), read off the SDK's RestError without importing its class, since the
 * peer dependency may be installed more than once.
 */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

function errorCodeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** 404: the blob (or its container) is not there. */
export function isNotFound(error: unknown): boolean {
  return statusOf(error) === 404;
}

/** 409 BlobAlreadyExists: If-None-Match: * refused a write over an existing blob. */
export function isAlreadyExists(error: unknown): boolean {
  return statusOf(error) === 409 && errorCodeOf(error) === "BlobAlreadyExists";
}

/** 412 ConditionNotMet: an If-Match (or If-None-Match) condition did not hold. */
export function isConditionNotMet(error: unknown): boolean {
  return statusOf(error) === 412;
}
