import { createHash } from "node:crypto";
import type { Scope } from "./types.js";

/**
 * The scope codec: one canonical, injective string per scope, for map keys and digests.
 * It is never a path or a name prefix; adapters that need a path take `scopeDigest`.
 */
export function scopeKey(scope: Scope): string {
  switch (scope.kind) {
    case "app":
      return JSON.stringify([scope.kind, scope.app]);
    case "user":
      return JSON.stringify([scope.kind, scope.app, scope.user]);
    case "session":
      return JSON.stringify([scope.kind, scope.app, scope.user, scope.session]);
  }
}

/** Inverse of `scopeKey`. */
export function scopeFromKey(key: string): Scope {
  const [kind, app, user, session] = JSON.parse(key) as [Scope["kind"], string, string, string];
  if (kind === "app") return { kind, app };
  if (kind === "user") return { kind, app, user };
  return { kind, app, user, session };
}

export function sameScope(a: Scope, b: Scope): boolean {
  return scopeKey(a) === scopeKey(b);
}

/** Lowercase hex SHA-256 of bytes or of a string's UTF-8. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash("sha256").update(data).digest("hex");
}

/** A path-safe, fixed-length identity for a scope. */
export function scopeDigest(scope: Scope): string {
  return sha256Hex(scopeKey(scope));
}
