import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ArtifactError,
  asArtifactError,
  invalidArgument,
  validateOptionKeys,
  validatePositiveInteger,
} from "@artifact-kit/core";
import { withCheckedListings } from "../pages.js";
import { checkBearer } from "./auth.js";
import { type HandlerContext, handle } from "./handlers.js";
import type { DeveloperApiOptions } from "./options.js";
import { parseRoute } from "./route.js";
import { statusFor } from "./status.js";

export interface DeveloperApi {
  /** e.g. http://127.0.0.1:40123 */
  readonly url: string;
  /** Stops accepting requests and ends open connections. Does not close the service. */
  close(): Promise<void>;
}

const MIN_TOKEN_LENGTH = 16;

/**
 * Starts the developer API: names and metadata-only versions of an exact scope, and the
 * deletion of an exact scope after a matching confirmation. It never returns artifact
 * bytes or custom metadata. Every request needs the bearer token; then the resource
 * provider, when given, is asked about the exact scope.
 */
export async function startDeveloperApi(options: DeveloperApiOptions): Promise<DeveloperApi> {
  const given = validateOptionKeys(options, [
    "service",
    "token",
    "host",
    "port",
    "resourceProvider",
    "maxBodyBytes",
  ]);
  if (typeof options.token !== "string" || options.token.length < MIN_TOKEN_LENGTH) {
    throw invalidArgument("token", `must be a string of at least ${MIN_TOKEN_LENGTH} characters`);
  }
  const context: HandlerContext = {
    service: withCheckedListings(options.service),
    resourceProvider: options.resourceProvider,
    maxBodyBytes:
      given.maxBodyBytes === undefined
        ? 4096
        : validatePositiveInteger(given.maxBodyBytes, "maxBodyBytes"),
  };
  const { token } = options;
  const server = createServer((request, response) => {
    void serve(context, token, request, response);
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
  context: HandlerContext,
  token: string,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  try {
    checkBearer(request.headers.authorization, token);
    const route = parseRoute(request.method ?? "", request.url ?? "");
    reply(response, 200, await handle(context, route, request));
  } catch (error) {
    const failure =
      error instanceof ArtifactError
        ? error
        : new ArtifactError("unavailable", "the request failed", { cause: error });
    const { code, message, detail } = failure;
    reply(response, statusFor(failure), { error: { code, message, detail } });
  }
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store",
    // A request whose body was refused unread must not leave it on a kept-alive connection.
    ...(status === 413 ? { connection: "close" } : {}),
  });
  response.end(text);
}
