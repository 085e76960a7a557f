import type { Deadline } from "../deadline.js";
import {
  asArtifactError,
  checkArtifactSize,
  closedError,
  invalidArgument,
  unsupportedTransfer,
} from "../errors.js";
import {
  type ParsedContent,
  type ParsedDelete,
  type ParsedGet,
  type ParsedListNames,
  type ParsedListScopes,
  type ParsedListVersions,
  type ParsedPut,
  type ParsedRequest,
  parseDelete,
  parseGet,
  parseListNames,
  parseListScopes,
  parseListVersions,
  parsePut,
  parseScopeRequest,
} from "../request.js";
import type { DataDigest } from "../transfer/blocks.js";
import { digestData, digestDataInTurns, TRANSFER_BLOCK_BYTES } from "../transfer/blocks.js";
import type { UploadTarget } from "../transfer/upload-sink.js";
import { uploadSink } from "../transfer/upload-sink.js";
import { type VerifiedSourceInput, verifiedSource } from "../transfer/verified-source.js";
import {
  type ArtifactTransfer,
  type DownloadOptions,
  type DownloadSource,
  type ParsedDownload,
  type ParsedUpload,
  parseDownload,
  parseUpload,
  resolveRange,
  type UploadOptions,
  type UploadSink,
} from "../transfer.js";
import type {
  Artifact,
  ArtifactMeta,
  ArtifactService,
  Capabilities,
  DeleteSelector,
  GetOptions,
  ListNamesOptions,
  ListScopesOptions,
  ListVersionsOptions,
  NamePage,
  PutOptions,
  RequestOptions,
  Scope,
  ScopePage,
  VersionPage,
} from "../types.js";

/** What a put or a finished upload publishes: the request without the caller's bytes. */
export type ParsedPublication = ParsedContent & {
  readonly scope: Scope;
  readonly name: string;
  readonly deadline: Deadline;
};

/** One stored version as `read` finds it. */
export interface StoredArtifact {
  readonly meta: ArtifactMeta;
  readonly data: Uint8Array;
  /**
   * True when `data` is the backend's own buffer (an in-memory store): the template copies it
   * before handing it out. False when it was read fresh for this call and may be handed out.
   */
  readonly shared: boolean;
}

/** What `download` finds: a verified source without the range and deadline it serves. */
export type StoredDownload = Omit<VerifiedSourceInput, "range" | "deadline">;

/**
 * The backend-specific part of an adapter. Every hook gets a request already parsed and
 * validated, on an open service, with the deadline checked; whatever it throws that is not
 * an ArtifactError reaches the caller as `unavailable`, wrapped once by the template. A hook
 * may answer with a value (or a throw) when it needs no I/O, or with a promise.
 */
export interface AdapterHooks {
  /**
   * Publishes `bytes` (a private copy of the caller's data, already within maxArtifactBytes)
   * as the next version, or replays an idempotent put. Must call `request.deadline.check()`
   * immediately before its commit point and leave nothing visible when it fails.
   */
  publish(
    request: ParsedPublication,
    bytes: Uint8Array,
    digest: DataDigest,
  ): ArtifactMeta | Promise<ArtifactMeta>;
  /**
   * Prepares a streamed upload: where its chunks are staged and how they are published.
   * Without it, capabilities() must not declare streamingUpload. A part capabilities() does
   * not declare fails with unsupported_transfer, whatever hooks are given: callers (routers,
   * the stream package) choose how to move bytes by the declaration, and the conformance kit
   * tests what is declared.
   */
  beginUpload?(request: ParsedUpload): UploadTarget | Promise<UploadTarget>;
  /** The version a get asks for (not_found when there is none). */
  read(request: ParsedGet): StoredArtifact | Promise<StoredArtifact>;
  /** The record of the version a head asks for (not_found when there is none). */
  readMeta(request: ParsedGet): ArtifactMeta | Promise<ArtifactMeta>;
  /** The version a download serves, with its block digests and a reader of its bytes. */
  download?(request: ParsedGet): StoredDownload | Promise<StoredDownload>;
  /** Deletes what the selector names (not_found when nothing live matches). */
  remove(request: ParsedDelete): void | Promise<void>;
  names(request: ParsedListNames): NamePage | Promise<NamePage>;
  versions(request: ParsedListVersions): VersionPage | Promise<VersionPage>;
  /**
   * One page of the level's scopes that hold a live version (exactly: none emptied by
   * delete), after the exclusive cursor, in UTF-8 order of their ids, only from this
   * adapter's own prefix, schema or root; `pageLiveScopes` builds it from the stored scopes.
   */
  scopes(request: ParsedListScopes): ScopePage | Promise<ScopePage>;
  /** Every live version of the scope, or result_limit_exceeded past legacyListLimit. */
  legacyList(request: ParsedRequest): ArtifactMeta[] | Promise<ArtifactMeta[]>;
  /** Releases the backend; called once, by the first `close()`. */
  closeBackend(): Promise<void>;
  /**
   * True when `publish` and the upload target's `publish` wait for `request.publishGate`
   * themselves, after what they can do before it (staging, syncing, binding the key) and
   * before the publication, and publish nothing when it rejects (PutOptions.publishGate).
   * Otherwise the template waits for the gate before it calls them.
   */
  readonly waitsForPublishGate?: boolean;
}

/**
 * The operations on requests already parsed (by a router that parsed them once, against
 * these same capabilities). Each does everything the public operation does after parsing:
 * the closed and deadline checks, the size bound, the copy, the digest, the error wrapping.
 */
export interface ServicePort {
  put(request: ParsedPut): Promise<ArtifactMeta>;
  openUpload(request: ParsedUpload): Promise<UploadSink>;
  openDownload(request: ParsedDownload): Promise<DownloadSource>;
  get(request: ParsedGet): Promise<Artifact>;
  head(request: ParsedGet): Promise<ArtifactMeta>;
  delete(request: ParsedDelete): Promise<void>;
  listNames(request: ParsedListNames): Promise<NamePage>;
  listVersions(request: ParsedListVersions): Promise<VersionPage>;
  list(request: ParsedRequest): Promise<ArtifactMeta[]>;
  listScopes(request: ParsedListScopes): Promise<ScopePage>;
}

const ports = new WeakMap<ArtifactService, ServicePort>();

/** The parsed-request entry points of a service built on AdapterService; else undefined. */
export function servicePort(service: ArtifactService): ServicePort | undefined {
  return ports.get(service);
}

/**
 * The one way to write an adapter: subclass it (or use it as is) with the backend's hooks
 * and capabilities. The public operations parse, check and wrap once, then call the hooks.
 * The hooks object is held privately, so a subclass keeps its state in its own backend
 * object and adds only its extra public methods (status, repair, ...).
 */
export class AdapterService implements ArtifactService, ArtifactTransfer {
  readonly #hooks: AdapterHooks;
  readonly #capabilities: Capabilities;
  readonly #maxArtifactBytes: number;
  readonly #maxPageLimit: number;
  #closing: Promise<void> | undefined;

  constructor(hooks: AdapterHooks, capabilities: Capabilities) {
    const maxArtifactBytes = capabilities.quotas.bounds.maxArtifactBytes;
    if (maxArtifactBytes === undefined) {
      throw invalidArgument("capabilities", "must name maxArtifactBytes in quotas.bounds");
    }
    const declared = capabilities.transfer;
    if (declared?.streamingUpload === true && !hooks.beginUpload) {
      throw invalidArgument("capabilities", "declares streamingUpload without beginUpload");
    }
    if (
      (declared?.streamingDownload === true || declared?.byteRanges === true) &&
      !hooks.download
    ) {
      throw invalidArgument("capabilities", "declares streamingDownload without download");
    }
    this.#hooks = hooks;
    this.#capabilities = capabilities;
    this.#maxArtifactBytes = maxArtifactBytes;
    this.#maxPageLimit = capabilities.pagination.maxPageLimit;
    ports.set(this, this.#port());
  }

  /** True once `close()` was called. */
  protected get closed(): boolean {
    return this.#closing !== undefined;
  }

  capabilities(): Capabilities {
    return this.#capabilities;
  }

  put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions): Promise<ArtifactMeta> {
    return this.#call("put", () => parsePut(scope, name, data, options), this.#put);
  }

  openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink> {
    const maxBytes = this.#maxArtifactBytes;
    return this.#call(
      "upload",
      () => parseUpload(scope, name, options, maxBytes),
      this.#openUpload,
    );
  }

  openDownload(scope: Scope, name: string, options?: DownloadOptions): Promise<DownloadSource> {
    return this.#call("download", () => parseDownload(scope, name, options), this.#openDownload);
  }

  get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    return this.#call("get", () => parseGet(scope, name, options), this.#get);
  }

  head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    return this.#call("head", () => parseGet(scope, name, options), this.#head);
  }

  delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ): Promise<void> {
    return this.#call("delete", () => parseDelete(scope, name, selector, options), this.#remove);
  }

  listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    const maxPageLimit = this.#maxPageLimit;
    return this.#call("listNames", () => parseListNames(scope, options, maxPageLimit), this.#names);
  }

  listVersions(scope: Scope, name: string, options?: ListVersionsOptions): Promise<VersionPage> {
    const maxPageLimit = this.#maxPageLimit;
    return this.#call(
      "listVersions",
      () => parseListVersions(scope, name, options, maxPageLimit),
      this.#versions,
    );
  }

  list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    return this.#call("list", () => parseScopeRequest(scope, options), this.#legacyList);
  }

  listScopes(options?: ListScopesOptions): Promise<ScopePage> {
    const maxPageLimit = this.#maxPageLimit;
    return this.#call("listScopes", () => parseListScopes(options, maxPageLimit), this.#scopes);
  }

  /** Closes once: later calls wait for the same close. */
  close(): Promise<void> {
    this.#closing ??= this.#hooks.closeBackend();
    return this.#closing;
  }

  #port(): ServicePort {
    const parsed =
      <R>(request: R) =>
      () =>
        request;
    return Object.freeze({
      put: (request: ParsedPut) => this.#call("put", parsed(request), this.#put),
      openUpload: (request: ParsedUpload) =>
        this.#call("upload", parsed(request), this.#openUpload),
      openDownload: (request: ParsedDownload) =>
        this.#call("download", parsed(request), this.#openDownload),
      get: (request: ParsedGet) => this.#call("get", parsed(request), this.#get),
      head: (request: ParsedGet) => this.#call("head", parsed(request), this.#head),
      delete: (request: ParsedDelete) => this.#call("delete", parsed(request), this.#remove),
      listNames: (request: ParsedListNames) =>
        this.#call("listNames", parsed(request), this.#names),
      listVersions: (request: ParsedListVersions) =>
        this.#call("listVersions", parsed(request), this.#versions),
      list: (request: ParsedRequest) => this.#call("list", parsed(request), this.#legacyList),
      listScopes: (request: ParsedListScopes) =>
        this.#call("listScopes", parsed(request), this.#scopes),
    });
  }

  #ensureOpen(): void {
    if (this.#closing !== undefined) throw closedError();
  }

  /**
   * Every operation's one async layer: the closed check, the parse (a bad argument rejects,
   * unwrapped), the deadline check, then `work`, with a backend failure wrapped once. `work`
   * answers synchronously when its hook does, so a backend that needs no I/O (memory) costs
   * one promise per call, like a hand-written adapter.
   */
  async #call<R extends Pick<ParsedRequest, "deadline">, T>(
    operation: string,
    parse: () => R,
    work: (request: R) => T | PromiseLike<T>,
  ): Promise<T> {
    this.#ensureOpen();
    const request = parse();
    request.deadline.check();
    try {
      const result = work(request);
      // Awaited only when it is a promise: awaiting a plain value would cost a turn.
      return isThenable(result) ? await result : result;
    } catch (error) {
      throw asArtifactError(error, operation);
    }
  }

  // The work of each operation, bound once per service (no closure per call).

  readonly #put = (request: ParsedPut): ArtifactMeta | Promise<ArtifactMeta> => {
    const data = request.data;
    checkArtifactSize(data.byteLength, this.#maxArtifactBytes);
    // Copied first, so the caller changing its buffer cannot make the digest lie. Large
    // data is hashed a block per turn, so it does not hold up every other request. The
    // request goes on as a publication (no rest-copy on the hot path): its type hides data.
    const bytes = new Uint8Array(data);
    if (bytes.byteLength > TRANSFER_BLOCK_BYTES) {
      return digestDataInTurns(bytes).then((digest) =>
        this.#afterGate(request, () => this.#hooks.publish(request, bytes, digest)),
      );
    }
    const digest = digestData(bytes);
    return this.#afterGate(request, () => this.#hooks.publish(request, bytes, digest));
  };

  /** Runs `publication` once the request's publishGate fulfils, unless the hooks wait for it. */
  #afterGate<T>(request: ParsedContent, publication: () => T | Promise<T>): T | Promise<T> {
    const gate = request.publishGate;
    if (gate === undefined || this.#hooks.waitsForPublishGate === true) return publication();
    return Promise.resolve(gate).then(() => {
      this.#ensureOpen();
      return publication();
    });
  }

  readonly #openUpload = async (request: ParsedUpload): Promise<UploadSink> => {
    // A router's request may carry its own bound: this service's bound still holds.
    const bounded =
      request.maxBytes > this.#maxArtifactBytes
        ? {
            ...request,
            maxBytes: this.#maxArtifactBytes,
            maxBytesBound: "maxArtifactBytes" as const,
          }
        : request;
    if (!this.#hooks.beginUpload || this.#capabilities.transfer?.streamingUpload !== true) {
      throw unsupportedTransfer("this store declares no streamingUpload");
    }
    const target = await this.#hooks.beginUpload(bounded);
    return uploadSink(bounded, {
      write: async (chunk) => {
        this.#ensureOpen();
        await target.write(chunk);
      },
      publish: async (digest, deadline) => {
        this.#ensureOpen();
        return this.#afterGate(bounded, () => target.publish(digest, deadline));
      },
      discard: () => target.discard(),
    });
  };

  readonly #openDownload = async (request: ParsedDownload): Promise<DownloadSource> => {
    const declared = this.#capabilities.transfer;
    if (!this.#hooks.download || declared?.streamingDownload !== true) {
      throw unsupportedTransfer("this store declares no streamingDownload");
    }
    if (request.range !== undefined && declared.byteRanges !== true) {
      throw unsupportedTransfer("this store declares no byteRanges");
    }
    const stored = await this.#hooks.download(request);
    try {
      const range = resolveRange(request.range, stored.meta.size);
      return verifiedSource({ ...stored, range, deadline: request.deadline });
    } catch (error) {
      await stored.close?.();
      throw error;
    }
  };

  readonly #get = (request: ParsedGet): Artifact | PromiseLike<Artifact> =>
    andThen(this.#hooks.read(request), handOut);

  readonly #head = (request: ParsedGet): ArtifactMeta | PromiseLike<ArtifactMeta> =>
    andThen(this.#hooks.readMeta(request), frozenMeta);

  readonly #remove = (request: ParsedDelete) => this.#hooks.remove(request);
  readonly #names = (request: ParsedListNames) => this.#hooks.names(request);
  readonly #versions = (request: ParsedListVersions) => this.#hooks.versions(request);
  readonly #legacyList = (request: ParsedRequest) => this.#hooks.legacyList(request);
  readonly #scopes = (request: ParsedListScopes) => this.#hooks.scopes(request);
}

/** `next(value)`, without a promise when the hook answered synchronously. */
function andThen<T, U>(value: T | PromiseLike<T>, next: (value: T) => U): U | PromiseLike<U> {
  return isThenable(value) ? value.then(next) : next(value);
}

function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as Partial<PromiseLike<T>> | null)?.then === "function";
}

/** A stored version as a get returns it: frozen, with bytes the caller may keep. */
function handOut({ meta, data, shared }: StoredArtifact): Artifact {
  return Object.freeze({ ...meta, data: shared ? new Uint8Array(data) : data });
}

function frozenMeta(meta: ArtifactMeta): ArtifactMeta {
  return Object.isFrozen(meta) ? meta : Object.freeze({ ...meta });
}
