import { type Deadline, notFound, unavailable } from "@artifact-kit/core";
import type {
  ByteWindow,
  CreateOutcome,
  DeleteTarget,
  ListPage,
  ListRequest,
  NewObject,
  ObjectBucket,
  ObjectBytes,
  ObjectInfo,
  StagedTarget,
  StagingUpload,
} from "../../src/index.js";
import { concatBytes } from "../../src/index.js";

interface Stored {
  readonly body: Uint8Array;
  readonly metadata: Record<string, string>;
  readonly generation: number;
  readonly lastModified: number;
}

/**
 * An ObjectBucket in memory, held to the interface's contract, for the protocol's own tests:
 * either request-id placement, a backend that can or cannot tell deletes, and listings with
 * or without metadata. `landThenRefuse` simulates a lost reply that the SDK retried: the
 * write lands, and the bucket answers "exists" to it.
 */
export class MemoryBucket implements ObjectBucket {
  readonly label = "memory";
  maxListKeys = 4;
  readonly objects = new Map<string, Stored>();
  /** Requests sent, by method (each call would be one request on a real backend). */
  readonly requests = { createOnly: 0, get: 0, head: 0, list: 0, delete: 0 };
  /** Keys whose next create-only write fails as a backend outage would. */
  readonly failNextWrite = new Set<string>();
  /** Keys whose next create-only write lands and then answers "exists". */
  readonly landThenRefuse = new Set<string>();
  #generation = 0;

  constructor(
    readonly requestIds: "body" | "metadata",
    readonly tellsDeletes: boolean,
    readonly listsMetadata: boolean,
  ) {}

  async createOnly(deadline: Deadline, object: NewObject): Promise<CreateOutcome> {
    this.requests.createOnly += 1;
    if (this.failNextWrite.delete(object.key)) throw unavailable(`write of ${object.key} failed`);
    deadline.check();
    if (this.objects.has(object.key)) return "exists";
    this.#put(object.key, object.body.slice(), { ...object.metadata });
    if (!this.landThenRefuse.delete(object.key)) return "created";
    return "exists";
  }

  async get(
    deadline: Deadline,
    key: string,
    window?: ByteWindow,
  ): Promise<ObjectBytes | undefined> {
    this.requests.get += 1;
    deadline.check();
    const stored = this.objects.get(key);
    if (!stored) return undefined;
    const size = stored.body.byteLength;
    const bytes = !window
      ? stored.body
      : "suffix" in window
        ? stored.body.subarray(Math.max(0, size - window.suffix))
        : stored.body.subarray(window.start, window.end + 1);
    return { bytes: bytes.slice(), objectSize: size };
  }

  async head(deadline: Deadline, key: string): Promise<ObjectInfo | undefined> {
    this.requests.head += 1;
    deadline.check();
    const stored = this.objects.get(key);
    return stored ? this.#info(key, stored, true) : undefined;
  }

  async list(deadline: Deadline, request: ListRequest): Promise<ListPage> {
    this.requests.list += 1;
    deadline.check();
    const { prefix, delimiter, startAfter, endBefore } = request;
    const keys = [...this.objects.keys()]
      .filter((key) => key.startsWith(prefix))
      .filter((key) => startAfter === undefined || Buffer.compare(b(key), b(startAfter)) > 0)
      .filter((key) => endBefore === undefined || Buffer.compare(b(key), b(endBefore)) < 0)
      .sort((x, y) => Buffer.compare(b(x), b(y)));
    // Entries: objects, and with a delimiter one rolled-up prefix per group, listed when the
    // prefix itself sorts after startAfter, as S3, GCS and Azure do.
    const entries: { key: string; prefix?: string }[] = [];
    for (const key of keys) {
      const slash = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
      const group = key.slice(0, slash + 1);
      if (slash < 0) entries.push({ key });
      else if (startAfter !== undefined && Buffer.compare(b(group), b(startAfter)) <= 0) continue;
      else if (entries.at(-1)?.prefix !== group) entries.push({ key, prefix: group });
    }
    const from = request.cursor === undefined ? 0 : Number(request.cursor);
    const page = entries.slice(from, from + request.maxKeys);
    const next = from + page.length;
    return {
      objects: page
        .filter((entry) => entry.prefix === undefined)
        .map((entry) => this.#info(entry.key, this.objects.get(entry.key) as Stored, false)),
      prefixes: page.flatMap((entry) => (entry.prefix === undefined ? [] : [entry.prefix])),
      ...(next < entries.length ? { cursor: String(next) } : {}),
    };
  }

  async delete(deadline: Deadline, target: DeleteTarget): Promise<boolean> {
    this.requests.delete += 1;
    deadline.check();
    const stored = this.objects.get(target.key);
    if (!stored || (target.match !== undefined && String(stored.generation) !== target.match)) {
      return !this.tellsDeletes;
    }
    this.objects.delete(target.key);
    return true;
  }

  async removeQuietly(key: string): Promise<void> {
    this.objects.delete(key);
  }

  async *readRange(deadline: Deadline, key: string, start: number, end: number) {
    deadline.check();
    const stored = this.objects.get(key);
    if (!stored) throw notFound(`object ${key}`);
    yield stored.body.slice(start, end);
  }

  openStaging(_deadline: Deadline, stagingKey: string): StagingUpload {
    const chunks: Uint8Array[] = [];
    return {
      write: async (chunk) => {
        chunks.push(chunk.slice());
      },
      seal: async () => {
        this.#put(stagingKey, concatBytes(...chunks), {});
      },
      complete: (deadline, target: StagedTarget) => {
        const data = this.objects.get(stagingKey)?.body ?? new Uint8Array(0);
        const empty = new Uint8Array(0);
        const body = concatBytes(target.head ?? empty, data, target.tail ?? empty);
        return this.createOnly(deadline, {
          key: target.key,
          body,
          ...(target.metadata ? { metadata: target.metadata } : {}),
        });
      },
      discard: async () => {
        this.objects.delete(stagingKey);
      },
    };
  }

  async addMetadata(deadline: Deadline, key: string, entries: Record<string, string>) {
    deadline.check();
    const stored = this.objects.get(key);
    if (!stored) return false;
    this.objects.set(key, { ...stored, metadata: { ...stored.metadata, ...entries } });
    return true;
  }

  #put(key: string, body: Uint8Array, metadata: Record<string, string>) {
    this.#generation += 1;
    const lastModified = Date.now();
    this.objects.set(key, { body, metadata, generation: this.#generation, lastModified });
  }

  #info(key: string, stored: Stored, withMetadata: boolean): ObjectInfo {
    return {
      key,
      size: stored.body.byteLength,
      lastModified: stored.lastModified,
      tag: `"${stored.generation}"`,
      match: String(stored.generation),
      ...(withMetadata || this.listsMetadata ? { metadata: { ...stored.metadata } } : {}),
    };
  }
}

function b(text: string): Buffer {
  return Buffer.from(text, "utf8");
}
