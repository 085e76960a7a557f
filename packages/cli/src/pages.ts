import {
  type ArtifactService,
  type ArtifactTransfer,
  checkDownloadUrlReply,
  checkNamePageReply,
  checkScopePageReply,
  checkVersionPageReply,
  hasDownloadUrls,
  hasTransfer,
  type ListNamesOptions,
  type ListScopesOptions,
  type ListVersionsOptions,
  validateDownloadUrlRequest,
} from "@artifact-kit/core";

/**
 * The service with its listings checked as they arrive: a record for another scope or
 * name, or a malformed page, is invalid_service_reply and is never passed on under the
 * scope that was asked for; so is a download URL for another version or a later expiry.
 * Everything else, transfer included, is the service itself.
 */
export function withCheckedListings(service: ArtifactService): ArtifactService {
  const limitOf = (options: { limit?: number } | undefined) =>
    options?.limit ?? service.capabilities().pagination.maxPageLimit;
  const checked: ArtifactService = {
    capabilities: () => service.capabilities(),
    put: (scope, name, data, options) => service.put(scope, name, data, options),
    get: (scope, name, options) => service.get(scope, name, options),
    head: (scope, name, options) => service.head(scope, name, options),
    delete: (scope, name, selector, options) => service.delete(scope, name, selector, options),
    list: (scope, options) => service.list(scope, options),
    close: () => service.close(),
    listNames: async (scope, options?: ListNamesOptions) =>
      checkNamePageReply(await service.listNames(scope, options), scope, limitOf(options)),
    listVersions: async (scope, name, options?: ListVersionsOptions) =>
      checkVersionPageReply(
        await service.listVersions(scope, name, options),
        scope,
        name,
        limitOf(options),
      ),
    listScopes: async (options?: ListScopesOptions) =>
      checkScopePageReply(
        await service.listScopes(options),
        options,
        service.capabilities().pagination.maxPageLimit,
      ),
  };
  if (hasDownloadUrls(service)) {
    // A URL for another version, or one that outlives what was asked, is never handed on.
    Object.assign(checked, {
      createDownloadUrl: async (scope: unknown, name: unknown, options: unknown) => {
        const asked = validateDownloadUrlRequest(service.capabilities(), scope, name, options);
        const now = Date.now();
        const reply = await service.createDownloadUrl(asked.scope, asked.name, {
          ...asked.options,
          version: asked.version,
          expiresInSeconds: asked.expiresInSeconds,
        });
        return checkDownloadUrlReply(reply, asked, now);
      },
    });
  }
  if (!hasTransfer(service)) return checked;
  const transfer: ArtifactTransfer = {
    openUpload: (scope, name, options) => service.openUpload(scope, name, options),
    openDownload: (scope, name, options) => service.openDownload(scope, name, options),
  };
  return Object.assign(checked, transfer);
}
