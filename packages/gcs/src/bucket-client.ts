import type { Deadline } from "@artifact-kit/core";
import type * as store from "@artifact-kit/object-store";
import { BucketRequests, guardedStream, objectSizeOf } from "@artifact-kit/object-store";
import type { Bucket } from "@google-cloud/storage";
import { idleGuarded, readAll } from "./idle-read.js";
import { RetrySwitch } from "./retry-switch.js";
import { GcsStaging } from "./staging.js";

/** The largest page one GCS listing returns. */
export const GCS_MAX_RESULTS = 1_000;

/**
 * The object-store protocol's bucket on GCS: bounds in-flight requests, makes the deadline end
 * the wait, turns the statuses the protocol expects (404, 412) into values, and every other
 * failure into `unavailable` (or the deadline's own `timeout` / `aborted`). A create-only
 * write records its request id in custom metadata, which GCS listings carry.
 */
export class GcsBucket implements store.ObjectBucket {
  readonly label = "GCS";
  readonly maxListKeys = GCS_MAX_RESULTS;
  readonly requestIds = "metadata";
  readonly tellsDeletes = true;
  readonly #bucket: Bucket;
  readonly #requests: BucketRequests;
  readonly #retries: RetrySwitch;
  readonly #readIdleMs: number;

  /** `readIdleMs`: how long a read waits for the server's next bytes (see idle-read.ts). */
  constructor(bucket: Bucket, maxConcurrency: number, readIdleMs: number) {
    this.#bucket = bucket;
    this.#readIdleMs = readIdleMs;
    this.#requests = new BucketRequests("GCS", maxConcurrency);
    this.#retries = new RetrySwitch(bucket);
  }

  /** Writes only if no live object has this name (ifGenerationMatch: 0), in one request. */
  createOnly(
    deadline: Deadline,
    object: store.NewObject,
    options: { commit: boolean },
  ): Promise<store.CreateOutcome> {
    const { key, body } = object;
    const save = () =>
      this.#bucket
        .file(key)
        .save(Buffer.from(body.buffer, body.byteOffset, body.byteLength), {
          resumable: false,
          // Published objects are manifest + data, of no one media type.
          contentType: "application/octet-stream",
          metadata: { metadata: object.metadata ?? {} },
          preconditionOpts: { ifGenerationMatch: 0 },
        })
        .then(() => "created" as const, whenStatus(412, "exists" as const));
    return this.#run(deadline, `write ${key}`, save, !options.commit);
  }

  /** The whole object (checksum-validated), or a window of it read as one ranged stream. */
  get(
    deadline: Deadline,
    key: string,
    window?: store.ByteWindow,
  ): Promise<store.ObjectBytes | undefined> {
    const read = async (): Promise<store.ObjectBytes | undefined> => {
      const file = this.#bucket.file(key);
      // The whole object is checksum-validated by the client; a window is not.
      const range = !window ? {} : "suffix" in window ? { end: -window.suffix } : window;
      const stream = file.createReadStream(window ? { ...range, validation: false } : {});
      let contentRange: unknown;
      stream.on("response", (response: { headers?: Record<string, unknown> }) => {
        contentRange = response.headers?.["content-range"];
      });
      try {
        const bytes = await readAll(stream, this.#readIdleMs, `read ${key}`);
        return { bytes, objectSize: objectSizeOf(contentRange, bytes.byteLength) };
      } catch (error) {
        const status = statusOf(error);
        if (status === 404 || status === 416) return undefined;
        throw error;
      }
    };
    return this.#run(deadline, `read ${key}`, read, true);
  }

  head(deadline: Deadline, key: string): Promise<store.ObjectInfo | undefined> {
    const read = () =>
      this.#bucket
        .file(key)
        .getMetadata()
        .then(([metadata]) => objectInfo(metadata), whenStatus(404, undefined));
    return this.#run(deadline, `read metadata of ${key}`, read, true);
  }

  /**
   * One listing request. GCS's startOffset is inclusive, so a listing after a key leaves the
   * key itself out, and asks for one object more in case it is there: when it was not, the
   * extra object is held back and the cursor resumes after the last one returned ("a:<key>");
   * otherwise the cursor is GCS's page token ("p:<token>"). A delimited listing never starts
   * at a key that exists (its groups end in "/"), so it asks for maxKeys as they are.
   */
  list(deadline: Deadline, request: store.ListRequest): Promise<store.ListPage> {
    const { prefix, delimiter, endBefore, maxKeys, cursor } = request;
    const pageToken = cursor?.startsWith("p:") ? cursor.slice(2) : undefined;
    const startAfter = cursor?.startsWith("a:") ? cursor.slice(2) : request.startAfter;
    const extra = startAfter !== undefined && delimiter === undefined ? 1 : 0;
    const list = async (): Promise<store.ListPage> => {
      const [files, , response] = await this.#bucket.getFiles({
        prefix,
        maxResults: maxKeys + extra,
        autoPaginate: false,
        ...(delimiter ? { delimiter } : {}),
        ...(startAfter ? { startOffset: startAfter } : {}),
        ...(endBefore ? { endOffset: endBefore } : {}),
        ...(pageToken ? { pageToken } : {}),
      });
      const { nextPageToken, prefixes } = (response ?? {}) as {
        nextPageToken?: string;
        prefixes?: string[];
      };
      const after = files
        .map((file) => objectInfo(file.metadata))
        .filter((object) => object.key !== startAfter);
      const objects = after.slice(0, maxKeys);
      const last = objects.at(-1);
      const next =
        after.length > objects.length && last
          ? `a:${last.key}`
          : nextPageToken && `p:${nextPageToken}`;
      return { objects, prefixes: prefixes ?? [], ...(next ? { cursor: next } : {}) };
    };
    return this.#run(deadline, `list ${prefix}`, list, true);
  }

  /**
   * Deletes the object (that generation, with `match`), awaited like a commit; false when it
   * is already gone. Sent once, never retried by the client: a retry after a lost reply would
   * find the object gone and report another delete's win, and `delete("latest")` would go on
   * to take a second version. A lost reply is `unavailable` instead, the ambiguous failure a
   * caller may retry.
   */
  delete(deadline: Deadline, target: store.DeleteTarget): Promise<boolean> {
    const remove = () =>
      this.#bucket
        .file(target.key)
        .request({
          method: "DELETE",
          uri: "",
          qs: target.match === undefined ? {} : { ifGenerationMatch: target.match },
          maxRetries: 0,
        })
        .then(() => true, whenStatus(404, false))
        .catch(whenStatus(412, false));
    return this.#run(deadline, `delete ${target.key}`, remove, false);
  }

  async removeQuietly(key: string): Promise<void> {
    await this.#requests.quietly(() =>
      this.#retries.around(() => this.#bucket.file(key).delete({ ignoreNotFound: true })),
    );
  }

  /** Bytes [start, end) of an object, streamed; not counted against maxConcurrency. */
  readRange(deadline: Deadline, key: string, start: number, end: number) {
    const isAbsent = (error: unknown) => statusOf(error) === 404;
    return guardedStream(deadline, `GCS read ${key}`, key, isAbsent, () =>
      idleGuarded(
        this.#bucket.file(key).createReadStream({ start, end: end - 1, validation: false }),
        this.#readIdleMs,
        `read ${key}`,
      ),
    );
  }

  /** The resumable upload starts now; the deadline applies at `seal` and `complete`. */
  openStaging(deadline: Deadline, stagingKey: string): store.StagingUpload {
    this.#retries.restore();
    return new GcsStaging(this, this.#bucket, stagingKey, deadline);
  }

  /** Adds custom metadata entries to an existing object; false when it does not exist. */
  addMetadata(deadline: Deadline, key: string, entries: Record<string, string>): Promise<boolean> {
    const patch = () =>
      this.#bucket
        .file(key)
        .setMetadata({ metadata: entries })
        .then(() => true, whenStatus(404, false));
    return this.#run(deadline, `update metadata of ${key}`, patch, false);
  }

  /** Concatenates `sources` into `destination`, server-side. */
  compose(deadline: Deadline, sources: readonly string[], destination: string): Promise<void> {
    const compose = async () => {
      const files = sources.map((name) => this.#bucket.file(name));
      await this.#bucket.combine(files, this.#bucket.file(destination));
    };
    return this.#run(deadline, `compose ${destination}`, compose, true);
  }

  /** Copies `source` to a new object only if none has its name (ifGenerationMatch: 0). */
  copyCreateOnly(
    deadline: Deadline,
    source: string,
    target: { key: string; metadata?: Readonly<Record<string, string>> | undefined },
  ): Promise<store.CreateOutcome> {
    const copy = () =>
      this.#bucket
        .file(source)
        .copy(this.#bucket.file(target.key), {
          contentType: "application/octet-stream",
          metadata: { ...target.metadata },
          preconditionOpts: { ifGenerationMatch: 0 },
        })
        .then(() => "created" as const, whenStatus(412, "exists" as const));
    return this.#run(deadline, `copy to ${target.key}`, copy, false);
  }

  #run<T>(
    deadline: Deadline,
    operation: string,
    work: () => Promise<T>,
    abandonAtDeadline: boolean,
  ): Promise<T> {
    // The SDK takes no abort signal here: run() races the request against its own.
    return this.#requests.run(deadline, operation, abandonAtDeadline, () =>
      this.#retries.around(work),
    );
  }
}

function statusOf(error: unknown): unknown {
  return (error as { code?: unknown } | null)?.code;
}

function whenStatus<T>(status: number, value: T): (error: unknown) => T {
  return (error) => {
    if (statusOf(error) === status) return value;
    throw error;
  };
}

function objectInfo(metadata: {
  name?: string | undefined;
  size?: string | number | undefined;
  updated?: string | undefined;
  generation?: string | number | undefined;
  metadata?: Record<string, unknown> | undefined;
}): store.ObjectInfo {
  const custom: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata.metadata ?? {})) {
    if (typeof value === "string") custom[key] = value;
  }
  const updated = metadata.updated === undefined ? 0 : Date.parse(metadata.updated);
  return {
    key: metadata.name ?? "",
    size: Number(metadata.size ?? 0),
    lastModified: Number.isNaN(updated) ? 0 : updated,
    metadata: custom,
    ...(metadata.generation === undefined ? {} : { match: String(metadata.generation) }),
  };
}
