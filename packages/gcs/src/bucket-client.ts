import type { Writable } from "node:stream";
import { asArtifactError, type Deadline, notFound } from "@artifact-kit/core";
import type { Bucket } from "@google-cloud/storage";
import pLimit, { type LimitFunction } from "p-limit";
import { raceDeadline } from "./deadline-race.js";
import { RetrySwitch } from "./retry-switch.js";

/** An object as a listing or a metadata read reports it. */
export interface StoredObject {
  readonly name: string;
  readonly generation: string;
  readonly customMetadata: Readonly<Record<string, string>>;
}

export interface ListRequest {
  prefix: string;
  delimiter?: string;
  startOffset?: string;
  endOffset?: string;
  maxResults: number;
  pageToken?: string;
}

export interface ListPage {
  readonly objects: readonly StoredObject[];
  /** With a delimiter: the common prefixes, each ending in the delimiter. */
  readonly prefixes: readonly string[];
  readonly nextPageToken?: string;
}

interface CreateRequest {
  name: string;
  body: Uint8Array;
  customMetadata: Record<string, string>;
}

/**
 * The adapter's only door to GCS: bounds in-flight requests, makes the deadline end the wait,
 * turns the statuses the protocol expects (404, 412) into values, and every other failure into
 * `unavailable` (or the deadline's own `timeout` / `aborted`).
 */
export class BucketClient {
  readonly #bucket: Bucket;
  readonly #limit: LimitFunction;
  readonly #retries: RetrySwitch;

  constructor(bucket: Bucket, maxConcurrency: number) {
    this.#bucket = bucket;
    this.#limit = pLimit(maxConcurrency);
    this.#retries = new RetrySwitch(bucket);
  }

  /**
   * Writes only if no live object has this name (ifGenerationMatch: 0), in one request.
   * `commit` marks the publishing write: it is awaited to the end rather than abandoned at
   * the deadline, so its outcome is never misreported.
   */
  async createOnly(
    deadline: Deadline,
    request: CreateRequest,
    commit: boolean,
  ): Promise<"created" | "exists"> {
    const save = () =>
      this.#bucket
        .file(request.name)
        .save(Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength), {
          resumable: false,
          // Published objects are manifest + data, of no one media type.
          contentType: "application/octet-stream",
          metadata: { metadata: request.customMetadata },
          preconditionOpts: { ifGenerationMatch: 0 },
        })
        .then(() => "created" as const, whenStatus(412, "exists" as const));
    return this.#run(deadline, `write ${request.name}`, save, !commit);
  }

  /** The whole object, or bytes [start, end] inclusive; undefined when it does not exist. */
  async download(
    deadline: Deadline,
    name: string,
    range?: { start: number; end: number },
  ): Promise<Uint8Array | undefined> {
    const read = () =>
      this.#bucket
        .file(name)
        .download(range ? { ...range, validation: false } : {})
        .then(([contents]) => new Uint8Array(contents), whenStatus(404, undefined));
    return this.#run(deadline, `read ${name}`, read, true);
  }

  async stat(deadline: Deadline, name: string): Promise<StoredObject | undefined> {
    const read = () =>
      this.#bucket
        .file(name)
        .getMetadata()
        .then(([metadata]) => storedObject(metadata), whenStatus(404, undefined));
    return this.#run(deadline, `read metadata of ${name}`, read, true);
  }

  async list(deadline: Deadline, request: ListRequest): Promise<ListPage> {
    const list = async (): Promise<ListPage> => {
      const [files, , response] = await this.#bucket.getFiles({ ...request, autoPaginate: false });
      const { nextPageToken, prefixes } = (response ?? {}) as {
        nextPageToken?: string;
        prefixes?: string[];
      };
      return {
        objects: files.map((file) => storedObject(file.metadata)),
        prefixes: prefixes ?? [],
        ...(nextPageToken ? { nextPageToken } : {}),
      };
    };
    return this.#run(deadline, `list ${request.prefix}`, list, true);
  }

  /**
   * A resumable, create-only upload of a new object, fed by the caller. Not counted against
   * maxConcurrency: it lasts as long as the transfer that feeds it.
   */
  openUpload(name: string): Writable {
    this.#retries.restore();
    return this.#bucket.file(name).createWriteStream({
      resumable: true,
      contentType: "application/octet-stream",
      preconditionOpts: { ifGenerationMatch: 0 },
    });
  }

  /** Concatenates `sources` into `destination`, server-side. */
  async compose(
    deadline: Deadline,
    sources: readonly string[],
    destination: string,
  ): Promise<void> {
    const compose = async () => {
      const files = sources.map((name) => this.#bucket.file(name));
      await this.#bucket.combine(files, this.#bucket.file(destination));
    };
    return this.#run(deadline, `compose ${destination}`, compose, true);
  }

  /** Copies `source` to a new object only if none has its name (ifGenerationMatch: 0). */
  async copyCreateOnly(
    deadline: Deadline,
    source: string,
    request: Omit<CreateRequest, "body">,
  ): Promise<"created" | "exists"> {
    const copy = () =>
      this.#bucket
        .file(source)
        .copy(this.#bucket.file(request.name), {
          contentType: "application/octet-stream",
          metadata: request.customMetadata,
          preconditionOpts: { ifGenerationMatch: 0 },
        })
        .then(() => "created" as const, whenStatus(412, "exists" as const));
    return this.#run(deadline, `copy to ${request.name}`, copy, false);
  }

  /** Bytes [start, end] inclusive of an object, streamed; not counted against maxConcurrency. */
  async *readRange(name: string, start: number, end: number): AsyncGenerator<Uint8Array> {
    try {
      yield* this.#bucket.file(name).createReadStream({ start, end, validation: false });
    } catch (error) {
      if ((error as { code?: unknown } | null)?.code === 404) throw notFound(`object ${name}`);
      throw asArtifactError(error, `GCS read ${name}`);
    }
  }

  /** Adds custom metadata entries to an existing object; false when it does not exist. */
  async addMetadata(
    deadline: Deadline,
    name: string,
    entries: Record<string, string>,
  ): Promise<boolean> {
    const patch = () =>
      this.#bucket
        .file(name)
        .setMetadata({ metadata: entries })
        .then(() => true, whenStatus(404, false));
    return this.#run(deadline, `update metadata of ${name}`, patch, false);
  }

  /** Best-effort removal of an object this adapter staged; never throws. */
  async removeQuietly(name: string): Promise<void> {
    await this.#limit(async () => {
      this.#retries.restore();
      try {
        await this.#bucket.file(name).delete({ ignoreNotFound: true });
      } finally {
        this.#retries.restore();
      }
    }).catch(() => undefined);
  }

  /**
   * Deletes that generation, awaited like a publish; false when it is already gone. Sent once,
   * never retried by the client: a retry after a lost reply would find the object gone and
   * report another delete's win, and `delete("latest")` would go on to take a second version.
   * A lost reply is `unavailable` instead, the ambiguous failure a caller may retry.
   */
  async delete(deadline: Deadline, object: StoredObject): Promise<boolean> {
    const remove = () =>
      this.#bucket
        .file(object.name)
        .request({
          method: "DELETE",
          uri: "",
          qs: { ifGenerationMatch: object.generation },
          maxRetries: 0,
        })
        .then(() => true, whenStatus(404, false));
    return this.#run(deadline, `delete ${object.name}`, remove, false);
  }

  #run<T>(
    deadline: Deadline,
    operation: string,
    work: () => Promise<T>,
    abandonAtDeadline: boolean,
  ): Promise<T> {
    return this.#limit(async () => {
      deadline.check();
      this.#retries.restore();
      try {
        return await (abandonAtDeadline ? raceDeadline(work(), deadline) : work());
      } catch (error) {
        throw deadline.failure() ?? asArtifactError(error, `GCS ${operation}`);
      } finally {
        this.#retries.restore();
      }
    });
  }
}

function whenStatus<T>(status: number, value: T): (error: unknown) => T {
  return (error) => {
    if ((error as { code?: unknown } | null)?.code === status) return value;
    throw error;
  };
}

function storedObject(metadata: {
  name?: string | undefined;
  generation?: string | number | undefined;
  metadata?: Record<string, unknown> | undefined;
}): StoredObject {
  const customMetadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata.metadata ?? {})) {
    if (typeof value === "string") customMetadata[key] = value;
  }
  return {
    name: metadata.name ?? "",
    generation: String(metadata.generation ?? ""),
    customMetadata,
  };
}
