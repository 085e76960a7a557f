import type { Deadline } from "@artifact-kit/core";

/**
 * The small interface the object-store protocol runs on: what a cloud adapter (s3, gcs, azure)
 * implements over its SDK, and all the protocol asks of a bucket. Keys are full object keys
 * (the protocol adds the configured prefix itself); bytes are `Uint8Array`s.
 *
 * Errors, for every method: a method rejects only with an `ArtifactError`. When the request's
 * deadline has passed (or its signal aborted), that is `deadline.failure()` (`timeout` or
 * `aborted`); any other failure of the backend is `unavailable` (core's `asArtifactError`),
 * with the SDK error as its cause. The statuses the protocol expects (absent, already exists)
 * are answers, never errors. Every method checks the deadline before it sends
 * (`deadline.check()`), and bounds the requests it has in flight (the adapter's
 * `maxConcurrency`), except the streaming ones named below.
 */
export interface ObjectBucket {
  /** The backend's name in error messages ("S3", "GCS", "Azure"). */
  readonly label: string;

  /** The most keys one `list` request may ask for (S3 and GCS: 1,000; Azure: 5,000). */
  readonly maxListKeys: number;

  /**
   * Where a create-only write can record the request id of the put or delete that sent it,
   * so that a write the SDK retried after a lost reply, answered "exists" because its own
   * first attempt landed, can tell itself from another writer: "body" (the object's bytes are
   * the request id; read back with `get`) or "metadata" (custom metadata, read back with
   * `head`; the body is empty). The protocol writes and reads it; the bucket only says which.
   */
  readonly requestIds: "body" | "metadata";

  /**
   * Creates the object only if no object has its key (S3 `If-None-Match: *`, GCS
   * `ifGenerationMatch: 0`, Azure `If-None-Match: *`), in one request: "created", or "exists"
   * when the key was taken (412, or the backend's equivalent: never an error). With `commit`
   * (the write that publishes a version, or a deletion marker) the request is never abandoned
   * at the deadline: it runs to its end so its outcome is known, and only then does the
   * deadline's failure apply; without it, the deadline may abandon the request. A write the
   * SDK retried after a lost reply answers "exists" to its own first attempt: the protocol
   * tells the two apart with the request id it recorded (see `requestIds`).
   */
  createOnly(deadline: Deadline, object: NewObject, options: WriteOptions): Promise<CreateOutcome>;

  /**
   * The whole object, or a window of it (`{ start, end }` inclusive, or the last `suffix`
   * bytes; a suffix larger than the object gives the whole object), with the whole object's
   * size; undefined when no object has the key (404; also 416 for a window of an empty object).
   */
  get(deadline: Deadline, key: string, window?: ByteWindow): Promise<ObjectBytes | undefined>;

  /** What a metadata read says of an object (with its custom metadata); undefined when absent. */
  head(deadline: Deadline, key: string): Promise<ObjectInfo | undefined>;

  /**
   * One listing request: objects with keys under `prefix`, in ascending key (UTF-8 byte)
   * order, strictly after `startAfter` and strictly before `endBefore` when given, at most
   * `maxKeys` of them (a page may hold fewer and still have a `cursor`). With delimiter "/",
   * keys with a further "/" after the prefix are rolled up into `prefixes` (each ending in
   * "/"), as S3's CommonPrefixes and GCS's prefixes are. `cursor` continues a listing the
   * previous page's `cursor` came from (same request otherwise); a page without `cursor` is
   * the last. A backend without a native `startAfter`/`endBefore` emulates them (skips,
   * filters and ends the listing): the answer must be as specified. The protocol's keys are
   * ASCII (layout.ts), on which byte and UTF-16 order agree (Azurite lists by UTF-16). Held
   * against each real server by the listing laws (bucket-listing-laws.ts).
   */
  list(deadline: Deadline, request: ListRequest): Promise<ListPage>;

  /**
   * Deletes an object, awaited to its end like a commit (never abandoned at the deadline).
   * With `match` (the `ObjectInfo.match` of a `head` or `list`), only that incarnation of the
   * key is deleted (GCS `ifGenerationMatch`, Azure `If-Match` on the ETag). Answers whether
   * it deleted the object; false when no object had the key (or, with `match`, none matched).
   * A backend that cannot tell (S3 answers 204 either way) answers true, and sets
   * `tellsDeletes` false. It is sent once, never retried by the SDK: a retry after a lost reply
   * would find the object gone and answer false for a delete that did happen.
   */
  delete(deadline: Deadline, target: DeleteTarget): Promise<boolean>;

  /** Whether `delete` answers false for an absent object (GCS, Azure) or cannot tell (S3). */
  readonly tellsDeletes: boolean;

  /** Best-effort removal of an object the adapter staged or must take back; never rejects. */
  removeQuietly(key: string): Promise<void>;

  /**
   * Bytes [start, end) of an object, streamed, for downloads; not counted against the
   * concurrency bound (it lasts as long as its consumer reads). Rejects (while iterated) with
   * `not_found` when the object is gone, `unavailable` on other failures, and the deadline's
   * failure when it passes.
   */
  readRange(deadline: Deadline, key: string, start: number, end: number): AsyncIterable<Uint8Array>;

  /**
   * Starts a streamed upload of a version's data, staged under keys beginning with
   * `stagingKey` (the layout's `<prefix>u/<random id>`; the bucket may add suffixes). See
   * StagingUpload. Nothing is sent before the first `write` need.
   */
  openStaging(deadline: Deadline, stagingKey: string): StagingUpload;

  /**
   * Optional: adds custom metadata entries to an existing object; false when it is absent.
   * Only the "allocation-flags" deletion dialect uses it (GCS's format).
   */
  addMetadata?(deadline: Deadline, key: string, entries: Record<string, string>): Promise<boolean>;

  /**
   * Optional, for `repair`: aborts the backend's incomplete multipart uploads under `prefix`
   * started before `cutoff` (ms since the epoch); the number aborted. Backends whose
   * unfinished uploads expire on their own (GCS resumable sessions) leave it out.
   */
  abortStaleUploads?(deadline: Deadline, prefix: string, cutoff: number): Promise<number>;
}

/** Created, or refused because the key exists: the two outcomes of a create-only write. */
export type CreateOutcome = "created" | "exists";

export interface WriteOptions {
  /** The write publishes (or decides) something: run it to its end, past the deadline. */
  readonly commit: boolean;
}

/** An object to create: its key, bytes and custom metadata (string values; keys lower-case). */
export interface NewObject {
  readonly key: string;
  readonly body: Uint8Array;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** An object as a listing or a metadata read reports it. */
export interface ObjectInfo {
  readonly key: string;
  readonly size: number;
  /** Last modification, in ms since the epoch (0 when the backend did not say). */
  readonly lastModified: number;
  /**
   * Custom metadata; undefined when the answer carried none (an S3 listing never does; a
   * GCS listing or any `head` does, possibly empty).
   */
  readonly metadata?: Readonly<Record<string, string>>;
  /**
   * A tag of the object's content as a listing gives it (S3's ETag), which differs for
   * objects of different bytes; record chunks check records against it. Undefined when the
   * backend did not say.
   */
  readonly tag?: string;
  /** This incarnation of the key, for a conditional `delete` (generation, ETag), if known. */
  readonly match?: string;
}

export type ByteWindow = { start: number; end: number } | { suffix: number };

/** Bytes of an object (or of a window of it) and the object's whole size. */
export interface ObjectBytes {
  readonly bytes: Uint8Array;
  readonly objectSize: number;
}

export interface ListRequest {
  readonly prefix: string;
  readonly delimiter?: "/";
  readonly startAfter?: string;
  readonly endBefore?: string;
  readonly maxKeys: number;
  readonly cursor?: string;
}

export interface ListPage {
  readonly objects: readonly ObjectInfo[];
  /** With a delimiter: the rolled-up prefixes, each ending in "/". */
  readonly prefixes: readonly string[];
  /** Continues the listing; absent on the last page. */
  readonly cursor?: string;
}

export interface DeleteTarget {
  readonly key: string;
  readonly match?: string;
}

/**
 * One streamed upload: data arrives by `write`, `seal` ends it, and `complete` creates the
 * version's object from it create-only (multipart or resumable upload with a create-only
 * completion, or a server-side copy/compose finished create-only). At most one part or chunk
 * is held in memory; the rest is staged in the bucket.
 */
export interface StagingUpload {
  /** Adds bytes; the chunk is lent (copy what is kept past the returned promise). */
  write(chunk: Uint8Array): Promise<void>;
  /** Ends the data: everything written is staged (or held, if it fit in one part). */
  seal(deadline: Deadline): Promise<void>;
  /**
   * Creates `target.key` holding `target.head`, the staged data, then `target.tail`, with
   * `target.metadata`, create-only, as a commit (never abandoned at the deadline): "created",
   * or "exists" when the key was taken. Called at most once, after `seal`. A backend
   * supports the head or tail its format needs (S3: tail only; GCS: head only) and throws
   * `unavailable` for the other.
   */
  complete(deadline: Deadline, target: StagedTarget): Promise<CreateOutcome>;
  /** Removes everything staged (and aborts what is unfinished); idempotent, never rejects. */
  discard(): Promise<void>;
}

export interface StagedTarget {
  readonly key: string;
  readonly head?: Uint8Array;
  readonly tail?: Uint8Array;
  readonly metadata?: Readonly<Record<string, string>>;
}
