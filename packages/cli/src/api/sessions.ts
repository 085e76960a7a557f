import { randomBytes, timingSafeEqual } from "node:crypto";
import { capabilityDenied, sha256Hex } from "@artifact-kit/core";

// Console sessions: signing in with the API token trades it for a random session id kept in
// an HttpOnly, SameSite=Strict cookie, so the token is never stored by the page, carried in
// a URL or sent again. Each session has its own CSRF token that every state change must echo
// in a header: a page on another site can make the browser send the cookie (not with
// SameSite=Strict, but defence in depth), never read or send the header.

export const SESSION_COOKIE = "artifact_kit_session";
export const CSRF_HEADER = "x-csrf-token";
const DEFAULT_SESSION_TTL_MS = 8 * 60 * 60 * 1000;

interface Session {
  csrf: string;
  expiresAt: number;
}

export class SessionStore {
  private readonly sessions = new Map<string, Session>();

  constructor(readonly ttlMs: number = DEFAULT_SESSION_TTL_MS) {}

  /** A new session: its id (the cookie) and its CSRF token. */
  open(): { id: string; csrf: string } {
    this.sweep();
    const id = randomBytes(32).toString("base64url");
    const csrf = randomBytes(32).toString("base64url");
    this.sessions.set(digest(id), { csrf, expiresAt: Date.now() + this.ttlMs });
    return { id, csrf };
  }

  /** The live session of this cookie value, or undefined. */
  find(id: string | undefined): Session | undefined {
    if (id === undefined) return undefined;
    // Keyed by the id's digest: a map lookup on the id itself could leak it through timing.
    const session = this.sessions.get(digest(id));
    if (session === undefined) return undefined;
    if (session.expiresAt <= Date.now()) {
      this.sessions.delete(digest(id));
      return undefined;
    }
    return session;
  }

  close(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(digest(id));
  }

  /** Refuses a state change whose CSRF header is not the session's token. */
  checkCsrf(session: Session, header: string | undefined): void {
    const ok =
      header !== undefined &&
      timingSafeEqual(Buffer.from(digest(header), "hex"), Buffer.from(digest(session.csrf), "hex"));
    if (!ok) {
      throw capabilityDenied("a state change needs the session's CSRF token", {
        reason: "csrf",
      });
    }
  }

  private sweep(): void {
    const now = Date.now();
    for (const [key, session] of this.sessions) {
      if (session.expiresAt <= now) this.sessions.delete(key);
    }
  }
}

function digest(text: string): string {
  return sha256Hex(text);
}
