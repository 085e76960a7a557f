import {
  type ArtifactService,
  type ArtifactTransfer,
  type Capabilities,
  closedError,
} from "@artifact-kit/core";
import { contractOnly } from "@artifact-kit/core/conformance";
import { type BufferingOptions, bufferedTransfer } from "../src/buffered.js";

/**
 * The same store without native transfer: only the ArtifactService methods, and capabilities
 * without `transfer`, as an adapter that never implemented streaming would be.
 */
export function withoutNativeTransfer(service: ArtifactService): ArtifactService {
  const { transfer: _transfer, ...capabilities } = service.capabilities();
  return contractOnly(service, () => capabilities);
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
