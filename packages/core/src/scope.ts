import * as crypto from "node:crypto";
import type { Scope } from "./types.js";

/**
 * The scope codec: one canonical, injective string per scope, for map keys. Ids never
 * contain NUL, so NUL-joined fields cannot run into each other. It is never a path or a
 * name prefix; adapters that need a path take `scopeDigest`.
 */
export function scopeKey(scope: Scope): string {
  switch (scope.kind) {
    case "app":
      return `app\0${scope.app}`;
    case "user":
      return `user\0${scope.app}\0${scope.user}`;
    case "session":
      return `session\0${scope.app}\0${scope.user}\0${scope.session}`;
  }
}

export function sameScope(a: Scope, b: Scope): boolean {
  return scopeKey(a) === scopeKey(b);
}

// One-shot hashing (Node 20.12+) skips building a Hash object, a seventh of a small put.
const oneShotHash = (
  crypto as { hash?: (algorithm: string, data: Uint8Array | string, encoding: "hex") => string }
).hash;

/** Lowercase hex SHA-256 of bytes or of a string's UTF-8. */
export function sha256Hex(data: Uint8Array | string): string {
  return oneShotHash
    ? oneShotHash("sha256", data, "hex")
    : crypto.createHash("sha256").update(data).digest("hex");
}

/**
 * A path-safe, fixed-length identity for a scope: the SHA-256 of its JSON fields. Stores
 * lay their data out by it, so it must never change.
 */
export function scopeDigest(scope: Scope): string {
  const fields =
    scope.kind === "app"
      ? [scope.kind, scope.app]
      : scope.kind === "user"
        ? [scope.kind, scope.app, scope.user]
        : [scope.kind, scope.app, scope.user, scope.session];
  return sha256Hex(JSON.stringify(fields));
}
