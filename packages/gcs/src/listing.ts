import {
  compareUtf8,
  corruptArtifact,
  type Deadline,
  type NamePage,
  namePageStart,
  type ParsedListNames,
  type Scope,
} from "@artifact-kit/core";
import type { BucketClient } from "./bucket-client.js";
import { GCS_MAX_RESULTS } from "./latest.js";
import type { ObjectLayout } from "./layout.js";
import { groupOfKey, keyPrefixOf, keyStartAfter, keyStartFrom, nameOfFullKey } from "./name-key.js";

/** Reads the name behind a truncated key from one of its published manifests. */
export type TruncatedNameReader = (
  scope: Scope,
  key: string,
  deadline: Deadline,
) => Promise<string | undefined>;

/**
 * One page of names: one delimiter listing of the name keys (their order is UTF-8 order),
 * read past the page by one group so that truncated-key groups, ordered client-side, are
 * always read whole. A name prefix narrows the listing to the keys that can start with it and
 * starts it at the prefix's own key; the run of names with the prefix ends at the first full
 * key past it that does not have it.
 */
export async function listNamePage(
  client: BucketClient,
  layout: ObjectLayout,
  request: ParsedListNames,
  truncatedName: TruncatedNameReader,
): Promise<NamePage> {
  const namesPrefix = layout.namesPrefix(request.scope);
  const prefix = namesPrefix + (request.prefix === undefined ? "" : keyPrefixOf(request.prefix));
  const start = namePageStart(request);
  const startKey =
    start === undefined
      ? undefined
      : start.inclusive
        ? keyStartFrom(start.from)
        : keyStartAfter(start.from);
  const wanted = request.limit + 1;
  const names: string[] = [];
  let lastGroup: string | undefined;
  let pageToken: string | undefined;
  let filled = false;
  do {
    const page = await client.list(request.deadline, {
      prefix,
      delimiter: "/",
      maxResults: Math.min(wanted, GCS_MAX_RESULTS),
      ...(startKey === undefined ? {} : { startOffset: namesPrefix + startKey }),
      ...(pageToken ? { pageToken } : {}),
    });
    for (const keyPrefix of page.prefixes) {
      const key = keyPrefix.slice(namesPrefix.length, -1);
      const group = groupOfKey(key);
      if (names.length >= wanted && group !== lastGroup) {
        filled = true;
        break;
      }
      lastGroup = group;
      const name =
        group === key
          ? fullKeyName(key)
          : await truncatedName(request.scope, key, request.deadline);
      if (name === undefined) continue;
      if (request.cursor !== undefined && compareUtf8(name, request.cursor) <= 0) continue;
      if (request.prefix !== undefined && !name.startsWith(request.prefix)) {
        if (group === key && compareUtf8(name, request.prefix) > 0) {
          filled = true;
          break;
        }
        continue;
      }
      names.push(name);
    }
    pageToken = page.nextPageToken;
  } while (!filled && pageToken);
  names.sort(compareUtf8);
  const items = names.slice(0, request.limit);
  const last = items[items.length - 1];
  return names.length > items.length && last !== undefined
    ? { scope: request.scope, items, nextCursor: last }
    : { scope: request.scope, items };
}

function fullKeyName(key: string): string {
  const name = nameOfFullKey(key);
  if (name === undefined) throw corruptArtifact(`unexpected name key ${key}`);
  return name;
}
