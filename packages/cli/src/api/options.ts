import type { ArtifactService, Scope } from "@artifact-kit/core";

/** What a request of the developer API does to its scope. */
export type ApiOperation = "listNames" | "listVersions" | "deleteScope";

/** The resource provider's answer about one exact scope; anything but "allow" is refused. */
export type ResourceDecision = "allow" | "forbidden";

/**
 * Asked before every authenticated request with the exact scope of its path (never a
 * prefix or a pattern). It may be async; if it throws, the request is `unavailable`.
 */
export type ResourceProvider = (request: {
  readonly scope: Scope;
  readonly operation: ApiOperation;
}) => ResourceDecision | Promise<ResourceDecision>;

export interface DeveloperApiOptions {
  service: ArtifactService;
  /** The bearer token every request must carry (at least 16 characters). */
  token: string;
  /** Default 127.0.0.1: the API is for the developer's own machine. */
  host?: string;
  /** Default 0: any free port (see `url`). */
  port?: number;
  resourceProvider?: ResourceProvider;
  /** Largest request body (the delete confirmation), default 4,096 bytes. */
  maxBodyBytes?: number;
}
