import { timingSafeEqual } from "node:crypto";
import { capabilityDenied, sha256Hex } from "@artifact-kit/core";
import { CSRF_HEADER, type SessionStore } from "./sessions.js";

const BEARER = /^Bearer ([\x21-\x7e]+)$/;

/** Compares digests, so neither the token's length nor its content leaks through timing. */
export function isToken(given: string, token: string): boolean {
  return timingSafeEqual(
    Buffer.from(sha256Hex(given), "hex"),
    Buffer.from(sha256Hex(token), "hex"),
  );
}

export function checkBearer(header: string | undefined, token: string): void {
  const given = header === undefined ? undefined : BEARER.exec(header)?.[1];
  if (given === undefined || !isToken(given, token)) throw unauthenticated();
}

function unauthenticated() {
  return capabilityDenied("a valid bearer token is required", { reason: "unauthenticated" });
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

/**
 * Every API request is the token's: either its bearer header (a script, curl) or a console
 * session's cookie, and then a state change must also carry the session's CSRF token. A
 * request with an Authorization header is judged by it alone.
 */
export function authenticate(
  request: Request,
  token: string,
  sessions: SessionStore,
  sessionId: string | undefined,
): void {
  const header = request.headers.get("authorization") ?? undefined;
  if (header !== undefined || sessionId === undefined) {
    checkBearer(header, token);
    return;
  }
  const session = sessions.find(sessionId);
  if (session === undefined) throw unauthenticated();
  if (!SAFE_METHODS.has(request.method)) {
    sessions.checkCsrf(session, request.headers.get(CSRF_HEADER) ?? undefined);
  }
}
