import { invalidArgument, type Scope, validateScope } from "@artifact-kit/core";

export interface ScopeOptions {
  app?: string;
  user?: string;
  session?: string;
}

/** The scope flags, as a usage line shows them. */
export const SCOPE_USAGE = "--app APP [--user USER [--session SESSION]]";

/**
 * `--app` alone is an app scope, with `--user` a user scope, with `--session` too a
 * session scope. Ids are validated by core, exactly as the adapters do.
 */
export function scopeFromOptions({ app, user, session }: ScopeOptions): Scope {
  if (app === undefined) {
    throw invalidArgument("app", `a scope is required: ${SCOPE_USAGE}`);
  }
  if (user === undefined) {
    if (session !== undefined) throw invalidArgument("session", "--session needs --user");
    return validateScope({ kind: "app", app });
  }
  if (session === undefined) return validateScope({ kind: "user", app, user });
  return validateScope({ kind: "session", app, user, session });
}

export function describeScope(scope: Scope): string {
  switch (scope.kind) {
    case "app":
      return `app ${JSON.stringify(scope.app)}`;
    case "user":
      return `app ${JSON.stringify(scope.app)} user ${JSON.stringify(scope.user)}`;
    case "session":
      return `app ${JSON.stringify(scope.app)} user ${JSON.stringify(scope.user)} session ${JSON.stringify(scope.session)}`;
  }
}
