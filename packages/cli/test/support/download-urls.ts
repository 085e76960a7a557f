import {
  type ArtifactDownloadUrls,
  type ArtifactService,
  type Capabilities,
  type DownloadUrlOptions,
  validateDownloadUrlRequest,
} from "@artifact-kit/core";
import { signLink } from "../../src/api/links.js";
import { startDeveloperApi } from "../../src/index.js";

// A store that makes download URLs of its own, for serve's tests. No adapter of this
// repository offers createDownloadUrl (the object stores keep a manifest inside each
// object, see core's README), so the URLs here are real links of a second server over the
// same store ("the backend"), signed with a secret the serve under test does not know:
// they download the exact bytes and refuse any alteration or expiry.

export const MAX_URL_SECONDS = 3600;

export interface UrlBackend {
  /** The backend server's URL, e.g. http://127.0.0.1:40123 */
  url: string;
  secret: string;
  /** Every request the store was asked, in order. */
  asked: DownloadUrlOptions[];
  close(): Promise<void>;
}

/** The backend: a server over `store` whose links stand for the store's own URLs. */
export async function startUrlBackend(store: ArtifactService): Promise<UrlBackend> {
  const secret = "backend-secret-0123456789abcdef-012345";
  const api = await startDeveloperApi({
    service: store,
    token: "backend-token-0123456789abcdef",
    linkSecret: secret,
  });
  return { url: api.url, secret, asked: [], close: () => api.close() };
}

/** `store` with createDownloadUrl declared (MAX_URL_SECONDS) and served by `backend`. */
export function withDownloadUrls(
  store: ArtifactService,
  backend: UrlBackend,
  versionShift = 0,
): ArtifactService & ArtifactDownloadUrls {
  const capabilities: Capabilities = {
    ...store.capabilities(),
    downloadUrls: { maxExpiresInSeconds: MAX_URL_SECONDS },
  };
  // As an adapter writes it: validated input, the version checked to exist.
  const createDownloadUrl: ArtifactDownloadUrls["createDownloadUrl"] = async (
    scope,
    name,
    options,
  ) => {
    const request = validateDownloadUrlRequest(capabilities, scope, name, options);
    backend.asked.push(options);
    const meta = await store.head(request.scope, request.name, { version: request.version });
    const expiresAt = Date.now() + request.expiresInSeconds * 1000;
    const version = meta.version + versionShift;
    const token = signLink(backend.secret, { scope, name, version, expiresAt });
    return { url: `${backend.url}/links/${token}`, version, expiresAt };
  };
  return new Proxy(store, {
    get(target, property) {
      if (property === "capabilities") return () => capabilities;
      if (property === "createDownloadUrl") return createDownloadUrl;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as ArtifactService & ArtifactDownloadUrls;
}
