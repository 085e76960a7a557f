import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ArtifactError,
  asArtifactError,
  capabilityDenied,
  invalidArgument,
  unavailable,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";
import { withCheckedListings } from "../pages.js";
import { checkBearer } from "./auth.js";
import { CorsPolicy } from "./cors.js";
import { type HandlerContext, handle } from "./handlers.js";
import type { DeveloperApiOptions } from "./options.js";
import { publicError } from "./public-error.js";
import { validateRequestTimeout, withinDeadline } from "./request-deadline.js";
import { parseRoute } from "./route.js";
import { statusFor } from "./status.js";

export interface DeveloperApi {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** Stops accepting requests and ends open connections. Does not close the service. */
  close(): Promise<void>;
}

const MIN_TOKEN_LENGTH = 16;

interface ServerContext extends HandlerContext {
  token: string;
  requestTimeoutMs: number;
  cors: CorsPolicy;
  onServerError: ((error: Error) => void) | undefined;
}

/**
 * Starts the developer API: names and metadata-only versions of an exact scope, and the
 * deletion of an exact scope after a confirmation bound to its contents. It never returns
 * artifact bytes or custom metadata. Every request needs the bearer token; then the
 * resource provider, when given, is asked about the exact scope.
 */
export async function startDeveloperApi(options: DeveloperApiOptions): Promise<DeveloperApi> {
  const given = validateOptionKeys(options, [
    "service",
    "token",
    "host",
    "port",
    "resourceProvider",
    "maxBodyBytes",
    "requestTimeoutMs",
    "allowedOrigins",
    "onServerError",
  ]);
  if (typeof options.token !== "string" || options.token.length < MIN_TOKEN_LENGTH) {
    throw invalidArgument("token", `must be a string of at least ${MIN_TOKEN_LENGTH} characters`);
  }
  const context: ServerContext = {
    service: withCheckedListings(options.service),
    resourceProvider: options.resourceProvider,
    maxBodyBytes:
      given.maxBodyBytes === undefined
        ? 4096
        : validatePositiveInteger(given.maxBodyBytes, "maxBodyBytes"),
    token: options.token,
    requestTimeoutMs: validateRequestTimeout(given.requestTimeoutMs),
    cors: CorsPolicy.from(given.allowedOrigins),
    onServerError: options.onServerError,
  };
  const server = createServer((request, response) => {
    void serve(context, request, response);
  });
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
        server.closeAllConnections();
      }),
  };
}

async function serve(
  context: ServerContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const cors = context.cors.responseHeaders(request);
  try {
    if (request.method === "OPTIONS") {
      preflight(context.cors, request, response);
      return;
    }
    checkBearer(request.headers.authorization, context.token);
    const route = parseRoute(request.method ?? "", request.url ?? "");
    const body = await withinDeadline(context.requestTimeoutMs, (deadline, signal) =>
      handle(context, route, request, { deadline, signal }),
    );
    reply(response, 200, body, cors);
  } catch (error) {
    const failure =
      error instanceof ArtifactError ? error : unavailable("the request failed", error);
    const status = statusFor(failure);
    if (status >= 500) context.onServerError?.(failure);
    const allow = failure.detail.reason === "method_not_allowed" ? failure.detail.allow : undefined;
    reply(
      response,
      status,
      { error: publicError(failure, status) },
      {
        ...cors,
        ...(typeof allow === "string" ? { allow } : {}),
      },
    );
  }
}

/**
 * A CORS preflight carries no token. An allowed origin gets the API's methods and headers;
 * another origin is refused; without a CORS policy OPTIONS is a method like any other the
 * API does not take (405 with `Allow`).
 */
function preflight(cors: CorsPolicy, request: IncomingMessage, response: ServerResponse): void {
  const origin = cors.allowedOrigin(request);
  if (origin !== undefined) {
    response.writeHead(204, { ...cors.preflightHeaders(origin), "content-length": 0 });
    response.end();
    return;
  }
  if (cors.enabled && request.headers.origin !== undefined) {
    throw capabilityDenied("this origin may not call the API", { reason: "origin_not_allowed" });
  }
  // No route takes OPTIONS, so this throws: 405 with Allow on a known path, else 404.
  parseRoute("OPTIONS", request.url ?? "");
}

function reply(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string>,
): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    // A request whose body was refused unread must not leave it on a kept-alive connection.
    ...(status === 413 ? { connection: "close" } : {}),
  });
  response.end(text);
}
