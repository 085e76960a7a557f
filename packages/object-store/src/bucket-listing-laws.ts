import { compareUtf8, Deadline } from "@artifact-kit/core";
import { ConformanceFailure } from "@artifact-kit/core/conformance";
import type { ListRequest, ObjectBucket } from "./bucket.js";

// The listing laws of the bucket contract (bucket.ts, `list`), for an adapter's own bucket
// against its real server: more keys than one server page, in shapes whose UTF-8 order is
// neither insertion nor numeric order, read back whole and in windows through the
// cursor, with and without the delimiter. The shared protocol's own scale laws run over the
// in-memory bucket, whose pages hold 4 keys; these prove that a real server's pages, tokens
// and orders reach the protocol as the contract says. A few seconds per server: one create
// per key and a few dozen listing requests.

/** One key more than the S3 and GCS servers' largest page, and more than a window of 1,000. */
const KEY_COUNT = 1_025;

/** Name keys of a few lengths (one a prefix of others), each the group of several keys. */
const GROUPS = ["0", "00", "0V", "1", "10", "A", "AB", "V", "V~1", "V~2", "K9", "K90", "S"];

/**
 * Key shapes (after the law's prefix) in the protocol's alphabet (layout.ts: base32hex name
 * keys, "~" for a truncated one, "/" between segments, "-" in chunk names, padded numbers),
 * whose byte order is neither insertion nor numeric order, and where a group "g/" follows keys
 * "g-...". The protocol writes ASCII keys only: UTF-8 and UTF-16 order agree on them (Azurite
 * lists by UTF-16).
 */
const SHAPES: readonly ((i: number) => string)[] = [
  (i) => `${i}`,
  (i) => `g/${GROUPS[(i * 31) % GROUPS.length]}/${String(i).padStart(16, "0")}`,
  (i) => `g-${i}`,
  (i) => `V${i % 11}~${i}`,
  (i) => `A${i}`,
  (i) => `a${i}`,
  (i) => `r/${String(i).padStart(16, "0")}-${i % 5}`,
];

export interface BucketListingLaw {
  readonly name: string;
  /** Throws a ConformanceFailure naming what the listing answered wrongly. */
  run(bucket: ObjectBucket, filled: FilledPrefix): Promise<void>;
}

/** The keys one `fillListingPrefix` created, in byte order, after `prefix`. */
export interface FilledPrefix {
  readonly prefix: string;
  readonly keys: readonly string[];
}

/**
 * Creates the laws' keys under `prefix` (which should end in "/" and be fresh), a few at a
 * time, in an order unrelated to any of the orders under test.
 */
export async function fillListingPrefix(
  bucket: ObjectBucket,
  prefix: string,
): Promise<FilledPrefix> {
  const names = Array.from({ length: KEY_COUNT }, (_, i) =>
    (SHAPES[i % SHAPES.length] as (i: number) => string)(i),
  );
  const pending = [...names].reverse();
  const worker = async () => {
    for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
      await bucket.createOnly(
        Deadline.none,
        { key: prefix + name, body: Uint8Array.of(1) },
        { commit: true },
      );
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { prefix, keys: names.map((name) => prefix + name).sort(compareUtf8) };
}

function expectSame(actual: readonly string[], expected: readonly string[], what: string) {
  const at = actual.findIndex((key, i) => key !== expected[i]);
  if (at === -1 && actual.length === expected.length) return;
  const where = at === -1 ? Math.min(actual.length, expected.length) : at;
  throw new ConformanceFailure(
    `${what}: ${actual.length} keys where ${expected.length} were expected; first difference at ${where}: ` +
      `${JSON.stringify(actual[where])} where ${JSON.stringify(expected[where])} was expected`,
  );
}

/** Every page of a listing, each checked against maxKeys; objects and prefixes joined in order. */
async function readListing(bucket: ObjectBucket, request: ListRequest, enough = Infinity) {
  const objects: string[] = [];
  const prefixes: string[] = [];
  let cursor: string | undefined;
  // A page may hold fewer than maxKeys and still have a cursor: read on to `enough` objects.
  while (objects.length < enough) {
    const page = await bucket.list(Deadline.none, { ...request, ...(cursor ? { cursor } : {}) });
    if (page.objects.length > request.maxKeys) {
      throw new ConformanceFailure(
        `a page of ${page.objects.length} objects at maxKeys ${request.maxKeys}`,
      );
    }
    objects.push(...page.objects.map((object) => object.key));
    prefixes.push(...page.prefixes);
    cursor = page.cursor;
    if (cursor === undefined) break;
  }
  return { objects, prefixes };
}

/**
 * The groups a delimited listing under `under` after `after` answers: those that sort after
 * it themselves, as S3, GCS and Azure roll them up (a start inside a group leaves it out).
 */
function groupsOf({ prefix, keys }: FilledPrefix, under: string, after = "") {
  const groups = new Set<string>();
  for (const key of keys) {
    if (!key.startsWith(prefix + under)) continue;
    const group = key.slice(0, key.indexOf("/", prefix.length + under.length) + 1);
    if (compareUtf8(group, after) > 0) groups.add(group);
  }
  return [...groups];
}

export const BUCKET_LISTING_LAWS: readonly BucketListingLaw[] = [
  {
    name: `more keys than one server page (${KEY_COUNT}) are listed whole and in byte order at the bucket's largest page and at 97`,
    async run(bucket, filled) {
      for (const maxKeys of [Math.min(bucket.maxListKeys, 1_000), 97]) {
        const { objects } = await readListing(bucket, { prefix: filled.prefix, maxKeys });
        expectSame(objects, filled.keys, `the whole listing at maxKeys ${maxKeys}`);
      }
    },
  },
  {
    name: "a listing after a key, or after a position between two keys, resumes exactly there, past page ends, through the cursor",
    async run(bucket, { prefix, keys }) {
      for (const at of [0, 254, 255, 999, keys.length - 2]) {
        const key = keys[at] as string;
        for (const startAfter of [key, `${key}\u0001`]) {
          const { objects } = await readListing(bucket, { prefix, startAfter, maxKeys: 2 }, 6);
          const expected = keys.filter((other) => compareUtf8(other, startAfter) > 0).slice(0, 6);
          expectSame(
            objects.slice(0, 6),
            expected,
            `the first 6 keys, in pages of 2, after ${JSON.stringify(startAfter)}`,
          );
        }
      }
    },
  },
  {
    name: "a listing before a key ends just before it, and one between two keys holds exactly the keys between",
    async run(bucket, { prefix, keys }) {
      const endBefore = keys[40] as string;
      const before = await readListing(bucket, { prefix, endBefore, maxKeys: 7 });
      expectSame(
        before.objects,
        keys.slice(0, 40),
        `the listing before ${JSON.stringify(endBefore)}`,
      );
      const startAfter = keys[500] as string;
      const end = keys[531] as string;
      const between = await readListing(bucket, { prefix, startAfter, endBefore: end, maxKeys: 4 });
      expectSame(between.objects, keys.slice(501, 531), "the listing between two keys");
    },
  },
  {
    // The protocol lists with the delimiter in two ways only: name keys, groups of versions
    // with no object beside them (store.ts), and scope markers, objects with no group beside
    // them (scopes.ts). A listing of both at once is not held here: fake-gcs-server repeats
    // a group on every page of one.
    name: "a delimited listing gives each group of keys once, in byte order, across pages and after a group or a key; one of objects alone gives them all",
    async run(bucket, filled) {
      const groups = `${filled.prefix}g/`;
      for (const maxKeys of [3, Math.min(bucket.maxListKeys, 1_000)]) {
        const { prefixes } = await readListing(bucket, { prefix: groups, delimiter: "/", maxKeys });
        expectSame(prefixes, groupsOf(filled, "g/"), `the groups at maxKeys ${maxKeys}`);
      }
      // Servers part on a start at a group's own "x/" (S3 leaves the group out, GCS not): the
      // protocol never starts there.
      for (const after of [
        `${groups}K9`,
        `${groups}V~1/${"0".repeat(13)}500`,
        `${groups}0/${"9".repeat(16)}`,
      ]) {
        const request = { prefix: groups, delimiter: "/" as const, startAfter: after, maxKeys: 2 };
        const { prefixes } = await readListing(bucket, request);
        expectSame(
          prefixes,
          groupsOf(filled, "g/", after),
          `the groups after ${JSON.stringify(after)}`,
        );
      }
      const flat = `${filled.prefix}r/`;
      const { objects, prefixes } = await readListing(bucket, {
        prefix: flat,
        delimiter: "/",
        maxKeys: 3,
      });
      expectSame(prefixes, [], "the groups of a listing of objects alone");
      expectSame(
        objects,
        filled.keys.filter((key) => key.startsWith(flat)),
        "a delimited listing of objects alone",
      );
    },
  },
];
