import { type ArtifactTransfer, hasTransfer } from "../transfer.js";
import type { ArtifactService, TransferCapabilities } from "../types.js";

/**
 * Whether `capabilities().transfer` declares `part` and the service has the transfer methods:
 * laws exercise a transfer part only where it is declared (`check` fails a service that
 * declares one without the methods).
 */
export function declaresTransfer(
  service: ArtifactService,
  part: keyof TransferCapabilities,
): service is ArtifactService & ArtifactTransfer {
  return hasTransfer(service) && service.capabilities().transfer?.[part] === true;
}
