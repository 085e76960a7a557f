import { VALIDATION_LIMITS } from "./limits.js";
import type {
  Capabilities,
  DownloadUrlCapabilities,
  QuotaReport,
  RoutingCapabilities,
  ScopeKind,
  TransferCapabilities,
} from "./types.js";
import { validatePositiveInteger } from "./validate.js";

export interface CapabilitiesInput {
  durability: Capabilities["durability"];
  maxPageLimit: number;
  legacyListLimit: number;
  quotas: QuotaReport;
  scopes?: readonly ScopeKind[];
  transfer?: TransferCapabilities;
  routing?: RoutingCapabilities;
  downloadUrls?: DownloadUrlCapabilities;
}

const ALL_SCOPE_KINDS: readonly ScopeKind[] = Object.freeze(["app", "user", "session"]);

/** Builds the frozen capabilities object every adapter returns from `capabilities()`. */
export function defineCapabilities(input: CapabilitiesInput): Capabilities {
  return Object.freeze({
    apiVersion: 1,
    immutableVersions: true,
    scopes: Object.freeze([...(input.scopes ?? ALL_SCOPE_KINDS)]),
    durability: input.durability,
    pagination: Object.freeze({
      maxPageLimit: input.maxPageLimit,
      legacyListLimit: input.legacyListLimit,
    }),
    limits: VALIDATION_LIMITS,
    quotas: Object.freeze({
      appliesTo: input.quotas.appliesTo,
      bounds: Object.freeze({ ...input.quotas.bounds }),
    }),
    ...(input.transfer ? { transfer: Object.freeze({ ...input.transfer }) } : {}),
    ...(input.routing ? { routing: Object.freeze({ ...input.routing }) } : {}),
    ...(input.downloadUrls
      ? {
          downloadUrls: Object.freeze({
            maxExpiresInSeconds: validatePositiveInteger(
              input.downloadUrls.maxExpiresInSeconds,
              "downloadUrls.maxExpiresInSeconds",
            ),
          }),
        }
      : {}),
  });
}
