import {
  type Artifact,
  type ArtifactMeta,
  type ArtifactService,
  type ArtifactTransfer,
  type Capabilities,
  type DeleteSelector,
  type DownloadOptions,
  type DownloadSource,
  type GetOptions,
  hasTransfer,
  type ListNamesOptions,
  type ListScopesOptions,
  type ListVersionsOptions,
  type NamePage,
  type PutOptions,
  type RequestOptions,
  type Scope,
  type ScopePage,
  type UploadOptions,
  type UploadSink,
  type VersionPage,
} from "@artifact-kit/core";
import { ATTR_SIZE } from "./attributes.js";
import { observeService } from "./gauges.js";
import { resolveTelemetryOptions, type TelemetryOptions } from "./options.js";
import {
  limited,
  metaAttributes,
  pageAttributes,
  rangeAttributes,
  selected,
  sizeOf,
  targetAttributes,
  versionOption,
} from "./request-attributes.js";
import { Telemetry } from "./telemetry.js";
import { TracedDownload, TracedUpload } from "./transfer.js";

/** What `withTelemetry` returns: the service's contract, transfer and `status()` as it has them. */
export type WithTelemetry<S extends ArtifactService> = ArtifactService &
  (S extends ArtifactTransfer ? ArtifactTransfer : unknown) &
  (S extends { status(): infer R } ? { status(): R } : unknown);

/**
 * Wraps `service` so that every operation is a span and feeds the operation metrics. Calls,
 * arguments, results and errors pass through unchanged; `capabilities()` is the service's own.
 * The wrapper offers `openUpload` / `openDownload` exactly when the service does, and
 * `status()` when the service has one.
 */
export function withTelemetry<S extends ArtifactService>(
  service: S,
  options?: TelemetryOptions,
): WithTelemetry<S> {
  const resolved = resolveTelemetryOptions(options);
  const telemetry = new Telemetry(resolved, resolved.adapter ?? service.constructor.name);
  const traced = hasTransfer(service)
    ? new TracedTransferService(service, telemetry)
    : new TracedArtifactService(service, telemetry);
  return traced as unknown as WithTelemetry<S>;
}

class TracedArtifactService implements ArtifactService {
  protected readonly inner: ArtifactService;
  protected readonly telemetry: Telemetry;
  readonly #stopObserving: () => void;
  /** Present exactly when the wrapped service has it (e.g. the sharded router). */
  declare readonly status?: () => unknown;

  constructor(inner: ArtifactService, telemetry: Telemetry) {
    this.inner = inner;
    this.telemetry = telemetry;
    this.#stopObserving = observeService(telemetry, inner);
    const { status } = inner as { status?: unknown };
    if (typeof status === "function") this.status = () => status.call(inner);
  }

  capabilities(): Capabilities {
    return this.inner.capabilities();
  }

  put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions): Promise<ArtifactMeta> {
    return this.telemetry.traced(
      "put",
      () => {
        const attributes = targetAttributes(this.telemetry, scope, name);
        const size = sizeOf(data);
        if (size !== undefined) attributes[ATTR_SIZE] = size;
        return attributes;
      },
      () => this.inner.put(scope, name, data, options),
      (meta, op) => {
        op.set(metaAttributes(meta));
        this.telemetry.countWritten("put", meta.size);
      },
    );
  }

  get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    return this.telemetry.traced(
      "get",
      () => selected(targetAttributes(this.telemetry, scope, name), versionOption(options)),
      () => this.inner.get(scope, name, options),
      (artifact, op) => {
        op.set(metaAttributes(artifact));
        this.telemetry.countRead("get", artifact.data.byteLength);
      },
    );
  }

  head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    return this.telemetry.traced(
      "head",
      () => selected(targetAttributes(this.telemetry, scope, name), versionOption(options)),
      () => this.inner.head(scope, name, options),
      (meta, op) => op.set(metaAttributes(meta)),
    );
  }

  delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ): Promise<void> {
    return this.telemetry.traced(
      "delete",
      () => selected(targetAttributes(this.telemetry, scope, name), selector),
      () => this.inner.delete(scope, name, selector, options),
    );
  }

  listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    return this.telemetry.traced(
      "list_names",
      () => limited(targetAttributes(this.telemetry, scope), options),
      () => this.inner.listNames(scope, options),
      (page, op) => op.set(pageAttributes(page.items.length, page.nextCursor !== undefined)),
    );
  }

  listScopes(options?: ListScopesOptions): Promise<ScopePage> {
    return this.telemetry.traced(
      "list_scopes",
      // The level listed reads like a scope: its kind, and its app and user as the policy allows.
      () => limited(targetAttributes(this.telemetry, listedLevel(options)), options),
      () => this.inner.listScopes(options),
      (page, op) => op.set(pageAttributes(page.items.length, page.nextCursor !== undefined)),
    );
  }

  listVersions(scope: Scope, name: string, options?: ListVersionsOptions): Promise<VersionPage> {
    return this.telemetry.traced(
      "list_versions",
      () => limited(targetAttributes(this.telemetry, scope, name), options),
      () => this.inner.listVersions(scope, name, options),
      (page, op) => op.set(pageAttributes(page.items.length, page.nextCursor !== undefined)),
    );
  }

  list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    return this.telemetry.traced(
      "list",
      () => targetAttributes(this.telemetry, scope),
      () => this.inner.list(scope, options),
      (items, op) => op.set(pageAttributes(items.length, false)),
    );
  }

  /** Closes the service, then stops reporting its gauges. */
  async close(): Promise<void> {
    try {
      await this.telemetry.traced("close", undefined, () => this.inner.close());
    } finally {
      this.#stopObserving();
    }
  }
}

/** The wrapper of a service that implements streaming transfer. */
class TracedTransferService extends TracedArtifactService implements ArtifactTransfer {
  readonly #transfer: ArtifactTransfer;

  constructor(inner: ArtifactService & ArtifactTransfer, telemetry: Telemetry) {
    super(inner, telemetry);
    this.#transfer = inner;
  }

  /** The `upload` span runs from this call until the upload is finished, aborted or fails. */
  async openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink> {
    const op = this.telemetry.start("upload", () => targetAttributes(this.telemetry, scope, name));
    try {
      const sink = await op.within(() => this.#transfer.openUpload(scope, name, options));
      return new TracedUpload(sink, op, this.telemetry);
    } catch (error) {
      op.fail(error);
      throw error;
    }
  }

  /** The `download` span runs from this call until the last piece is read, or cancel or failure. */
  async openDownload(
    scope: Scope,
    name: string,
    options?: DownloadOptions,
  ): Promise<DownloadSource> {
    const op = this.telemetry.start("download", () => {
      const attributes = selected(
        targetAttributes(this.telemetry, scope, name),
        versionOption(options),
      );
      rangeAttributes(attributes, options);
      return attributes;
    });
    try {
      const source = await op.within(() => this.#transfer.openDownload(scope, name, options));
      op.set(metaAttributes(source.meta));
      return new TracedDownload(source, op, this.telemetry);
    } catch (error) {
      op.fail(error);
      throw error;
    }
  }
}

/** The level a listScopes call lists, shaped as a scope for the attributes (read defensively). */
function listedLevel(options: unknown): Record<string, unknown> {
  const fields =
    typeof options === "object" && options !== null ? (options as ListScopesOptions) : {};
  return { kind: fields.kind ?? "app", app: fields.app, user: fields.user };
}
