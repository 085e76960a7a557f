import {
  ARTIFACT_OPERATIONS,
  type ArtifactOperation,
  type ArtifactService,
  type BoundArtifacts,
  bindArtifacts,
  capabilityDenied,
  invalidArgument,
  validateOptionKeys,
} from "@artifact-kit/core";
import type { Context } from "@google/adk";
import { runBound } from "./binding.js";
import { sessionScope, USER_NAMESPACE_PREFIX, userScope } from "./location.js";
import { toolCallBinding } from "./plugin.js";

/** What a tool may do with artifacts: the declared operations, in one scope, for one call. */
export type ToolArtifacts<Op extends ArtifactOperation> = Pick<
  BoundArtifacts,
  Op | "scope" | "allows"
>;

export interface ArtifactGrant<Allow extends readonly ArtifactOperation[]> {
  /** The operations the tool needs: put, get, list, listVersions, delete, attach. */
  readonly allow: Allow;
  /** The session's artifacts (default) or the user's, across their sessions. */
  readonly scope?: "session" | "user";
}

/** A tool body that receives its declared capability beside ADK's arguments and context. */
export type AuthorizedToolBody<Op extends ArtifactOperation, Args, Result> = (
  args: Args,
  artifacts: ToolArtifacts<Op>,
  toolContext: Context,
) => Promise<Result> | Result;

/**
 * Declares a tool's artifact authority, in ADK's idiom: the result is a `FunctionTool`
 * `execute` function. Each call gets a capability (core's `bindArtifacts`) for the
 * invocation's exact session (or user) and the declared operations only, revoked when the
 * call returns; the body runs bound to its invocation, and each mutation is recorded on the
 * tool's event. Needs `ArtifactScopePlugin` on the runner: without it, calls are denied.
 */
export function withArtifactAuthority<
  const Allow extends readonly ArtifactOperation[],
  Args,
  Result,
>(
  service: ArtifactService,
  grant: ArtifactGrant<Allow>,
  body: AuthorizedToolBody<Allow[number], Args, Result>,
): (args: Args, toolContext?: Context) => Promise<Result> {
  const { allow, scope = "session" } = validateGrant(grant);
  return async (args, toolContext) => {
    const binding = toolContext && toolCallBinding(toolContext);
    if (toolContext === undefined || binding === undefined) {
      throw capabilityDenied("this tool call is not bound: add ArtifactScopePlugin to the Runner");
    }
    const { key, recordEffect } = binding;
    const prefix = scope === "user" ? USER_NAMESPACE_PREFIX : "";
    const artifacts = bindArtifacts(
      service,
      scope === "user" ? userScope(key) : sessionScope(key),
      {
        allow,
        ...(recordEffect && { onEffect: (effect) => recordEffect(prefix + effect.name, effect) }),
      },
    );
    try {
      return await runBound(binding, () => body(args, artifacts, toolContext));
    } finally {
      artifacts.revoke();
    }
  };
}

function validateGrant<Allow extends readonly ArtifactOperation[]>(
  grant: ArtifactGrant<Allow>,
): ArtifactGrant<Allow> {
  const { allow, scope } = validateOptionKeys(grant, ["allow", "scope"], "grant");
  const known: readonly unknown[] = ARTIFACT_OPERATIONS;
  if (!Array.isArray(allow) || !allow.every((operation) => known.includes(operation))) {
    throw invalidArgument(
      "grant.allow",
      `must list operations among ${ARTIFACT_OPERATIONS.join(", ")}`,
    );
  }
  if (scope !== undefined && scope !== "session" && scope !== "user") {
    throw invalidArgument("grant.scope", 'must be "session" or "user"');
  }
  return grant;
}
