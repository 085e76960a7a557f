import type { ArtifactService } from "@artifact-kit/core";

/**
 * A real service seen only through the ArtifactService methods: no streaming transfer and no
 * status(), for checking what the wrapper offers when the wrapped service lacks them.
 */
export function contractOnly(inner: ArtifactService): ArtifactService {
  return {
    capabilities: () => inner.capabilities(),
    put: (...args) => inner.put(...args),
    get: (...args) => inner.get(...args),
    head: (...args) => inner.head(...args),
    delete: (...args) => inner.delete(...args),
    listNames: (...args) => inner.listNames(...args),
    listVersions: (...args) => inner.listVersions(...args),
    list: (...args) => inner.list(...args),
    listScopes: (...args) => inner.listScopes(...args),
    close: () => inner.close(),
  };
}
