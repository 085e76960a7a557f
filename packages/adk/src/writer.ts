import {
  type ArtifactEffect,
  invalidArgument,
  type PutOptions,
  type Scope,
} from "@artifact-kit/core";
import type { InvocationBinding } from "./binding.js";
import { type AdkSessionKey, locate } from "./location.js";
import { optional } from "./optional.js";

/** What every mutation the bridge hands to an `AdkArtifactWriter` names: where, and for whom. */
export interface AdkMutation {
  readonly key: AdkSessionKey;
  /** The ADK filename (`user:` prefix for the user scope). */
  readonly filename: string;
  readonly scope: Scope;
  readonly name: string;
  /** The tool call making the mutation, when it runs under `ArtifactScopePlugin`. */
  readonly call?: InvocationBinding["call"];
}

/** One put: where, what, and for which invocation. */
export interface AdkPutRequest extends AdkMutation {
  readonly data: Uint8Array;
  readonly options: PutOptions;
}

/** One `deleteArtifact`: every live version of the name, for which invocation. */
export interface AdkDeleteRequest extends AdkMutation {
  /**
   * Told of each version as it is removed, when a tool call's event records the call's
   * effects: so a delete cut short still shows the versions it did remove.
   */
  readonly onEffect?: (effect: ArtifactEffect) => void;
}

/**
 * Performs the bridge's mutations in place of plain scoped calls: the journaled writer of
 * `@artifact-kit/adk/effects` records each effect's intent and receipt around the call.
 * Without `delete`, `deleteArtifact` deletes as a bridge without a writer does.
 */
export interface AdkArtifactWriter {
  put(request: AdkPutRequest): Promise<ArtifactEffect>;
  /** Removes every live version of the name; a name without versions is done. */
  delete?(request: AdkDeleteRequest): Promise<void>;
}

/** `writer` as the bridge's options take it, or invalid_argument. */
export function validateWriter(writer: unknown): AdkArtifactWriter {
  const candidate = writer as Partial<Record<keyof AdkArtifactWriter, unknown>> | null;
  if (typeof candidate?.put !== "function") {
    throw invalidArgument("options.writer", "must have a put(request) method");
  }
  if (candidate.delete !== undefined && typeof candidate.delete !== "function") {
    throw invalidArgument("options.writer.delete", "must be a delete(request) method when given");
  }
  return writer as AdkArtifactWriter;
}

/** The mutation an ADK request names, with the tool call it runs for (if any). */
export function mutationOf(
  request: AdkSessionKey & { readonly filename: string },
  binding: InvocationBinding | undefined,
): AdkMutation {
  const { appName, userId, sessionId, filename } = request;
  const key = { appName, userId, sessionId };
  return { key, filename, ...locate(key, filename), ...optional("call", binding?.call) };
}
