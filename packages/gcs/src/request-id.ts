import type { Deadline } from "@artifact-kit/core";
import type { BucketClient } from "./bucket-client.js";

/** Custom metadata naming the put that wrote an object. */
export const REQUEST_ID_KEY = "artifact-kit-request";

/**
 * Whether an object that already existed when a create-only write answered 412 carries this
 * request's id: then the client had retried a write of ours whose first response was lost.
 */
export async function wroteItself(
  client: BucketClient,
  deadline: Deadline,
  objectName: string,
  requestId: string,
): Promise<boolean> {
  const object = await client.stat(deadline, objectName);
  return object?.customMetadata[REQUEST_ID_KEY] === requestId;
}
