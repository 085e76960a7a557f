import type {
  ArtifactService,
  Capabilities,
  DownloadOptions,
  Scope,
  TransferCapabilities,
  UploadOptions,
} from "@artifact-kit/core";
import { ForwardingService } from "./forwarding.js";

// Transfer mutants: each breaks one transfer law of the adapter it wraps.

/** Serves every byte range one byte late: the classic off-by-one of a ranged read. */
export class RangeOffByOne extends ForwardingService {
  override openDownload(scope: Scope, name: string, options?: DownloadOptions) {
    const range = options?.range;
    return super.openDownload(
      scope,
      name,
      range && range.length > 0
        ? { ...options, range: { ...range, offset: range.offset + 1 } }
        : options,
    );
  }
}

/** Treats abort() as finish(): an upload its owner gave up on is published anyway. */
export class AbortPublishes extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    return {
      write: (chunk: Uint8Array) => upload.write(chunk),
      finish: () => upload.finish(),
      abort: async () => {
        await upload.finish();
      },
    };
  }
}

/**
 * Takes the credit for a chunk without copying it: the caller's buffer is only lent until its
 * write resolves, so bytes the caller reuses afterwards end up in the artifact.
 */
export class KeepsLentChunks extends ForwardingService {
  override async openUpload(scope: Scope, name: string, options?: UploadOptions) {
    const upload = await super.openUpload(scope, name, options);
    const kept: Uint8Array[] = [];
    return {
      write: async (chunk: Uint8Array) => {
        kept.push(chunk);
      },
      finish: async () => {
        for (const chunk of kept) await upload.write(chunk);
        return upload.finish();
      },
      abort: (reason?: unknown) => upload.abort(reason),
    };
  }
}

/**
 * Serves a transfer part its capabilities() leave out: the kit tests only what is declared,
 * so whatever that part does wrong would go unseen (and callers that go by the declaration
 * never use it).
 */
export class ServesUndeclaredTransfer extends ForwardingService {
  constructor(
    inner: ArtifactService,
    private readonly undeclared: keyof TransferCapabilities,
  ) {
    super(inner);
  }

  override capabilities(): Capabilities {
    const capabilities = this.inner.capabilities();
    if (!capabilities.transfer) return capabilities;
    const transfer = Object.freeze({ ...capabilities.transfer, [this.undeclared]: false });
    return Object.freeze({ ...capabilities, transfer });
  }
}
