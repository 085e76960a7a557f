import type { ArtifactEffect } from "@artifact-kit/core";
import { BasePlugin, type Context, type Event, type InvocationContext } from "@google/adk";
import type { InvocationBinding } from "./binding.js";
import { bindSessionService } from "./bound-service.js";
import { invocationKey } from "./location.js";
import { toAdkVersion } from "./version.js";

/** Key of `Event.customMetadata` under which a tool's artifact effects are recorded. */
export const ARTIFACT_EFFECTS_KEY = "artifactKitEffects";

/** One successful mutation by a tool call, as recorded on its event: never bytes. */
export interface AdkArtifactEffect {
  readonly functionCallId: string;
  readonly operation: "put" | "delete";
  /** The ADK filename (`user:` prefix for the user scope). */
  readonly name: string;
  /** The ADK version (from 0). */
  readonly version: number;
  readonly size: number;
  readonly sha256: string;
  readonly mimeType: string;
}

/** The binding of each tool call in flight, for declared tool authority to find. */
const toolCallBindings = new WeakMap<Context, InvocationBinding>();

/** The binding `ArtifactScopePlugin` made for this tool call, if it made one. */
export function toolCallBinding(toolContext: Context): InvocationBinding | undefined {
  return toolCallBindings.get(toolContext);
}

/** The same invocation context, but reading `artifactService` as given (writes go through). */
function withArtifactService(
  invocationContext: InvocationContext,
  artifactService: InvocationContext["artifactService"],
): InvocationContext {
  return new Proxy(invocationContext, {
    get: (target, property) =>
      property === "artifactService" ? artifactService : Reflect.get(target, property, target),
  });
}

/**
 * Binds each invocation to its exact app, user and session, and each tool call to its
 * function call id: through the invocation's artifact service, any request for another
 * scope is `capability_denied`, and every successful mutation a tool makes is recorded on
 * the tool's event under `customMetadata.artifactKitEffects`. Register it first among the
 * runner's plugins: a plugin before it that answers a callback skips the ones after it.
 */
export class ArtifactScopePlugin extends BasePlugin {
  /** Effects of tool calls whose event has not passed yet, by function call id. */
  readonly #pending = new Map<string, { invocationId: string; effects: AdkArtifactEffect[] }>();

  constructor(name = "artifact_kit_scope") {
    super(name);
  }

  override async onUserMessageCallback({
    invocationContext,
  }: {
    invocationContext: InvocationContext;
  }): Promise<undefined> {
    bindInvocation(invocationContext);
    return undefined;
  }

  override async beforeRunCallback({
    invocationContext,
  }: {
    invocationContext: InvocationContext;
  }): Promise<undefined> {
    bindInvocation(invocationContext);
    return undefined;
  }

  override async beforeToolCallback({ toolContext }: { toolContext: Context }): Promise<undefined> {
    const invocationContext = toolContext.invocationContext;
    const current = invocationContext.artifactService;
    if (current === undefined) return undefined;
    const { invocationId } = invocationContext;
    const functionCallId = toolContext.functionCallId;
    const binding: InvocationBinding = {
      key: invocationKey(invocationContext),
      ...(functionCallId !== undefined && {
        recordEffect: (name: string, effect: ArtifactEffect) =>
          this.#record(invocationId, functionCallId, name, effect),
        call: { invocationId, functionCallId },
      }),
    };
    toolCallBindings.set(toolContext, binding);
    // The tool's own context reads a service bound to this call; the invocation's is unchanged.
    (toolContext as { invocationContext: InvocationContext }).invocationContext =
      withArtifactService(invocationContext, bindSessionService(current, binding));
    return undefined;
  }

  override async onEventCallback({ event }: { event: Event }): Promise<Event | undefined> {
    const effects = (event.content?.parts ?? []).flatMap((part) => {
      const id = part.functionResponse?.id;
      const pending = id === undefined ? undefined : this.#pending.get(id);
      if (id !== undefined) this.#pending.delete(id);
      return pending?.effects ?? [];
    });
    if (effects.length === 0) return undefined;
    return {
      ...event,
      customMetadata: { ...event.customMetadata, [ARTIFACT_EFFECTS_KEY]: effects },
    };
  }

  override async afterRunCallback({
    invocationContext,
  }: {
    invocationContext: InvocationContext;
  }): Promise<void> {
    // Effects of calls that produced no event (a long-running tool that answered nothing).
    for (const [id, pending] of this.#pending) {
      if (pending.invocationId === invocationContext.invocationId) this.#pending.delete(id);
    }
  }

  #record(invocationId: string, functionCallId: string, name: string, effect: ArtifactEffect) {
    const pending = this.#pending.get(functionCallId) ?? { invocationId, effects: [] };
    this.#pending.set(functionCallId, pending);
    pending.effects.push({
      functionCallId,
      operation: effect.operation,
      name,
      version: toAdkVersion(effect.version),
      size: effect.size,
      sha256: effect.sha256,
      mimeType: effect.mimeType,
    });
  }
}

/** Swaps the invocation's artifact service for one bound to its exact app, user and session. */
function bindInvocation(invocationContext: InvocationContext): void {
  const current = invocationContext.artifactService;
  if (current === undefined) return;
  (invocationContext as { artifactService: typeof current }).artifactService = bindSessionService(
    current,
    { key: invocationKey(invocationContext) },
  );
}
