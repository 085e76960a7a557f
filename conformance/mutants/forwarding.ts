import {
  type Artifact,
  ArtifactError,
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

/** Forwards every call to a real adapter; each mutant overrides the one thing it breaks. */
export class ForwardingService implements ArtifactService, ArtifactTransfer {
  constructor(protected readonly inner: ArtifactService) {}

  capabilities(): Capabilities {
    return this.inner.capabilities();
  }
  put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions): Promise<ArtifactMeta> {
    return this.inner.put(scope, name, data, options);
  }
  get(scope: Scope, name: string, options?: GetOptions): Promise<Artifact> {
    return this.inner.get(scope, name, options);
  }
  head(scope: Scope, name: string, options?: GetOptions): Promise<ArtifactMeta> {
    return this.inner.head(scope, name, options);
  }
  delete(
    scope: Scope,
    name: string,
    selector: DeleteSelector,
    options?: RequestOptions,
  ): Promise<void> {
    return this.inner.delete(scope, name, selector, options);
  }
  listNames(scope: Scope, options?: ListNamesOptions): Promise<NamePage> {
    return this.inner.listNames(scope, options);
  }
  listVersions(scope: Scope, name: string, options?: ListVersionsOptions): Promise<VersionPage> {
    return this.inner.listVersions(scope, name, options);
  }
  list(scope: Scope, options?: RequestOptions): Promise<ArtifactMeta[]> {
    return this.inner.list(scope, options);
  }
  listScopes(options?: ListScopesOptions): Promise<ScopePage> {
    return this.inner.listScopes(options);
  }
  close(): Promise<void> {
    return this.inner.close();
  }
  openUpload(scope: Scope, name: string, options?: UploadOptions): Promise<UploadSink> {
    return this.#transfer().openUpload(scope, name, options);
  }
  openDownload(scope: Scope, name: string, options?: DownloadOptions): Promise<DownloadSource> {
    return this.#transfer().openDownload(scope, name, options);
  }
  #transfer(): ArtifactTransfer {
    if (!hasTransfer(this.inner)) {
      throw new ArtifactError("unsupported_transfer", "the wrapped adapter has no native transfer");
    }
    return this.inner;
  }
}

/** A key for (scope, name) in a mutant's own bookkeeping. */
export const slotKey = (scope: Scope, name: string) => JSON.stringify([scope, name]);
