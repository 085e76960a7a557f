import {
  type ArtifactService,
  type ArtifactTransfer,
  type Capabilities,
  closedError,
} from "@artifact-kit/core";
import { type BufferingOptions, bufferedTransfer } from "../src/buffered.js";

/**
 * The same store without native transfer: only the ArtifactService methods, and capabilities
 * without `transfer`, as an adapter that never implemented streaming would be.
 */
export function withoutNativeTransfer(service: ArtifactService): ArtifactService {
  const { transfer: _transfer, ...capabilities } = service.capabilities();
  return {
    capabilities: () => capabilities,
    put: (...args) => service.put(...args),
    get: (...args) => service.get(...args),
    head: (...args) => service.head(...args),
    delete: (...args) => service.delete(...args),
    listNames: (...args) => service.listNames(...args),
    listVersions: (...args) => service.listVersions(...args),
    list: (...args) => service.list(...args),
    listScopes: (...args) => service.listScopes(...args),
    close: () => service.close(),
  };
}

/**
 * A store without native transfer that declares every transfer part and serves it through the
 * opt-in buffering, so that the conformance kit's transfer laws can judge the buffering.
 */
export function servedByBuffering(
  service: ArtifactService,
  buffering: BufferingOptions,
): ArtifactService & ArtifactTransfer {
  const plain = withoutNativeTransfer(service);
  const capabilities: Capabilities = Object.freeze({
    ...plain.capabilities(),
    transfer: Object.freeze({ streamingUpload: true, streamingDownload: true, byteRanges: true }),
  });
  const transfer = bufferedTransfer(plain, buffering);
  // Like any adapter, it refuses to open a transfer once closed (the kit checks it).
  let closed = false;
  const ifOpen = <T>(open: () => Promise<T>) => (closed ? Promise.reject(closedError()) : open());
  return {
    ...plain,
    capabilities: () => capabilities,
    openUpload: (...args) => ifOpen(() => transfer.openUpload(...args)),
    openDownload: (...args) => ifOpen(() => transfer.openDownload(...args)),
    close: () => {
      closed = true;
      return plain.close();
    },
  };
}
