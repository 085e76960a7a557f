import { AsyncLocalStorage } from "node:async_hooks";
import { type ArtifactEffect, capabilityDenied } from "@artifact-kit/core";
import type { AdkSessionKey } from "./location.js";

/**
 * What code running for one ADK invocation (or one of its tool calls) may reach: exactly one
 * app, user and session. Set by `ArtifactScopePlugin` and by declared tool authority, read by
 * the bridge on every request.
 */
export interface InvocationBinding {
  readonly key: AdkSessionKey;
  /** Told of each successful mutation, with the ADK filename it was made under (tool calls). */
  readonly recordEffect?: (filename: string, effect: ArtifactEffect) => void;
  /** The invocation and function call a tool call's binding was made for (journal correlation). */
  readonly call?: { readonly invocationId: string; readonly functionCallId: string };
}

const bindings = new AsyncLocalStorage<InvocationBinding>();

/** The binding the calling code runs under, if any. */
export function currentBinding(): InvocationBinding | undefined {
  return bindings.getStore();
}

/** Runs `work` (and everything it starts) under `binding`. */
export function runBound<T>(binding: InvocationBinding, work: () => T): T {
  return bindings.run(binding, work);
}

/**
 * Refuses a request for another app, user or session than the bound invocation's. Outside
 * any binding (application code, admin scripts) every request passes, as without the plugin.
 */
export function requireBoundKey(request: AdkSessionKey): void {
  const bound = currentBinding()?.key;
  if (bound === undefined) return;
  for (const field of ["appName", "userId", "sessionId"] as const) {
    if (request[field] !== bound[field]) {
      throw capabilityDenied(
        `${field} is outside the invocation this code runs for; it may reach only its own app, user and session`,
        { field },
      );
    }
  }
}

/**
 * Runs `work` bound to one exact app, user and session, as a tool call of an invocation is:
 * for application code that acts for a session outside a `Runner`.
 */
export function runInInvocationScope<T>(key: AdkSessionKey, work: () => T): T {
  const { appName, userId, sessionId } = key;
  return runBound({ key: { appName, userId, sessionId } }, work);
}
