import type { ArtifactService, Capabilities } from "../types.js";

/**
 * `inner` seen only through the ArtifactService methods: no streaming transfer, no status(),
 * nothing else it offers, as an adapter that never implemented them would be. `capabilities`
 * replaces what it declares (e.g. without `transfer`).
 */
export function contractOnly(
  inner: ArtifactService,
  capabilities: () => Capabilities = () => inner.capabilities(),
): ArtifactService {
  return {
    capabilities,
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
