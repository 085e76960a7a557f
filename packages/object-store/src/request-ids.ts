import type { Deadline } from "@artifact-kit/core";
import type { CreateOutcome, NewObject, ObjectBucket } from "./bucket.js";

/** Custom metadata naming the put or delete that wrote an object ("metadata" placement). */
export const REQUEST_ID_KEY = "artifact-kit-request";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A create-only object that records its writer's request id where the bucket keeps it: as
 * the body when no body is given ("body" placement), or in custom metadata.
 */
export function taggedObject(
  bucket: ObjectBucket,
  key: string,
  requestId: string,
  body?: Uint8Array,
): NewObject {
  return bucket.requestIds === "body"
    ? { key, body: body ?? encoder.encode(requestId) }
    : { key, body: body ?? new Uint8Array(0), metadata: { [REQUEST_ID_KEY]: requestId } };
}

/**
 * A create-only write of a marker (allocation, deletion marker) that knows its own earlier
 * attempt from another writer's. When a reply is lost the SDK sends the write again and the
 * bucket answers "exists", because the first attempt landed; the request id read back tells
 * whose it is. Without that, a lost reply made an allocation look taken, and a deletion
 * marker look like another delete's (so `delete("latest")` went on to delete a second version).
 */
export async function createOwned(
  bucket: ObjectBucket,
  deadline: Deadline,
  key: string,
  requestId: string,
  commit: boolean,
): Promise<CreateOutcome> {
  const outcome = await bucket.createOnly(deadline, taggedObject(bucket, key, requestId), {
    commit,
  });
  if (outcome === "created") return outcome;
  return (await writerOf(bucket, deadline, key)) === requestId ? "created" : "exists";
}

/** The request id a marker records; undefined when it is gone. */
async function writerOf(
  bucket: ObjectBucket,
  deadline: Deadline,
  key: string,
): Promise<string | undefined> {
  if (bucket.requestIds === "metadata") {
    return (await bucket.head(deadline, key))?.metadata?.[REQUEST_ID_KEY];
  }
  const stored = await bucket.get(deadline, key);
  return stored === undefined ? undefined : decoder.decode(stored.bytes);
}
