import type { Deadline, Scope } from "@artifact-kit/core";
import type { StoredManifest } from "@artifact-kit/core/adapter";
import type { VersionAllocator } from "./allocator.js";
import type { ObjectBucket, ObjectInfo } from "./bucket.js";
import type { ObjectLayout } from "./layout.js";
import type { PublishedReader } from "./reader.js";
import {
  type ChunkRecords,
  decodeChunk,
  encodeChunk,
  type ListedRecord,
  recordOf,
} from "./record-chunks.js";
import { settledRanges } from "./settled.js";
import type { Tombstones } from "./tombstones.js";
import { CHUNK_SPANS, lastOf, rangeOf, type VersionRange } from "./version-ranges.js";

const [TOP_SPAN] = CHUNK_SPANS;
const SMALLEST_SPAN = CHUNK_SPANS[CHUNK_SPANS.length - 1] as number;

/** The chunks a page may read, by "first-span"; from one or a few listing requests. */
export type ChunkListing = Promise<Map<string, VersionRange>>;

/** What a page of one name's versions needs: its scope, name key, name and deadline. */
export interface PageOf {
  readonly scope: Scope;
  readonly key: string;
  readonly name: string;
  readonly deadline: Deadline;
}

/**
 * Reads the records of a page of listed versions from record chunks (see record-chunks.ts),
 * and the versions no chunk holds from their manifests; then writes, create-only, the chunks
 * of the page's ranges that are settled and missing (see settled.ts), so that the next page
 * over them reads a few chunks. A chunk that is missing, unreadable or wrong costs reads,
 * never a wrong answer: the listing decides what is live, each record is checked against the
 * listed object, and a failed chunk write leaves the page as it was.
 */
export class VersionIndex {
  readonly #bucket: ObjectBucket;
  readonly #layout: ObjectLayout;
  readonly #reader: PublishedReader;
  readonly #allocator: VersionAllocator;
  readonly #tombstones: Tombstones;
  readonly #manifestFormat: string;
  readonly #settleMs: number;

  constructor(
    parts: {
      bucket: ObjectBucket;
      layout: ObjectLayout;
      reader: PublishedReader;
      allocator: VersionAllocator;
      tombstones: Tombstones;
    },
    manifestFormat: string,
    settleMs: number,
  ) {
    this.#bucket = parts.bucket;
    this.#layout = parts.layout;
    this.#reader = parts.reader;
    this.#allocator = parts.allocator;
    this.#tombstones = parts.tombstones;
    this.#manifestFormat = manifestFormat;
    this.#settleMs = settleMs;
  }

  /**
   * Starts listing the chunks of a page that begins at version `from`: one request, sent
   * beside the page's own listing (more only when the page reaches past what it listed).
   */
  listChunks(
    page: PageOf,
    from: number,
  ): { chunks: ChunkListing; through: (last: number) => ChunkListing } {
    const prefix = this.#layout.recordChunksPrefix(page.scope, page.key);
    const ranges = new Map<string, VersionRange>();
    let cursor: string | undefined;
    let listedTo = 0;
    const more = async () => {
      const listed = await this.#bucket.list(page.deadline, {
        prefix,
        maxKeys: this.#bucket.maxListKeys,
        startAfter: this.#layout.recordChunksBefore(
          page.scope,
          page.key,
          rangeOf(from, TOP_SPAN).first,
        ),
        ...(cursor ? { cursor } : {}),
      });
      for (const object of listed.objects) {
        const range = this.#layout.recordChunkRange(object.key, prefix);
        if (range === undefined) continue;
        ranges.set(idOf(range), range);
        listedTo = Math.max(listedTo, range.first);
      }
      cursor = listed.cursor;
    };
    const chunks = more().then(() => ranges);
    const through = async (last: number) => {
      await chunks;
      while (cursor && listedTo < rangeOf(last, SMALLEST_SPAN).first) await more();
      return ranges;
    };
    return { chunks, through };
  }

  /** The manifests of a page's listed version objects, in order; one deleted meanwhile is left out. */
  async manifests(
    page: PageOf,
    listed: readonly ObjectInfo[],
    chunkListing: ChunkListing,
  ): Promise<StoredManifest[]> {
    const versionsPrefix = this.#layout.versionsPrefix(page.scope, page.key);
    const entries = listed.map((object) => ({
      object,
      version: this.#layout.versionOf(object.key, versionsPrefix) ?? 0,
    }));
    const present = await chunkListing;
    // Each version from the largest chunk that covers it.
    const chosen = new Map<number, VersionRange>();
    for (const { version } of entries) {
      const range = CHUNK_SPANS.map((span) => rangeOf(version, span)).find((candidate) =>
        present.has(idOf(candidate)),
      );
      if (range) chosen.set(version, range);
    }
    const chunks = await this.#readChunks(page, [...chosen.values()]);
    const found = new Map<number, ListedRecord>();
    const unread: { object: ObjectInfo; version: number }[] = [];
    for (const entry of entries) {
      const range = chosen.get(entry.version);
      const records = range && chunks.get(idOf(range));
      const manifest = records && recordOf(records, entry.version, entry.object);
      if (manifest && manifest.name === page.name) {
        found.set(entry.version, { object: entry.object, manifest });
      } else unread.push(entry);
    }
    await Promise.all(
      unread.map(async ({ object, version }) => {
        const read = await this.#reader.readPublished(page.scope, object.key, page.deadline, {
          known: object,
          name: page.name,
        });
        if (read) found.set(version, { object, manifest: read.manifest });
      }),
    );
    // A cache write: the page is complete without it, so its failure is the page's no concern.
    await this.#fillSettled(page, entries, present, chunks, found).catch(() => undefined);
    return entries.flatMap(({ version }) => {
      const record = found.get(version);
      return record ? [record.manifest] : [];
    });
  }

  /** The checked records of each chunk named (a chunk that does not check is left out). */
  async #readChunks(page: PageOf, ranges: readonly VersionRange[]) {
    const unique = new Map(ranges.map((range) => [idOf(range), range]));
    const chunks = new Map<string, ChunkRecords>();
    await Promise.all(
      [...unique].map(async ([id, range]) => {
        const objectKey = this.#layout.recordChunk(page.scope, page.key, range);
        const stored = await this.#bucket.get(page.deadline, objectKey);
        const records =
          stored && decodeChunk(stored.bytes, range, this.#manifestFormat, page.scope, page.key);
        if (records) chunks.set(id, records);
      }),
    );
    return chunks;
  }

  /**
   * Writes the missing chunks of the ranges the page touched, where settled: a range of the
   * top span whole, else its settled smaller ranges.
   */
  async #fillSettled(
    page: PageOf,
    entries: readonly { version: number }[],
    present: ReadonlyMap<string, VersionRange>,
    chunks: Map<string, ChunkRecords>,
    found: ReadonlyMap<number, ListedRecord>,
  ): Promise<void> {
    const versions = entries.map((entry) => entry.version);
    const beyond = Math.max(0, ...versions);
    // Every range of every span the page touched whose chunk is missing, grouped by top range.
    const missing = new Map<string, VersionRange[]>();
    for (const version of versions) {
      for (const span of CHUNK_SPANS) {
        const range = rangeOf(version, span);
        if (present.has(idOf(range))) break; // a larger chunk has it: nothing smaller is needed
        const group = missing.get(idOf(rangeOf(version, TOP_SPAN))) ?? [];
        if (!group.some((known) => idOf(known) === idOf(range))) group.push(range);
        missing.set(idOf(rangeOf(version, TOP_SPAN)), group);
      }
    }
    if (missing.size === 0) return;
    // Only ranges wholly allocated can be settled: known from the page, else the hint.
    const highWater = Math.max(
      beyond,
      await this.#allocator.highWaterHint(page.scope, page.key, page.deadline),
    );
    for (const ranges of missing.values()) {
      const candidates = ranges.filter((range) => lastOf(range) <= highWater);
      if (candidates.length === 0) continue;
      const top = rangeOf(candidates[0]?.first ?? 1, TOP_SPAN);
      const settled = await settledRanges(
        { bucket: this.#bucket, layout: this.#layout, tombstones: this.#tombstones },
        page,
        top,
        candidates,
        this.#settleMs,
      );
      // The largest settled range first; smaller ones only where it is not settled.
      const whole = settled.ranges.find((range) => range.span === TOP_SPAN);
      const toWrite = whole ? [whole] : settled.ranges;
      for (const range of toWrite) {
        await this.#writeChunk(page, range, settled.published, chunks, found);
      }
    }
  }

  /** Writes one chunk create-only from records already known, or read now. */
  async #writeChunk(
    page: PageOf,
    range: VersionRange,
    published: ReadonlyMap<number, ObjectInfo>,
    chunks: ReadonlyMap<string, ChunkRecords>,
    found: ReadonlyMap<number, ListedRecord>,
  ): Promise<void> {
    const records: ListedRecord[] = [];
    const toRead: { object: ObjectInfo; version: number }[] = [];
    for (const [version, object] of published) {
      if (version < range.first || version > lastOf(range)) continue;
      const known = found.get(version);
      if (known && known.object.key === object.key && known.object.tag === object.tag) {
        records.push({ object, manifest: known.manifest });
        continue;
      }
      const cached = [...chunks.values()]
        .map((chunk) => recordOf(chunk, version, object))
        .find((manifest) => manifest !== undefined);
      if (cached) records.push({ object, manifest: cached });
      else toRead.push({ object, version });
    }
    await Promise.all(
      toRead.map(async ({ object }) => {
        const read = await this.#reader.readPublished(page.scope, object.key, page.deadline, {
          known: object,
          name: page.name,
        });
        if (read) records.push({ object, manifest: read.manifest });
      }),
    );
    if (records.length === 0) return; // nothing live to record: no page will ask
    records.sort((a, b) => a.manifest.version - b.manifest.version);
    await this.#bucket.createOnly(
      page.deadline,
      {
        key: this.#layout.recordChunk(page.scope, page.key, range),
        body: encodeChunk(range, records, this.#manifestFormat),
      },
      { commit: false },
    );
    // "exists": another reader wrote it first, from the same immutable records.
  }
}

function idOf(range: VersionRange): string {
  return `${range.first}-${range.span}`;
}
