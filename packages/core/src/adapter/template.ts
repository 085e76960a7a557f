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
  type ParsedListVersions,
  type ParsedPut,
  type ParsedRequest,
  parseDelete,
  parseGet,
  parseListNames,
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
  ListVersionsOptions,
  NamePage,
  PutOptions,
  RequestOptions,
  Scope,
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
 * an ArtifactError reaches the caller as `unavailable`, wrapped once by the template.
 */
export interface AdapterHooks {
  /**
   * Publishes `bytes` (a private copy of the caller's data, already within maxArtifactBytes)
   * as the next version, or replays an idempotent put. Must call `request.deadline.check()`
   * immediately before its commit point and leave nothing visible when it fails.
   */
  publish(request: ParsedPublication, bytes: Uint8Array, digest: DataDigest): Promise<ArtifactMeta>;
  /**
   * Prepares a streamed upload: where its chunks are staged and how they are published.
   * Without it (and `download`), openUpload and openDownload fail with unsupported_transfer,
   * and capabilities() must not declare transfer.
   */
  beginUpload?(request: ParsedUpload): Promise<UploadTarget>;
  /** The version a get asks for (not_found when there is none). */
  read(request: ParsedGet): Promise<StoredArtifact>;
  /** The record of the version a head asks for (not_found when there is none). */
  readMeta(request: ParsedGet): Promise<ArtifactMeta>;
  /** The version a download serves, with its block digests and a reader of its bytes. */
  download?(request: ParsedGet): Promise<StoredDownload>;
  /** Deletes what the selector names (not_found when nothing live matches). */
  remove(request: ParsedDelete): Promise<void>;
  names(request: ParsedListNames): Promise<NamePage>;
  versions(request: ParsedListVersions): Promise<VersionPage>;
  /** Every live version of the scope, or result_limit_exceeded past legacyListLimit. */
  legacyList(request: ParsedRequest): Promise<ArtifactMeta[]>;
  /** Releases the backend; called once, by the first `close()`. */
  closeBackend(): Promise<void>;
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

  async put(
    scope: Scope,
    name: string,
    data: Uint8Array,
    options?: PutOptions,
  ): Promise<ArtifactMeta> {
    this.#ensureOpen();
    return this.#put(parsePut(scope, name, data, options));
  }

  async openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink> {
    this.#ensureOpen();
    return this.#openUpload(parseUpload(scope, name, options, this.#maxArtifactBytes));
  }

  async openDownload(
    scope: Scope,
    name: string,
    options?: DownloadOptions,
  ): Promise<DownloadSource> {
    this.#ensureOpen();
    return this.#openDownload(parseDownload(scope, name, options));
  }

  async get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    this.#ensureOpen();
    return this.#get(parseGet(scope, name, options));
  }

  async head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    this.#ensureOpen();
    return this.#head(parseGet(scope, name, options));
  }

  async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ): Promise<void> {
    this.#ensureOpen();
    return this.#delete(parseDelete(scope, name, selector, options));
  }

  async listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    this.#ensureOpen();
    return this.#listNames(parseListNames(scope, options, this.#maxPageLimit));
  }

  async listVersions(
    scope: Scope,
    name: string,
    options?: ListVersionsOptions,
  ): Promise<VersionPage> {
    this.#ensureOpen();
    return this.#listVersions(parseListVersions(scope, name, options, this.#maxPageLimit));
  }

  async list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    this.#ensureOpen();
    return this.#list(parseScopeRequest(scope, options));
  }

  /** Closes once: later calls wait for the same close. */
  close(): Promise<void> {
    this.#closing ??= this.#hooks.closeBackend();
    return this.#closing;
  }

  #port(): ServicePort {
    return Object.freeze({
      put: async (request: ParsedPut) => this.#put(request),
      openUpload: async (request: ParsedUpload) => this.#openUpload(request),
      openDownload: async (request: ParsedDownload) => this.#openDownload(request),
      get: async (request: ParsedGet) => this.#get(request),
      head: async (request: ParsedGet) => this.#head(request),
      delete: async (request: ParsedDelete) => this.#delete(request),
      listNames: async (request: ParsedListNames) => this.#listNames(request),
      listVersions: async (request: ParsedListVersions) => this.#listVersions(request),
      list: async (request: ParsedRequest) => this.#list(request),
    });
  }

  #ensureOpen(): void {
    if (this.#closing !== undefined) throw closedError();
  }

  /**
   * The closed and deadline checks, then `work`, with a backend failure wrapped once. Not
   * async itself (one promise fewer per call): its callers are async or the port's wrappers.
   */
  #run<T>(operation: string, request: ParsedRequest, work: () => Promise<T>): Promise<T> {
    this.#ensureOpen();
    request.deadline.check();
    return work().catch((error: unknown) => {
      throw asArtifactError(error, operation);
    });
  }

  #put(request: ParsedPut): Promise<ArtifactMeta> {
    return this.#run("put", request, async () => {
      const data = request.data;
      checkArtifactSize(data.byteLength, this.#maxArtifactBytes);
      // Copied first, so the caller changing its buffer cannot make the digest lie. Large
      // data is hashed a block per turn, so it does not hold up every other request.
      const bytes = new Uint8Array(data);
      const digest =
        bytes.byteLength > TRANSFER_BLOCK_BYTES
          ? await digestDataInTurns(bytes)
          : digestData(bytes);
      // The request goes on as a publication (no rest-copy on the hot path): its type hides data.
      return this.#hooks.publish(request, bytes, digest);
    });
  }

  #openUpload(request: ParsedUpload): Promise<UploadSink> {
    return this.#run("upload", request, async () => {
      // A router's request may carry its own bound: this service's bound still holds.
      const bounded =
        request.maxBytes > this.#maxArtifactBytes
          ? {
              ...request,
              maxBytes: this.#maxArtifactBytes,
              maxBytesBound: "maxArtifactBytes" as const,
            }
          : request;
      if (!this.#hooks.beginUpload) throw unsupportedTransfer("this adapter has no uploads");
      const target = await this.#hooks.beginUpload(bounded);
      return uploadSink(bounded, {
        write: async (chunk) => {
          this.#ensureOpen();
          await target.write(chunk);
        },
        publish: async (digest, deadline) => {
          this.#ensureOpen();
          return target.publish(digest, deadline);
        },
        discard: () => target.discard(),
      });
    });
  }

  #openDownload(request: ParsedDownload): Promise<DownloadSource> {
    return this.#run("download", request, async () => {
      if (!this.#hooks.download) throw unsupportedTransfer("this adapter has no downloads");
      const stored = await this.#hooks.download(request);
      try {
        const range = resolveRange(request.range, stored.meta.size);
        return verifiedSource({ ...stored, range, deadline: request.deadline });
      } catch (error) {
        await stored.close?.();
        throw error;
      }
    });
  }

  #get(request: ParsedGet): Promise<Artifact> {
    return this.#run("get", request, async () => {
      const { meta, data, shared } = await this.#hooks.read(request);
      return Object.freeze({ ...meta, data: shared ? new Uint8Array(data) : data });
    });
  }

  #head(request: ParsedGet): Promise<ArtifactMeta> {
    return this.#run("head", request, async () => {
      const meta = await this.#hooks.readMeta(request);
      return Object.isFrozen(meta) ? meta : Object.freeze({ ...meta });
    });
  }

  #delete(request: ParsedDelete): Promise<void> {
    return this.#run("delete", request, () => this.#hooks.remove(request));
  }

  #listNames(request: ParsedListNames): Promise<NamePage> {
    return this.#run("listNames", request, () => this.#hooks.names(request));
  }

  #listVersions(request: ParsedListVersions): Promise<VersionPage> {
    return this.#run("listVersions", request, () => this.#hooks.versions(request));
  }

  #list(request: ParsedRequest): Promise<ArtifactMeta[]> {
    return this.#run("list", request, () => this.#hooks.legacyList(request));
  }
}
