import {
  compareUtf8,
  groupOfKey,
  keyStartAfter,
  type NamePage,
  type ParsedListNames,
} from "@artifact-kit/core";
import type { BucketClient } from "./bucket-client.js";
import { S3_MAX_KEYS } from "./config.js";

/**
 * One page of names from the common prefixes under `prefix` (one per name key), starting
 * after the cursor's key: order-preserving keys make key order name order, so this is one
 * ListObjectsV2 request, except that a group of truncated (long-name) keys is read whole and
 * ordered here. `nameOfKey` answers undefined for a key whose versions vanished meanwhile.
 */
export async function listNamePage(
  client: BucketClient,
  prefix: string,
  request: ParsedListNames,
  nameOfKey: (key: string) => Promise<string | undefined>,
): Promise<NamePage> {
  const wanted = request.limit + 1;
  const names: string[] = [];
  let lastGroup: string | undefined;
  let continuationToken: string | undefined;
  let filled = false;
  do {
    const page = await client.list(request.deadline, {
      prefix,
      delimiter: "/",
      maxKeys: Math.min(wanted, S3_MAX_KEYS),
      ...(request.cursor === undefined
        ? {}
        : { startAfter: prefix + keyStartAfter(request.cursor) }),
      ...(continuationToken ? { continuationToken } : {}),
    });
    for (const keyPrefix of page.prefixes) {
      const key = keyPrefix.slice(prefix.length, -1);
      const group = groupOfKey(key);
      if (names.length >= wanted && group !== lastGroup) {
        filled = true;
        break;
      }
      lastGroup = group;
      const name = await nameOfKey(key);
      if (name === undefined) continue;
      if (request.cursor !== undefined && compareUtf8(name, request.cursor) <= 0) continue;
      names.push(name);
    }
    continuationToken = page.nextToken;
  } while (!filled && continuationToken);
  names.sort(compareUtf8);
  const items = names.slice(0, request.limit);
  const last = items[items.length - 1];
  return names.length > items.length && last !== undefined
    ? { scope: request.scope, items, nextCursor: last }
    : { scope: request.scope, items };
}
