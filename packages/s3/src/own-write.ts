import type { Deadline } from "@artifact-kit/core";
import type { BucketClient, CreateOutcome } from "./bucket-client.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * A create-only write that knows its own earlier attempt from another writer's: the object
 * holds the writer's request id. When a reply is lost the SDK sends the write again and S3
 * answers 412, because the first attempt landed; reading the object back tells whose it is.
 * Without that, a lost reply made an allocation look taken, and a deletion marker look like
 * another delete's (so `delete("latest")` went on to delete a second version).
 */
export async function createOwned(
  client: BucketClient,
  deadline: Deadline,
  key: string,
  requestId: string,
  commit: boolean,
): Promise<CreateOutcome> {
  const outcome = await client.createOnly(deadline, key, encoder.encode(requestId), commit);
  if (outcome === "created") return outcome;
  const stored = await client.get(deadline, key);
  return stored !== undefined && decoder.decode(stored.bytes) === requestId ? "created" : "exists";
}
