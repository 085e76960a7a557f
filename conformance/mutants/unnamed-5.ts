import {
  type ArtifactMeta,
  allNames,
  allVersions,
  closedError,
  type DeleteSelector,
  type DownloadOptions,
  type GetOptions,
  isArtifactError,
  type ListNamesOptions,
  type ListVersionsOptions,
  type PutOptions,
  quotaExceeded,
  type RequestOptions,
  resultLimitExceeded,
  type Scope,
  type UploadOptions,
} from "@artifact-kit/core";
import { ForwardingService, slotKey } from "./forwarding.js";

// Issue 31's fourth round, continued (see unnamed-4.ts).

/** An app scope's stray user or session id is ignored, not refused: it is the app scope. */
export class AppScopeExtraKeysIgnored extends ForwardingService {
  static #scope(scope: Scope): Scope {
    if (scope !== null && typeof scope === "object" && scope.kind === "app") {
      return { kind: "app", app: scope.app };
    }
    return scope;
  }
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return super.put(AppScopeExtraKeysIgnored.#scope(scope), name, data, options);
  }
  override get(scope: Scope, name: string, options?: GetOptions) {
    return super.get(AppScopeExtraKeysIgnored.#scope(scope), name, options);
  }
  override head(scope: Scope, name: string, options?: GetOptions) {
    return super.head(AppScopeExtraKeysIgnored.#scope(scope), name, options);
  }
  override delete(scope: Scope, name: string, selector: DeleteSelector, options?: RequestOptions) {
    return super.delete(AppScopeExtraKeysIgnored.#scope(scope), name, selector, options);
  }
  override listNames(scope: Scope, options?: ListNamesOptions) {
    return super.listNames(AppScopeExtraKeysIgnored.#scope(scope), options);
  }
  override listVersions(scope: Scope, name: string, options?: ListVersionsOptions) {
    return super.listVersions(AppScopeExtraKeysIgnored.#scope(scope), name, options);
  }
  override list(scope: Scope, options?: RequestOptions) {
    return super.list(AppScopeExtraKeysIgnored.#scope(scope), options);
  }
}

/** A write after finish() resolved is taken silently (and its bytes lost). */
export class WriteAfterFinishIgnored extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    let finished = false;
    return {
      write: async (chunk: Uint8Array) => {
        if (!finished) await upload.write(chunk);
      },
      finish: async () => {
        const meta = await upload.finish();
        finished = true;
        return meta;
      },
      abort: (reason?: unknown) => upload.abort(reason),
    };
  }
}

/** The legacy list's bound counts names, not versions: many versions of few names pass it. */
export class LegacyListLimitCountsNames extends ForwardingService {
  override async list(scope: Scope, options?: RequestOptions) {
    try {
      return await super.list(scope, options);
    } catch (error) {
      if (!isArtifactError(error, "result_limit_exceeded")) throw error;
      const bound = this.capabilities().pagination.legacyListLimit;
      const names = await allNames(this.inner, scope);
      if (names.length > bound) throw resultLimitExceeded("legacyListLimit", bound);
      const items: ArtifactMeta[] = [];
      for (const name of names) items.push(...(await allVersions(this.inner, scope, name)));
      return items;
    }
  }
}

/** capabilities() fails with closed once the service is closed, like every other call. */
export class ClosedCapabilitiesThrow extends ForwardingService {
  #closed = false;
  override capabilities() {
    if (this.#closed) throw closedError();
    return super.capabilities();
  }
  override async close() {
    await super.close();
    this.#closed = true;
  }
}

/** Every put listens on the caller's signal and never lets go: a long-lived signal piles them up. */
export class LeavesAbortListeners extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const signal = options?.signal;
    if (signal instanceof AbortSignal) signal.addEventListener("abort", () => undefined);
    return super.put(scope, name, data, options);
  }
}

/** A download of a version deleted meanwhile falls back to the latest (a "best effort" read). */
export class DownloadFallsBackToLatest extends ForwardingService {
  override async openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    try {
      return await super.openDownload(scope, name, options);
    } catch (error) {
      if (!isArtifactError(error, "not_found") || typeof options?.version !== "number") throw error;
      return super.openDownload(scope, name, { ...options, version: "latest" });
    }
  }
}

/** A name's row keeps the mimeType of its last put: once emptied, a put without one inherits it. */
export class MimeTypeSurvivesEmptying extends ForwardingService {
  readonly #last = new Map<string, string>();
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const slot = slotKey(scope, name);
    const remembered = this.#last.get(slot);
    let given = options;
    if (options?.mimeType === undefined && remembered !== undefined) {
      const live = await this.inner.head(scope, name).then(
        () => true,
        () => false,
      );
      if (!live) given = { ...options, mimeType: remembered };
    }
    const meta = await super.put(scope, name, data, given);
    this.#last.set(slot, meta.mimeType);
    return meta;
  }
}

/** A streamed upload's record leaves its idempotency key out (the reads carry it). */
export class UploadRecordDropsKey extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    return {
      write: (chunk: Uint8Array) => upload.write(chunk),
      finish: async () => {
        const { idempotencyKey: _, ...meta } = await upload.finish();
        return meta;
      },
      abort: (reason?: unknown) => upload.abort(reason),
    };
  }
}

/** Every quota_exceeded names maxTotalBytes, whichever bound was reached. */
export class QuotaNamesTheWrongBound extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    try {
      return await super.put(scope, name, data, options);
    } catch (error) {
      if (!isArtifactError(error, "quota_exceeded")) throw error;
      const bound = this.capabilities().quotas.bounds.maxTotalBytes ?? 0;
      throw quotaExceeded("maxTotalBytes", bound, error.message);
    }
  }
}
