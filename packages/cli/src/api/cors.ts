import { invalidArgument } from "@artifact-kit/core";
import { METADATA_HEADER } from "./bytes.js";
import { CSRF_HEADER } from "./sessions.js";

/**
 * The methods and request headers the API takes, as a preflight answers them: reads and
 * deletions, uploads (PUT with the artifact's type and metadata header) and links (POST).
 * The CSRF header is listed because the console sends it on every change; it only counts
 * with a session cookie, which a cross-origin caller never gets to use: no answer says
 * Allow-Credentials, so such a caller authenticates with the bearer token.
 */
const API_METHODS = "GET, PUT, POST, DELETE";
const API_REQUEST_HEADERS = `authorization, content-type, ${METADATA_HEADER}, ${CSRF_HEADER}`;
/**
 * Answer headers a cross-origin script may read beyond the safelisted ones: what a download
 * says of its bytes, and a 405's Allow.
 */
const EXPOSED_HEADERS = "content-disposition, content-range, accept-ranges, etag, allow";
const PREFLIGHT_MAX_AGE_SECONDS = "600";

/**
 * Who may call the API from a web page. Empty by default: no CORS header is ever sent, so
 * browsers keep every answer from every other origin.
 */
export class CorsPolicy {
  private readonly origins: ReadonlySet<string>;

  private constructor(origins: ReadonlySet<string>) {
    this.origins = origins;
  }

  /** Each origin exactly as a browser sends it: `http(s)://host[:port]`, no path, no `*`. */
  static from(allowedOrigins: unknown): CorsPolicy {
    if (allowedOrigins === undefined) return new CorsPolicy(new Set());
    if (!Array.isArray(allowedOrigins)) {
      throw invalidArgument("allowedOrigins", "must be an array of origins");
    }
    for (const origin of allowedOrigins) {
      if (!isExactOrigin(origin)) {
        throw invalidArgument(
          "allowedOrigins",
          `${JSON.stringify(origin)} is not an origin such as https://tool.example:8443`,
        );
      }
    }
    return new CorsPolicy(new Set(allowedOrigins as string[]));
  }

  get enabled(): boolean {
    return this.origins.size > 0;
  }

  /** The request's Origin when it is allowed, else undefined. */
  allowedOrigin(origin: string | undefined): string | undefined {
    return origin !== undefined && this.origins.has(origin) ? origin : undefined;
  }

  /** Headers for an ordinary answer: the origin echoed only when it is allowed. */
  responseHeaders(requestOrigin: string | undefined): Record<string, string> {
    if (!this.enabled) return {};
    const origin = this.allowedOrigin(requestOrigin);
    return origin === undefined
      ? { vary: "Origin" }
      : {
          "access-control-allow-origin": origin,
          "access-control-expose-headers": EXPOSED_HEADERS,
          vary: "Origin",
        };
  }

  /** Headers for a preflight from an allowed origin. */
  preflightHeaders(origin: string): Record<string, string> {
    return {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": API_METHODS,
      "access-control-allow-headers": API_REQUEST_HEADERS,
      "access-control-max-age": PREFLIGHT_MAX_AGE_SECONDS,
      vary: "Origin",
    };
  }
}

function isExactOrigin(origin: unknown): origin is string {
  if (typeof origin !== "string") return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  return (
    (url.protocol === "http:" || url.protocol === "https:") &&
    url.origin === origin &&
    HOST.test(url.hostname)
  );
}

/**
 * A host a browser can send in Origin: a name (letters, digits, `-`, `_`, dots), IPv4, or a
 * bracketed IPv6. The URL parser takes `*` as an ordinary host character, so without this
 * `https://*.example` would pass as an origin and match nothing, a wildcard that looks
 * allowed but is not (the README says wildcards are refused).
 */
const HOST = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])$/;
