import type { Deadline } from "@artifact-kit/core";
import type { ListRequest, ObjectBucket, ObjectInfo } from "./bucket.js";

/** Objects of a listing, page after page, until `atLeast` are read or none are left. */
export async function listAll(
  bucket: ObjectBucket,
  deadline: Deadline,
  request: ListRequest,
  atLeast = Number.POSITIVE_INFINITY,
): Promise<ObjectInfo[]> {
  const objects: ObjectInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list(deadline, { ...request, ...(cursor ? { cursor } : {}) });
    objects.push(...page.objects);
    cursor = page.cursor;
  } while (cursor && objects.length < atLeast);
  return objects;
}
