import { ArtifactError } from "@artifact-kit/core";

export function maxActiveScopesReached(bound: number, reclaims: boolean): ArtifactError {
  const why = reclaims
    ? "and every one has an operation or a transfer in flight"
    : "and volatile workers are never reclaimed";
  return new ArtifactError(
    "max_active_scopes_reached",
    `the router already holds maxActiveScopes (${bound}) workers ${why}`,
    { detail: { limit: "max_active_scopes", bound } },
  );
}

export function overloaded(bound: number): ArtifactError {
  return new ArtifactError(
    "overloaded",
    `maxRouterQueue (${bound}) cold-route requests are already waiting; retry later`,
    { detail: { limit: "max_router_queue", bound } },
  );
}
