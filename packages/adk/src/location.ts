import type { Scope } from "@artifact-kit/core";
import type { InvocationContext, ListArtifactKeysRequest } from "@google/adk";

/** ADK's namespace marker: a filename that starts with it belongs to the user, across sessions. */
export const USER_NAMESPACE_PREFIX = "user:";

/** The app, user and session an ADK request names. */
export type AdkSessionKey = ListArtifactKeysRequest;

/** The app, user and session an invocation runs for. */
export function invocationKey(invocationContext: InvocationContext): AdkSessionKey {
  const { appName, userId, session } = invocationContext;
  return { appName, userId, sessionId: session.id };
}

interface ArtifactLocation {
  readonly scope: Scope;
  readonly name: string;
}

export function sessionScope({ appName, userId, sessionId }: AdkSessionKey): Scope {
  return { kind: "session", app: appName, user: userId, session: sessionId };
}

export function userScope({ appName, userId }: AdkSessionKey): Scope {
  return { kind: "user", app: appName, user: userId };
}

/**
 * Where an ADK filename lives: `user:report.txt` is `report.txt` in the user scope (the
 * prefix is ADK's way of naming the scope, so it is not stored); any other filename is
 * itself, in the session scope.
 */
export function locate(key: AdkSessionKey, filename: string): ArtifactLocation {
  return filename.startsWith(USER_NAMESPACE_PREFIX)
    ? { scope: userScope(key), name: filename.slice(USER_NAMESPACE_PREFIX.length) }
    : { scope: sessionScope(key), name: filename };
}
