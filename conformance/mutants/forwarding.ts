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
} from "@artifact-kit/core";

/** Forwards every call to a real adapter; each mutant overrides the one thing it breaks. */
export class ForwardingService implements ArtifactService {
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
  close(): Promise<void> {
    return this.inner.close();
  }
}

/** A key for (scope, name) in a mutant's own bookkeeping. */
export const slotKey = (scope: Scope, name: string) => JSON.stringify([scope, name]);
