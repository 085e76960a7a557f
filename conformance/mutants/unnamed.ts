import {
  type ArtifactMeta,
  allNames,
  compareUtf8,
  type DeleteSelector,
  type DownloadOptions,
  type GetOptions,
  invalidArgument,
  isArtifactError,
  type ListNamesOptions,
  type ListScopesOptions,
  type ListVersionsOptions,
  notFound,
  type PutOptions,
  type RequestOptions,
  type Scope,
  type UploadOptions,
  validateMetadata,
  validateName,
  validateScope,
} from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

// Bugs of classes no issue named (issue 31's third round): a step one operation forgets that
// the others take (validation, the deadline), numbers outside the safe integers, a late
// cancellation that undoes a settled write, a failed write that leaves a trace, payloads
// spelled differently, the order of the legacy listing, a transfer's record.

const isValidName = (name: unknown) => {
  try {
    validateName(name);
    return true;
  } catch {
    return false;
  }
};

/** head forgets to validate the name: a bad name is not_found instead of invalid_argument. */
export class HeadSkipsNameValidation extends ForwardingService {
  override head(scope: Scope, name: string, options?: GetOptions) {
    if (!isValidName(name)) return Promise.reject(notFound(`artifact "${String(name)}"`));
    return super.head(scope, name, options);
  }
}

/** The legacy list forgets to validate its scope: a malformed scope lists nothing. */
export class ListSkipsScopeValidation extends ForwardingService {
  override async list(scope: Scope, options?: RequestOptions) {
    try {
      validateScope(scope);
    } catch {
      return [];
    }
    return super.list(scope, options);
  }
}

/** Versions checked with Number.isInteger: 2**53 and above are looked up (not_found). */
export class UnsafeVersionsLookedUp extends ForwardingService {
  override get(scope: Scope, name: string, options?: GetOptions) {
    const version = options?.version;
    if (typeof version === "number" && Number.isInteger(version) && version >= 2 ** 53) {
      return Promise.reject(notFound(`artifact "${name}" version ${version}`));
    }
    return super.get(scope, name, options);
  }
}

/** A NaN or infinite listVersions cursor is taken for "no cursor" (`cursor > 0 ? ...`). */
export class NonFiniteVersionCursorIgnored extends ForwardingService {
  override listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    const cursor = options?.cursor;
    if (typeof cursor === "number" && !Number.isFinite(cursor)) {
      const { cursor: _, ...rest } = options ?? {};
      return super.listVersions(scope, name, rest);
    }
    return super.listVersions(scope, name, options);
  }
}

/** listScopes drops the caller's signal and timeout. */
export class ListScopesIgnoresDeadline extends ForwardingService {
  override listScopes(options?: ListScopesOptions) {
    const { signal: _s, timeoutMs: _t, ...rest } = options ?? {};
    return super.listScopes(rest);
  }
}

/** openDownload drops the caller's signal and timeout. */
export class DownloadIgnoresDeadline extends ForwardingService {
  override openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    const { signal: _s, timeoutMs: _t, ...rest } = options ?? {};
    return super.openDownload(scope, name, rest);
  }
}

/** A streamed upload "sanitizes" metadata it cannot store: bad metadata is silently dropped. */
export class UploadDropsBadMetadata extends ForwardingService {
  override openUpload(scope: Scope, name: string, options?: UploadOptions) {
    if (options?.metadata !== undefined) {
      try {
        validateMetadata(options.metadata);
      } catch {
        const { metadata: _, ...rest } = options;
        return super.openUpload(scope, name, rest);
      }
    }
    return super.openUpload(scope, name, options);
  }
}

/** The legacy list sorts by name with JavaScript's default (UTF-16) comparison. */
export class LegacyListInUtf16Order extends ForwardingService {
  override async list(scope: Scope, options?: RequestOptions) {
    const items = await super.list(scope, options);
    return [...items].sort((a, b) =>
      a.name === b.name ? a.version - b.version : a.name < b.name ? -1 : 1,
    );
  }
}

/** A range of length 0 is read as "to the end" (`length || size`). */
export class EmptyRangeServesTheTail extends ForwardingService {
  override openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    const range = options?.range;
    if (range && range.length === 0) {
      return super.openDownload(scope, name, {
        ...options,
        range: { offset: range.offset, length: Number.MAX_SAFE_INTEGER },
      });
    }
    return super.openDownload(scope, name, options);
  }
}

/** A keyed retry compares the metadata as given: `{}` and no metadata are different payloads. */
export class EmptyMetadataIsNotAbsent extends ForwardingService {
  readonly #given = new Map<string, boolean>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = options?.idempotencyKey;
    if (key === undefined) return super.put(scope, name, data, options);
    const slot = slotKey(scope, `${name}\0${key}`);
    const given = options?.metadata !== undefined;
    const bound = this.#given.get(slot);
    if (bound !== undefined && bound !== given) {
      throw invalidArgument("idempotencyKey", "was bound to another payload");
    }
    const meta = await super.put(scope, name, data, options);
    if (bound === undefined) this.#given.set(slot, given);
    return meta;
  }
}

/**
 * A put leaves its abort listener behind: aborting the signal after the put resolved
 * "compensates" it by deleting the version it published.
 */
export class LateAbortUndoesThePut extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await super.put(scope, name, data, options);
    options?.signal?.addEventListener("abort", () => {
      this.inner.delete(scope, name, meta.version).catch(() => undefined);
    });
    return meta;
  }
}

/** Validation throws synchronously instead of rejecting: `put(bad).catch()` never sees it. */
export class ThrowsSynchronously extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    validateName(name);
    return super.put(scope, name, data, options);
  }
}

/**
 * Binds an idempotency key before writing and keeps it when the write fails: a retry of a
 * put refused by a quota, a size bound or a deadline is not_found for good.
 */
export class FailedPutBindsItsKey extends ForwardingService {
  readonly #dead = new Set<string>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = options?.idempotencyKey;
    const slot = slotKey(scope, `${name}\0${key}`);
    if (key !== undefined && this.#dead.has(slot)) {
      throw notFound(`artifact "${name}" version 0`, { version: 0 });
    }
    try {
      return await super.put(scope, name, data, options);
    } catch (error) {
      const refused = ["quota_exceeded", "artifact_too_large", "aborted", "timeout"] as const;
      if (key !== undefined && refused.some((code) => isArtifactError(error, code))) {
        this.#dead.add(slot);
      }
      throw error;
    }
  }
}

/** A download of an older version reports the latest version's record beside its bytes. */
export class DownloadReportsLatestMeta extends ForwardingService {
  override async openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    const source = await super.openDownload(scope, name, options);
    const latest = await this.inner.head(scope, name).catch(() => source.meta);
    return {
      meta: latest,
      offset: source.offset,
      length: source.length,
      read: () => source.read(),
      cancel: () => source.cancel(),
    };
  }
}

/** abort() after finish() resolved deletes what finish published ("undo the upload"). */
export class AbortAfterFinishDeletes extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    let published: ArtifactMeta | undefined;
    return {
      write: (chunk: Uint8Array) => upload.write(chunk),
      finish: async () => {
        published = await upload.finish();
        return published;
      },
      abort: async (reason?: unknown) => {
        if (published) await this.inner.delete(scope, name, published.version);
        else await upload.abort(reason);
      },
    };
  }
}

/** The size bound counts metadata too: data of exactly maxArtifactBytes with metadata fails. */
export class SizeBoundCountsMetadata extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const bound = this.capabilities().quotas.bounds.maxArtifactBytes ?? Number.POSITIVE_INFINITY;
    let extra = 0;
    try {
      if (options?.metadata) extra = JSON.stringify(validateMetadata(options.metadata)).length;
    } catch {
      // bad metadata: refused by the adapter below, as it should be
    }
    if (data instanceof Uint8Array && extra > 2 && data.byteLength + extra > bound) {
      return super.put(scope, name, new Uint8Array(bound + 1), options);
    }
    return super.put(scope, name, data, options);
  }
}

/** delete by a version number above the high-water deletes "latest" (a lookup that clamps). */
export class DeleteClampsVersion extends ForwardingService {
  override async delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ) {
    if (typeof selector === "number" && Number.isSafeInteger(selector) && selector > 0) {
      const latest = await this.inner.head(scope, name).catch(() => undefined);
      if (latest && selector > latest.version) {
        return super.delete(scope, name, "latest", options);
      }
    }
    return super.delete(scope, name, selector, options);
  }
}

/** A prefix matches without regard to case (an index on lower-cased names). */
export class PrefixIgnoresCase extends ForwardingService {
  override async listNames(scope: Scope, options?: ListNamesOptions) {
    const { prefix, cursor, limit, ...rest } = options ?? {};
    if (typeof prefix !== "string" || prefix.length === 0) return super.listNames(scope, options);
    await super.listNames(scope, options); // its errors, as the adapter's
    const folded = prefix.toLowerCase();
    const matching = (await allNames(this.inner, scope, rest)).filter(
      (name) =>
        name.toLowerCase().startsWith(folded) &&
        (cursor === undefined || compareUtf8(name, cursor) > 0),
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

/** Checks the deadline only when the artifact is missing (on its slow path): a found one is served. */
export class ReadsIgnoreDeadlineWhenFound extends ForwardingService {
  override async get(scope: Scope, name: string, options?: GetOptions) {
    const { signal, ...rest } = options ?? {};
    try {
      return await super.get(scope, name, signal instanceof AbortSignal ? rest : options);
    } catch (error) {
      await super.get(scope, name, options); // the deadline's error, when it has one
      throw error;
    }
  }
}

/** A timeout below 1 ms is refused instead of rounded up to 1 ms (`Math.floor`, then checked). */
export class RefusesSubMillisecondTimeouts extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const timeoutMs = options?.timeoutMs;
    if (typeof timeoutMs === "number" && timeoutMs > 0 && timeoutMs < 1) {
      return Promise.reject(invalidArgument("timeoutMs", "must be at least 1"));
    }
    return super.put(scope, name, data, options);
  }
}

/** An upload with no chunk written fails at finish instead of publishing empty data. */
export class EmptyUploadFails extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    let written = false;
    return {
      write: (chunk: Uint8Array) => {
        written = true;
        return upload.write(chunk);
      },
      finish: async () => {
        if (!written) {
          await upload.abort();
          throw invalidArgument("upload", "has no data");
        }
        return upload.finish();
      },
      abort: (reason?: unknown) => upload.abort(reason),
    };
  }
}

/** A keyed retry compares the put's whole options, its deadline included, as its payload. */
export class DeadlineCountsAsPayload extends ForwardingService {
  readonly #bound = new Map<string, string>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const key = options?.idempotencyKey;
    if (key === undefined) return super.put(scope, name, data, options);
    const slot = slotKey(scope, `${name}\0${key}`);
    const spelled = JSON.stringify([options?.timeoutMs ?? null, options?.signal !== undefined]);
    const bound = this.#bound.get(slot);
    if (bound !== undefined && bound !== spelled) {
      throw invalidArgument("idempotencyKey", "was bound to another payload");
    }
    const meta = await super.put(scope, name, data, options);
    if (bound === undefined) this.#bound.set(slot, spelled);
    return meta;
  }
}
