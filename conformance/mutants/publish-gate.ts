import type { ArtifactMeta, PutOptions, Scope, UploadOptions } from "@artifact-kit/core";
import { MemoryArtifactService, type MemoryArtifactServiceOptions } from "@artifact-kit/memory";
import { ForwardingService } from "./forwarding.js";
import type { Mutant } from "./index.js";

// Publish-gate mutants (PutOptions.publishGate): each lets a put or an upload publish at a
// moment the gate forbids.

/** The options without their gate, for the wrapped adapter. */
function ungated<T extends PutOptions>(options: T | undefined): T | undefined {
  if (options?.publishGate === undefined) return options;
  const { publishGate: _, ...rest } = options;
  return rest as T;
}

/** Drops the gate: the put publishes at once. */
export class PutIgnoresGate extends ForwardingService {
  override put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    return super.put(scope, name, data, ungated(options));
  }
}

/** Publishes, then waits for the gate before it answers: a refusal comes too late. */
export class WaitsForGateAfterPublishing extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    const meta = await super.put(scope, name, data, ungated(options));
    await options?.publishGate;
    return meta;
  }
}

/** Waits for the gate, but publishes whether it fulfilled or rejected. */
export class PublishesThoughRefused extends ForwardingService {
  override async put(scope: Scope, name: string, data: Uint8Array, options?: PutOptions) {
    await Promise.resolve(options?.publishGate).catch(() => undefined);
    return super.put(scope, name, data, ungated(options));
  }
}

/** Waits for the gate and the publication side by side. */
export class PublishesBesideTheGate extends ForwardingService {
  override async put(
    scope: Scope,
    name: string,
    data: Uint8Array,
    options?: PutOptions,
  ): Promise<ArtifactMeta> {
    const [meta] = await Promise.all([
      super.put(scope, name, data, ungated(options)),
      options?.publishGate,
    ]);
    return meta;
  }
}

/** Honours the gate on put, drops it on an upload. */
export class UploadIgnoresGate extends ForwardingService {
  override openUpload(scope: Scope, name: string, options?: UploadOptions) {
    return super.openUpload(scope, name, ungated(options));
  }
}

const memory = (options?: MemoryArtifactServiceOptions) => new MemoryArtifactService(options);

/** Each wraps the memory adapter; no law but the publication family gives a write a gate. */
export const PUBLISH_GATE_MUTANTS: readonly Mutant[] = (
  [
    ["a put ignores its publishGate", PutIgnoresGate],
    ["a put waits for its publishGate only after publishing", WaitsForGateAfterPublishing],
    ["a put publishes though its publishGate rejected", PublishesThoughRefused],
    ["a put publishes while it waits for its publishGate", PublishesBesideTheGate],
    ["an upload ignores its publishGate", UploadIgnoresGate],
  ] as const
).map(([name, Broken]) => ({
  name,
  make: (options?: MemoryArtifactServiceOptions) => new Broken(memory(options)),
  onlyCaughtBy: "publication",
}));
