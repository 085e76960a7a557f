import { capabilityDenied, notFound } from "@artifact-kit/core";
import { Hono } from "hono";
import { authenticate } from "./auth.js";
import { openDownloadResponse, prepareUpload } from "./bytes.js";
import type { ConsoleAsset } from "./console-assets.js";
import { mountConsole, type ServerEnv, sessionIdOf } from "./console-session.js";
import type { CorsPolicy } from "./cors.js";
import { type HandlerContext, handle, refuseForeignReplies } from "./handlers.js";
import { LINKS_PATH, verifyLink } from "./links.js";
import { failureReply, jsonReply } from "./reply.js";
import { withinDeadline } from "./request-deadline.js";
import { parseRoute } from "./route.js";
import { checkWithinBound } from "./scope-bound.js";
import { listScopes } from "./scopes.js";
import type { SessionStore } from "./sessions.js";

export interface ServerContext extends HandlerContext {
  token: string;
  requestTimeoutMs: number;
  cors: CorsPolicy;
  sessions: SessionStore;
  assets: ReadonlyMap<string, ConsoleAsset>;
}

/**
 * The server's routes on Hono: the console (page, files, session), signed links, and the
 * API, whose paths are parsed from the raw request target (see route.ts). Every answer says
 * nosniff and sends no referrer; failures answer with publicError's body.
 */
export function buildApp(context: ServerContext): Hono<ServerEnv> {
  const app = new Hono<ServerEnv>();
  app.use(async (c, next) => {
    await next();
    c.res.headers.set("x-content-type-options", "nosniff");
    c.res.headers.set("referrer-policy", "no-referrer");
  });
  app.onError((error, c) => failureReply(error, corsOf(context, c.req.raw), context.onServerError));
  app.options("*", (c) => preflight(context, c.req.raw, c.env.incoming.url ?? ""));
  mountConsole(app, context);
  app.get(`${LINKS_PATH}:token`, (c) => signedDownload(context, c.req.raw, c.req.param("token")));
  app.all("*", (c) => api(context, c.req.raw, c.env.incoming.url ?? "", sessionIdOf(c)));
  return app;
}

function corsOf(context: ServerContext, request: Request): Record<string, string> {
  return context.cors.responseHeaders(request.headers.get("origin") ?? undefined);
}

async function api(
  context: ServerContext,
  request: Request,
  rawUrl: string,
  sessionId: string | undefined,
): Promise<Response> {
  authenticate(request, context.token, context.sessions, sessionId);
  const route = parseRoute(request.method, rawUrl);
  const cors = corsOf(context, request);
  if (route.operation === "download") {
    return withinDeadline(context.requestTimeoutMs, (deadline, signal) =>
      refuseForeignReplies(() =>
        openDownloadResponse(context, route, request, { deadline, signal }),
      ),
    ).then((response) => withHeaders(response, cors));
  }
  if (route.operation === "upload") {
    const run = await withinDeadline(context.requestTimeoutMs, (deadline, signal) =>
      prepareUpload(context, route, request, { deadline, signal }),
    );
    return jsonReply(201, await run(), cors);
  }
  const body = await withinDeadline(context.requestTimeoutMs, (deadline, signal) =>
    route.operation === "listScopes"
      ? listScopes(context, route, { deadline, signal })
      : handle(context, route, request, { deadline, signal }),
  );
  return jsonReply(200, body, cors);
}

/** A link carries its own authority: the signature, the expiry and the server's bound. */
async function signedDownload(
  context: ServerContext,
  request: Request,
  token: string,
): Promise<Response> {
  const claims = verifyLink(context.linkSecret, token, Date.now());
  checkWithinBound(context.bound, claims.scope);
  return withinDeadline(context.requestTimeoutMs, (deadline, signal) =>
    refuseForeignReplies(() =>
      openDownloadResponse(
        { ...context, resourceProvider: undefined },
        {
          operation: "download",
          scope: claims.scope,
          name: claims.name,
          version: claims.version,
          disposition: "attachment",
        },
        request,
        { deadline, signal },
      ),
    ),
  );
}

function withHeaders(response: Response, headers: Record<string, string>): Response {
  for (const [key, value] of Object.entries(headers)) response.headers.set(key, value);
  return response;
}

/**
 * A CORS preflight carries no token. An allowed origin gets the API's methods and headers;
 * another origin is refused; without a CORS policy OPTIONS is a method like any other the
 * API does not take (405 with `Allow`).
 */
function preflight(context: ServerContext, request: Request, rawUrl: string): Response {
  const origin = request.headers.get("origin") ?? undefined;
  const allowed = context.cors.allowedOrigin(origin);
  if (allowed !== undefined) {
    return new Response(null, { status: 204, headers: context.cors.preflightHeaders(allowed) });
  }
  if (context.cors.enabled && origin !== undefined) {
    throw capabilityDenied("this origin may not call the API", { reason: "origin_not_allowed" });
  }
  // No route takes OPTIONS, so this throws: 405 with Allow on a known path, else 404.
  parseRoute("OPTIONS", rawUrl);
  throw notFound("route");
}
