import { capabilityDenied, type Scope, validateOptionKeys } from "@artifact-kit/core";
import type { HttpBindings } from "@hono/node-server";
import type { Context, Hono } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { isToken } from "./auth.js";
import { readJsonBody } from "./body.js";
import type { ConsoleAsset } from "./console-assets.js";
import { CONSOLE_CSP } from "./console-assets.js";
import { jsonReply } from "./reply.js";
import { withinDeadline } from "./request-deadline.js";
import { CSRF_HEADER, SESSION_COOKIE, type SessionStore } from "./sessions.js";

/** What the Node adapter hands every handler: the raw request among it. */
export type ServerEnv = { Bindings: HttpBindings };

export interface ConsoleContext {
  token: string;
  sessions: SessionStore;
  maxBodyBytes: number;
  requestTimeoutMs: number;
  bound: Scope | undefined;
  assets: ReadonlyMap<string, ConsoleAsset>;
}

export function sessionIdOf(c: Context): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

/**
 * The console's routes: its page and files (public: they hold no data), and the session
 * behind sign-in. The token travels once, in the body of the sign-in POST, and is traded for
 * an HttpOnly cookie that page scripts cannot read. The cookie has no Max-Age, so it ends
 * when the browser closes; the server ends it at its expiry or at sign-out.
 */
export function mountConsole(app: Hono<ServerEnv>, context: ConsoleContext): void {
  app.get("/", (c) => c.redirect("/console/"));
  app.get("/console", (c) => c.redirect("/console/"));
  app.get("/console/", () => asset(context, "index.html"));
  app.get("/console/:file", (c) => asset(context, c.req.param("file")));

  app.post("/session", async (c) => {
    // A sign-in is a request like any other: its body is read within the deadline.
    const given = await withinDeadline(context.requestTimeoutMs, () =>
      readJsonBody(c.req.raw, context.maxBodyBytes),
    );
    const body = validateOptionKeys(given, ["token"], "body");
    if (typeof body.token !== "string" || !isToken(body.token, context.token)) {
      throw capabilityDenied("that is not this server's token", { reason: "unauthenticated" });
    }
    const { id, csrf } = context.sessions.open();
    setCookie(c, SESSION_COOKIE, id, { httpOnly: true, sameSite: "Strict", path: "/" });
    return withCookies(c, jsonReply(200, sessionBody(context, csrf)));
  });

  app.get("/session", (c) => {
    const session = context.sessions.find(sessionIdOf(c));
    if (session === undefined) {
      throw capabilityDenied("not signed in", { reason: "unauthenticated" });
    }
    return jsonReply(200, sessionBody(context, session.csrf));
  });

  app.delete("/session", (c) => {
    const id = sessionIdOf(c);
    const session = context.sessions.find(id);
    if (session !== undefined) {
      context.sessions.checkCsrf(session, c.req.header(CSRF_HEADER));
      context.sessions.close(id);
    }
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    return withCookies(c, jsonReply(200, { signedOut: true }));
  });
}

function sessionBody(context: ConsoleContext, csrf: string) {
  return { csrf, ...(context.bound === undefined ? {} : { scope: context.bound }) };
}

/** Copies the Set-Cookie headers the cookie helpers put on the context onto a reply. */
function withCookies(c: Context, response: Response): Response {
  for (const cookie of c.res.headers.getSetCookie()) response.headers.append("set-cookie", cookie);
  return response;
}

function asset(context: ConsoleContext, file: string): Response {
  const found = context.assets.get(file);
  if (found === undefined) {
    return jsonReply(404, { error: { code: "not_found", message: "no such console file" } });
  }
  return new Response(found.body, {
    headers: {
      "content-type": found.type,
      "content-security-policy": CONSOLE_CSP,
      "cache-control": "no-cache",
    },
  });
}
