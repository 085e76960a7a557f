import type { AddressInfo } from "node:net";
import {
  asArtifactError,
  invalidArgument,
  validateOptionKeys,
  validatePositiveInteger,
  validateScope,
} from "@artifact-kit/core";
import { createAdaptorServer } from "@hono/node-server";
import { withCheckedListings } from "../pages.js";
import { buildApp, type ServerContext } from "./app.js";
import { loadConsoleAssets } from "./console-assets.js";
import { CorsPolicy } from "./cors.js";
import { linkSecretFrom } from "./links.js";
import type { DeveloperApiOptions } from "./options.js";
import { validateRequestTimeout } from "./request-deadline.js";
import { SessionStore } from "./sessions.js";

export interface DeveloperApi {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** Stops accepting requests and ends open connections. Does not close the service. */
  close(): Promise<void>;
}

const MIN_TOKEN_LENGTH = 16;
/** The upload bound when neither the caller nor the store gives one. */
const DEFAULT_MAX_UPLOAD_BYTES = 256 * 1024 * 1024;

/**
 * Starts the developer API and its web console (at /console/): scopes, names, versions with
 * their metadata, artifact bytes (streamed, with ranges and signed links), uploads and
 * deletions. Every API request needs the bearer token or a console session signed in with
 * it; then the bound (`scope`) and the resource provider, when given, are asked about the
 * exact scope.
 */
export async function startDeveloperApi(options: DeveloperApiOptions): Promise<DeveloperApi> {
  const given = validateOptionKeys(options, [
    "service",
    "token",
    "host",
    "port",
    "resourceProvider",
    "scope",
    "maxBodyBytes",
    "maxUploadBytes",
    "requestTimeoutMs",
    "allowedOrigins",
    "linkSecret",
    "sessionTtlMs",
    "onServerError",
  ]);
  if (typeof options.token !== "string" || options.token.length < MIN_TOKEN_LENGTH) {
    throw invalidArgument("token", `must be a string of at least ${MIN_TOKEN_LENGTH} characters`);
  }
  const context: ServerContext = {
    service: withCheckedListings(options.service),
    resourceProvider: options.resourceProvider,
    bound: given.scope === undefined ? undefined : validateScope(given.scope),
    linkSecret: linkSecretFrom(given.linkSecret),
    maxBodyBytes: optionalCount(given.maxBodyBytes, "maxBodyBytes") ?? 4096,
    maxUploadBytes: uploadBound(options, optionalCount(given.maxUploadBytes, "maxUploadBytes")),
    token: options.token,
    requestTimeoutMs: validateRequestTimeout(given.requestTimeoutMs),
    cors: CorsPolicy.from(given.allowedOrigins),
    sessions: new SessionStore(optionalCount(given.sessionTtlMs, "sessionTtlMs")),
    assets: loadConsoleAssets(),
    onServerError: options.onServerError,
  };
  const app = buildApp(context);
  const server = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error) => reject(asArtifactError(error, "listen")));
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        if ("closeAllConnections" in server) server.closeAllConnections();
      }),
  };
}

function optionalCount(value: unknown, field: string): number | undefined {
  return value === undefined ? undefined : validatePositiveInteger(value, field);
}

/** The caller's bound, never above the store's own maxArtifactBytes. */
function uploadBound(options: DeveloperApiOptions, given: number | undefined): number {
  const store = options.service.capabilities().quotas.bounds.maxArtifactBytes;
  const bounds = [given, store].filter((bound): bound is number => bound !== undefined);
  return bounds.length === 0 ? DEFAULT_MAX_UPLOAD_BYTES : Math.min(...bounds);
}
