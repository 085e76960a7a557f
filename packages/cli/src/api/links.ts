import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import {
  capabilityDenied,
  invalidArgument,
  type Scope,
  validateName,
  validatePositiveInteger,
  validateScope,
} from "@artifact-kit/core";

// Signed download links: `/links/<claims>.<signature>`, the claims (scope, name, an exact
// version and an expiry) in base64url JSON and the signature an HMAC-SHA256 over them with
// serve's secret. Anyone holding the link can download that one version until it expires;
// changing a byte of it, or waiting past the expiry, makes it refused. The version is
// resolved when the link is made, so "latest" never drifts to another version's bytes.

export const LINKS_PATH = "/links/";
export const DEFAULT_LINK_TTL_SECONDS = 15 * 60;
export const MAX_LINK_TTL_SECONDS = 7 * 24 * 60 * 60;
const MIN_SECRET_BYTES = 32;

export interface LinkClaims {
  scope: Scope;
  name: string;
  version: number;
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

/** The secret links are signed with: given (at least 32 bytes), or random for this process. */
export function linkSecretFrom(given: unknown): Buffer {
  if (given === undefined) return randomBytes(MIN_SECRET_BYTES);
  if (typeof given !== "string" || Buffer.byteLength(given) < MIN_SECRET_BYTES) {
    throw invalidArgument("linkSecret", `must be a string of at least ${MIN_SECRET_BYTES} bytes`);
  }
  return Buffer.from(given);
}

export function signLink(secret: Buffer | string, claims: LinkClaims): string {
  const payload = Buffer.from(
    JSON.stringify({ s: claims.scope, n: claims.name, v: claims.version, e: claims.expiresAt }),
  ).toString("base64url");
  return `${payload}.${mac(secret, payload)}`;
}

/** The claims of a link signed with `secret` and not yet expired; anything else is refused. */
export function verifyLink(secret: Buffer | string, token: string, now: number): LinkClaims {
  const [payload, signature, ...extra] = token.split(".");
  if (payload === undefined || signature === undefined || extra.length > 0) throw badLink();
  const expected = Buffer.from(mac(secret, payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw badLink();
  let claims: { s?: unknown; n?: unknown; v?: unknown; e?: unknown };
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    throw badLink();
  }
  const expiresAt = validatePositiveInteger(claims.e, "expiresAt");
  if (expiresAt <= now) {
    throw capabilityDenied("this link has expired", { reason: "link_expired" });
  }
  return {
    scope: validateScope(claims.s),
    name: validateName(claims.n),
    version: validatePositiveInteger(claims.v, "version"),
    expiresAt,
  };
}

function mac(secret: Buffer | string, payload: string): string {
  return createHmac("sha256", secret).update(payload).digest("base64url");
}

function badLink() {
  return capabilityDenied("this link is not one this server signed", { reason: "bad_link" });
}
