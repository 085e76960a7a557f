import {
  type ArtifactMeta,
  allNames,
  compareUtf8,
  type DeleteSelector,
  type DownloadOptions,
  type DownloadSource,
  type GetOptions,
  invalidArgument,
  isArtifactError,
  type ListNamesOptions,
  MAX_METADATA_BYTES,
  MAX_TIMEOUT_MS,
  type PutOptions,
  type RequestOptions,
  type Scope,
  type UploadOptions,
} from "@artifact-kit/core";
import { ForwardingService } from "./forwarding.js";

// Issue 31's fourth round: bugs of classes no earlier mutant named, as an outside tester
// would write them against one adapter. Inputs taken as views (a Uint8Array's byteOffset, a
// Node Buffer), streams that end twice or follow a moving "latest", prefixes read as
// patterns, names that collide after a rewrite, normalised fields, records that carry more
// than they should, check-then-act across an await, counts of the wrong unit, errors that
// name the wrong bound, options dropped by one operation, state a name keeps once emptied.

/** A view is copied from the start of its buffer (`new Uint8Array(data.buffer)`), not its offset. */
export class IgnoresByteOffset extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const whole =
      data instanceof Uint8Array ? new Uint8Array(data.buffer, 0, data.byteLength) : data;
    return super.put(scope, name, whole, options);
  }
}

/** An upload's chunk is staged from the start of its buffer, not its byteOffset. */
export class UploadIgnoresByteOffset extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    return {
      write: (chunk: Uint8Array) =>
        upload.write(
          chunk instanceof Uint8Array ? new Uint8Array(chunk.buffer, 0, chunk.byteLength) : chunk,
        ),
      finish: () => upload.finish(),
      abort: (reason?: unknown) => upload.abort(reason),
    };
  }
}

/** Data must be exactly a Uint8Array (`data.constructor === Uint8Array`): a Node Buffer is refused. */
export class RefusesBuffers extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    if (data instanceof Uint8Array && data.constructor !== Uint8Array) {
      return Promise.reject(invalidArgument("data", "must be a Uint8Array"));
    }
    return super.put(scope, name, data, options);
  }
}

/** A second finish() publishes what was written again, as a new version. */
export class FinishTwicePublishesTwice extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    const chunks: Uint8Array[] = [];
    let finished = false;
    const { maxBytes: _, ...putOptions } = options ?? {};
    return {
      write: async (chunk: Uint8Array) => {
        await upload.write(chunk);
        chunks.push(new Uint8Array(chunk));
      },
      finish: async () => {
        if (!finished) {
          const meta = await upload.finish();
          finished = true;
          return meta;
        }
        return this.inner.put(scope, name, Buffer.concat(chunks), putOptions);
      },
      abort: (reason?: unknown) => upload.abort(reason),
    };
  }
}

/** A download reads each piece from whatever is latest now, not from the version it opened. */
export class DownloadFollowsLatest extends ForwardingService {
  override async openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    const first = await super.openDownload(scope, name, options);
    if (options?.version !== undefined && options.version !== "latest") return first;
    let served = 0;
    let firstRead = true;
    let cancelled = false;
    const inner = this.inner as ForwardingService;
    const source: DownloadSource = {
      meta: first.meta,
      offset: first.offset,
      length: first.length,
      read: async () => {
        if (cancelled) return first.read();
        if (firstRead) {
          firstRead = false;
          const piece = await first.read();
          served += piece?.byteLength ?? 0;
          return piece;
        }
        if (served >= first.length) return undefined;
        const { range: _, ...rest } = options ?? {};
        const now = await inner
          .openDownload(scope, name, {
            ...rest,
            range: { offset: first.offset + served, length: first.length - served },
          })
          .catch(() => undefined);
        if (now === undefined) return first.read();
        const piece = await now.read();
        await now.cancel();
        served += piece?.byteLength ?? 0;
        return piece;
      },
      cancel: () => {
        cancelled = true;
        return first.cancel();
      },
    };
    return source;
  }
}

/** read() after the end serves the data again from the start (the source reopens). */
export class ReadAfterEndRestarts extends ForwardingService {
  override async openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    let source = await super.openDownload(scope, name, options);
    const meta = source.meta;
    let ended = false;
    return {
      meta,
      offset: source.offset,
      length: source.length,
      read: async () => {
        if (ended) {
          ended = false;
          source = await super.openDownload(scope, name, { ...options, version: meta.version });
        }
        const piece = await source.read();
        if (piece === undefined) ended = true;
        return piece;
      },
      cancel: () => source.cancel(),
    };
  }
}

/** A ranged download reports `length` as the bytes from its offset to the end, not the range's. */
export class RangeLengthReportsTheRest extends ForwardingService {
  override async openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    const source = await super.openDownload(scope, name, options);
    return {
      meta: source.meta,
      offset: source.offset,
      length: source.meta.size - source.offset,
      read: () => source.read(),
      cancel: () => source.cancel(),
    };
  }
}

/** The prefix is matched as a SQL LIKE pattern without escaping: "_" and "%" are wildcards. */
export class PrefixAsLikePattern extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const { prefix, cursor, limit, ...rest } = options ?? {};
    if (typeof prefix !== "string" || !/[_%]/.test(prefix)) return super.listNames(scope, options);
    await super.listNames(scope, options); // its errors, as the adapter's
    const pattern = new RegExp(
      `^${[...prefix].map((c) => (c === "_" ? "." : c === "%" ? ".*" : c.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))).join("")}`,
      "su",
    );
    const matching = (await allNames(this.inner, scope, rest)).filter(
      (name) => pattern.test(name) && (cursor === undefined || compareUtf8(name, cursor) > 0),
    );
    const size = limit ?? this.capabilities().pagination.maxPageLimit;
    const items = matching.slice(0, size);
    const last = items[items.length - 1];
    return {
      scope,
      items,
      ...(matching.length > size && last !== undefined ? { nextCursor: last } : {}),
    };
  }
}

/** A backslash in a name is taken for a separator (a Windows path habit): "a\\b" is "a/b". */
export class BackslashIsSlash extends ForwardingService {
  static #key = (name: string) => (typeof name === "string" ? name.replaceAll("\\", "/") : name);
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return super.put(scope, BackslashIsSlash.#key(name), data, options);
  }
  override get(scope: Scope, name: string, options?: GetOptions) {
    return super.get(scope, BackslashIsSlash.#key(name), options);
  }
  override head(scope: Scope, name: string, options?: GetOptions) {
    return super.head(scope, BackslashIsSlash.#key(name), options);
  }
  override delete(scope: Scope, name: string, selector: DeleteSelector, options?: RequestOptions) {
    return super.delete(scope, BackslashIsSlash.#key(name), selector, options);
  }
  override listVersions(...[scope, name, options]: Parameters<ForwardingService["listVersions"]>) {
    return super.listVersions(scope, BackslashIsSlash.#key(name), options);
  }
  override openUpload(scope: Scope, name: string, options?: UploadOptions) {
    return super.openUpload(scope, BackslashIsSlash.#key(name), options);
  }
  override openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    return super.openDownload(scope, BackslashIsSlash.#key(name), options);
  }
}

/** The MIME type is stored lower-cased (media types are case-insensitive, says the RFC). */
export class MimeTypeLowercased extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const mimeType = options?.mimeType;
    if (typeof mimeType !== "string") return super.put(scope, name, data, options);
    return super.put(scope, name, data, { ...options, mimeType: mimeType.toLowerCase() });
  }
}

/** Metadata is measured as ASCII-escaped JSON ("\u00e9" for "é"): valid non-ASCII metadata is refused. */
export class MetadataBytesAsEscapedJson extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const metadata = options?.metadata;
    if (metadata !== undefined && metadata !== null && typeof metadata === "object") {
      let escaped = 0;
      try {
        escaped = JSON.stringify(metadata).replace(/[\u0080-\uffff]/g, "\\u0000").length;
      } catch {
        // not JSON: the adapter refuses it below
      }
      if (escaped > MAX_METADATA_BYTES) {
        return Promise.reject(invalidArgument("metadata", `is over ${MAX_METADATA_BYTES} bytes`));
      }
    }
    return super.put(scope, name, data, options);
  }
}

/** head answers the whole artifact, data included (it reads through get). */
export class HeadCarriesData extends ForwardingService {
  override head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    return super.get(scope, name, options);
  }
}

/** capabilities() is frozen only at its top: its nested objects are shared and writable. */
export class CapabilitiesShallowFrozen extends ForwardingService {
  #report: ReturnType<ForwardingService["capabilities"]> | undefined;
  override capabilities() {
    if (this.#report) return this.#report;
    const caps = this.inner.capabilities();
    const thaw = (value: unknown): unknown =>
      value !== null && typeof value === "object"
        ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, thaw(v)]))
        : value;
    this.#report = Object.freeze(thaw(caps) as typeof caps);
    return this.#report;
  }
}

/** delete("latest") reads the latest, then deletes it by number, taking not_found for done. */
export class ConcurrentLatestDeletesCollide extends ForwardingService {
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    if (selector !== "latest") return super.delete(scope, name, selector, options);
    const latest = await this.inner.head(scope, name, options);
    await new Promise((resolve) => setImmediate(resolve));
    try {
      await super.delete(scope, name, latest.version, options);
    } catch (error) {
      if (!isArtifactError(error, "not_found")) throw error;
    }
  }
}

/** delete("all") removes every name the name begins, as a prefix delete of a bucket would. */
export class DeleteAllByPrefix extends ForwardingService {
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    await super.delete(scope, name, selector, options);
    if (selector !== "all") return;
    for (const other of await allNames(this.inner, scope)) {
      if (other !== name && other.startsWith(name)) await super.delete(scope, other, "all");
    }
  }
}

/** A timeout of exactly the 300,000 ms maximum is refused (`<` for `<=`). */
export class RefusesMaxTimeout extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    if (options?.timeoutMs === MAX_TIMEOUT_MS) {
      return Promise.reject(invalidArgument("timeoutMs", `must be below ${MAX_TIMEOUT_MS}`));
    }
    return super.put(scope, name, data, options);
  }
}

/** An empty chunk is taken for the end of the data: later writes are dropped. */
export class EmptyChunkEndsUpload extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    let ended = false;
    return {
      write: async (chunk: Uint8Array) => {
        if (ended) return;
        if (chunk instanceof Uint8Array && chunk.byteLength === 0) ended = true;
        return upload.write(chunk);
      },
      finish: () => upload.finish(),
      abort: (reason?: unknown) => upload.abort(reason),
    };
  }
}

/** A page of names echoes the session scope's parent user scope (built from the parent's key). */
export class EchoDropsSession extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const page = await super.listNames(scope, options);
    if (scope.kind !== "session") return page;
    return { ...page, scope: { kind: "user" as const, app: scope.app, user: scope.user } };
  }
}

/** delete passes only the options it knows on: an unknown key is ignored, not refused. */
export class DeleteIgnoresUnknownOptions extends ForwardingService {
  override delete(scope: Scope, name: string, selector: DeleteSelector, options?: RequestOptions) {
    if (options === null || typeof options !== "object") {
      return super.delete(scope, name, selector, options);
    }
    const { signal, timeoutMs } = options;
    const known = {
      ...(signal !== undefined ? { signal } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    };
    return super.delete(scope, name, selector, known);
  }
}
