import {
  ArtifactError,
  type ArtifactService,
  type ArtifactTransfer,
  type Capabilities,
  hasTransfer,
  type TransferCapabilities,
} from "@artifact-kit/core";

type TransferPart = keyof TransferCapabilities;

/** The router serves a transfer part only when its factory declared it: there is no fallback. */
export function requireDeclared(capabilities: Capabilities, part: TransferPart): void {
  if (!capabilities.transfer?.[part]) {
    throw unsupportedTransfer(part, "the router's workers do not declare it");
  }
}

/**
 * The worker's native transfer. A worker that declares transfer but does not implement it
 * is refused here rather than served by buffering a whole artifact through put / get.
 */
export function workerTransfer(service: ArtifactService, part: TransferPart): ArtifactTransfer {
  if (!hasTransfer(service)) {
    throw unsupportedTransfer(part, "the worker implements no openUpload / openDownload");
  }
  return service;
}

function unsupportedTransfer(part: TransferPart, why: string): ArtifactError {
  return new ArtifactError(
    "unsupported_transfer",
    `the router does not serve ${part} natively: ${why}; use put / get`,
    { detail: { transfer: part } },
  );
}
