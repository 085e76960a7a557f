import type { ArtifactService, Scope } from "@artifact-kit/core";

/** What a request of the developer API does to its scope. */
export type ApiOperation =
  | "listScopes"
  | "listNames"
  | "listVersions"
  | "getVersion"
  | "download"
  | "createLink"
  | "upload"
  | "deleteVersions"
  | "inspectScope"
  | "deleteScope";

/** The resource provider's answer about one exact scope; anything but "allow" is refused. */
export type ResourceDecision = "allow" | "forbidden";

/**
 * Asked before every authenticated request with the exact scope of its path (never a
 * prefix or a pattern); for a scope listing, about each scope listed (those it does not
 * allow are left out). It may be async; if it throws, the request is `unavailable`. It runs
 * inside the request's deadline: `signal` aborts when the deadline passes, and the request
 * is answered `timeout` then whether or not the provider has settled.
 */
export type ResourceProvider = (request: {
  readonly scope: Scope;
  readonly operation: ApiOperation;
  readonly signal: AbortSignal;
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
  /**
   * The one scope this server serves, with everything under it (an app bounds its users and
   * sessions). Every other scope is refused as forbidden and left out of scope listings.
   * Default: the whole store.
   */
  scope?: Scope;
  /** Largest JSON request body (a delete confirmation, a sign-in), default 4,096 bytes. */
  maxBodyBytes?: number;
  /** Largest upload, default and at most the store's maxArtifactBytes. */
  maxUploadBytes?: number;
  /**
   * The whole of one request, resource provider and store included, in milliseconds
   * (1..300000, default 30,000). A request over it is answered 504 `timeout`. An upload or
   * download is bounded by it until its bytes start to flow, then by 300,000 ms in all.
   */
  requestTimeoutMs?: number;
  /**
   * Browser origins (`https://host[:port]`, exactly as a browser sends them) allowed to call
   * the API across origins. Default none: no CORS headers at all, so no web page can read
   * an answer.
   */
  allowedOrigins?: readonly string[];
  /** The HMAC key of signed download links (at least 32 bytes); default random per server. */
  linkSecret?: string;
  /** How long a console sign-in lasts, in milliseconds (default 8 hours). */
  sessionTtlMs?: number;
  /**
   * Told of every failure the API answers with a 5xx status, with its full cause. The
   * answer itself carries only the code and a fixed message, never a path or a backend's
   * words.
   */
  onServerError?: (error: Error) => void;
}
